#!/bin/sh
# SPDX-License-Identifier: MIT
# The hw command line on an emulated GPU: build/tests/hw/gcsim-emu is gcsim
# with its CUDA code (hw/kernels) compiled for the CPU emulation of
# tests/hw/emu, with two GPUs: `hw info` lists both and their peer access;
# `hw interp` checks its outputs with virtual ranks and with one rank per
# GPU, and refuses more GPUs than there are. The microbenchmarks, the
# calibration and the rest of the interpreter's schedules run in
# tests/hw/device_check_emu.t, through the device check's own script.
set -u
cd "$(dirname "$0")/../.."
. tests/hw/emu.sh

"$E" hw info >"$T/info" 2>"$T/err"; rc=$?
check "hw info on the emulation: status 0, two GPUs and their peers" \
	'[ $rc -eq 0 ] && grep -q "GPU 1: CUDA emulation on the CPU" "$T/info" && grep -q "peers (P2P)         GPU 1" "$T/info"'

"$E" hw interp --ranks 4 --sizes 4KiB,1MiB --iters 2 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp, 4 virtual ranks: outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out"'
"$E" hw interp --gpus 2 --op allgather --sizes 64KiB --iters 2 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --gpus 2 (one rank per emulated GPU): outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allgather result" "$T/out"'
"$E" hw interp --gpus 3 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --gpus 3 on two GPUs: status 3, one line" \
	'[ $rc -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "this machine has 2 GPU" "$T/err"'

tap_end
