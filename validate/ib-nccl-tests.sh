#!/bin/sh
# Predict every point of validate/published/h100_ib_nccl_tests.csv (nccl-tests
# allreduce on 2-8 nodes of 8 H100 with 400 Gb/s InfiniBand, two clusters)
# with the dgx-h100 preset, then compare with gcsim validate.
#
#   sh validate/ib-nccl-tests.sh [GCSIM] [OUTDIR] [-- extra gcsim run options]
#   sh validate/ib-nccl-tests.sh --list
#
# A row whose algorithm NCCL chose ("default") is predicted with each
# algorithm NCCL could have run across nodes (ring, tree, nvlstree), every
# one with protocol auto, and gcsim validate takes the fastest, as NCCL's
# tuner takes the one it predicts fastest (IB_DEFAULT_ALGOS="nvlstree"
# predicts them with that list instead: NCCL's multi-node default, says the
# maintainer in the thread); a forced ring is predicted with the ring alone. GCSIM defaults to build/gcsim, OUTDIR to a fresh temporary
# folder; the predictions are OUTDIR/predicted.csv and the report
# OUTDIR/report.csv. About a minute on one core. IB_NODES=N keeps the rows of
# N nodes only; IB_MIN_BYTES=B the sizes of at least B bytes. --list prints
# the runs (nodes, algorithm, sizes) without running them. Exits with gcsim
# validate's status (1 when the tolerance fails), 3 when GCSIM is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
meas=$here/published/h100_ib_nccl_tests.csv
# one run per (nodes, algorithm): "nodes algo size,size,..."
groups() {
	grep -v '^#' "$meas" | tail -n +2 | awk -F, -v only="${IB_NODES:-}" -v min="${IB_MIN_BYTES:-0}" '{
		if ((only != "" && $3 != only) || $6 + 0 < min + 0) next;
		key = $3 " " $5;
		if (!(key in sizes)) { order[n++] = key; sizes[key] = $6 "B"; seen[key "/" $6] = 1 }
		else if (!((key "/" $6) in seen)) { sizes[key] = sizes[key] "," $6 "B"; seen[key "/" $6] = 1 }
	} END { for (i = 0; i < n; i++) print order[i], sizes[order[i]] }'
}
name=ib-nccl-tests
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
scen=$out/h100-ib.yaml
cat > "$scen" <<'EOF'
schema_version: 1
name: 8x H100 nodes on 400 Gb/s InfiniBand (validate/published/h100_ib_nccl_tests.csv)
topology: {preset: dgx-h100, nodes: 2}
collective: {op: allreduce, algo: ring, protocol: auto, sizes: [1MiB]}
EOF
groups > "$out/groups.txt"
while read -r nodes algo sizes; do
	algos=$algo
	[ "$algo" = default ] && algos=${IB_DEFAULT_ALGOS:-ring tree nvlstree}
	for a in $algos; do
		"$gcsim" run "$scen" --set topology.nodes="$nodes" --set collective.algo="$a" \
			--set collective.sizes="[$sizes]" "$@" --results "$out/part.csv" > /dev/null
		append_part
		echo "ib-nccl-tests: $nodes nodes, $a: $sizes" >&2
	done
done < "$out/groups.txt"
compare
