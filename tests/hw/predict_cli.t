#!/bin/sh
# SPDX-License-Identifier: MIT
# gcsim hw interp --predict (the virtual-rank model of a calibration, no GPU)
# and calibrate --l2: what they print and store, and their refusals.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
printf 'calibration:\n  virtual_rank:\n    launch: 5us\n    ll_hop: 1us\n    l2: 60MiB\n    piece: 3us\n    pass_l2: 7GB/s\n    pass_hbm: 4GB/s\n' >"$T/cal.yaml"
"$G" hw interp --predict "$T/cal.yaml" --ranks 4 --algo tree --sizes 4KiB,64MiB --csv "$T/pred.csv" >"$T/pred.out" 2>&1; rc=$?
check "--predict: status 0 without a GPU, one row per size" "[ $rc -eq 0 ] && [ \$(grep -c '^allreduce,tree,float,4,' '$T/pred.csv') -eq 2 ] && grep -q '^# kind: sim' '$T/pred.csv' && grep -q 'predicted by the virtual-rank model' '$T/pred.out'"
# tree of 4 at 4 KiB: launch + the leaf's pass (3 us + 4 KiB at 7 GB/s) + 6 LL hops of 1 us
check "--predict: 4 KiB tree = 5 + 3 + 4096/7000 + 6 us" "grep -q '^allreduce,tree,float,4,4096,1024,14.585' '$T/pred.csv'"
"$G" hw interp --predict "$T/cal.yaml" --ranks 4 --algo tree --sizes 4KiB,64MiB --csv "$T/pred2.csv" >/dev/null 2>&1
check "--predict: the same points twice, byte for byte" "grep -v '^#' '$T/pred.csv' >'$T/a' && grep -v '^#' '$T/pred2.csv' >'$T/b' && cmp -s '$T/a' '$T/b'"
printf 'calibration:\n  virtual_rank:\n    launch: 5us\n    piece: soon\n' >"$T/bad.yaml"
"$G" hw interp --predict "$T/bad.yaml" >"$T/o" 2>"$T/e"; rc=$?
check "--predict: a bad value named by file:line:column, status 2, no output" "[ $rc -eq 2 ] && grep -q 'bad.yaml:4:12: piece: expected a positive time' '$T/e' && [ ! -s '$T/o' ]"
"$G" hw interp --predict "$T/nope.yaml" >/dev/null 2>"$T/e"; rc=$?
check "--predict: a missing file named" "[ $rc -ne 0 ] && grep -q 'nope.yaml:1:1: cannot read' '$T/e'"
"$G" hw interp --predict "$T/cal.yaml" --gpus 2 >/dev/null 2>"$T/e"; rc=$?
check "--predict with --gpus is refused, status 2" "[ $rc -eq 2 ] && grep -q 'leave --gpus out' '$T/e'"
"$G" hw calibrate --name x --from "$T/pred.csv" --dir "$T" --l2 lots >/dev/null 2>"$T/e"; rc=$?
check "calibrate --l2: a bad size, status 2, nothing written" "[ $rc -eq 2 ] && grep -q -- '--l2: expected a size' '$T/e' && [ ! -e '$T/x.yaml' ]"
tap_end
