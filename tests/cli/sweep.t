#!/bin/sh
# gcsim sweep: a grid of values stored cell by cell in a results file, the
# rerun that reuses them, the resume of a grid that grew, the table built
# from the stored points, the SVG plot, and the exit status and stderr of
# bad input (nothing written). TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/tp-allgather-nvls.yaml
# --- a fresh sweep, then the same again ---------------------------------------
"$G" sweep "$S" --results "$T/a.db" --plot "$T/a.svg" >"$T/a1.txt" 2>"$T/a1.err"
check "fresh sweep exits 0 and simulates its 4 cells" \
  "[ \$? -eq 0 ] && grep -q '^gcsim sweep: 4 cells: 4 simulated, 0 reused from ' '$T/a1.err'"
check "one row per cell and size (4 x 6)" "[ \$(grep -c '^  ' '$T/a1.txt') -eq 24 ]"
check "rows are the cells' points, first key slowest" \
  "sed -n 3p '$T/a1.txt' | grep -Eq '^ +ring,dgx-h100 +ring +8 +65536 ' && tail -1 '$T/a1.txt' | grep -Eq '^ +nvls,dgx-b200 +nvls +8 +4294967296 '"
sed '/^sweep:/,$d' "$S" >"$T/nosweep.yaml"
"$G" run "$T/nosweep.yaml" --set collective.algo=nvls --set topology.preset=dgx-b200 --format csv >"$T/one.csv"
check "a cell's time is what gcsim run gives for it" \
  "t=\$(awk -F, '\$1 == 4294967296 { print \$6 }' '$T/one.csv'); awk -v t=\"\$t\" '\$1 == \"nvls,dgx-b200\" && \$4 == 4294967296 { e = (\$5 - t) / t; exit !(e < 1e-4 && e > -1e-4) }' '$T/a1.txt'"
"$G" sweep "$S" --results "$T/a.db" --plot "$T/a2.svg" >"$T/a2.txt" 2>"$T/a2.err"
check "the rerun reuses every cell" "grep -q '^gcsim sweep: 4 cells: 0 simulated, 4 reused from ' '$T/a2.err'"
check "the rerun prints the same table and plot" "cmp -s '$T/a1.txt' '$T/a2.txt' && cmp -s '$T/a.svg' '$T/a2.svg'"
"$G" sweep "$S" --results "$T/a.db" --set collective.sizes=1MiB >"$T/a3.txt" 2>"$T/a3.err"
check "a changed --set is simulated again" "grep -q ' 4 simulated, 0 reused' '$T/a3.err' && [ \$(grep -c '^  ' '$T/a3.txt') -eq 4 ]"

# --- breakdown: kept with every cell ------------------------------------------
B=scenarios/flat-1024-ring.yaml
"$G" sweep "$B" --sweep topology.gpus=2,4 --results "$T/b.db" >/dev/null 2>&1
"$G" sweep "$B" --sweep topology.gpus=2,4 --results "$T/b.db" --breakdown >"$T/b1.txt" 2>"$T/b1.err"
check "--breakdown runs again the cells stored without it" "grep -q ' 2 simulated, 0 reused' '$T/b1.err'"
# rows: "# VALUE ALGO SIZE TIME cat... mostly"; the categories add up to the time
check "--breakdown: one row per cell and size, the categories sum to the time" \
  "awk '/where the time goes/ {on = 1; next} on && /^# +[0-9]+ +ring / { s = 0; for (i = 6; i < NF; i++) s += \$i; d = s - \$5; if (d < 0) d = -d; if (d > 0.06) bad = 1; n++ } END { exit !(n == 2 && !bad) }' '$T/b1.txt'"
"$G" sweep "$B" --sweep topology.gpus=2,4 --results "$T/b.db" --breakdown >"$T/b2.txt" 2>"$T/b2.err"
check "--breakdown rerun: every cell reused, the same tables" \
  "grep -q ' 0 simulated, 2 reused' '$T/b2.err' && cmp -s '$T/b1.txt' '$T/b2.txt'"
"$G" run "$B" --set topology.gpus=4 --breakdown --format csv >"$T/b4.csv"
"$G" sweep "$B" --sweep topology.gpus=2,4 --results "$T/b.db" --breakdown --format csv >"$T/b.csv" 2>/dev/null
check "--breakdown csv: the categories' columns, as gcsim run gives them" \
  "head -1 '$T/b.csv' | grep -q ',busbw_GBps,launch_us,latency_us,nvlink_us,network_us,pcie_us,channel_us,link_us,other_us\$' && [ \"\$(grep '^4,' '$T/b.csv' | cut -d, -f8-)\" = \"\$(tail -1 '$T/b4.csv' | cut -d, -f9-)\" ]"
"$G" sweep "$B" --sweep topology.gpus=2,4 --results "$T/bx.db" --breakdown --fidelity analytical >"$T/bx.txt" 2>"$T/bx.err"
check "--breakdown with the closed form: exit 2, one line, nothing written" \
  "[ \$? -eq 2 ] && [ ! -s '$T/bx.txt' ] && [ \$(wc -l <'$T/bx.err') -eq 1 ] && [ ! -e '$T/bx.db' ]"

# --- resume: the grid grows ---------------------------------------------------
F=scenarios/flat-1024-ring.yaml
"$G" sweep "$F" --sweep topology.gpus=2,4 --results "$T/r.db" >/dev/null 2>&1
"$G" sweep "$F" --sweep topology.gpus=2,4,8 --results "$T/r.db" >"$T/r.txt" 2>"$T/r.err"
check "a grown grid simulates only the new cell" "grep -q '^gcsim sweep: 3 cells: 1 simulated, 2 reused' '$T/r.err'"
"$G" sweep "$F" --sweep topology.gpus=2,4,8 --results "$T/fresh.db" >"$T/f.txt" 2>/dev/null
sed 1d "$T/r.txt" >"$T/r1.txt"
sed 1d "$T/f.txt" >"$T/f1.txt"
check "resumed and fresh sweeps print the same points" "cmp -s '$T/r1.txt' '$T/f1.txt' && [ \$(grep -c '^  ' '$T/r1.txt') -eq 3 ]"
"$G" sweep "$F" --sweep topology.gpus=2,4 --sweep collective.channels=1,2 --sweep sim.fidelity=flow,analytical \
  --results "$T/g.db" --format csv >"$T/g.csv" 2>/dev/null
check "three keys: 8 cells, csv with the keys' header" \
  "[ \"\$(head -1 '$T/g.csv')\" = 'topology.gpus,collective.channels,sim.fidelity,algo,ranks,size_bytes,time_us,algbw_GBps,busbw_GBps' ] && [ \$(tail -n +2 '$T/g.csv' | cut -d, -f1-3 | sort -u | wc -l) -eq 8 ]"
"$G" validate --measured "$T/a.db" --predicted "$T/a.db" >"$T/v.txt" 2>&1
check "gcsim validate reads the sweep's results file" "grep -Eq '^# compared [1-9][0-9]* points' '$T/v.txt'"

# --- the plot --------------------------------------------------------------------
check "plot written atomically" "[ -s '$T/a.svg' ] && [ ! -e '$T/a.svg.tmp' ]"
if command -v python3 >/dev/null 2>&1; then
  check "plot is SVG with one line and legend entry per cell" "python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
ns = \"{http://www.w3.org/2000/svg}\"
lines = r.findall(ns + \"polyline\")
texts = [t.text for t in r.findall(ns + \"text\")]
assert len(lines) == 4, len(lines)
assert all(len(l.get(\"points\").split()) == 6 for l in lines)
assert \"nvls,dgx-b200\" in texts and \"busbw (GB/s)\" in texts and \"4GiB\" in texts, texts
' '$T/a.svg'"
  "$G" sweep "$S" --results "$T/a.db" --plot "$T/t.svg" --metric time >/dev/null 2>&1
  check "--metric time labels the axis" "grep -q '>time (us)<' '$T/t.svg'"
fi

# --- bad input: status 2 (4 for i/o), one line on stderr, nothing written -----------
bad() { # name, status, expected-stderr-regex, args...
  name=$1; want=$2; re=$3; shift 3
  "$G" sweep "$@" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq "$want" ] && [ ! -s "$T/out" ] && grep -Eq -- "$re" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]; then
    ok "$name"
  else
    nok "$name (status $rc)"; sed 's/^/# /' "$T/err"
  fi
}
bad "no results file" 2 "--results FILE is required" "$S"
bad "a CSV results file" 2 "resumes from a SQLite results file, not CSV" "$S" --results "$T/x.csv"
bad "bad metric" 2 "--metric: expected busbw, algbw or time, got 'speed'" "$S" --results "$T/x.db" --metric speed
bad "bad format" 2 "--format: expected table or csv" "$S" --results "$T/x.db" --format json
bad "no grid" 2 "no grid: give --sweep" "$F" --results "$T/x.db"
bad "four keys" 2 "4 keys, at most 3" "$F" --results "$T/x.db" --sweep a=1 --sweep b=1 --sweep c=1 --sweep d=1
bad "a key twice" 2 "'topology.gpus' twice" "$F" --results "$T/x.db" --sweep topology.gpus=2 --sweep topology.gpus=4
bad "malformed --sweep" 2 "expected KEY=V1,V2" "$F" --results "$T/x.db" --sweep topology.gpus
bad "empty value" 2 "empty value in" "$F" --results "$T/x.db" --sweep topology.gpus=2,,4
bad "too many cells" 2 "5000 cells, at most 4096" "$F" --results "$T/x.db" --sweep "topology.gpus=$(seq -s, 1 100)" --sweep "collective.channels=$(seq -s, 1 50)"
bad "a bad value names its cell" 2 "topology.gpus.*\\(sweep cell topology.gpus=0\\)" "$F" --results "$T/x.db" --sweep topology.gpus=2,0
bad "a cell's algorithm the topology refuses" 2 "nvls.*\\(sweep cell collective.algo=nvls\\)" "$F" --results "$T/x.db" --sweep collective.algo=ring,nvls --set collective.op=broadcast
check "nothing written after bad input" "[ ! -e '$T/x.db' ] && [ ! -e '$T/x.csv' ]"
bad "a training step" 2 "workload: step.*gcsim run --sweep" scenarios/training-step-scaling.yaml --results "$T/x.db"
bad "no scenario" 2 "expected one scenario file" --results "$T/x.db"
bad "a missing scenario" 2 "nope.yaml:1:1: cannot open file" nope.yaml --results "$T/x.db" --sweep topology.gpus=2
bad "results in a missing folder" 4 "$T/no/such.db" "$F" --results "$T/no/such.db" --sweep topology.gpus=2
bad "plot in a missing folder" 4 "cannot write the plot" "$F" --results "$T/p.db" --sweep topology.gpus=2 --plot "$T/no/p.svg"
check "the cells of a sweep whose plot failed are kept" "[ -s '$T/p.db' ]"

tap_end
