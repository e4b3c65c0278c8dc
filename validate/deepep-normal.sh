#!/bin/sh
# Predict every row of validate/published/deepep_normal.csv (DeepEP's normal
# kernels on H800 nodes) with algo forward and compare the bandwidth as
# DeepEP's tests count it: intranode, the tokens a GPU receives (its own
# included) times their bytes over the time; internode, the distinct
# (token, destination node) pairs of a GPU's tokens (its own node included)
# times their bytes over the time. gcsim prints both bandwidths after its
# table ("# as DeepEP counts"). The topology is the dgx-h100 preset with the NVLink
# bandwidth the DeepEP README gives for H800 (~160 GB/s) and its CX7 400
# Gb/s NICs; the routing is node-limited to min(nodes, 4) nodes, as the tests
# draw it.
#
#   sh validate/deepep-normal.sh [GCSIM]
#
# Prints one row per point (published, predicted, error) and the median and
# largest error; takes about 40 s (64 GPUs' combine is most of it).
# DEEPEP_EP=N keeps the rows of N GPUs only. Exits 3 when GCSIM is not
# built, 2 when a run fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
meas=$here/published/deepep_normal.csv
gcsim=${1:-$here/../build/gcsim}
if [ ! -x "$gcsim" ]; then
	echo "deepep-normal: $gcsim is not built (run make)" >&2
	exit 3
fi
tmp=$(mktemp -d /tmp/gcsim-deepep-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/s.yaml" <<'YAML'
schema_version: 1
name: DeepEP normal kernels on H800 nodes (validate/published/deepep_normal.csv)
topology: {preset: dgx-h100, nodes: 1, nvlink: {bandwidth: 160GB/s}}
collective: {op: dispatch, algo: forward, sizes: [7392B]}
moe: {tokens: 4096, topk: 8, experts: 256, max_nodes: 4}
YAML
printf '%-4s %-9s %-6s %10s %10s %9s %8s\n' ep phase metric "pub GB/s" "gcsim GB/s" "time us" error
grep -v '^#' "$meas" | tail -n +2 | while IFS=, read -r impl tr hw ep tok phase bw metric bytes src; do
	[ -n "${DEEPEP_EP:-}" ] && [ "$ep" != "$DEEPEP_EP" ] && continue
	nodes=$((ep / 8))
	[ "$nodes" -lt 1 ] && nodes=1
	if ! "$gcsim" run "$tmp/s.yaml" --set topology.nodes="$nodes" --set collective.op="$phase" \
		--set collective.sizes="[${bytes}B]" --set moe.tokens="$tok" > "$tmp/out.txt"; then
		echo "deepep-normal: gcsim failed on ep $ep $phase" >&2
		exit 2
	fi
	awk -v ep="$ep" -v phase="$phase" -v metric="$metric" -v bw="$bw" '
		/^# as DeepEP counts/ { split($0, a, ": "); split(a[3], v, " "); rdma = v[3]; nvl = v[5] }
		/^ +[0-9]/ { t = $6 }
		END { pred = metric == "nvl" ? nvl : rdma
			printf "%-4s %-9s %-6s %10.1f %10.1f %9.1f %+7.1f%%\n", ep, phase, metric, bw, pred, t,
				(pred / bw - 1) * 100 }' "$tmp/out.txt"
done > "$tmp/rows.txt"
cat "$tmp/rows.txt"
awk '{ e = $NF; sub(/%/, "", e); e += 0; print (e < 0 ? -e : e) }' "$tmp/rows.txt" | sort -n | awk '
	{ a[NR] = $1 }
	END { med = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "median |error| %.1f %%, largest %.1f %% (%d points)\n", med, a[NR], NR }'
