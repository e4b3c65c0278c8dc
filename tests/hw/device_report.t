#!/bin/sh
# SPDX-License-Identifier: MIT
# The calibration loop without a GPU, through validate/device-report.sh on
# a device-check folder whose truth is known: the interpreter's runs are
# made by the virtual-rank model itself (launch 5 us, LL line 0.95 us, a
# piece 2 us, passes at 8 GB/s in a 60 MiB L2 and 4 GB/s beyond it; ring
# allreduce at 4 ranks to fit, 8 ranks, tree and allgather held aside), the
# microbenchmarks by hand (copy engine 4000 GB/s, SM copy 3600 or 2400,
# proxy round trip 1.6 us, inter-CTA barrier 0.95 us at 32 CTAs, shmem_put_bw's
# loop 1.5 us per iteration). The fit must recover the truth, predict its own
# schedule back and the held-aside ones within the bands; each check's
# verdict follows from that truth; the folder is read-only and stays
# untouched.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
export GCSIM="$G"
cat >"$T/truth.yaml" <<'YAML'
calibration:
  name: truth
  virtual_rank:
    launch: 5us
    ll_hop: 950ns
    l2: 60MiB
    piece: 2us
    pass_l2: 8GB/s
    pass_hbm: 4GB/s
YAML
# sim OUT.csv [hw interp options]: the 4-rank ring, or what the options change
sim() {
	out=$1
	shift
	"$G" hw interp --predict "$T/truth.yaml" --ranks 4 --sizes 4KiB,64KiB,1MiB,16MiB,256MiB "$@" --csv "$out" >/dev/null
}
D=$T/dev
mkdir -p "$D"
printf 'GPU 0: synthetic (made by the virtual-rank model)\n  L2                  60 MiB\n' >"$D/info.txt"
sim "$T/ring4.csv"
sim "$D/interp-ring8.csv" --ranks 8
sim "$D/interp-tree4.csv" --algo tree
sim "$D/interp-ag4.csv" --op allgather
# bench rows: T = alpha + bytes / bandwidth, and the proxy round trip
bench() { # bench SM_GBps
	echo "collective,algo,dtype,nranks,size_bytes,count,time_us,algbw_GBps,busbw_GBps,min_us,median_us,p99_us,iters"
	for s in 1048576 16777216 268435456 1073741824; do
		awk -v s=$s -v ce=4000 -v sm="$1" 'BEGIN {
			printf "hbm_copy,ce,,1,%d,%d,%.6f,,,,,,1\n", s, s, 2 + s / (ce * 1e3);
			printf "hbm_copy,sm,,1,%d,%d,%.6f,,,,,,1\n", s, s, 3 + s / (sm * 1e3) }'
	done
	echo "launch,pipelined,,1,0,0,5,,,,,,1"
	echo "proxy_rtt,fifo,,1,24,24,1.6,,,,,,1"
	echo "gpu_post,1cta-b1,,1,64,1,0.4,,,,,,1"
	echo "gpu_post,sms-b32,,132,64,1,2,,,,,,1"
	echo "proxy_rate,sms-b32,,132,32,1,0.25,,,,,,1"
	echo "cta_barrier,c32,,32,0,0,0.95,,,,,,1"
	echo "cta_barrier,sms,,132,0,0,1.3,,,,,,1"
	echo "put_loop,c32,,32,0,0,1.5,,,,,,1"
}
# status.txt as device-check writes it, and the calibration input
prep() { # prep SM_GBps
	{ bench "$1"; grep -v '^#' "$T/ring4.csv" | tail -n +2; } >"$D/calib-input.csv"
	printf '%s\n' "info rc=0 1s" "bench rc=0 60s" "interp-ring4 rc=0 3s" "calibrate rc=0 0s" \
		"rdma skipped: no RDMA device" "interp-ring8 rc=0 3s" "interp-tree4 rc=0 3s" \
		"interp-ag4 rc=0 2s" "interp-gpus2 skipped: --gpus 2: this machine has 1 GPU(s)" >"$D/status.txt"
}
prep 3600
chmod -R a-w "$D"
before=$(ls -lR "$D" | md5sum)
sh validate/device-report.sh "$D" "$T/out1" >"$T/r1.txt" 2>&1
rc=$?
check "every check passes on the true model: status 0" "[ $rc -eq 0 ]"
check "interpreter: the interp steps' statuses read" "grep -q '^interpreter: PASS: 4 steps' '$T/r1.txt'"
check "sm-copy: 90 % of the copy engine" "grep -q '^sm-copy: PASS: SM copy 3600 GB/s = 90.0 % of the copy engine.s 4000 GB/s' '$T/r1.txt'"
check "proxy round trip against the floor" "grep -q '^proxy-roundtrip: PASS: 1.6 us, 1.45x the 1.1 us' '$T/r1.txt'"
check "held-aside: ring8, tree4 and ag4 predicted from the fit" "grep -q '^held-aside: PASS: ring8 tree4 ag4' '$T/r1.txt'"
check "held-aside: 15 points compared" "grep -q 'compared 15 points' '$T/out1/validate.txt'"
check "report.txt holds what was printed" "cmp -s '$T/r1.txt' '$T/out1/report.txt'"
check "calibrate writes the fit and the flat-link scenario" "[ -s '$T/out1/device.yaml' ] && [ -s '$T/out1/device-virtual.yaml' ]"
check "the measured posting costs in the taxonomy: the proxy at 1 / (0.2 + 0.05 + 0.089 + 0.1) us" \
	"[ -s '$T/out1/device-taxonomy.yaml' ] && grep -q '^# taxonomy with the measured posting costs (device-taxonomy.yaml): 512 B puts, IBGDA [0-9.]* Mops, CPU proxy 2.262 Mops, ratio [0-9.]*x' '$T/r1.txt'"
check "shmem_put_bw's loop with the measured costs, at 10 and 1000 iterations" \
	"grep -q '^# shmem_put_bw loop with the measured costs (device-taxonomy.yaml): 32 CTAs x 10 iterations of 512 B, IBGDA [0-9.]* Mops, CPU proxy [0-9.]* Mops, ratio [0-9.]*x' '$T/r1.txt' && grep -q '^# shmem_put_bw loop with the measured costs (device-taxonomy.yaml): 32 CTAs x 1000 iterations of 512 B, IBGDA [0-9.]* Mops, CPU proxy [0-9.]* Mops, ratio [0-9.]*x' '$T/r1.txt'"
check "the inter-CTA barrier as measured and as the taxonomy sets gpu.cta_barrier" \
	"grep -q '^# inter-CTA barrier (cta_barrier): 0.95 us per barrier at 32 CTAs, 1.3 us at one CTA per SM; gpu.cta_barrier: 950ns in device-taxonomy.yaml\$' '$T/r1.txt'"
# the loop against the sum of its parts: 0.4 + 0.95 = 1.35 us, -10.0 %
check "the put loop measured against the sum of its parts" \
	"grep -qxF '# put_loop check (held aside, not fitted): 32 CTAs, 1.5 us per iteration measured, sum of the parts 1.35 us (gpu_post 1cta-b1 0.4 us + cta_barrier c32 0.95 us), error -10.0 %' '$T/r1.txt'"
check "the fit recovers the piece time and both pass rates, and takes launch, LL line and L2 as measured" \
	"grep -q '^    piece: 2us' '$T/out1/device.yaml' && grep -q '^    pass_l2: 8GB/s' '$T/out1/device.yaml' && grep -q '^    pass_hbm: 4GB/s' '$T/out1/device.yaml' && grep -q '^    launch: 5us' '$T/out1/device.yaml' && grep -q '^    ll_hop: 0.95us' '$T/out1/device.yaml' && grep -q '^    l2: 60MiB' '$T/out1/device.yaml' && grep -q 'max_error 0.0%' '$T/out1/device.yaml'"
"$G" hw interp --predict "$T/out1/device.yaml" --ranks 4 --sizes 4KiB,64KiB,1MiB,16MiB,256MiB --csv "$T/fit.csv" >/dev/null
"$G" validate --measured "$T/ring4.csv" --predicted "$T/fit.csv" >"$T/v1.txt"
check "predictions of the fitted schedule pass" "grep -q 'PASS' '$T/v1.txt' && grep -q 'compared 5 points' '$T/v1.txt'"
check "the flat-link scenario's errors are printed for comparison" "grep -q '^# flat-link scenario (device-virtual.yaml), for comparison: median' '$T/r1.txt'"
for held in "allreduce,ring,8" "allreduce,tree,4" "allgather,ring,4"; do
	check "held-aside schedule ($held) predicted within the bands" \
		"[ \$(grep -c '^$held,.*,pass\$' '$T/out1/validate.csv') -eq 5 ]"
done
check "the device folder is untouched" "[ \"\$(ls -lR '$D' | md5sum)\" = '$before' ]"

# an SM copy at 60 % fails that check alone: status 1
chmod -R u+w "$D"
prep 2400
sh validate/device-report.sh "$D" "$T/out2" >"$T/r2.txt" 2>&1
rc=$?
check "a slow SM copy is a result: status 1" "[ $rc -eq 1 ]"
check "sm-copy fails at 60 %" "grep -q '^sm-copy: FAIL: SM copy 2400 GB/s = 60.0 %' '$T/r2.txt'"
check "the other checks still pass" "grep -q '^held-aside: PASS' '$T/r2.txt' && grep -q '^proxy-roundtrip: PASS' '$T/r2.txt'"

# a failed interpreter step and a missing held-aside file
sed 's/^interp-tree4 rc=0/interp-tree4 rc=1/' "$D/status.txt" >"$T/st" && cat "$T/st" >"$D/status.txt"
prep_fail=$(grep -c 'rc=1' "$D/status.txt")
rm "$D/interp-ag4.csv" "$D/interp-tree4.csv"
sh validate/device-report.sh "$D" "$T/out3" >"$T/r3.txt" 2>&1
rc=$?
check "a failed interpreter step fails: status 1" "[ $rc -eq 1 ] && [ $prep_fail -eq 1 ] && grep -q '^interpreter: FAIL: .*interp-tree4 rc=1' '$T/r3.txt'"
check "held-aside runs on what is there" "grep -q '^held-aside: PASS: ring8 within' '$T/r3.txt'"

# what is missing is named: status 3
rm "$D/calib-input.csv"
sh validate/device-report.sh "$D" "$T/out4" >"$T/r4.txt" 2>&1
rc=$?
check "no calibration input: missing checks named" "grep -q '^sm-copy: MISSING' '$T/r4.txt' && grep -q '^held-aside: MISSING: no virtual-rank model' '$T/r4.txt'"
check "and status 1 still wins over 3 (the failed step)" "[ $rc -eq 1 ]"
sed 's/^interp-tree4 rc=1/interp-tree4 rc=0/' "$D/status.txt" >"$T/st" && cat "$T/st" >"$D/status.txt"
sh validate/device-report.sh "$D" "$T/out5" >"$T/r5.txt" 2>&1
rc=$?
check "only missing pieces: status 3" "[ $rc -eq 3 ]"

# usage errors
sh validate/device-report.sh >/dev/null 2>&1
rc=$?
check "no folder: usage, status 2" "[ $rc -eq 2 ]"
sh validate/device-report.sh "$T/nope" >"$T/r6.txt" 2>&1
rc=$?
check "a folder that does not exist: status 2, named" "[ $rc -eq 2 ] && grep -q 'nope: no such folder' '$T/r6.txt'"
GCSIM=/nonexistent sh validate/device-report.sh "$D" >/dev/null 2>&1
rc=$?
check "no runnable gcsim: status 4" "[ $rc -eq 4 ]"
sh validate/device-report.sh --help >"$T/h.txt" 2>&1
check "--help explains the checks" "grep -q 'held-aside schedules' '$T/h.txt' && ! grep -q 'set -eu' '$T/h.txt'"
chmod -R u+w "$T"
tap_end
