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
"$E" hw interp --ranks 4 --op dispatch --algo garden --tokens 16 --topk 4 --experts 16 --iters 2 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp garden dispatch (pplx-garden's ranges through a scratch buffer): outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected dispatch result" "$T/out"'
"$E" hw interp --gpus 2 --op combine --algo garden --tokens 8 --topk 2 --experts 4 --channels 3 --iters 2 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp garden combine, one rank per emulated GPU: outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected combine result" "$T/out"'
"$E" hw interp --gpus 3 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --gpus 3 on two GPUs: status 3, one line" \
	'[ $rc -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "this machine has 2 GPU" "$T/err"'

# the ways a block moves a piece (--kernel): 16-byte vectors, 4 in flight
# per thread (the default), the same vectors through loading and storing
# warps (pipe), and one element per thread; sizes whose operands are not
# all 16-byte aligned take the scalar way in the vector kernels; every
# output checked
for k in vector pipe scalar; do
	for d in float double int32; do
		"$E" hw interp --kernel $k --ranks 4 --dtype $d --sizes 1MiB,1000004B,4KiB,12B --iters 1 >"$T/out" 2>"$T/err"; rc=$?
		check "hw interp --kernel $k, $d, aligned and unaligned sizes: outputs checked" \
			'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out"'
	done
done
"$E" hw interp --kernel vector --ranks 8 --algo tree --nodes 2 --sizes 256KiB --iters 1 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --kernel vector, tree over 2 nodes: outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out"'
"$E" hw interp --kernel vector --ranks 4 --op reducescatter --sizes 1MiB --iters 1 --csv "$T/v.csv" >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --kernel vector records as interp, --kernel scalar as interp-scalar" \
	'[ $rc -eq 0 ] && grep -q "interp" "$T/v.csv" && "$E" hw interp --kernel scalar --ranks 4 --sizes 4KiB --iters 1 --csv "$T/s.csv" >/dev/null 2>&1 && grep -q "interp-scalar" "$T/s.csv" && ! grep -q "interp-scalar" "$T/v.csv"'
"$E" hw interp --kernel fast >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --kernel fast: status 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "expected vector, scalar or pipe" "$T/err"'

# LL128 lines (--protocol ll128) and several blocks per strand (--blocks):
# every dtype, aligned and unaligned sizes, pieces of several lines and of
# several slots; one rank per GPU too; the label names both
for d in float double int32; do
	"$E" hw interp --protocol ll128 --blocks 3 --ranks 4 --dtype $d --sizes 300KiB,1000004B,12KiB,12B --iters 1 >"$T/out" 2>"$T/err"; rc=$?
	check "hw interp --protocol ll128 --blocks 3, $d, aligned and unaligned sizes: outputs checked" \
		'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out"'
done
"$E" hw interp --protocol ll128 --gpus 2 --algo tree --sizes 256KiB --iters 1 --csv "$T/l.csv" >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --protocol ll128 --gpus 2, tree: outputs checked, recorded as interp-ll128" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out" && grep -q "^# label: interp-ll128$" "$T/l.csv"'
"$E" hw interp --kernel pipe --gpus 2 --sizes 1MiB --iters 1 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --kernel pipe --gpus 2: outputs checked" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected allreduce result" "$T/out"'
"$E" hw interp --blocks 2 --ranks 8 --op alltoall --algo put --sizes 64KiB --iters 1 --csv "$T/b.csv" >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --blocks 2, one-sided alltoall: outputs checked, recorded as interp-b2" \
	'[ $rc -eq 0 ] && grep -q "all outputs equal the expected alltoall result" "$T/out" && grep -q "^# label: interp-b2$" "$T/b.csv"'
"$E" hw interp --protocol ll64 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --protocol ll64: status 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "expected simple or ll128" "$T/err"'
"$E" hw interp --blocks 17 >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --blocks 17: status 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "expected 1..16, got 17" "$T/err"'
"$E" hw interp --blocks 2 --predict "$T/none.yaml" >"$T/out" 2>"$T/err"; rc=$?
check "hw interp --blocks with --predict: status 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "leave it out" "$T/err"'

tap_end
