#!/bin/sh
# gcsim sweep under mpirun (Open MPI): rank 0 hands the cells to the other
# ranks and stores them all in its results file, so the table is the one of
# a sweep in one process; a rank killed mid-sweep loses no stored cell and
# the same command completes the grid; --jobs is refused under mpirun. A
# gcsim built without Open MPI refuses to run as one of several ranks. TAP
# output; the mpirun checks are skipped where Open MPI is not installed.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/dgx-h100-scaling.yaml
GRID="--sweep topology.nodes=1,2,4 --sweep collective.sizes=1MiB,64MiB --fidelity flow"
body() { sed 1d "$1"; }
skip() { n=$((n + 1)); echo "ok $n # skip $1"; }

if ! "$G" sweep --help | grep -q 'Under mpirun'; then
  # a rank of several as a process manager announces it
  OMPI_COMM_WORLD_SIZE=2 "$G" sweep "$S" --results "$T/n.db" >"$T/n.txt" 2>"$T/n.err"
  check "built without Open MPI: one of 2 ranks is refused, exit 2, nothing written" \
    "[ \$? -eq 2 ] && grep -q 'built without Open MPI' '$T/n.err' && [ ! -s '$T/n.txt' ] && [ ! -e '$T/n.db' ]"
  skip "mpirun: this gcsim was built without Open MPI"
  tap_end
  exit
fi
if ! command -v mpirun >/dev/null 2>&1; then
  skip "mpirun is not installed"
  tap_end
  exit
fi
# as root (containers, CI) Open MPI wants to be told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --oversubscribe"

# shellcheck disable=SC2086
"$G" sweep "$S" $GRID --results "$T/one.db" --jobs 1 >"$T/one.txt" 2>/dev/null
for np in 2 3; do
  # shellcheck disable=SC2086
  $MPIRUN -np $np "$G" sweep "$S" $GRID --results "$T/m$np.db" >"$T/m$np.txt" 2>"$T/m$np.err"
  echo $? >"$T/m$np.rc"
done
check "mpirun -np 2 and -np 3: exit 0, every cell simulated, one summary line" \
  "for np in 2 3; do [ \$(cat \"$T/m\$np.rc\") -eq 0 ] && [ \"\$(grep -c '^gcsim sweep' \"$T/m\$np.err\")\" -eq 1 ] && grep -q '^gcsim sweep: 6 cells: 6 simulated, 0 reused' \"$T/m\$np.err\" || exit 1; done"
check "mpirun -np 2 and -np 3 print the table of one process, byte for byte" \
  "body '$T/one.txt' >'$T/b1' && body '$T/m2.txt' >'$T/b2' && body '$T/m3.txt' >'$T/b3' && [ -s '$T/b1' ] && cmp -s '$T/b1' '$T/b2' && cmp -s '$T/b1' '$T/b3'"
# shellcheck disable=SC2086
$MPIRUN -np 2 "$G" sweep "$S" $GRID --results "$T/m2.db" >"$T/m2r.txt" 2>"$T/m2r.err"
check "the rerun under mpirun reuses every cell of rank 0's file" \
  "grep -q '^gcsim sweep: 6 cells: 0 simulated, 6 reused' '$T/m2r.err' && cmp -s '$T/m2.txt' '$T/m2r.txt'"
# shellcheck disable=SC2086
$MPIRUN -np 2 "$G" sweep "$S" $GRID --results "$T/j.db" --jobs 2 >"$T/j.txt" 2>"$T/j.err"
check "--jobs 2 under mpirun is refused, nothing written" \
  "[ \$? -ne 0 ] && grep -q 'start more ranks instead' '$T/j.err' && [ ! -e '$T/j.db' ] && [ ! -s '$T/j.txt' ]"

# --- a rank killed mid-sweep ----------------------------------------------------
# cells of about 1 s each (ring and tree at 4 GiB on 8-12 nodes), so rank 1
# is still on a cell when it is killed
K="--sweep topology.nodes=8,9,10,11,12 --set collective.sizes=4GiB --fidelity flow"
# shellcheck disable=SC2086
$MPIRUN -np 3 "$G" sweep "$S" $K --results "$T/k.db" >"$T/k.txt" 2>"$T/k.err" &
P=$!
# the results file appears with the first cell stored; then rank 1 goes
w=0
while [ ! -e "$T/k.db" ] && [ $w -lt 1200 ]; do
  sleep 0.05
  w=$((w + 1))
done
for p in $(pgrep -f "sweep $S $K --results $T/k.db"); do
  if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
    kill -KILL "$p"
  fi
done
wait "$P"
krc=$?
check "a killed rank stops the job (non-zero), with a results file of the cells stored" \
  "[ $krc -ne 0 ] && [ -e '$T/k.db' ]"
# shellcheck disable=SC2086
$MPIRUN -np 3 "$G" sweep "$S" $K --results "$T/k.db" >"$T/k2.txt" 2>"$T/k2.err"
# shellcheck disable=SC2086
"$G" sweep "$S" $K --results "$T/k1.db" >"$T/k1.txt" 2>/dev/null
check "the same command reuses what was stored and completes the grid" \
  "grep -Eq '^gcsim sweep: 5 cells: [0-4] simulated, [1-5] reused' '$T/k2.err' && body '$T/k2.txt' >'$T/bk2' && body '$T/k1.txt' >'$T/bk1' && cmp -s '$T/bk1' '$T/bk2'"
tap_end
