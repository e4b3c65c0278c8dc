#!/bin/sh
# Predict every point of validate/published/p5_efa_allreduce_sweep.csv (nccl-tests
# allreduce on 2-32 AWS p5 nodes) with the algorithm and protocol the AWS tuner
# ran there (the rows' source column), then compare with gcsim validate.
#
#   sh validate/p5-efa-sweep.sh [GCSIM] [OUTDIR] [-- extra gcsim run options]
#   sh validate/p5-efa-sweep.sh --list
#
# GCSIM defaults to build/gcsim, OUTDIR to a fresh temporary folder; the
# predictions are OUTDIR/predicted.csv and the report OUTDIR/report.csv. The
# runs take about two minutes on one core (32 nodes with nvlstree at 8 GiB is
# most of it). P5_SWEEP_NODES=N keeps the rows of N nodes only. --list prints
# the runs (nodes, algorithm, protocol, sizes) without running them. Exits
# with gcsim validate's status (1 when the tolerance fails), 3 when GCSIM is
# not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
meas=$here/published/p5_efa_allreduce_sweep.csv
# one run per (nodes, algorithm, protocol): "nodes algo proto size,size,..."
groups() {
	grep -v '^#' "$meas" | tail -n +2 | awk -F, -v only="${P5_SWEEP_NODES:-}" '{
		if (only != "" && $3 != only) next;
		split($NF, s, "tuner: "); split(s[2], ap, " "); sub(/"$/, "", ap[2]);
		key = $3 " " ap[1] " " ap[2];
		if (!(key in sizes)) { order[n++] = key; sizes[key] = $6 "B" }
		else sizes[key] = sizes[key] "," $6 "B";
	} END { for (i = 0; i < n; i++) print order[i], sizes[order[i]] }'
}
name=p5-efa-sweep
# shellcheck source=validate/sweep-common.sh
. "$here/sweep-common.sh"
scen=$out/p5.yaml
cat > "$scen" <<'EOF'
schema_version: 1
name: p5 EFA allreduce sweep (validate/published/p5_efa_allreduce_sweep.csv)
topology: {preset: p5, nodes: 2}
collective: {op: allreduce, algo: ring, sizes: [1MiB]}
EOF
groups > "$out/groups.txt"
while read -r nodes algo proto sizes; do
	# the run's NCCL_BUFFSIZE=8388608 sets Simple's buffer (LL128 keeps its own)
	buf=""
	[ "$proto" = simple ] && buf="--set collective.buffer=8MiB"
	# shellcheck disable=SC2086
	"$gcsim" run "$scen" --set topology.nodes="$nodes" --set collective.algo="$algo" \
		--set collective.protocol="$proto" --set collective.sizes="[$sizes]" $buf "$@" \
		--results "$out/part.csv" > /dev/null
	append_part
	echo "p5-efa-sweep: $nodes nodes, $algo/$proto: $sizes" >&2
done < "$out/groups.txt"
compare
