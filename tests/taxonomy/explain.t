#!/bin/sh
# SPDX-License-Identifier: MIT
# gcsim explain from the command line: the list, walks, comparisons (table
# and CSV), golden outputs of every scenario in scenarios/taxonomy,
# determinism, traces, platform refusals and bad arguments (status 2, one
# line on stderr). TAP output; GCSIM is set by `make test`.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

"$G" explain >"$T/list"
check "explain alone lists every type" "[ \$(grep -cE '^  (intra:[1-4]|inter:[1-5]) ' '$T/list') -eq 9 ]"

"$G" explain --path inter:3 --variant proxy --bytes 8 >"$T/walk"
check "walk is numbered and ends with the total" "grep -q '^  1\\. ' '$T/walk' && grep -q '^total: ' '$T/walk'"
check "walk names the proxy, the NIC and the wire" "grep -q 'CPU proxy' '$T/walk' && grep -q 'NIC -> wire' '$T/walk'"
"$G" explain --path roundtrip >"$T/rt"
check "roundtrip: the answer is seen by a thread of GPU A, the GPU that acts" \
  "grep -q '^  6\\. SM (GPU A) .* a thread of GPU A spinning on the answer' '$T/rt' && ! grep -q 'GPU B' '$T/rt'"
check "roundtrip counts no network copies: only flags move" "grep -q '^total: .*copies made: 0 (only flags move)' '$T/rt'"
"$G" explain --path intra:3 >"$T/nvl"
check "a walk over NVLink notes that run's topology.nvlink.latency is NCCL's whole Simple step" \
  "grep -q '^note: nvlink.latency (0.600 us) is the hardware.s: .* topology.nvlink.latency (3.4 us by default) is NCCL.s whole Simple step' '$T/nvl'"
"$G" explain --path inter:3 >"$T/nonvl"
check "a walk that does not cross NVLink has no such note" "! grep -q '^note: nvlink' '$T/nonvl'"
for p in intra:1 intra:2 intra:3 intra:4; do
  "$G" explain --path $p >"$T/intra"
  check "$p has no network: its copies are every copy of the payload" \
    "grep -q '^total: .*copies made: [0-9]* (every copy of the payload' '$T/intra' && ! grep -q 'before the network' '$T/intra'"
done

"$G" explain --compare inter --bytes 8 --format csv >"$T/inter.csv"
check "csv header is exact" "[ \"\$(head -1 '$T/inter.csv')\" = 'type,name,latency_us,copies,cpu_on_critical_path' ]"
check "csv has one row per inter type" "[ \$(wc -l <'$T/inter.csv') -eq 7 ]"
lat() { awk -F, -v t="$2" '$1 == t { print $3 }' "$1"; }
check "inter 8 B: 1 > 2 > 3 > 5 and 4 <= 3" \
  "awk -F, 'NR>1 { l[\$1] = \$3 } END { exit !(l[\"1\"] > l[\"2\"] && l[\"2\"] > l[\"3\"] && l[\"3\"] > l[\"5\"] && l[\"4\"] <= l[\"3\"] && l[\"3/proxy\"] > l[\"5\"]) }' '$T/inter.csv'"
"$G" explain --compare intra --bytes 1GiB --format csv >"$T/intra.csv"
check "intra 1 GiB: 2 and 3 within 20 %, both >= 5x faster than 1 and 4" \
  "awk -F, 'NR>1 { l[\$1] = \$3 } END { d = l[\"2\"] - l[\"3\"]; if (d < 0) d = -d; m = l[\"2\"] > l[\"3\"] ? l[\"2\"] : l[\"3\"]; exit !(d <= 0.2 * m && l[\"1\"] >= 5 * m && l[\"4\"] >= 5 * m) }' '$T/intra.csv'"
"$G" explain --compare inter --bytes 512 --messages 20000 --format csv >"$T/rate.csv"
check "--messages adds rate_Mops" "head -1 '$T/rate.csv' | grep -q ',rate_Mops\$'"
check "IBGDA's rate exceeds the IBRC proxy's for 512 B puts" \
  "awk -F, 'NR>1 { r[\$1] = \$6 } END { exit !(r[\"5\"] > r[\"3/proxy\"]) }' '$T/rate.csv'"
"$G" explain --compare inter --bytes 512 --messages 20000 --format csv --set proxy.post=chained >"$T/rate-chained.csv"
check "proxy.post=chained (one doorbell and one completion per turn) raises the proxy's rate" \
  "[ \"\$(awk -F, '\$1 == \"3/proxy\" { print (\$6 > 0) }' '$T/rate.csv')\" = 1 ] && awk -F, 'FNR == NR && \$1 == \"3/proxy\" { a = \$6 } FNR != NR && \$1 == \"3/proxy\" { b = \$6 } END { exit !(b > a) }' '$T/rate.csv' '$T/rate-chained.csv'"
"$G" explain --compare inter --bytes 512 --messages 2000 >"$T/rate.txt"
check "table names the limiting resources" "grep '^3/proxy' '$T/rate.txt' | grep -q 'CPU proxy thread' && grep '^5 ' '$T/rate.txt' | grep -q 'PCIe up'"

"$G" explain --compare inter --bytes 512 --bench put-bw --platform dgx-a100 --format csv >"$T/putbw.csv"
check "put-bw csv header is exact" "[ \"\$(head -1 '$T/putbw.csv')\" = 'type,name,latency_us,copies,cpu_on_critical_path,time_us,bw_GBps,rate_Mops' ]"
check "put-bw has a row per kernel-issued type (3/proxy, 4, 5)" "[ \"\$(awk -F, 'NR>1 { printf \"%s \", \$1 }' '$T/putbw.csv')\" = '3/proxy 4 5 ' ]"
check "put-bw: IBGDA's kernel is shorter than IBRC's and its bandwidth is bytes x iterations over it" \
  "awk -F, 'NR>1 { t[\$1] = \$6; b[\$1] = \$7 } END { d = b[\"5\"] - 512 * 10 / (t[\"5\"] * 1000); if (d < 0) d = -d; exit !(t[\"5\"] < t[\"3/proxy\"] && d < 0.001) }' '$T/putbw.csv'"
"$G" explain --compare inter --bytes 512 --bench put-bw --platform dgx-a100 --iters 100 >"$T/putbw.txt"
check "put-bw table names the limits and gives the ratio" \
  "grep '^3/proxy' '$T/putbw.txt' | grep -q 'CPU proxy thread' && grep '^5 ' '$T/putbw.txt' | grep -q \"CTAs' loop\" && grep -q '^# device native (5) over GPU RDMA through the CPU proxy (3/proxy): [0-9.]*x\$' '$T/putbw.txt'"
"$G" explain --compare inter --bytes 512 --bench put-bw --platform dgx-a100 --iters 100 --set gpu.cta_barrier=1.6us >"$T/putbw-slow.txt"
check "a slower inter-CTA barrier lowers IBGDA's put-bw ratio" \
  "[ \"\$(sed -n 's/^# device native.*: \\([0-9.]*\\)x\$/\\1/p' '$T/putbw.txt' '$T/putbw-slow.txt' | awk 'NR==1{a=\$1} NR==2{b=\$1} END{print (b < a)}')\" = 1 ]"

# --- goldens and determinism ------------------------------------------------------
for f in scenarios/taxonomy/*.yaml; do
  b=$(basename "$f" .yaml)
  "$G" explain --scenario "$f" >"$T/$b.a" 2>"$T/err"
  check "$b matches its golden output" "diff -u tests/golden/taxonomy/$b.txt '$T/$b.a' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
  "$G" explain --scenario "$f" >"$T/$b.b"
  check "$b twice: byte-identical" "cmp -s '$T/$b.a' '$T/$b.b'"
done
"$G" explain --scenario scenarios/taxonomy/flag-read.yaml --set proxy.flag_read=gdrcopy --set explain.vary= >"$T/fr"
check "--set overrides a scenario key" "grep -q 'GDRCopy read' '$T/fr' && ! grep -q 'cudaMemcpy device-to-host' '$T/fr'"
"$G" explain --compare inter --messages 2000 --sweep explain.bytes=8B,512B --format csv >"$T/sw"
check "--sweep repeats the comparison per value" "[ \$(grep -c '^# explain.bytes=' '$T/sw') -eq 2 ] && [ \$(grep -c '^5,device native' '$T/sw') -eq 2 ]"

# --- trace and timeline ---------------------------------------------------------------
"$G" explain --path inter:3 --variant proxy --trace "$T/t.json" >/dev/null
check "trace written" "[ -s '$T/t.json' ] && [ ! -e '$T/t.json.tmp' ]"
if command -v python3 >/dev/null 2>&1; then
  check "trace has one track per component" "python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))[\"traceEvents\"]
names = {e[\"args\"][\"name\"] for e in ev if e.get(\"ph\") == \"M\" and e[\"name\"] == \"thread_name\"}
assert {\"CPU proxy\", \"NIC\", \"SM (GPU A)\"} <= names, names
assert sum(1 for e in ev if e[\"ph\"] == \"X\") >= 10
' '$T/t.json'"
else
  ok "trace is valid JSON # SKIP python3 not installed"
fi
# put-bw's loops as a trace: a process per kernel-issued type, each CTA's
# steps of every iteration (4 CTAs x 3 here), one barrier per iteration,
# the quiet and the final barrier, and no two slices overlapping on a track
"$G" explain --compare inter --bytes 512 --bench put-bw --platform dgx-a100 --ctas 4 --iters 3 --trace "$T/pb.json" >"$T/pb.txt"
check "put-bw trace written, the table as without it" "[ -s '$T/pb.json' ] && [ ! -e '$T/pb.json.tmp' ] && \"$G\" explain --compare inter --bytes 512 --bench put-bw --platform dgx-a100 --ctas 4 --iters 3 | cmp -s - '$T/pb.txt'"
if command -v python3 >/dev/null 2>&1; then
  check "put-bw trace: each type's loop, its puts, barriers and quiet, no overlap on a track" "python3 -c '
import json, sys, collections
ev = json.load(open(sys.argv[1]))[\"traceEvents\"]
procs = {e[\"pid\"]: e[\"args\"][\"name\"] for e in ev if e.get(\"ph\") == \"M\" and e[\"name\"] == \"process_name\"}
assert sorted(p.split()[0] for p in procs.values()) == [\"inter:3/proxy\", \"inter:4\", \"inter:5\"], procs
assert all(\"shmem_put_bw loop, 4 CTAs x 3 iterations\" in p for p in procs.values()), procs
x = [e for e in ev if e[\"ph\"] == \"X\"]
for pid in procs:
    names = collections.Counter(e[\"name\"] for e in x if e[\"pid\"] == pid)
    assert names[\"inter-CTA barrier\"] == 3 and names[\"final barrier\"] == 1, names
    assert names[\"quiet: the last completion back\"] == 1, names
    steps = collections.Counter(e[\"args\"][\"step\"] for e in x if e[\"pid\"] == pid and \"step\" in e.get(\"args\", {}))
    assert steps and all(n == 12 for n in steps.values()), steps
    assert sorted({e[\"args\"][\"message\"] for e in x if e[\"pid\"] == pid and \"message\" in e.get(\"args\", {})}) == list(range(12))
tracks = collections.defaultdict(list)
for e in x:
    tracks[(e[\"pid\"], e[\"tid\"])].append((e[\"ts\"], e[\"ts\"] + e[\"dur\"]))
for v in tracks.values():
    v.sort()
    assert all(b[0] >= a[1] - 1e-6 for a, b in zip(v, v[1:])), v
' '$T/pb.json'"
else
  ok "put-bw trace # SKIP python3 not installed"
fi
"$G" explain --path intra:3 --timeline >"$T/tl"
check "--timeline draws one bar per step" "grep -q '^timeline' '$T/tl' && [ \$(grep -c '|#' '$T/tl') -ge 1 ]"
"$G" run scenarios/dgx-h100-allreduce.yaml --set proxy.flag_read=gdrcopy >"$T/out" 2>"$T/err"
check "gcsim run refuses a component key its run does not use, with the reason" \
  "[ \$? -eq 2 ] && [ ! -s '$T/out' ] && grep -q '^--set: proxy.flag_read: not used by this run: transport.inter none' '$T/err'"
"$G" run scenarios/dgx-h100-allreduce.yaml --set topology.nodes=2 --set transport.inter=nccl \
  --set collective.sizes=1MiB --set proxy.flag_read=gdrcopy >/dev/null 2>"$T/err"
check "gcsim run takes a component key its transport reads" "[ \$? -eq 0 ] && [ ! -s '$T/err' ]"

# --- a collective walked step by step (--collective) ---------------------------------
W="explain --collective scenarios/dgx-h100-allreduce.yaml --bytes 1MiB --timeline"
"$G" $W >"$T/walk.a"
check "collective walk matches its golden output" "diff -u tests/golden/walk-ring-1MiB.txt '$T/walk.a' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
"$G" $W >"$T/walk.b"
check "collective walk twice: byte-identical" "cmp -s '$T/walk.a' '$T/walk.b'"
check "walk lists rank 0's 15 steps, the ops in words and the breakdown" \
  "grep -q '^rank 0, strand 0 (channel 0): 15 steps' '$T/walk.a' && grep -q '^     15  RECV ' '$T/walk.a' && grep -q 'adds what arrived to its own piece' '$T/walk.a' && grep -q '^# where the time goes' '$T/walk.a'"
check "walk's timeline draws the 8 ranks" "[ \$(grep -c '^  rank [0-7] *|' '$T/walk.a') -eq 8 ]"
"$G" run scenarios/dgx-h100-allreduce.yaml --set collective.sizes=1MiB --format csv >"$T/run.csv"
check "the walk's time is gcsim run's" \
  "t=\$(awk -F, 'NR==2 { print \$6 }' '$T/run.csv'); grep -q \"one operation takes \$t\" '$T/walk.a' || grep -q \"takes \$(printf '%.3f' \$t) us\" '$T/walk.a'"
"$G" explain --collective scenarios/dgx-h100-8node-tree.yaml --bytes 64KiB --format csv >"$T/walk.csv"
check "walk CSV: header and one row per step" \
  "[ \"\$(head -1 '$T/walk.csv')\" = 'rank,strand,channel,step,op,recv_from,send_to,over,bytes,buffer,offset,start_us,recv_us,ready_us,end_us' ] && [ \$(wc -l <'$T/walk.csv') -gt 64 ]"
check "walk CSV: every step's times in order" \
  "awk -F, 'NR>1 && !(\$12 <= \$13 && \$13 <= \$14 && \$14 <= \$15) { bad=1 } END { exit bad }' '$T/walk.csv'"
"$G" explain --collective scenarios/dgx-h100-8node-crossover.yaml --set collective.sizes=1MiB,8B --steps 4 >"$T/walk.cmp"
check "walk notes the sizes and the comparison it does not walk" \
  "grep -q '^# note: the first of the scenario' '$T/walk.cmp' && grep -q '^# note: collective.compare (tree) is not walked' '$T/walk.cmp' && grep -q 'steps more' '$T/walk.cmp'"
"$G" explain --collective scenarios/dgx-h100-allreduce.yaml --bytes 64KiB --trace "$T/w.json" >/dev/null
check "walk writes the run's trace" "[ -s '$T/w.json' ] && [ ! -e '$T/w.json.tmp' ]"

# --- refusals and bad input: status 2, one line on stderr, nothing on stdout ----------
bad() { # name, expected-stderr-regex, args...
  name=$1; re=$2; shift 2
  "$G" "$@" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && grep -Eq -- "$re" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]; then
    ok "$name"
  else
    nok "$name (status $rc)"; sed 's/^/# /' "$T/err"
  fi
}
bad "inter:5 refused on p5" "EFA provides no GPUDirect Async; use type 3 \\(CPU proxy\\) or 4" explain --path inter:5 --platform p5
bad "inter:5 refused on p4d" "EFA provides no GPUDirect Async" explain --path inter:5 --platform p4d
bad "intra:3 refused without P2P" "use type 4" explain --path intra:3 --set caps.p2p=false
bad "unknown path" "unknown path 'inter:9'; expected one of" explain --path inter:9
bad "unknown variant" "expected cpu\\|proxy" explain --path inter:3 --variant gpu
bad "unknown platform" "--platform: expected one of dgx-h100, dgx-a100, p5, p4d" explain --path inter:3 --platform dgx
bad "bad bytes" "--bytes: expected a positive size" explain --path inter:3 --bytes 8K
bad "bad compare scope" "--compare: expected intra or inter" explain --compare both
bad "bad format" "--format: expected table or csv" explain --compare inter --format xml
bad "messages without compare" "--messages needs --compare" explain --path inter:3 --messages 10
bad "messages out of range" "--messages: expected 1 to" explain --compare inter --messages 0
bad "unknown --set key lists keys" "unknown key 'proxy.flag'" explain --path inter:3 --set proxy.flag=gdrcopy
bad "bad --set enum lists values" "hostpinned" explain --path inter:3 --set proxy.flag_read=dma
bad "path and compare" "exclude each other" explain --path inter:3 --compare inter
bad "stray argument" "unexpected argument" explain inter:3
bad "missing scenario" "cannot open" explain --scenario "$T/none.yaml"
printf 'schema_version: 1\nexplain: {mode: path, path: "inter:3", bogus: 1}\n' >"$T/s.yaml"
bad "unknown scenario key" "$T/s.yaml:2:[0-9]+: " explain --scenario "$T/s.yaml"
bad "a run scenario is no study" "^gcsim explain: scenarios/dgx-h100-allreduce.yaml: no explain: section, so no study to run; a run scenario is simulated by 'gcsim run scenarios/dgx-h100-allreduce.yaml'" explain --scenario scenarios/dgx-h100-allreduce.yaml
printf 'schema_version: 1\nexplain: {path: "inter:3", bytes: 8B}\n' >"$T/nomode.yaml"
bad "a study without its mode" "^gcsim explain: $T/nomode.yaml:2:17: explain.path: the study has no explain.mode; expected list, path or compare" explain --scenario "$T/nomode.yaml"
"$G" explain --scenario "$T/nomode.yaml" --set explain.mode=path >"$T/nomode.out"
check "the mode from --set completes such a study" "grep -q '^total: ' '$T/nomode.out'"
"$G" explain --scenario scenarios/dgx-h100-allreduce.yaml --compare inter --format csv >"$T/base.csv"
check "a run scenario under --compare is a parameter base" "[ \$(wc -l <'$T/base.csv') -eq 7 ]"
bad "walk: rank out of range" "--rank 8: the run has ranks 0 to 7" explain --collective scenarios/dgx-h100-allreduce.yaml --bytes 1MiB --rank 8
bad "walk: strand out of range" "--strand 24: each rank runs strands 0 to 23" explain --collective scenarios/dgx-h100-allreduce.yaml --strand 24
bad "walk: the closed form" "has no steps to walk" explain --collective scenarios/dgx-h100-allreduce.yaml --set sim.fidelity=analytical
bad "walk: a training step" "is a training step" explain --collective scenarios/training-step-moe.yaml
bad "walk: with --path" "--collective walks a run scenario" explain --collective scenarios/dgx-h100-allreduce.yaml --path inter:3
bad "walk: --rank alone" "--rank, --strand and --steps need --collective" explain --rank 1
bad "walk: negative rank" "expected a non-negative integer" explain --collective scenarios/dgx-h100-allreduce.yaml --rank -2
bad "walk: bad --set" "collective.algo=foo: expected one of" explain --collective scenarios/dgx-h100-allreduce.yaml --set collective.algo=foo
bad "walk: missing file" "cannot open" explain --collective "$T/none.yaml"
bad "put-bw across nodes only" "explain.bench: put-bw times NVSHMEM's puts between nodes" explain --compare intra --bench put-bw
bad "put-bw and a stream" "a stream of messages and put-bw's loop exclude each other" explain --compare inter --bench put-bw --messages 100
bad "put-bw: less than a double per CTA" "leaves each less than one double" explain --compare inter --bench put-bw --bytes 128B
bad "--ctas without put-bw" "explain.ctas and explain.iters shape put-bw's loop" explain --compare inter --ctas 8
bad "--bench without --compare" "--bench, --ctas and --iters need --compare inter" explain --path inter:5 --bench put-bw
bad "--iters out of range" "--iters: expected 1 to 1024" explain --compare inter --bench put-bw --iters 0
bad "--ctas out of range" "--ctas: expected 1 to 4096" explain --compare inter --bench put-bw --ctas 5000
bad "bad --bench" "^gcsim explain: --bench: expected stream or put-bw, got 'pingpong'" explain --compare inter --bench pingpong
printf 'schema_version: 1\nexplain: {mode: compare, scope: inter, bench: pingpong}\n' >"$T/bench.yaml"
bad "bad explain.bench in a study" "$T/bench.yaml:2:[0-9]+: .*expected one of stream, put-bw" explain --scenario "$T/bench.yaml"
bad "put-bw: too many puts" "is more than 200000 puts" explain --compare inter --bench put-bw --ctas 4096 --iters 1000 --bytes 1MiB
bad "--trace with a stream compare" "--trace with a compare draws put-bw's loops; expected --bench put-bw" explain --compare inter --trace "$T/none.json"
check "... and writes no trace" "[ ! -e '$T/none.json' ] && [ ! -e '$T/none.json.tmp' ]"
bad "--trace alone" "^gcsim explain: --trace needs --path, --collective or --compare inter --bench put-bw" explain --trace "$T/none.json"
"$G" explain --help >"$T/help"
check "--help exits 0 and shows the options" "[ \$? -eq 0 ] && grep -q -- '--compare' '$T/help'"
tap_end
