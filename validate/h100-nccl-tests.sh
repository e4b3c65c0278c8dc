#!/bin/sh
# Predict every point of the published nccl-tests runs on 8x H100 nodes with
# the dgx-h100 preset, then compare with gcsim validate:
#  - validate/published/h100_ib_nccl_tests.csv: allreduce on 2-8 nodes with
#    400 Gb/s InfiniBand, two clusters (NVIDIA/nccl-tests#309);
#  - validate/published/h100_node_nccl_tests.csv: allgather,
#    reduce-scatter and allreduce on one node
#    (togethercomputer/together-nccl-tests).
#
#   sh validate/h100-nccl-tests.sh [GCSIM] [OUTDIR] [-- extra gcsim run options]
#   sh validate/h100-nccl-tests.sh --list
#
# A row whose algorithm NCCL chose ("default") is predicted with the
# algorithm and protocol NCCL's own cost model picks for its size
# (collective.algo auto, collective.tuner nccl), as NCCL itself picks them; a
# forced algorithm is predicted with that one alone, its protocol again
# NCCL's pick. H100_DEFAULT_ALGOS="ring tree nvlstree" predicts the default
# allreduce rows across nodes with each of those algorithms instead (protocol
# by gcsim's closed form), and gcsim validate takes the fastest: what NCCL
# would run if its model were never wrong. H100_NCCL_ESTIMATE=1 compares
# NCCL's own estimate of its pick (printed under each run's table) instead
# of gcsim's simulation of it: how far NCCL's cost model itself is off.
# GCSIM defaults to build/gcsim, OUTDIR to a fresh temporary folder; the
# points compared are OUTDIR/measured.csv, the predictions
# OUTDIR/predicted.csv, the report OUTDIR/report.csv and the algorithm and
# protocol NCCL's model picked per size OUTDIR/chosen.txt. About a minute on
# one core. H100_NODES=N keeps the rows of N nodes only, H100_MIN_BYTES=B the
# sizes of at least B bytes, H100_MAX_BYTES=B those of at most B. --list prints the runs (collective, nodes,
# algorithm, GPUs per thread, sizes) without running them. Exits with gcsim validate's status
# (1 when the tolerance fails), 3 when GCSIM is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pub="$here/published/h100_ib_nccl_tests.csv $here/published/h100_node_nccl_tests.csv"
# the rows kept, without comments and headers
rows() {
	# shellcheck disable=SC2086
	grep -hv '^#' $pub | grep -v '^system,' | awk -F, -v only="${H100_NODES:-}" \
		-v min="${H100_MIN_BYTES:-0}" -v max="${H100_MAX_BYTES:-}" \
		'(only == "" || $3 == only) && $6 + 0 >= min + 0 && (max == "" || $6 + 0 <= max + 0)'
}
# one run per (collective, nodes, algorithm, GPUs per thread):
# "collective nodes algo gpus_per_thread size,size,..." (the thread's GPUs
# from the system's "(-g N)", else one)
groups() {
	rows | awk -F, '{
		g = 1;
		if (match($1, /-g [0-9]+/)) g = substr($1, RSTART + 3, RLENGTH - 3);
		key = $4 " " $3 " " $5 " " g;
		if (!(key in sizes)) { order[n++] = key; sizes[key] = $6 "B"; seen[key "/" $6] = 1 }
		else if (!((key "/" $6) in seen)) { sizes[key] = sizes[key] "," $6 "B"; seen[key "/" $6] = 1 }
	} END { for (i = 0; i < n; i++) print order[i], sizes[order[i]] }'
}
name=h100-nccl-tests
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
meas=$out/measured.csv
{
	echo "system,gpus,nodes,collective,algo,bytes,busbw_GBps,algbw_GBps,time_us,source"
	rows
} > "$meas"
scen=$out/h100.yaml
cat > "$scen" <<'YAML'
schema_version: 1
name: 8x H100 nodes (validate/published/h100_*_nccl_tests.csv)
topology: {preset: dgx-h100, nodes: 2}
collective: {op: allreduce, algo: ring, protocol: auto, sizes: [1MiB]}
YAML
groups > "$out/groups.txt"
: > "$out/chosen.txt"
while read -r coll nodes algo gpt sizes; do
	algos=$algo
	tuner=nccl
	if [ "$algo" = default ]; then
		algos=auto
		if [ -n "${H100_DEFAULT_ALGOS:-}" ] && [ "$coll" = allreduce ] && [ "$nodes" -gt 1 ]; then
			algos=$H100_DEFAULT_ALGOS
			tuner=gcsim
		fi
	fi
	# one thread driving several GPUs (nccl-tests -g N) enqueues their
	# operations in turn: time 20 back-to-back operations, nccl-tests' -n
	# that the runs print, so that the enqueue overlaps the GPUs' work as it
	# does there; with one GPU per process the time per operation does not
	# depend on the count, and one is timed
	iters=1
	[ "$gpt" -gt 1 ] && iters=20
	# NCCL's model as 2.26.2 has it: the release runs 1 and 2 and the one-node
	# set state; runs 3-7 state none, and the thread they were posted to opened
	# on 2025-05-20, when 2.26 was NCCL's newest series (2.26.2 to 2.27.7 share
	# one model, gm_ncclver)
	ver=""
	[ "$tuner" = nccl ] && ver="--set collective.nccl_version=2.26.2"
	for a in $algos; do
		# shellcheck disable=SC2086
		"$gcsim" run "$scen" --set topology.nodes="$nodes" --set collective.op="$coll" \
			--set collective.algo="$a" --set collective.tuner="$tuner" $ver \
			--set collective.sizes="[$sizes]" \
			--set collective.gpus_per_thread="$gpt" --set collective.iters="$iters" "$@" \
			--results "$out/part.csv" > "$out/run.txt"
		if [ -n "${H100_NCCL_ESTIMATE:-}" ]; then
			# "... 262144 B tree/ll128 (NCCL's estimate 51.2 us), ..." -> time
			tr ',' '\n' < "$out/run.txt" | sed -n "s/.* \([0-9][0-9]*\) B .*NCCL's estimate \([0-9.]*\) us.*/\1 \2/p" > "$out/est.txt"
			awk -F, -v OFS=, 'NR == FNR { est[$1] = $2; next }
				/^#/ || !($5 in est) { print; next } { $7 = est[$5]; print }' \
				FS=' ' "$out/est.txt" FS=, "$out/part.csv" > "$out/part.tmp"
			mv "$out/part.tmp" "$out/part.csv"
		fi
		# what NCCL's model picked per size, kept across runs for
		# validate/report.sh: "collective nodes algo size pick" lines, pick
		# "tree/ll" (algo auto) or "ring/ll" (a forced algorithm, its protocol
		# picked); none when the tuner is gcsim's
		awk -v c="$coll" -v n="$nodes" -v a="$a" '/^# (algorithm|protocol) chosen per size/ {
			sub(/^[^:]*: /, ""); k = split($0, it, ", ");
			for (i = 1; i <= k; i++) { split(it[i], f, " ");
				print c, n, a, f[1], (f[3] ~ /\// ? f[3] : a "/" f[3]) } }' \
			"$out/run.txt" >> "$out/chosen.txt"
		append_part
		echo "$name: $coll on $nodes nodes, $a: $sizes" >&2
	done
done < "$out/groups.txt"
compare
