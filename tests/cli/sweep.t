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
  "head -1 '$T/b.csv' | grep -q ',busbw_GBps,launch_us,latency_us,nvlink_us,network_us,pcie_us,channel_us,link_us,proxy_us,nic-msg_us,control_us,copy_us,host_us,reduce_us,other_us\$' && [ \"\$(grep '^4,' '$T/b.csv' | cut -d, -f8-)\" = \"\$(tail -1 '$T/b4.csv' | cut -d, -f9-)\" ]"
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
  # svg.py FILE CHECK...: the plot's lines (polyline), markers (g class
  # "marker SHAPE"), legend entries (g class "legend") and texts, asserted
  cat >"$T/svg.py" <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
r = ET.parse(sys.argv[1]).getroot()
lines = r.findall(ns + "polyline")
marks = [g for g in r.findall(ns + "g") if g.get("class", "").startswith("marker ")]
legend = [g for g in r.findall(ns + "g") if g.get("class") == "legend"]
texts = [t.text for t in r.iter(ns + "text")]
names = [g.find(ns + "text").text for g in legend]
def npts(l): return len(l.get("points").split())
def shape(g): return g.get("class").split()[1]
def ticks(y):  # the labels left of the frame (y) or just under it (x)
    t = r.findall(ns + "text")
    if y:
        return [e.text for e in t if e.get("text-anchor") == "end"]
    return [e.text for e in t if e.get("text-anchor") == "middle" and 470 < float(e.get("y")) < 490]
for c in sys.argv[2:]:
    assert eval(c), c + ": " + repr((names, ticks(0), ticks(1)))
PY
  svg() { python3 "$T/svg.py" "$@"; }
  check "plot is SVG with one line, marker set and legend entry per cell" \
    "svg '$T/a.svg' 'len(lines) == 4' 'all(npts(l) == 6 for l in lines)' 'len(marks) == 4 and all(len(list(m)) == 6 for m in marks)' \
      'names == [\"ring,dgx-h100\", \"ring,dgx-b200\", \"nvls,dgx-h100\", \"nvls,dgx-b200\"]' '\"busbw (GB/s)\" in texts'"
  check "size ticks read 64 KiB ... 1 MiB ... 1 GiB ... 4 GiB" \
    "svg '$T/a.svg' 'ticks(0) == [\"64 KiB\", \"256 KiB\", \"1 MiB\", \"4 MiB\", \"16 MiB\", \"64 MiB\", \"256 MiB\", \"1 GiB\", \"4 GiB\"]'"
  "$G" sweep "$S" --results "$T/a.db" --plot "$T/t.svg" --metric time >/dev/null 2>&1
  check "--metric time: decades in their unit (10 us ... 100 ms), no bare numbers" \
    "svg '$T/t.svg' '\"time\" in texts' 'all(re.fullmatch(\"(1|10|100) (ns|\u00b5s|ms|s)\", t) for t in ticks(1))' \
      '\"100 \u00b5s\" in ticks(1) and \"1 ms\" in ticks(1) and \"10 ms\" in ticks(1)'"
  # 20 cells: the colours repeat after ten with a dash pattern, in the
  # legend too; the markers' shapes differ from cell to cell
  "$G" sweep "$F" --sweep "topology.gpus=$(seq -s, 2 21)" --set sim.fidelity=analytical \
    --set collective.sizes=1MiB,16MiB --results "$T/m.db" --plot "$T/m.svg" >/dev/null 2>&1
  check "20 cells: each legend entry drawn with its line's dash pattern and marker" \
    "svg '$T/m.svg' 'len(lines) == 20 and len(legend) == 20' \
      '[l.get(\"stroke-dasharray\") for l in lines] == [g.find(ns + \"line\").get(\"stroke-dasharray\") for g in legend]' \
      'all(l.get(\"stroke-dasharray\") is None for l in lines[:10]) and all(l.get(\"stroke-dasharray\") for l in lines[10:])' \
      '[shape(m) for m in marks] == [shape(g.find(ns + \"g\")) for g in legend]' \
      'len(set(shape(m) for m in marks[:7])) == 7' \
      'len(set((l.get(\"stroke\"), l.get(\"stroke-dasharray\"), shape(m)) for l, m in zip(lines, marks))) == 20'"
  "$G" sweep "$S" --results "$T/a.db" --plot "$T/xs.svg" --x size >/dev/null 2>&1
  check "--x size is the default" "cmp -s '$T/a.svg' '$T/xs.svg'"
  # --x KEY: against the node count, one line per size and algorithm
  "$G" sweep scenarios/dgx-h100-scaling.yaml --results "$T/n.db" --plot "$T/n.svg" --x topology.nodes --metric time >"$T/n.txt" 2>&1
  check "--x topology.nodes: one line per size and algorithm through the 5 node counts" \
    "svg '$T/n.svg' 'len(lines) == 4 and all(npts(l) == 5 for l in lines)' \
      'names == [\"1 MiB ring\", \"1 GiB ring\", \"1 MiB tree\", \"1 GiB tree\"]' \
      'ticks(0) == [\"1\", \"8\", \"64\", \"512\", \"2048\"]' '\"topology.nodes\" in texts'"
  check "--x: x grows with the node count (log axis, evenly spaced for 1, 8, 64, ...)" \
    "svg '$T/n.svg' 'all((lambda x: x == sorted(x) and abs((x[1] - x[0]) - (x[2] - x[1])) < 0.2)([float(p.split(\",\")[0]) for p in l.get(\"points\").split()]) for l in lines)'"
  "$G" sweep "$F" --sweep topology.gpus=2,4 --sweep collective.channels=1,2 --set sim.fidelity=analytical \
    --results "$T/g2.db" --plot "$T/g2.svg" --x collective.channels >/dev/null 2>&1
  check "--x with two keys: a line per value of the other key" \
    "svg '$T/g2.svg' 'names == [\"2 1 MiB\", \"4 1 MiB\"] and all(npts(l) == 2 for l in lines)'"
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
bad "--x without --plot" 2 "--x topology.gpus: chooses the plot's x axis; give --plot" "$F" --results "$T/x.db" --sweep topology.gpus=2,4 --x topology.gpus
bad "--x a key not swept" 2 "--x topology.nodes: not a swept key; expected size or topology.gpus\$" "$F" --results "$T/x.db" --sweep topology.gpus=2,4 --plot "$T/x.svg" --x topology.nodes
bad "--x a key with words for values" 2 "--x topology.preset: the value 'dgx-h100' is not a number" "$F" --results "$T/x.db" --sweep topology.preset=dgx-h100,dgx-b200 --plot "$T/x.svg" --x topology.preset
check "nothing written after a bad --x" "[ ! -e '$T/x.db' ] && [ ! -e '$T/x.svg' ]"
bad "plot in a missing folder" 4 "cannot write the plot" "$F" --results "$T/p.db" --sweep topology.gpus=2 --plot "$T/no/p.svg"
check "a plot that cannot be written is refused before any cell runs: no results file" "[ ! -e '$T/p.db' ]"

# a transport's run fills in its platform's component defaults and NIC
# latency: its cells are still found again, and a cell's value is the same
# cell whether it came from --sweep or from the scenario's own sweep block
"$G" sweep scenarios/alltoall-peers.yaml --sweep topology.nodes=1,8 --results "$T/tr.db" >/dev/null 2>"$T/tr1.err"
check "a transport's sweep stores its cells" "[ \$? -eq 0 ] && grep -q '2 cells: 2 simulated, 0 reused' '$T/tr1.err'"
"$G" sweep scenarios/alltoall-peers.yaml --sweep topology.nodes=1,8 --results "$T/tr.db" >/dev/null 2>"$T/tr2.err"
check "and finds them again" "[ \$? -eq 0 ] && grep -q '2 cells: 0 simulated, 2 reused' '$T/tr2.err'"
"$G" sweep scenarios/alltoall-peers.yaml --sweep topology.nodes=1,8 --set topology.nodes=8 --results "$T/tr.db" >/dev/null 2>"$T/tr3.err"
check "a value given another way (the file's, --set) is the same cell" "[ \$? -eq 0 ] && grep -q '2 cells: 0 simulated, 2 reused' '$T/tr3.err'"

tap_end
