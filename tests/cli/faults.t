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
# faults.loss: a NIC that loses packets; a lost last packet waits the ACK
# timeout (4.29 s with NCCL's IB timeout), drawn from seed
LL=scenarios/lossy-link.yaml
"$G" run "$LL" >"$T/ll.txt" 2>"$T/ll.err"
check "the lossy-link scenario matches its golden output" \
  "[ ! -s '$T/ll.err' ] && diff -u tests/golden/lossy-link.txt '$T/ll.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
ONEL="--set sweep.key= --set sweep.values= --set sweep.key2= --set sweep.values2="
# shellcheck disable=SC2086
"$G" run "$LL" $ONEL --format csv >"$T/l0.csv"
# shellcheck disable=SC2086
"$G" run "$LL" $ONEL --set faults.loss=n0.nic0=0 --format csv >"$T/l00.csv"
check "faults.loss: a rate of 0 changes nothing" "cmp -s '$T/l0.csv' '$T/l00.csv'"
# shellcheck disable=SC2086
"$G" run "$LL" $ONEL --set faults.loss=n0.nic0=1e-3 >"$T/l3.txt"
check "faults.loss: 10 operations lose N last packets and take N x 4.294967296 s more (within 1 ms)" \
  "nl=\$(sed -n 's/^# lost last packets.*: 67108864 B \\([0-9]*\\) (over 10 operations)\$/\\1/p' '$T/l3.txt'); t=\$(awk '\$1 == 67108864 { print \$6 }' '$T/l3.txt'); b=\$(tail -1 '$T/l0.csv' | cut -d, -f6); awk -v n=\"\$nl\" -v t=\"\$t\" -v b=\"\$b\" 'BEGIN { d = (t - b) * 10 - n * 4294967.296; exit !(n >= 1 && d > -1000 && d < 1000) }'"
# shellcheck disable=SC2086
"$G" run "$LL" $ONEL --set faults.loss=n0.nic0=1e-3 --set seed=3 >"$T/l3s.txt"
check "faults.loss: another seed loses other packets" "! cmp -s '$T/l3.txt' '$T/l3s.txt'"
# shellcheck disable=SC2086
badr "a loss rate above 0.5 is refused" "faults.loss: 'n0.nic0=0.6': the loss rate is a packet's probability" "$LL" $ONEL --set faults.loss=n0.nic0=0.6
# shellcheck disable=SC2086
badr "a lossy name of no link is refused" "faults.loss: 'n9.nic0' names no link" "$LL" $ONEL --set faults.loss=n9.nic0=1e-6
# shellcheck disable=SC2086
badr "faults.loss under the packet fidelity is refused" "faults.loss: not used by this run: lost packets are followed under sim.fidelity flow" "$LL" $ONEL --set faults.loss=n0.nic0=1e-6 --set sim.fidelity=packet
# shellcheck disable=SC2086
badr "faults.retransmit without faults.loss is refused" "faults.retransmit: not used by this run: it times the resends of lost packets" "$LL" $ONEL --set faults.retransmit=1ms
# faults.down: a component that stops for good mid-collective; the
# operation stalls and the watchdog (resilience.timeout) ends it
"$G" run scenarios/node-failure-allreduce.yaml >"$T/nf.txt" 2>"$T/nf.err"
check "the node-failure scenario matches its golden output" \
  "[ ! -s '$T/nf.err' ] && diff -u tests/golden/node-failure-allreduce.txt '$T/nf.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
R8=scenarios/dgx-h100-8node-ring.yaml
"$G" run "$R8" --set collective.sizes=[64MiB,1GiB] --format csv >"$T/d0.csv"
"$G" run "$R8" --set collective.sizes=[64MiB,1GiB] --set faults.down=n3@1ms --format csv >"$T/d1.csv"
check "faults.down: 64 MiB (done in 0.86 ms) is untouched by node 3 stopping at 1 ms, 1 GiB stalls until the 600 s watchdog" \
  "[ \"\$(sed -n 2p '$T/d0.csv')\" = \"\$(sed -n 2p '$T/d1.csv')\" ] && [ \"\$(sed -n 3p '$T/d1.csv' | cut -d, -f6)\" = 600000000.000000 ]"
"$G" run "$R8" --set collective.sizes=[1GiB] --set faults.down=n3.nic5@0us --set resilience.timeout=30s >"$T/d2.txt"
check "faults.down: one NIC of 64 stopped from the start stalls its channels only (most steps done); a 30 s watchdog" \
  "awk '\$1 == 1073741824 { t = \$6 } END { exit !(t == 30000000) }' '$T/d2.txt' && sed -n 's/^# stalled: 1073741824 B: .*; \\([0-9.]*\\) % of its steps done, \\([0-9]*\\) messages lost.*/\\1 \\2/p' '$T/d2.txt' | awk '{ exit !(NF == 2 && \$1 > 50 && \$1 < 100 && \$2 > 0) }'"
badr "faults.down over several operations is refused" "faults.down: not used by this run: a stopped link stalls one operation for good" \
  "$R8" --set faults.down=n3@1ms --set collective.iters=2
badr "faults.down under the packet fidelity is refused" "faults.down: not used by this run: stopped links are followed under sim.fidelity flow" \
  "$R8" --set faults.down=n3@1ms --set sim.fidelity=packet
badr "faults.down without a time is refused" "faults.down: 'n3=1ms': expected NAME@TIME" \
  "$R8" --set faults.down=n3=1ms
badr "faults.down naming no link is refused" "faults.down: 'n9' names no link" \
  "$R8" --set faults.down=n9@1ms
badr "faults.down in a training step is refused" "faults.down: not used by this run: a stopped link stalls a collective for good" \
  scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= --set faults.down=n0@1ms
# resilience.spares: with 48 h repairs, goodput rises with the spares
# shellcheck disable=SC2086
"$G" run "$F" --set resilience.repair=172800s --set resilience.interval=297 --set sweep.key=resilience.spares --set sweep.values=0,1,2,4 >"$T/sp.txt"
check "spares: goodput rises with each spare (0, 1, 2, 4), four within 0.05 % of instant replacement" \
  "awk '\$1 ~ /^[0-9]+\$/ && NF > 10 { g[\$1] = \$NF } END { exit !(g[0] < g[1] && g[1] < g[2] && g[2] < g[4] && g[4] > 98.96) }' '$T/sp.txt' && grep -q '^# 4: spares    : 4 hot spare nodes, a failed node out 48.0 h' '$T/sp.txt'"
badr "spares without a repair time are refused" "resilience.spares: not used by this run: with resilience.repair 0" \
  "$F" --set sweep.key= --set sweep.values= --set resilience.spares=2
tap_end
