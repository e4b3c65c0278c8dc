#!/bin/sh
# Degraded components (faults.degrade): one GPU's NVLink at a share of its
# bandwidth slows an 8-GPU ring allreduce at 1 GiB by 1 / share (the ring
# runs at its slowest link) and --links points at it; the packet model and
# a training step's phases see it too; bad specs, names of no link and the
# closed form are refused with one line. TAP output.
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
tap_end
