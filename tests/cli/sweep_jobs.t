#!/bin/sh
# gcsim sweep across processes: --jobs N gives the table of --jobs 1; the
# shards of --shard I/K cover the grid once and --merge puts their files
# together; a worker killed mid-sweep fails only its cell, the finished ones
# stay and the rerun completes the grid; bad values of the new options exit
# 2 with one line and nothing written. TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/dgx-h100-scaling.yaml
GRID="--sweep topology.nodes=1,2,4 --sweep collective.sizes=1MiB,64MiB --fidelity flow"
# the table without its first line (which names the results file)
body() { sed 1d "$1"; }

# --- --jobs: the same table for any number of processes -----------------------
for j in 1 2 3; do
  # shellcheck disable=SC2086
  "$G" sweep "$S" $GRID --results "$T/j$j.db" --jobs "$j" >"$T/j$j.txt" 2>"$T/j$j.err"
  echo $? >"$T/j$j.rc"
done
check "--jobs 1, 2 and 3 exit 0 and simulate the 6 cells" \
  "for j in 1 2 3; do [ \$(cat \"$T/j\$j.rc\") -eq 0 ] && grep -q '^gcsim sweep: 6 cells: 6 simulated, 0 reused' \"$T/j\$j.err\" || exit 1; done"
check "--jobs 2 and 3 print the table of --jobs 1, byte for byte" \
  "[ \$(grep -c '^  ' '$T/j1.txt') -eq 12 ] && body '$T/j1.txt' >'$T/b1' && body '$T/j2.txt' >'$T/b2' && body '$T/j3.txt' >'$T/b3' && cmp -s '$T/b1' '$T/b2' && cmp -s '$T/b1' '$T/b3'"
# shellcheck disable=SC2086
"$G" sweep "$S" $GRID --results "$T/j2.db" --jobs 2 --format csv >"$T/j2.csv" 2>"$T/j2c.err"
# shellcheck disable=SC2086
"$G" sweep "$S" $GRID --results "$T/j1.db" --jobs 1 --format csv >"$T/j1.csv" 2>/dev/null
check "a rerun with --jobs 2 reuses every cell; its csv is --jobs 1's" \
  "grep -q ' 0 simulated, 6 reused' '$T/j2c.err' && cmp -s '$T/j1.csv' '$T/j2.csv'"

# --- --shard and --merge --------------------------------------------------------
for i in 0 1 2; do
  # shellcheck disable=SC2086
  "$G" sweep "$S" $GRID --results "$T/s$i.db" --shard "$i/3" --jobs 1 >"$T/s$i.txt" 2>"$T/s$i.err"
done
check "each of 3 shards runs its 2 cells and says which shard it is" \
  "for i in 0 1 2; do grep -q \"^gcsim sweep: shard \$i/3: 2 cells: 2 simulated, 0 reused\" \"$T/s\$i.err\" || exit 1; done"
check "the shards' rows are the grid's rows, each once" \
  "cat '$T/s0.txt' '$T/s1.txt' '$T/s2.txt' | grep '^  ' | sort >'$T/sh.rows' && grep '^  ' '$T/j1.txt' | sort >'$T/all.rows' && cmp -s '$T/sh.rows' '$T/all.rows'"
check "shard 1 of 3 holds cells 1 and 4 of the grid (1 node at 64 MiB, 4 nodes at 1 MiB)" \
  "grep '^  ' '$T/s1.txt' | awk '{print \$1}' | sort -u | tr '\n' ' ' | grep -qx '1,64MiB 4,1MiB '"
# shellcheck disable=SC2086
"$G" sweep "$S" $GRID --results "$T/m.db" --merge "$T/s0.db" --merge "$T/s1.db" --merge "$T/s2.db" >"$T/m.txt" 2>"$T/m.err"
check "--merge of the 3 shard files: nothing simulated, the table of one sweep" \
  "grep -q '^gcsim sweep: 6 cells: 0 simulated, 6 reused from .*(6 of them copied from --merge)' '$T/m.err' && body '$T/m.txt' >'$T/bm' && cmp -s '$T/b1' '$T/bm'"
# shellcheck disable=SC2086
"$G" sweep "$S" $GRID --results "$T/m2.db" --merge "$T/s0.db" >"$T/m2.txt" 2>"$T/m2.err"
check "--merge of one shard: its 2 cells copied, the other 4 simulated" \
  "grep -q '6 cells: 4 simulated, 2 reused from .*(2 of them copied from --merge)' '$T/m2.err' && body '$T/m2.txt' >'$T/bm2' && cmp -s '$T/b1' '$T/bm2'"
# shellcheck disable=SC2086
"$G" sweep "$S" $GRID --results "$T/m.db" --merge "$T/s0.db" >/dev/null 2>"$T/m3.err"
check "--merge into a file that holds every cell copies none" \
  "grep -q ' 0 simulated, 6 reused from .*(0 of them copied from --merge)' '$T/m3.err'"

# --- a worker killed mid-sweep --------------------------------------------------
# cells of about 1 s each here (ring and tree at 4 GiB on 8-11 nodes): long
# enough that the kill below lands while the first worker is still on a cell
K="--sweep topology.nodes=8,9,10,11 --set collective.sizes=4GiB --fidelity flow"
# shellcheck disable=SC2086
"$G" sweep "$S" $K --results "$T/k.db" --jobs 2 >"$T/k.txt" 2>"$T/k.err" &
P=$!
w=0
while [ "$(ps -o pid= --ppid "$P" 2>/dev/null | wc -l)" -lt 2 ] && [ $w -lt 400 ]; do
  sleep 0.05
  w=$((w + 1))
done
kill -KILL "$(ps -o pid= --ppid "$P" | head -1)" 2>/dev/null
wait "$P"
krc=$?
check "a killed worker: exit 1, the cell and the signal named, nothing on stdout" \
  "[ $krc -eq 1 ] && [ ! -s '$T/k.txt' ] && grep -q 'killed by signal 9.*(sweep cell topology.nodes=[0-9]*; [0-9]* cells done are kept in ' '$T/k.err'"
# shellcheck disable=SC2086
"$G" sweep "$S" $K --results "$T/k.db" --jobs 2 >"$T/k2.txt" 2>"$T/k2.err"
# shellcheck disable=SC2086
"$G" sweep "$S" $K --results "$T/k1.db" --jobs 1 >"$T/k1.txt" 2>/dev/null
check "the rerun reuses the cells that finished and completes the grid as one sweep would" \
  "grep -Eq '^gcsim sweep: 4 cells: [0-3] simulated, [1-4] reused' '$T/k2.err' && body '$T/k2.txt' >'$T/bk2' && body '$T/k1.txt' >'$T/bk1' && cmp -s '$T/bk1' '$T/bk2'"

# --- bad values -----------------------------------------------------------------
bad() { # NAME ARGS...: exit 2, one line on stderr, no stdout, no results file
  name=$1
  shift
  rm -f "$T/x.db"
  "$G" sweep "$S" --sweep topology.nodes=1,2 --results "$T/x.db" "$@" >"$T/x.txt" 2>"$T/x.err"
  check "$name" "[ \$? -eq 2 ] && [ ! -s '$T/x.txt' ] && [ \$(wc -l <'$T/x.err') -eq 1 ] && [ ! -e '$T/x.db' ]"
}
bad "--jobs -1 is refused" --jobs -1
bad "--shard 2/2 is refused (I counts from 0)" --shard 2/2
bad "--shard 1/0 is refused" --shard 1/0
bad "--shard a/b is refused" --shard a/b
bad "--shard 1/ is refused" --shard 1/
bad "--merge of a file that is not there is refused" --merge "$T/none.db"
touch "$T/x.db"
"$G" sweep "$S" --sweep topology.nodes=1,2 --results "$T/x.db" --merge "$T/x.db" >"$T/x.txt" 2>"$T/x.err"
check "--merge of the results file itself is refused" \
  "[ \$? -eq 2 ] && grep -q 'the --results file itself' '$T/x.err'"
tap_end
