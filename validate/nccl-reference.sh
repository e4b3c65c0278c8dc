#!/bin/sh
# Predict every row of validate/published/nccl_tests_published.csv (the
# project's mixed reference set: allreduce on one node of 8 or 4 H100 SXM,
# and on one Azure ND H200 v5 node) and compare them with gcsim validate.
#
#   sh validate/nccl-reference.sh [GCSIM] [OUTDIR] [-- extra gcsim run options]
#   sh validate/nccl-reference.sh --list
#
# The systems map onto presets: 8x H100 SXM is dgx-h100 on one node, 4x
# H100 SXM the same with topology.gpus_per_node 4 (four GPUs on the
# NVSwitch), 8x H200 the p5en preset on one node (8 H200 on NVLink4
# NVSwitch; with one node its network is not used). A row's algorithm
# "ring" or "nvls" is run forced (its protocol NCCL's pick); "default(X)"
# (NCCL chose) is run with NCCL's own pick (collective.algo auto,
# collective.tuner nccl) and compared with it, whatever it picked. How a
# run was driven comes from its benchmark's code where it is public: the
# Azure rows come from Azure/AI-benchmarking-guide, whose NCCLBandwidth.py
# runs `NCCL_ALGO=NVLS all_reduce_perf -b 8 -e 8G -f 2 -g 8 -n 40` on 8
# GPUs (NVLS forced, one thread driving the 8 GPUs, 40 iterations), so
# those rows are predicted with algo nvls, collective.gpus_per_thread 8
# and collective.iters 40 (the published table names the algorithm
# default(nvls)). Rows that give only a bandwidth get their time from it
# (gcsim validate: bytes over algbw, or busbw over nccl-tests' factor);
# the Azure table's busbw has two digits, so its 1 KiB point (0.06 GB/s)
# is known to about 8 %.
# Each system is compared on its own (its rows could share a size and a
# rank count with another's). GCSIM defaults to build/gcsim, OUTDIR to a
# fresh temporary folder; the points compared are OUTDIR/measured.csv, the
# predictions OUTDIR/predicted.csv, the report OUTDIR/report.csv (gcsim
# validate's columns after a first one, the system) and NCCL's pick per
# size OUTDIR/chosen.txt ("system size algo/protocol"). A few seconds.
# --list prints the runs (system, preset, GPUs, algorithm, sizes) without
# running them. Exits 0 when every system's points are within gcsim
# validate's default tolerance, 1 when not, 2 when a run fails, 3 when
# GCSIM is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
meas=$here/published/nccl_tests_published.csv
# system -> "preset gpus_per_node algo gpus_per_thread iters"
# (gpus_per_node 0: the preset's own; algo "-": the row's)
preset_of() {
	case $1 in
	"8xH100-SXM NVLink4") echo "dgx-h100 0 - 1 1" ;;
	"4xH100-SXM NVLink4") echo "dgx-h100 4 - 1 1" ;;
	"8xH200 NVLink4 (Azure ND H200 v5)") echo "p5en 0 nvls 8 40" ;;
	*) return 1 ;;
	esac
}
rows() { grep -v '^#' "$meas" | grep -v '^system,'; }
# one run per (system, algorithm): "system<TAB>algo<TAB>size,size,..."
sys_groups() {
	rows | awk -F, -v OFS='\t' '{
		key = $1 "\t" $5;
		if (!(key in sizes)) { order[n++] = key; sizes[key] = $6 "B" }
		else if (index("," sizes[key] ",", "," $6 "B,") == 0) sizes[key] = sizes[key] "," $6 "B";
	} END { for (i = 0; i < n; i++) print order[i], sizes[order[i]] }'
}
# --list: per run its system, preset settings, algorithm and sizes
groups() {
	sys_groups | while IFS="$(printf '\t')" read -r sys algo sizes; do
		p=$(preset_of "$sys") || { echo "nccl-reference: no preset for system '$sys'" >&2; exit 2; }
		printf '%s: %s, %s, %s\n' "$sys" "$p" "$algo" "$sizes"
	done
}
name=nccl-reference
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
header=$(grep -v '^#' "$meas" | grep '^system,')
{
	echo "$header"
	rows
} > "$out/measured.csv"
: > "$out/chosen.txt"
echo "system,collective,algo,nranks,size_bytes,measured_us,predicted_us,error_pct,band" > "$out/report.csv"
scen=$out/node.yaml
status=0
sys_groups > "$out/groups.txt"
systems=$(cut -f 1 "$out/groups.txt" | awk '!seen[$0]++')
echo "$systems" > "$out/systems.txt"
while read -r sys; do
	p=$(preset_of "$sys") || { echo "nccl-reference: no preset for system '$sys'" >&2; exit 2; }
	field() { echo "$p" | cut -d ' ' -f "$1"; }
	preset=$(field 1) gpn=$(field 2) force=$(field 3) gpt=$(field 4) iters=$(field 5)
	topo="{preset: $preset, nodes: 1}"
	[ "$gpn" -gt 0 ] && topo="{preset: $preset, nodes: 1, gpus_per_node: $gpn}"
	printf 'schema_version: 1\nname: %s (validate/published/nccl_tests_published.csv)\ntopology: %s\ncollective: {op: allreduce, algo: ring, protocol: auto, sizes: [1MiB]}\n' \
		"$sys" "$topo" > "$scen"
	# this system's rows; "default(X)" becomes "default" (NCCL's pick,
	# whatever the prediction says it is), or the algorithm the benchmark
	# forced
	{
		echo "$header"
		rows | awk -F, -v s="$sys" -v f="$force" -v OFS=, '$1 == s {
			if (f != "-") $5 = f; else if ($5 ~ /^default/) $5 = "default"; print }'
	} > "$out/sys-measured.csv"
	first=$(($(wc -l < "$out/predicted.csv") + 1))
	awk -F '\t' -v s="$sys" '$1 == s' "$out/groups.txt" > "$out/sys-groups.txt"
	while IFS="$(printf '\t')" read -r _ algo sizes; do
		a=$algo
		[ "$force" = - ] || a=$force
		case $a in default*) a=auto ;; esac
		if ! "$gcsim" run "$scen" --set collective.algo="$a" --set collective.tuner=nccl \
			--set collective.gpus_per_thread="$gpt" --set collective.iters="$iters" \
			--set collective.sizes="[$sizes]" "$@" --results "$out/part.csv" > "$out/run.txt"; then
			echo "nccl-reference: gcsim failed on $sys, $algo" >&2
			exit 2
		fi
		awk -v s="$sys" -v a="$a" '/^# (algorithm|protocol) chosen per size/ {
			sub(/^[^:]*: /, ""); k = split($0, it, ", ");
			for (i = 1; i <= k; i++) { split(it[i], f, " ");
				print s "\t" f[1] "\t" (f[3] ~ /\// ? f[3] : a "/" f[3]) } }' \
			"$out/run.txt" >> "$out/chosen.txt"
		append_part
		echo "nccl-reference: $sys, $algo: $sizes" >&2
	done < "$out/sys-groups.txt"
	# this system's predictions: the header and the rows it appended
	{
		grep -v '^#' "$out/predicted.csv" | head -n 1
		tail -n +"$first" "$out/predicted.csv" | grep -v -e '^#' -e '^collective,'
	} > "$out/sys-predicted.csv"
	rc=0
	"$gcsim" validate -m "$out/sys-measured.csv" -p "$out/sys-predicted.csv" \
		--csv "$out/sys-report.csv" || rc=$?
	[ "$rc" -le 1 ] || { echo "nccl-reference: gcsim validate failed on $sys" >&2; exit 2; }
	[ "$rc" -eq 0 ] || status=1
	tail -n +2 "$out/sys-report.csv" | awk -v s="$sys" '{ print "\"" s "\"," $0 }' >> "$out/report.csv"
done < "$out/systems.txt"
rm -f "$out"/sys-*.csv "$out/sys-groups.txt" "$out/run.txt"
echo "nccl-reference: predictions and report in $out" >&2
exit $status
