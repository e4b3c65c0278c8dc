#!/bin/sh
# make bench: engine hold model and the flat-cluster ring allreduce at 1024
# and 4096 GPUs (targets: <= 0.2 s / 200 MB and <= 3 s / 500 MB).
set -e
bin=$1
dir=$2
"$dir/bench_engine"
"$dir/bench_flat" 1024
"$dir/bench_flat" 4096
# A contended run: NVLS tree on 8 DGX H100 nodes at 1 GiB (many flows share
# the switch ports and NICs, so the cost is in the rate solves).
tmp=$(mktemp /tmp/gcsim-bench-XXXXXX.yaml)
cat > "$tmp" <<'YAML'
schema_version: 1
topology: {preset: dgx-h100, nodes: 8}
collective: {op: allreduce, algo: nvlstree, sizes: [1GiB]}
YAML
echo "nvlstree allreduce, 8 DGX H100 nodes, 1 GiB:"
"$dir/bench_scenario" "$tmp"
rm -f "$tmp"
# A large NVLink domain: a ring over 2 GB200 NVL72 racks (144 GPUs, 32
# channels) at 1 GiB; every rack port carries all 32 channels' flows, and
# each end moves the others' rates.
tmp=$(mktemp /tmp/gcsim-bench-XXXXXX.yaml)
cat > "$tmp" <<'YAML'
schema_version: 1
topology: {preset: gb200-nvl72, nodes: 2}
collective: {op: allreduce, algo: ring, sizes: [1GiB]}
YAML
echo "ring allreduce, 2 GB200 NVL72 racks, 1 GiB:"
"$dir/bench_scenario" "$tmp"
rm -f "$tmp"
