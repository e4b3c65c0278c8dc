#!/bin/sh
# SPDX-License-Identifier: MIT
# The hw command line on an emulated GPU: build/tests/hw/gcsim-emu is gcsim
# with its CUDA code (hw/kernels) compiled for the CPU emulation of
# tests/hw/emu. Every microbenchmark of `hw bench --quick` runs to its end
# (launches, copies, the SM copy kernel, the host flag ping-pong and the CPU
# proxy round trip with a real host thread, GPU-initiated posting, the
# proxy's posting rate, P2P between the two emulated GPUs) and is stored;
# `hw interp` checks its outputs with virtual ranks and with one rank per
# GPU; the recording calibrates. The times are the CPU's and mean nothing:
# what is tested is that every path completes and records what it should.
set -u
cd "$(dirname "$0")/../.."
. tests/hw/emu.sh

"$E" hw info >"$T/info" 2>"$T/err"; rc=$?
check "hw info on the emulation: status 0, two GPUs and their peers" \
	'[ $rc -eq 0 ] && grep -q "GPU 1: CUDA emulation on the CPU" "$T/info" && grep -q "peers (P2P)         GPU 1" "$T/info"'

"$E" hw bench --quick --csv "$T/bench.csv" --out "$T/r.sqlite" >"$T/bench.out" 2>"$T/err"; rc=$?
check "hw bench --quick: status 0" '[ $rc -eq 0 ]'
for row in launch,isolated launch,pipelined memcpy_h2d,ce memcpy_d2h,ce memcpy_d2d,ce \
	hbm_copy,ce hbm_copy,sm flag_pingpong,pinned proxy_rtt,fifo gpu_post,1cta-b1 \
	gpu_post,1cta-b32 gpu_post,sms-b32 proxy_rate,sms-b32 p2p_copy,ce; do
	check "bench.csv has $row with a time" \
		"awk -F, -v k='$row' '\$1 \",\" \$2 == k && \$7 > 0 { f = 1 } END { exit !f }' '$T/bench.csv'"
done
check "every bench row has a positive median" \
	"awk -F, '/^[a-z]/ && \$1 != \"collective\" && !(\$7 > 0) { bad = 1 } END { exit bad }' '$T/bench.csv'"
"$G" validate --measured "$T/bench.csv" --predicted "$T/bench.csv" >/dev/null 2>&1; rc=$?
check "the bench CSV reads back as points (validate against itself: status 0)" '[ $rc -eq 0 ]'

"$E" hw interp --ranks 4 --sizes 4KiB,1MiB --iters 2 --csv "$T/interp.csv" >"$T/out" 2>"$T/err"; rc=$?
check "hw interp, 4 virtual ranks: outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out"'
"$E" hw interp --gpus 2 --op allgather --sizes 64KiB --iters 2 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --gpus 2 (one rank per emulated GPU): outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allgather result" "$T/out"'
"$E" hw interp --gpus 3 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --gpus 3 on two GPUs: status 3, one line" \
	'[ $rc -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "this machine has 2 GPU" "$T/err"'

{ cat "$T/bench.csv"; grep -v '^#' "$T/interp.csv" | tail -n +2; } >"$T/calib.csv"
"$G" hw calibrate --name emu --from "$T/calib.csv" --dir "$T" >"$T/out" 2>"$T/err"; rc=$?
check "hw calibrate fits the emulated recording" \
	'[ $rc -eq 0 ] && [ -s "$T/emu.yaml" ]'
tap_end
