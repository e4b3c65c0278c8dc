#!/bin/sh
# Degraded components (faults.degrade): one GPU's NVLink at a share of its
# bandwidth slows an 8-GPU ring allreduce at 1 GiB by 1 / share (the ring
# runs at its slowest link) and --links points at it; the packet model and
# a training step's phases see it too; bad specs, names of no link and the
# closed form are refused with one line. Failures (resilience.*): the
# checkpoint-interval sweep peaks at Daly's optimum, one failure itemised,
# bad settings refused. TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/straggler-nvlink.yaml
"$G" run "$S" >"$T/s.txt" 2>"$T/s.err"
check "the straggler scenario matches its golden output" \
  "[ ! -s '$T/s.err' ] && diff -u tests/golden/straggler-nvlink.txt '$T/s.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
check "1 GiB: 1/0.75, 1/0.5 and 1/0.25 times the healthy ring, within 1 %" \
  "awk '\$3 == 1073741824 { split(\$1, a, \"=\"); t[a[2]] = \$4 } END { h = t[\"100%\"]; r1 = t[\"75%\"] / h * 0.75; r2 = t[\"50%\"] / h * 0.5; r3 = t[\"25%\"] / h * 0.25; exit !(r1 > 0.99 && r1 < 1.01 && r2 > 0.99 && r2 < 1.01 && r3 > 0.99 && r3 < 1.01) }' '$T/s.txt'"
ONE="--set sweep.key= --set sweep.values= --set collective.sizes=[1GiB]"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set faults.degrade=n0.gpu3.nvlink=50% --links >"$T/l.txt"
check "--links: GPU 3's NVLink port is the busiest, both ways, the others about half as busy" \
  "sed -n '/links at size/,\$p' '$T/l.txt' | sed -n '3,4p' | grep -c '^#   n0.gpu3.nvlink.[rt]x ' | grep -qx 2 && sed -n '/links at size/,\$p' '$T/l.txt' | sed -n '5p' | awk '{ b = \$4; sub(/%/, \"\", b); exit !(b > 45 && b < 55) }'"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.sizes=[64MiB] --set sim.fidelity=packet --set faults.degrade=n0.gpu3.nvlink=50% --format csv >"$T/p50.csv"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.sizes=[64MiB] --set sim.fidelity=packet --format csv >"$T/p.csv"
check "packet fidelity: the degraded port slows the ring too (64 MiB, over 1.6 times)" \
  "a=\$(tail -1 '$T/p.csv' | cut -d, -f6); b=\$(tail -1 '$T/p50.csv' | cut -d, -f6); awk -v a=\"\$a\" -v b=\"\$b\" 'BEGIN { exit !(b > 1.6 * a) }'"
T1="--set sweep.key= --set sweep.values= --set topology.nodes=2 --set sim.fidelity=flow"
# shellcheck disable=SC2086
"$G" run scenarios/training-step-scaling.yaml $T1 >"$T/st.txt"
# shellcheck disable=SC2086
"$G" run scenarios/training-step-scaling.yaml $T1 --set faults.degrade=n1.gpu5.nvlink=50% >"$T/st50.txt"
check "a training step: a degraded NVLink on one GPU slows its TP phase" \
  "a=\$(awk '\$1 == \"tp\" { print \$9 }' '$T/st.txt'); b=\$(awk '\$1 == \"tp\" { print \$9 }' '$T/st50.txt'); awk -v a=\"\$a\" -v b=\"\$b\" 'BEGIN { exit !(a > 0 && b > 1.3 * a) }'"
# faults.latency: 5 us more on GPU 3's NVLink port delays the latency-bound
# 64 KiB ring (every step waits for the messages through GPU 3), not the
# bandwidth-bound 1 GiB one beyond those microseconds
L="--set sweep.key= --set sweep.values= --set collective.sizes=[64KiB,1GiB] --format csv"
# shellcheck disable=SC2086
"$G" run "$S" $L >"$T/l0.csv"
# shellcheck disable=SC2086
"$G" run "$S" $L --set faults.latency=n0.gpu3.nvlink=5us >"$T/l5.csv"
check "faults.latency: 64 KiB at least 10 us slower, 1 GiB within 1 %" \
  "paste -d, '$T/l0.csv' '$T/l5.csv' | awk -F, '\$1 == 65536 { d = \$14 - \$6 } \$1 == 1073741824 { r = \$14 / \$6 } END { exit !(d >= 10 && r < 1.01) }'"
bad() { # NAME PATTERN SPEC [ARGS]: exit 2, one line naming faults.degrade, nothing on stdout
  name=$1
  pat=$2
  spec=$3
  shift 3
  # shellcheck disable=SC2086
  "$G" run "$S" $ONE --set "faults.degrade=$spec" "$@" >"$T/b.txt" 2>"$T/b.err"
  check "$name" "[ \$? -eq 2 ] && [ ! -s '$T/b.txt' ] && [ \$(wc -l <'$T/b.err') -eq 1 ] && grep -q 'faults.degrade: ' '$T/b.err' && grep -q \"$pat\" '$T/b.err'"
}
bad "a name of no link is refused, with the links' names" "'n9.gpu3' names no link of this topology.*n0.gpu0.nvlink.tx" "n9.gpu3=50%"
bad "a part of a name is not a name (n0.gpu1 is not n0.gpu10)" "'n0.gpu' names no link" "n0.gpu=50%"
bad "a share above 100 % is refused" "the share kept is above 0 and at most 100%" "n0.gpu3=150%"
bad "a share of 0 is refused" "the share kept is above 0" "n0.gpu3=0"
bad "an entry without its share is refused" "expected NAME=SHARE" "n0.gpu3"
bad "a share that is not a number is refused" "the share is a percentage" "n0.gpu3=half"
bad "an empty entry is refused" "an empty entry" "n0.gpu3=50%,,n0.gpu4=50%"
bad "the closed form is refused (no links)" "the closed form has no links to degrade" "n0.gpu3=50%" --set sim.fidelity=analytical
badl() { # NAME PATTERN SPEC: as bad, for faults.latency
  # shellcheck disable=SC2086
  "$G" run "$S" $ONE --set "faults.latency=$3" >"$T/b.txt" 2>"$T/b.err"
  check "$1" "[ \$? -eq 2 ] && [ ! -s '$T/b.txt' ] && [ \$(wc -l <'$T/b.err') -eq 1 ] && grep -q 'faults.latency: ' '$T/b.err' && grep -q \"$2\" '$T/b.err'"
}
badl "faults.latency: a name of no link is refused" "'n7.gpu3' names no link" "n7.gpu3=5us"
badl "faults.latency: a negative time is refused" "the latency added is a time from 0 to 1s" "n0.gpu3=-5us"
badl "faults.latency: a time without a unit is refused" "the latency added is a time" "n0.gpu3=5"
badl "faults.latency: an entry without its time is refused" "expected NAME=TIME" "n0.gpu3"
# --- failures, checkpoints and restarts (resilience.*) -----------------------
F=scenarios/failures-checkpoint.yaml
"$G" run "$F" >"$T/f.txt" 2>"$T/f.err"
check "the failures scenario matches its golden output" \
  "[ ! -s '$T/f.err' ] && diff -u tests/golden/failures-checkpoint.txt '$T/f.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
"$G" run "$F" --set sweep.key= --set sweep.values= >"$T/f1.txt"
daly=$(sed -n "s/.*Daly's optimum \([0-9]*\),.*/\1/p" "$T/f1.txt")
check "the swept interval with the best goodput is within 10 % of Daly's optimum" \
  "awk -v d=\"$daly\" '\$1 ~ /^[0-9]+\$/ && NF > 15 { if (\$NF > b) { b = \$NF; at = \$1 } } END { r = at / d; exit !(d > 0 && r > 0.9 && r < 1.1) }' '$T/f.txt'"
check "one failure mid-step itemised: stall, relaunch, reload and the work since the checkpoint add up" \
  "sed -n 's/.*stall \([0-9.]*\) s until the watchdog fires, teardown and relaunch \([0-9.]*\) s, the checkpoint of step 891 read back in \([0-9.]*\) s, \([0-9.]*\) s of work since it done again: \([0-9.]*\) s lost.*/\1 \2 \3 \4 \5/p' '$T/f1.txt' | awk '{ s = \$1 + \$2 + \$3 + \$4; exit !(NF == 5 && \$1 == 600 && \$2 == 300 && s - \$5 < 0.2 && \$5 - s < 0.2) }'"
"$G" run "$F" --set sweep.key= --set sweep.values= --set seed=2 >"$T/f2.txt"
check "another seed draws other failures (the same seed, the same run)" \
  "grep -q 'goodput' '$T/f2.txt' && ! cmp -s '$T/f1.txt' '$T/f2.txt' && \"$G\" run \"$F\" --set sweep.key= --set sweep.values= | cmp -s - '$T/f1.txt'"
badr() { # NAME PATTERN ARGS...: exit 2, one line, nothing on stdout
  name=$1
  pat=$2
  shift 2
  "$G" run "$@" >"$T/b.txt" 2>"$T/b.err"
  check "$name" "[ \$? -eq 2 ] && [ ! -s '$T/b.txt' ] && [ \$(wc -l <'$T/b.err') -eq 1 ] && grep -q \"$pat\" '$T/b.err'"
}
badr "resilience.* without a node MTBF is refused" "resilience.interval: not used by this run: resilience.node_mtbf 0 models no failures" \
  scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= --set resilience.interval=100
badr "failures without the storage bandwidth are refused" "resilience.node_mtbf: failures need the checkpoint's storage bandwidth" \
  scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= --set resilience.node_mtbf=1000
badr "a job that would hardly ever finish is refused" "the run would hardly ever finish" \
  "$F" --set sweep.key= --set sweep.values= --set resilience.node_mtbf=0.001 --set resilience.interval=1000
badr "resilience.* on a collective is refused" "resilience.node_mtbf: applies to workload: step" \
  scenarios/dgx-h100-allreduce.yaml --set resilience.node_mtbf=1000
tap_end
