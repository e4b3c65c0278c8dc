#!/bin/sh
# make bench: engine hold model and the flat-cluster ring allreduce at 1024
# and 4096 GPUs (targets: <= 0.2 s / 200 MB and <= 3 s / 500 MB).
set -e
bin=$1
dir=$2
"$dir/bench_engine"
"$dir/bench_flat" 1024
"$dir/bench_flat" 4096
