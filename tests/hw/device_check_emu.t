#!/bin/sh
# SPDX-License-Identifier: MIT
# hw/device-check.sh, the one script a GPU session runs, run whole on the
# CPU emulation of CUDA (build/tests/hw/gcsim-emu) in its quick mode
# (DEVICE_CHECK_QUICK=1: small sizes, 2 iterations), then
# validate/device-report.sh on what it wrote, as a GPU session would: every
# step runs and records its status, each interpreter step's outputs equal
# the CPU reference's, the recording calibrates, and the report gives its
# four verdicts. The times are the CPU's, so the report's timing checks
# fail (status 1); that they are reached and decided is what is tested.
set -u
cd "$(dirname "$0")/../.."
. tests/hw/emu.sh
D=$T/dev
GCSIM=$E DEVICE_CHECK_QUICK=1 BUDGET=400 sh hw/device-check.sh "$D" >"$T/out" 2>&1; rc=$?
check "device-check.sh under the emulation: status 0" '[ $rc -eq 0 ] && grep -q "^done in" "$T/out"'
for s in info bench interp-ring4 calibrate interp-ring8 interp-tree4 interp-ag4 interp-rs4 \
	interp-nvlstree8 interp-moe8 interp-fwd8 interp-collnet8 interp-collnetchain8 \
	interp-bruck8 interp-nvls-agrs8 interp-nvls-sharp8 interp-pat6 interp-chain8 interp-gpus2; do
	check "step $s: rc=0" "grep -q '^$s rc=0 ' '$D/status.txt'"
done
check "rdma skipped with its one line (no RDMA device)" "grep -q '^rdma skipped: ' '$D/status.txt'"
for f in info.txt bench.csv calib-input.csv device.yaml interp-ring4.csv interp-gpus2.csv log.txt; do
	check "wrote $f" "[ -s '$D/$f' ]"
done
check "the calibration names its provenance" "grep -q 'CUDA emulation on the CPU' '$D/device.yaml'"
chmod -R a-w "$D"
GCSIM=$G sh validate/device-report.sh "$D" "$T/rep" >"$T/rep.out" 2>&1; rc=$?
chmod -R u+w "$D"
check "device-report.sh: status 1 (the CPU's times fail the timing checks)" '[ $rc -eq 1 ]'
check "interpreter verdict: PASS, 16 steps" "grep -q '^interpreter: PASS: 16 steps' '$T/rep.out'"
for v in sm-copy proxy-roundtrip held-aside; do
	check "$v verdict given" "grep -q '^$v: \(PASS\|FAIL\): ' '$T/rep.out'"
done
tap_end
