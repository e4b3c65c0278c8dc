#!/bin/sh
# The progress line and the long-run warning: on a terminal (script(1)
# gives the run one) the line shows the size, the share of its steps done
# and the time left, and is erased before the table, which is the one a
# redirected run prints; a redirected run's stderr stays empty; a size
# estimated at more than a minute is announced before it runs, terminal or
# not, with the estimate and the faster alternatives. TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/dgx-h100-8node-ring.yaml
# about 2e6 steps, every rank simulated: long enough for the line to be
# drawn (twice a second)
ARGS="--set topology.nodes=48 --set collective.sizes=[1MiB] --set sim.fidelity=flow --set sim.fold=false"
# shellcheck disable=SC2086
"$G" run "$S" $ARGS >"$T/plain.txt" 2>"$T/plain.err"
check "redirected: exit 0, nothing on stderr" "[ \$? -eq 0 ] && [ ! -s '$T/plain.err' ]"
if command -v script >/dev/null 2>&1; then
  script -qc "$G run $S $ARGS" "$T/tty.log" >/dev/null 2>&1
  tr '\r' '\n' <"$T/tty.log" >"$T/tty.txt"
  check "on a terminal: the line names the size and the steps done" \
    "grep -Eq 'gcsim: size 1 of 1 \\(1048576 B\\): [0-9]+ % of [0-9.e+]+ steps, about [0-9]+ (s|min) left' '$T/tty.txt'"
  check "on a terminal: the table is the redirected run's" \
    "grep -a '^  *1048576 ' '$T/tty.txt' | tr -d '\\r' | grep -qF \"\$(grep '^  *1048576 ' '$T/plain.txt')\""
  script -qc "$G run scenarios/training-step-moe.yaml --set sweep.key= --set sweep.values=" "$T/step.log" >/dev/null 2>&1
  check "a training step: the line names each phase" \
    "tr '\\r' '\\n' <'$T/step.log' | grep -q 'gcsim: step phase 2 of 7 (ep-dispatch)'"
else
  n=$((n + 1)); echo "ok $n # skip script(1) is not installed"
  n=$((n + 1)); echo "ok $n # skip script(1) is not installed"
  n=$((n + 1)); echo "ok $n # skip script(1) is not installed"
fi

# until_warned ERR ARGS...: gcsim ARGS in the background, stderr in ERR,
# stopped once it printed its warning (or after 30 s); WARNED is the
# warning's words
until_warned() {
  err=$1
  shift
  "$G" "$@" >/dev/null 2>"$err" &
  P=$!
  w=0
  while ! grep -q "${WARNED:-steps to simulate}" "$err" 2>/dev/null && [ $w -lt 600 ]; do
    sleep 0.05
    w=$((w + 1))
  done
  kill "$P" 2>/dev/null
  wait "$P" 2>/dev/null
}
# 512 DGX H100 nodes at 1 GiB, every rank simulated: minutes of flow model
until_warned "$T/big.err" run "$S" --set topology.nodes=512 --set collective.sizes=[1GiB] --set sim.fidelity=flow --set sim.fold=false
check "a long size is announced before it runs: steps, the estimate, the alternatives" \
  "grep -Eq '^gcsim: size 1073741824 B: [0-9.]+e\\+08 steps to simulate, about [0-9]+ min of one core; --fidelity analytical answers in under a second' '$T/big.err'"
# an all-to-all of 2048 GPUs, every rank simulated, opens 4.2 M
# connections (about 1.5 GB): the memory is announced with the time
until_warned "$T/mem.err" run scenarios/alltoall-peers.yaml --sweep topology.nodes=256 --set sim.fold=false
check "a run of many connections is announced with the memory they take" \
  "grep -Eq '^gcsim: size 1048576 B: [0-9.]+e\\+06 steps to simulate, about [0-9]+ s of one core, about 1\\.[0-9] GB of memory for its connections; --fidelity analytical' '$T/mem.err'"
# a tree on 64 nodes with every channel simulated costs several times a
# flat ring's per step (many flows share each NIC): the estimate lets
# 32 GiB through (7.5e7 steps), its first 2 s show minutes
WARNED='at this pace' until_warned "$T/pace.err" run "$S" --set topology.nodes=64 \
  --set collective.algo=tree --set collective.sizes=[32GiB] --set sim.fidelity=flow --set sim.fold=false
check "a size slower than its estimate is announced at the pace of its first seconds" \
  "grep -Eq '^gcsim: size 34359738368 B: [0-9]+ % of [0-9.]+e\\+07 steps in [0-9]+ s, about [0-9]+ min of one core at this pace; --fidelity analytical' '$T/pace.err'"
check "and it was not announced before" "! grep -q 'steps to simulate' '$T/pace.err'"
"$G" run "$S" --set collective.sizes=[1MiB] --set sim.fidelity=analytical --set topology.nodes=512 >/dev/null 2>"$T/an.err"
check "the closed form is not announced" "[ ! -s '$T/an.err' ]"
# folded (the default), one node's ranks stand for all 512 nodes' (a
# second or so): nothing to announce
"$G" run "$S" --set topology.nodes=512 --set collective.sizes=[1GiB] --set sim.fidelity=flow >/dev/null 2>"$T/fold.err"
check "a folded run of 512 nodes is not announced" "[ ! -s '$T/fold.err' ]"
tap_end
