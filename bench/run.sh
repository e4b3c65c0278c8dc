#!/bin/sh
# make bench: engine hold model and the flat-cluster ring allreduce at 1024
# and 4096 GPUs (targets: <= 0.2 s / 200 MB and <= 3 s / 500 MB), then
# contended flow runs, where the cost is in the rate solves.
set -e
bin=$1
dir=$2
"$dir/bench_engine"
"$dir/bench_flat" 1024
"$dir/bench_flat" 4096
"$dir/bench_flat" 4096 folded
# scenario TITLE TOPOLOGY ALGO [COLLECTIVE-AND-MORE]: a 1 GiB allreduce (or
# the collective and keys given) timed by bench_scenario
scenario() {
	tmp=$(mktemp /tmp/gcsim-bench-XXXXXX.yaml)
	printf 'schema_version: 1\ntopology: %s\n%s\n' "$2" \
		"${4:-collective: {op: allreduce, algo: $3, sizes: [1GiB]\}}" >"$tmp"
	echo "$1:"
	"$dir/bench_scenario" "$tmp" || { rm -f "$tmp"; exit 1; }
	rm -f "$tmp"
}
# a ring over 512 DGX H100 nodes (4096 GPUs), folded: one node's 8 ranks
# stand for all (sim.fold); about 13 minutes with every rank simulated
scenario "ring allreduce, 512 DGX H100 nodes, 1 GiB (folded)" "{preset: dgx-h100, nodes: 512}" ring
# data-parallel allreduce in every DP group of a 1024-node job at once
# (8 rings of 1024 GPUs, GPU k of every node), on rails at 2:1: one rail
# unit's 32 nodes stand for all (sim.fold)
scenario "DP ring allreduce, 8 groups of 1024 GPUs, rail 2:1, 25 MiB and 256 MiB (folded)" \
	"{preset: dgx-h100, nodes: 1024, fabric: {kind: rail, leaf_nics: 32, oversubscription: 2}}" ring \
	"collective: {op: allreduce, algo: ring, sizes: [25MiB, 256MiB], group: {stride: 8}}"
# NVLS tree on 8 DGX H100 nodes: many flows share the switch ports and NICs
scenario "nvlstree allreduce, 8 DGX H100 nodes, 1 GiB" "{preset: dgx-h100, nodes: 8}" nvlstree
# NCCL's tree on 64 DGX H100 nodes (512 ranks): each channel's CTA rate
# keeps the flows alive longer, so the components the solves settle are
# large (hundreds of links); channel-folded (sim.fold), and with every
# channel simulated, the path the folding does not take
scenario "tree allreduce, 64 DGX H100 nodes, 1 GiB (channels folded)" "{preset: dgx-h100, nodes: 64}" tree
scenario "tree allreduce, 64 DGX H100 nodes, 1 GiB (every channel)" "{preset: dgx-h100, nodes: 64}" tree \
	"collective: {op: allreduce, algo: tree, sizes: [1GiB]}
sim: {fold: false}"
# NCCL's tree and nvlstree across 2048 DGX H100 nodes (16,384 GPUs): the
# double binary tree gives nodes different places, so no block of ranks
# stands for the others, but the channels rotate with a node's GPUs: 2
# of the tree's 16 channels, 1 of each 8 of nvlstree's blocks, stand for
# all on every rank, and nvlstree's channels repeat every 2 (one a tree),
# so 2 of its 128 blocks stand for all (sim.fold). Once the pipeline fills (past 256 MiB)
# every flow is in one component, which the local solves (sim.solve auto)
# leave uncollected (docs/PERFORMANCE.md)
scenario "tree allreduce, 2048 DGX H100 nodes, 16 MiB, 256 MiB and 1 GiB (channels folded, local solves)" \
	"{preset: dgx-h100, nodes: 2048}" tree \
	"collective: {op: allreduce, algo: tree, sizes: [16MiB, 256MiB, 1GiB]}"
scenario "nvlstree allreduce, 2048 DGX H100 nodes, 4 MiB, 64 MiB and 1 GiB (channels folded, local solves)" \
	"{preset: dgx-h100, nodes: 2048}" nvlstree \
	"collective: {op: allreduce, algo: nvlstree, sizes: [4MiB, 64MiB, 1GiB]}"
# a large NVLink domain: a ring over 2 GB200 NVL72 racks (144 GPUs, 32
# channels); every rack port carries all 32 channels' flows, and each end
# moves the others' rates
scenario "ring allreduce, 2 GB200 NVL72 racks, 1 GiB" "{preset: gb200-nvl72, nodes: 2}" ring
# MoE dispatch as DeepEP's normal kernels on 4 DGX H100 nodes, 4096 tokens
# per GPU: 355 k network PUTs and 479 k NVLink PUTs from 32 x 12 x 6 strands
scenario "forward dispatch, 4 DGX H100 nodes, 4096 tokens" "{preset: dgx-h100, nodes: 4}" forward \
	"collective: {op: dispatch, algo: forward, sizes: [7392B]}
moe: {tokens: 4096, topk: 8, experts: 256, max_nodes: 4}"
