#!/bin/sh
# Predict the rows of validate/published/moe_published.csv (published MoE
# expert-parallel latencies, 128 tokens per GPU, hidden 7168, top-8 of 256
# experts) and compare them with gcsim validate, one group at a time:
#
#   deepep-ll   DeepEP V1 low-latency dispatch and combine, 8-256 GPUs, its
#               "pure RDMA" setting (every message over the NIC, H800 +
#               CX7 400 Gb/s): scenarios/moe-dispatch.yaml's flat 400 Gb/s
#               cluster, closed form (messages 7408 B and 14352 B);
#   pplx-ibgda  pplx-kernels' internode dispatch and combine over NVSHMEM
#   pplx-ibrc   IBGDA and IBRC, EP16-128 on DGX H100 nodes (algo pplx,
#               7408 B and 14336 B); IBRC in the flow model (its proxy
#               threads queue), IBGDA in the closed form, which is within
#               0.2 % of the flow model's docs/MODELS.md table, whose runs
#               take from a second to minutes a point;
#   pplx-nvlink the same kernels on one node (EP8, NVLink only);
#   torch-ata   the same benchmark's torch.distributed.all_to_all_single
#               (pplx-kernels tests/bench_all_to_all.py: a tensor of
#               world x local experts x 128 tokens x 7392 B, 242221056 B
#               per GPU whatever the EP), as NCCL's grouped send/recv:
#               alltoall, algo pairwise, on DGX H100 nodes.
#
#   sh validate/moe-published.sh [GCSIM] [OUTDIR]
#   sh validate/moe-published.sh --list
#
# GCSIM defaults to build/gcsim, OUTDIR to a fresh temporary folder. The
# report is OUTDIR/report.csv: per point its group, phase, GPUs, the
# message size predicted, published and predicted time, error, band, and
# the bytes its bandwidth counts (tokens x top-k x message; all-to-all:
# the bytes per GPU). MOE_GROUPS="pplx-ibrc torch-ata" runs only those.
# A few seconds. Exits 0 when every point is within gcsim validate's
# default tolerance, 1 when not, 2 when a run fails or MOE_GROUPS names an
# unknown group, 3 when GCSIM is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
meas=$here/published/moe_published.csv
all="deepep-ll pplx-ibgda pplx-ibrc pplx-nvlink torch-ata"
sel=$(echo "${MOE_GROUPS:-$all}" | tr ',' ' ')
for g in $sel; do
	case " $all " in *" $g "*) ;; *)
		echo "moe-published: MOE_GROUPS: unknown group '$g' (expected $all)" >&2
		exit 2
		;;
	esac
done
# group -> "impl;transport[,transport]" of its published rows
rows_of() {
	case $1 in
	deepep-ll) echo "deepep-v1-ll;ibgda(pure rdma)" ;;
	pplx-ibgda) echo "pplx-kernels;ibgda" ;;
	pplx-ibrc) echo "pplx-kernels;ibrc" ;;
	pplx-nvlink) echo "pplx-kernels;nvlink" ;;
	torch-ata) echo "torch-all-to-all(nccl);ib,nvlink" ;;
	esac
}
# the published rows of a group, CSV fields as in the file
group_rows() {
	grep -v '^#' "$meas" | grep -v '^impl,' | awk -F, -v sel="$(rows_of "$1")" '
		BEGIN { split(sel, s, ";"); impl = s[1]; tr = "," s[2] "," }
		$1 == impl && index(tr, "," $2 ",") > 0'
}
# --list: per group its phases and GPUs
groups() {
	for g in $sel; do
		printf '%s: %s\n' "$g" "$(group_rows "$g" | awk -F, '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $6 ~ /^alltoall/ ? "alltoall" : $6, $4 }')"
	done
}
name=moe-published
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
echo "group,collective,nranks,size_bytes,measured_us,predicted_us,error_pct,band,bytes" > "$out/report.csv"
header=$(grep '^impl,' "$meas")
status=0

# predict GROUP OP EP SIZE: one point into $out/predicted.csv (appended)
predict() {
	g=$1 op=$2 ep=$3 size=$4
	nodes=$((ep / 8))
	case $g in
	deepep-ll)
		set -- "$root/scenarios/moe-dispatch.yaml" --set sweep.key= --set sweep.values= \
			--set topology.gpus="$ep" ;;
	pplx-ibgda | pplx-ibrc)
		set -- "$out/pplx.yaml" --set topology.nodes="$nodes" \
			--set transport.inter="${g#pplx-}"
		[ "$g" = pplx-ibrc ] || set -- "$@" --set sim.fidelity=analytical ;;
	pplx-nvlink)
		set -- "$out/pplx.yaml" ;;
	torch-ata)
		set -- "$out/ata.yaml" --set topology.nodes="$nodes" ;;
	esac
	if ! "$gcsim" run "$@" --set collective.op="$op" --set collective.sizes="[${size}B]" \
		--results "$out/part.csv" > /dev/null; then
		echo "moe-published: gcsim failed on $g $op at $ep GPUs" >&2
		exit 2
	fi
	append_part
}
# one node here; the internode groups give the nodes and the transport
cat > "$out/pplx.yaml" <<'YAML'
schema_version: 1
name: pplx-kernels (validate/published/moe_published.csv)
topology: {preset: dgx-h100, nodes: 1}
collective: {op: dispatch, algo: pplx, sizes: [7408B]}
moe: {tokens: 128, topk: 8, experts: 256}
sim: {fidelity: flow}
YAML
cat > "$out/ata.yaml" <<'YAML'
schema_version: 1
name: torch all_to_all_single of pplx-kernels' benchmark (validate/published/moe_published.csv)
topology: {preset: dgx-h100, nodes: 1}
collective: {op: alltoall, algo: pairwise, sizes: [242221056B]}
YAML
ata_bytes=242221056
for g in $sel; do
	: > "$out/predicted.csv"
	group_rows "$g" > "$out/rows.csv"
	if [ "$g" = torch-ata ]; then
		# the all-to-all rows as nccl-tests rows: collective alltoall,
		# the benchmark's bytes per GPU, the published time
		{
			echo "system,gpus,nodes,collective,algo,bytes,busbw_GBps,algbw_GBps,time_us,source"
			awk -F, -v b="$ata_bytes" -v OFS=, '{ print "\"" $3 "\"", $4, ($4 < 8 ? 1 : $4 / 8), "alltoall", "", b, "", "", $7, "pplx-kernels README.md" }' "$out/rows.csv"
		} > "$out/meas.csv"
	else
		{
			echo "$header"
			cat "$out/rows.csv"
		} > "$out/meas.csv"
	fi
	while IFS=, read -r _ _ _ ep _ phase _; do
		case $g in
		deepep-ll) size=7408; [ "$phase" = combine ] && size=14352 ;;
		torch-ata) size=$ata_bytes phase=alltoall ;;
		*) size=7408; [ "$phase" = combine ] && size=14336 ;;
		esac
		predict "$g" "$phase" "$ep" "$size"
		echo "moe-published: $g $phase at $ep GPUs" >&2
	done < "$out/rows.csv"
	rc=0
	"$gcsim" validate -m "$out/meas.csv" -p "$out/predicted.csv" --csv "$out/part-report.csv" || rc=$?
	[ "$rc" -le 1 ] || { echo "moe-published: gcsim validate failed on $g" >&2; exit 2; }
	[ "$rc" -eq 0 ] || status=1
	# the bytes a point's bandwidth counts: tokens x top-k x its message,
	# or the all-to-all's bytes per GPU
	tail -n +2 "$out/part-report.csv" | awk -F, -v g="$g" -v OFS=, -v pred="$out/predicted.csv" '
		BEGIN { while ((getline l < pred) > 0) if (l !~ /^#/ && l !~ /^collective,/) {
				split(l, p, ","); sz[p[1] "/" p[4]] = p[5] } }
		{ s = sz[$1 "/" $3]; b = g == "torch-ata" ? s : 128 * 8 * s;
			print g, $1, $3, s, $5, $6, $7, $8, b }' >> "$out/report.csv"
done
rm -f "$out/predicted.csv" "$out/meas.csv" "$out/rows.csv" "$out/part-report.csv"
echo "moe-published: report in $out/report.csv" >&2
exit $status
