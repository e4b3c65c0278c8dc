#!/bin/sh
# Predict every point of validate/published/b200_ib_sendrecv.csv (nccl-tests
# sendrecv_perf on 2-16 DGX B200 nodes over InfiniBand) and compare them
# with gcsim validate.
#
#   sh validate/b200-sendrecv.sh [GCSIM] [OUTDIR] [-- extra gcsim run options]
#   sh validate/b200-sendrecv.sh --list
#
# GCSIM defaults to build/gcsim, OUTDIR to a fresh temporary folder; the
# predictions are OUTDIR/predicted.csv and the report OUTDIR/report.csv. The
# topology is the dgx-b200 preset on its default fabric (a non-blocking fat
# tree): the published cluster's fabric is not described, so its falls at 8
# and 16 nodes are outside what this set's predictions can see. A few
# seconds. B200_NODES=N keeps the rows of N nodes only. --list prints the
# runs (nodes, sizes) without running them. Exits with gcsim validate's
# status (1 when the tolerance fails), 3 when GCSIM is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
meas=$here/published/b200_ib_sendrecv.csv
# one run per node count: "nodes size,size,..."
groups() {
	grep -v '^#' "$meas" | tail -n +2 | awk -F, -v only="${B200_NODES:-}" '{
		if (only != "" && $3 != only) next;
		if (!($3 in sizes)) { order[n++] = $3; sizes[$3] = $6 "B" }
		else sizes[$3] = sizes[$3] "," $6 "B";
	} END { for (i = 0; i < n; i++) print order[i], sizes[order[i]] }'
}
name=b200-sendrecv
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
scen=$out/b200.yaml
cat > "$scen" <<'EOF2'
schema_version: 1
name: B200 InfiniBand sendrecv (validate/published/b200_ib_sendrecv.csv)
topology: {preset: dgx-b200, nodes: 2}
collective: {op: sendrecv, sizes: [1MiB], nccl_version: 2.29.7}
EOF2
groups > "$out/groups.txt"
while read -r nodes sizes; do
	# shellcheck disable=SC2086
	"$gcsim" run "$scen" --set topology.nodes="$nodes" --set collective.sizes="[$sizes]" "$@" \
		--results "$out/part.csv" > /dev/null
	append_part
	echo "b200-sendrecv: $nodes nodes: $sizes" >&2
done < "$out/groups.txt"
compare
