#!/bin/sh
# Predict every point of validate/published/p5_efa_allreduce_sweep.csv (nccl-tests
# allreduce on 2-32 AWS p5 nodes) with the algorithm and protocol the AWS tuner
# ran there (the rows' source column), then compare with gcsim validate.
# P5_SWEEP_OP=allgather or alltoall predicts the same cluster's allgather or
# alltoall sweep instead (p5_efa_allgather_sweep.csv: NCCL's own picks at
# every point; p5_efa_alltoall_sweep.csv: grouped send/receive, pairwise,
# with the run's NCCL_P2P_NET_CHUNKSIZE of 512 KiB as its message and
# NCCL_STEPS = 8 of them as each connection's buffer, src/init.cc).
#
#   sh validate/p5-efa-sweep.sh [GCSIM] [OUTDIR] [-- extra gcsim run options]
#   sh validate/p5-efa-sweep.sh --list
#
# GCSIM defaults to build/gcsim, OUTDIR to a fresh temporary folder; the
# predictions are OUTDIR/predicted.csv, the report OUTDIR/report.csv and
# NCCL's picks where the plugin leaves the choice to it (two nodes; every
# allgather point) OUTDIR/nccl-picks.txt ("nodes size algo/proto"). Each
# sweep runs in a few seconds on one core. P5_SWEEP_NODES=N keeps the rows
# of N nodes only. --list prints the runs (nodes, algorithm, protocol,
# sizes) without running them. Exits
# with gcsim validate's status (1 when the tolerance fails), 3 when GCSIM is
# not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
op=${P5_SWEEP_OP:-allreduce}
case $op in
allreduce | allgather | alltoall) ;;
*)
	echo "p5-efa-sweep: P5_SWEEP_OP: unknown collective '$op' (expected allreduce, allgather or alltoall)" >&2
	exit 2
	;;
esac
meas=$here/published/p5_efa_${op}_sweep.csv
# one run per (nodes, algorithm, protocol): "nodes algo proto size,size,...";
# "nodes nccl - sizes" where NCCL's own tuner chose; a row with no tuner
# (alltoall) runs pairwise
groups() {
	grep -v '^#' "$meas" | tail -n +2 | awk -F, -v only="${P5_SWEEP_NODES:-}" '{
		if (only != "" && $3 != only) next;
		if ($NF !~ /tuner: /) { ap[1] = "pairwise"; ap[2] = "simple" }
		else { split($NF, s, "tuner: "); sub(/"$/, "", s[2]); split(s[2], ap, " ") }
		if (ap[2] == "") ap[2] = "-";
		key = $3 " " ap[1] " " ap[2];
		if (!(key in sizes)) { order[n++] = key; sizes[key] = $6 "B" }
		else sizes[key] = sizes[key] "," $6 "B";
	} END { for (i = 0; i < n; i++) print order[i], sizes[order[i]] }'
}
name=p5-efa-sweep
[ "$op" = allreduce ] || name=p5-efa-$op
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
scen=$out/p5.yaml
cat > "$scen" <<EOF
schema_version: 1
name: p5 EFA $op sweep (validate/published/p5_efa_${op}_sweep.csv)
topology: {preset: p5, nodes: 2}
collective: {op: $op, algo: ring, sizes: [1MiB]}
EOF
groups > "$out/groups.txt"
# one run: nodes, algorithm, protocol, sizes, then "$@"
run_one() {
	n=$1 a=$2 q=$3 sz=$4
	shift 4
	# the run's NCCL_BUFFSIZE=8388608 sets Simple's buffer (LL128 keeps its own);
	# send/receive moves NCCL_P2P_NET_CHUNKSIZE (512 KiB) a step, 8 steps a buffer
	buf=""
	[ "$q" = simple ] && buf="--set collective.buffer=8MiB"
	[ "$a" = pairwise ] && buf="--set collective.chunk=512KiB --set collective.slice=512KiB --set collective.buffer=4MiB"
	# shellcheck disable=SC2086
	"$gcsim" run "$scen" --set topology.nodes="$n" --set collective.algo="$a" \
		--set collective.protocol="$q" --set collective.sizes="[$sz]" $buf "$@" \
		--results "$out/part.csv" > /dev/null
	append_part
	echo "p5-efa-sweep: $n nodes, $a/$q: $sz" >&2
}
: > "$out/nccl-picks.txt"
while read -r nodes algo proto sizes; do
	if [ "$algo" != nccl ]; then
		run_one "$nodes" "$algo" "$proto" "$sizes" "$@"
		continue
	fi
	# "tuner: nccl": the plugin left the choice to NCCL 2.27.7's own model;
	# each size then runs what it chose, with the run's buffer
	"$gcsim" run "$scen" --set topology.nodes="$nodes" --set collective.algo=auto \
		--set collective.protocol=auto --set collective.tuner=nccl \
		--set collective.nccl_version=2.27.7 --set collective.sizes="[$sizes]" \
		--fidelity analytical "$@" > "$out/pick.txt"
	sed -n "s/^# algorithm chosen per size[^:]*: //p" "$out/pick.txt" | tr ',' '\n' |
		sed -n 's/^ *\([0-9][0-9]*\) B \([a-z]*\)\/\([a-z0-9]*\).*/\1 \2 \3/p' > "$out/picks.txt"
	[ -s "$out/picks.txt" ] || { echo "p5-efa-sweep: no choice from NCCL's model on $nodes nodes" >&2; exit 2; }
	awk -v n="$nodes" '{ print n, $1, $2 "/" $3 }' "$out/picks.txt" >> "$out/nccl-picks.txt"
	while read -r size a q; do
		run_one "$nodes" "$a" "$q" "${size}B" "$@"
	done < "$out/picks.txt"
done < "$out/groups.txt"
compare
