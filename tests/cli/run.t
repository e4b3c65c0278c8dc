#!/bin/sh
# gcsim run from the command line: formats, determinism, traces, link
# summaries, golden outputs, and the exit status and stderr of bad input.
# TAP output; GCSIM is set by `make test` (defaults to build/gcsim).
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

# shipped NAME OUT: scenarios/NAME.yaml run as shipped, once (its output,
# stderr and status kept for the check that every shipped scenario runs),
# its output copied to OUT
mkdir -p "$T/ship"
shipped() {
  if [ ! -e "$T/ship/$1.rc" ]; then
    "$G" run "scenarios/$1.yaml" >"$T/ship/$1.txt" 2>"$T/ship/$1.err"
    echo $? >"$T/ship/$1.rc"
  fi
  cp "$T/ship/$1.txt" "$2"
}

# --- formats ---------------------------------------------------------------
"$G" run scenarios/flat-1024-ring.yaml --format csv >"$T/flat.csv" 2>"$T/err"
check "csv run exits 0 with empty stderr" "[ \$? -eq 0 ] && [ ! -s '$T/err' ]"
check "csv header is exact" "[ \"\$(head -1 '$T/flat.csv')\" = 'size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps' ]"
check "csv has one row per size" "[ \$(wc -l <'$T/flat.csv') -eq 2 ]"
# 2(n-1)(alpha + S/(n B)) with n = 1024, S = 1 MiB, B = 50 GB/s, alpha = 1 us
check "flat 1024 ring within 2% of the alpha-beta formula" \
  "awk -F, 'NR==2 { f = 2*1023*(1 + 1048576/1024/50e9*1e6); e = (\$6-f)/f; if (e<0) e=-e; exit !(e < 0.02) }' '$T/flat.csv'"

shipped dgx-h100-allreduce "$T/table.txt"
check "table has the nccl-tests columns" "grep -q '^#       size         count      type   redop    root       time    algbw    busbw' '$T/table.txt'"
check "table ends with the average bus bandwidth" "tail -1 '$T/table.txt' | grep -q '^# Avg bus bandwidth    : '"
check "table matches its golden output" "diff -u tests/golden/dgx-h100-allreduce.txt '$T/table.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"

# --- determinism -------------------------------------------------------------
"$G" run scenarios/dgx-h100-8node-crossover.yaml --set collective.sizes=8B,1MiB,256MiB >"$T/a.txt"
"$G" run scenarios/dgx-h100-8node-crossover.yaml --set collective.sizes=8B,1MiB,256MiB >"$T/b.txt"
check "same scenario and seed: byte-identical output" "cmp -s '$T/a.txt' '$T/b.txt'"
"$G" run scenarios/moe-dispatch.yaml --set sweep.key= --set sweep.values= --seed 7 >"$T/c.txt"
check "--seed is recorded in the header" "grep -q 'seed 7' '$T/c.txt'"
"$G" run scenarios/dgx-h100-8node-crossover.yaml --set collective.sizes=8B --seed 7 >"$T/c2.txt" 2>"$T/c2.err"
check "--seed where nothing is drawn at random: exit 2, one line naming the key, nothing on stdout" \
  "[ \$? -eq 2 ] && [ ! -s '$T/c2.txt' ] && [ \$(wc -l <'$T/c2.err') -eq 1 ] && grep -q '^--set: seed: not used by this run: nothing in this allreduce is drawn at random' '$T/c2.err'"
check "crossover line printed" "grep -q '^# crossover: tree is faster up to 1048576 B, ring from 268435456 B' '$T/a.txt'"

# --- trace and links -----------------------------------------------------------
"$G" run scenarios/flat-1024-ring.yaml --set topology.gpus=8 --trace "$T/t.json" >/dev/null
check "trace written" "[ -s '$T/t.json' ] && [ ! -e '$T/t.json.tmp' ]"
if command -v python3 >/dev/null 2>&1; then
  check "trace is valid JSON with rank and link tracks" "python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d[\"traceEvents\"]
names = {e[\"args\"][\"name\"] for e in ev if e.get(\"ph\") == \"M\" and e[\"name\"] == \"process_name\"}
assert \"rank 0\" in names and \"rank 7\" in names and \"links (utilization)\" in names, names
assert any(e[\"ph\"] == \"X\" and e[\"name\"] == \"RECV_REDUCE_SEND\" for e in ev)
assert any(e[\"ph\"] == \"C\" and e[\"name\"] == \"gpu0.up\" for e in ev)
' '$T/t.json'"
else
  ok "trace is valid JSON # SKIP python3 not installed"
fi
"$G" run scenarios/flat-1024-ring.yaml --set collective.op=tree --trace "$T/bad.json" >/dev/null 2>&1
check "failed run leaves no trace file" "[ ! -e '$T/bad.json' ] && [ ! -e '$T/bad.json.tmp' ]"
"$G" run scenarios/dgx-h100-allreduce.yaml --set collective.sizes=64MiB --links >"$T/links.txt"
check "--links lists the busiest links" "grep -q '^# links at size 67108864 B, busiest first' '$T/links.txt' && grep -q 'n0.gpu0.nvlink.tx' '$T/links.txt'"

# --- breakdown: the critical path by category ----------------------------------
shipped dgx-h100-allreduce "$T/plain.txt"
"$G" run scenarios/dgx-h100-allreduce.yaml --breakdown >"$T/bd.txt" 2>"$T/bderr"
check "--breakdown exits 0 with empty stderr" "[ \$? -eq 0 ] && [ ! -s '$T/bderr' ]"
check "--breakdown keeps the table as it is and adds its own" \
  "head -n \$(wc -l <'$T/plain.txt') '$T/bd.txt' | cmp -s - '$T/plain.txt' && grep -q '^# where the time goes: the critical path' '$T/bd.txt'"
# rows: "# SIZE TIME cat... mostly"; the categories add up to the time (as
# printed: the time has no decimals from 10000 us)
check "--breakdown: the categories sum to the time, NVLink-bound on one node" \
  "awk '/where the time goes/ {on = 1; next} on && /^# +[0-9]/ { s = 0; for (i = 4; i < NF; i++) s += \$i; d = s - \$3; if (d < 0) d = -d; if (d > 0.51 || \$NF != \"nvlink\") bad = 1; n++ } END { exit !(n == 3 && !bad) }' '$T/bd.txt'"
"$G" run scenarios/dgx-h100-allreduce.yaml --breakdown >"$T/bd2.txt"
check "--breakdown twice: byte-identical" "cmp -s '$T/bd.txt' '$T/bd2.txt'"
"$G" run scenarios/dgx-h100-8node-ring.yaml --set collective.sizes=8B,1GiB --breakdown --format csv >"$T/bd.csv"
check "--breakdown --format csv: one column per category" \
  "[ \"\$(head -1 '$T/bd.csv')\" = 'size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,launch_us,latency_us,nvlink_us,network_us,pcie_us,channel_us,link_us,proxy_us,nic-msg_us,control_us,copy_us,host_us,reduce_us,other_us' ]"
check "--breakdown csv: latency-bound at 8 B, network-bound at 1 GiB, sums exact" \
  "awk -F, 'NR > 1 { s = 0; for (i = 9; i <= 16; i++) s += \$i; d = s - \$6; if (d < 0) d = -d; if (d > 1e-5 || \$16 != 0) bad = 1; if (\$1 == 8 && !(\$10 > \$6 / 2)) bad = 1; if (\$1 == 1073741824 && !(\$12 > \$6 / 2)) bad = 1; n++ } END { exit !(n == 2 && !bad) }' '$T/bd.csv'"
"$G" run scenarios/dgx-h100-allreduce.yaml --sweep topology.nodes=1,2 --set collective.sizes=1GiB --breakdown >"$T/bdsw.txt"
check "--breakdown with a sweep: one row per value and size" \
  "awk '/where the time goes/ {on = 1; next} on && /^# +[0-9]+ +1073741824 / { n++; m = m \$NF } END { exit !(n == 2 && m == \"nvlinknetwork\") }' '$T/bdsw.txt'"
"$G" run scenarios/dgx-h100-8node-crossover.yaml --set collective.sizes=8B,256MiB --breakdown >"$T/bdc.txt"
check "--breakdown with collective.compare: a second table for the compared algorithm" \
  "grep -q '^# where the time goes: .*, compared algorithm tree\$' '$T/bdc.txt' && [ \$(grep -c '^# where the time goes' '$T/bdc.txt') -eq 2 ] && grep -Eq '^# +268435456 .* network\$' '$T/bdc.txt'"
"$G" run scenarios/dgx-h100-allreduce.yaml --breakdown --fidelity analytical >"$T/bdo" 2>"$T/bde"
check "--breakdown with the closed form: exit 2, one line, nothing on stdout" \
  "[ \$? -eq 2 ] && [ ! -s '$T/bdo' ] && [ \$(wc -l <'$T/bde') -eq 1 ] && grep -q 'flow fidelity only' '$T/bde'"
"$G" run scenarios/training-step-scaling.yaml --breakdown >"$T/bdo" 2>"$T/bde"
check "--breakdown with a training step: exit 2, one line, nothing on stdout" \
  "[ \$? -eq 2 ] && [ ! -s '$T/bdo' ] && [ \$(wc -l <'$T/bde') -eq 1 ] && grep -q 'workload: collective' '$T/bde'"

# --- results file and validation against published figures -------------------
"$G" run scenarios/dgx-h100-allreduce.yaml --set collective.sizes=2GiB,4GiB --results "$T/pred.csv" >/dev/null
check "--results writes the points CSV" "grep -q '^allreduce,ring,float,8,4294967296,' '$T/pred.csv' && grep -q '^# kind: sim' '$T/pred.csv'"
"$G" run scenarios/dgx-h100-allreduce.yaml --set collective.sizes=2GiB --results "$T/pred.sqlite" >/dev/null
check "--results writes SQLite" "[ -s '$T/pred.sqlite' ]"
pub=validate/published/nccl_tests_published.csv
if [ -f "$pub" ]; then
  "$G" validate --measured "$pub" --predicted "$T/pred.csv" >"$T/val.txt"
  check "prediction within the 5% band of the published 8xH100 ring busbw" "grep -q 'PASS' '$T/val.txt' && grep -q '^allreduce      ring        8     4294967296' '$T/val.txt'"
else
  ok "validation against validate/published # SKIP $pub not found"
fi
"$G" run scenarios/dgx-h100-nvls.yaml --set collective.compare=none --set collective.sizes=4GiB --results "$T/nvls.csv" >/dev/null
if [ -f "$pub" ]; then
  "$G" validate --measured "$pub" --predicted "$T/nvls.csv" >"$T/valn.txt"
  check "nvls prediction within the 5% band of the published 8xH100 NVLS busbw" "grep -q 'PASS' '$T/valn.txt' && grep -q '^allreduce      nvls        8     4294967296' '$T/valn.txt'"
else
  ok "nvls validation against validate/published # SKIP $pub not found"
fi
shipped ib-vs-efa "$T/ibefa.txt"
check "ib vs efa: 8 B 25.21 us on dgx-h100, 68.78 us on p5" "grep -Eq '^ +dgx-h100 +16 +8 +25.21 ' '$T/ibefa.txt' && grep -Eq '^ +p5 +16 +8 +68.78 ' '$T/ibefa.txt'"
"$G" run scenarios/dgx-h100-2node-nvlstree.yaml --set collective.sizes=8B,64KiB --set collective.compare=none >"$T/nvt8.txt"
check "nvlstree 8 B on 2 nodes: NCCL's 25 us NVLS + 2 x 14 us network" "grep -Eq '^ +8 +2 +float +sum +-1 +53.00 ' '$T/nvt8.txt'"
shipped dgx-h100-nvlstree-scaling "$T/nvts.txt"
check "nvlstree scaling sweep: 5 node counts x 3 sizes, nvlstree faster at 1 GiB, tree (LL) at 8 B" "[ \$(grep -c '^ ' '$T/nvts.txt') -eq 15 ] && [ \$(grep -Ec ' 1073741824 .* nvlstree\$' '$T/nvts.txt') -eq 5 ] && [ \$(grep -Ec '^ +[0-9]+ +[0-9]+ +8 .* tree\$' '$T/nvts.txt') -eq 5 ]"
# MoE: DeepEP's low-latency dispatch and combine, 8 to 256 GPUs, closed
# form, against the published DeepEP rows (moe_published.csv, --impl).
for ep in 8 16 32 64 128 256; do
  "$G" run scenarios/moe-dispatch.yaml --set sweep.key= --set sweep.values= --set topology.gpus=$ep --results "$T/moe.sqlite" >/dev/null
  "$G" run scenarios/moe-dispatch.yaml --set sweep.key= --set sweep.values= --set topology.gpus=$ep --set collective.op=combine --set collective.sizes=14352B --results "$T/moe.sqlite" >/dev/null
done
mpub=validate/published/moe_published.csv
if [ -f "$mpub" ]; then
  "$G" validate --measured "$mpub" --predicted "$T/moe.sqlite" --impl deepep-v1-ll >"$T/valm.txt"
  check "DeepEP dispatch and combine, 8..256 GPUs: 12 points, median within 5%, max within 15%" "grep -q 'compared 12 points' '$T/valm.txt' && grep -q 'PASS' '$T/valm.txt'"
  "$G" validate --measured "$mpub" --predicted "$T/moe.sqlite" --impl no-such-impl >/dev/null 2>"$T/e"; rc=$?
  check "validate --impl with no such implementation exits 2" "[ $rc -eq 2 ] && grep -q \"no measured point of 'no-such-impl'\" '$T/e'"
else
  ok "MoE validation against validate/published # SKIP $mpub not found"
  ok "validate --impl # SKIP $mpub not found"
fi

# An imported nccl-tests log says how it was driven: one process driving 8
# GPUs (-g 8) gets the settings that predict it so; one GPU per process
# gets no such line.
"$G" validate --import-nccl-tests tests/validate/data/alltoall_old.log --nranks 8 -o "$T/imp8.sqlite" >"$T/imp8.txt" 2>&1; rc=$?
check "import of a -g 8 log: the settings that predict it" \
  "[ $rc -eq 0 ] && grep -q 'imported 2 alltoall points (8 ranks)' '$T/imp8.txt' && grep -q 'predict it with --set collective.gpus_per_thread=8 --set collective.iters=20' '$T/imp8.txt'"
"$G" validate --import-nccl-tests tests/validate/data/allreduce_new.log -o "$T/imp1.sqlite" >"$T/imp1.txt" 2>&1; rc=$?
check "import of a one-GPU-per-process log: no such line" "[ $rc -eq 0 ] && [ \$(wc -l <'$T/imp1.txt') -eq 1 ]"

# NCCL's channel tuning by size is named under the table for the sizes it
# gave fewer channels than the header's: a ring with LL over 3 DGX H100
# nodes (24 ranks) runs 1 MiB on 10 of its 16 channels, so two NICs per node
# carry two channels each; with collective.channels the line is gone.
printf 'schema_version: 1\ntopology: {preset: dgx-h100, nodes: 3}\ncollective: {op: allreduce, algo: ring, protocol: ll, sizes: [8B, 1MiB, 16MiB]}\n' >"$T/ch3.yaml"
"$G" run "$T/ch3.yaml" >"$T/ch3.txt" 2>&1
"$G" run "$T/ch3.yaml" --set collective.channels=16 >"$T/ch3f.txt" 2>&1
"$G" run "$T/ch3.yaml" --sweep topology.nodes=3,4 --set 'collective.sizes=[8B, 1MiB]' >"$T/ch3s.txt" 2>&1
"$G" run "$T/ch3.yaml" --sweep topology.nodes=3,4 --set 'collective.sizes=[8B, 1MiB]' --format csv >"$T/ch3s.csv" 2>&1
check "a sweep names its rows with fewer channels (a size alike in every row once); its CSV has rows only" \
  "grep -q '^# fewer channels than the topology.s (NCCL.s tuning by size; collective.channels fixes them): 8 B on 1 of 16 (every row), topology.nodes 3: 1048576 B on 10 of 16, topology.nodes 4: 1048576 B on 8 of 16\$' '$T/ch3s.txt' && [ \$(wc -l <'$T/ch3s.csv') -eq 5 ] && ! grep -q '^#' '$T/ch3s.csv'"
check "the sizes NCCL's tuning gave fewer channels are named under the table, the others not" \
  "grep -q '^# fewer channels than the topology.s (NCCL.s tuning by size; collective.channels fixes them): 8 B on 1 of 16, 1048576 B on 10 of 16\$' '$T/ch3.txt' && ! grep -q '^# fewer channels' '$T/ch3f.txt' && grep -q '^ *1048576 ' '$T/ch3f.txt'"

# sendrecv through NCCL in its point-to-point geometry (gm_run.c
# p2p_geometry, NCCL 2.29 on): 128 KiB steps across nodes; channels by size
# up to a per-peer count of ceil(50 GB/s / 14) = 4, halved while it times
# ceil(ranks / 8) exceeds the 16 channels (2 on 8 nodes, 1 on 16); each
# channel across the network at most 14 GB/s. A scenario's channels stay.
# Releases 2.20-2.28 start a network peer from 2 channels, halved while 2 x
# the ranks exceeds 4 x 16 (1 from 8 nodes); 2.19 keeps 2.
cat >"$T/p2p.yaml" <<'EOF'
schema_version: 1
topology: {preset: dgx-b200, nodes: 2}
collective: {op: sendrecv, sizes: [1KiB, 256KiB, 1MiB, 256MiB]}
EOF
"$G" run "$T/p2p.yaml" >"$T/p2p2.txt" 2>&1
"$G" run "$T/p2p.yaml" --set topology.nodes=8 >"$T/p2p8.txt" 2>&1
"$G" run "$T/p2p.yaml" --set topology.nodes=16 >"$T/p2p16.txt" 2>&1
"$G" run "$T/p2p.yaml" --set topology.nodes=16 --set collective.channels=16 >"$T/p2p16c.txt" 2>&1
bw() { awk -v s="$2" '$1 == s { print $8 }' "$1"; }
"$G" run "$T/p2p.yaml" --set collective.nccl_version=2.26.2 >"$T/p2p2v26.txt" 2>&1
"$G" run "$T/p2p.yaml" --set collective.nccl_version=2.26.2 --set topology.nodes=8 >"$T/p2p8v26.txt" 2>&1
"$G" run "$T/p2p.yaml" --set collective.nccl_version=2.19.3 --set topology.nodes=8 >"$T/p2p8v19.txt" 2>&1
check "sendrecv under NCCL 2.26: 2 channels of 14 GB/s on 2 nodes, 1 on 8; under 2.19 2 on 8" \
  "grep -q '268435456 B on 2 of 16' '$T/p2p2v26.txt' && awk -v b=\$(bw '$T/p2p2v26.txt' 268435456) 'BEGIN { exit !(b > 27 && b <= 28) }' && grep -q '268435456 B on 1 of 16' '$T/p2p8v26.txt' && grep -q '268435456 B on 2 of 16' '$T/p2p8v19.txt'"
"$G" run "$T/p2p.yaml" --set collective.op=allreduce --set collective.nccl_version=2.26.2 >/dev/null 2>"$T/e"; rc=$?
check "collective.nccl_version on an allreduce without NCCL's tuner: refused, naming both uses" \
  "[ $rc -eq 2 ] && grep -q 'point-to-point channels across nodes' '$T/e'"
printf 'schema_version: 1\ntopology: {preset: dgx-b200}\ncollective: {op: sendrecv, sizes: [1MiB], nccl_version: 2.26.2}\n' >"$T/p2p1.yaml"
"$G" run "$T/p2p1.yaml" >/dev/null 2>"$T/e"; rc=$?
check "collective.nccl_version on a sendrecv within one node: refused" \
  "[ $rc -eq 2 ] && grep -q 'collective.nccl_version' '$T/e'"
check "sendrecv: NCCL's p2p step in the header; 1 KiB on 1 channel, 256 KiB on 2, 1 MiB and 256 MiB on 4 (2 nodes)" \
  "grep -q 'chunk NCCL.s p2p step, slice NCCL.s p2p step, buffer 8 p2p steps\$' '$T/p2p2.txt' && grep -q '^# fewer channels than the topology.s (NCCL.s tuning by size; collective.channels fixes them): 1024 B on 1 of 16, 262144 B on 2 of 16, 1048576 B on 4 of 16, 268435456 B on 4 of 16\$' '$T/p2p2.txt'"
check "sendrecv at 256 MiB: 2 channels on 8 nodes, 1 on 16, which moves 14 GB/s; the NIC's 50 GB/s binds on 2 nodes" \
  "grep -q '268435456 B on 2 of 16' '$T/p2p8.txt' && grep -q '268435456 B on 1 of 16' '$T/p2p16.txt' && awk -v b=\$(bw '$T/p2p16.txt' 268435456) 'BEGIN { exit !(b > 13.5 && b <= 14.0) }' && awk -v b=\$(bw '$T/p2p2.txt' 268435456) 'BEGIN { exit !(b > 49 && b <= 50) }'"
# the closed form times sendrecv by its slowest pair (the network's), as
# the flow run does, not by the mean of its pairs' latencies
"$G" run "$T/p2p.yaml" --set topology.nodes=8 --set sim.fidelity=analytical >"$T/p2p8a.txt" 2>&1
check "sendrecv: the closed form gives the flow run's times across nodes (4 sizes, 8 nodes)" \
  "[ \"\$(grep -E '^ +[0-9]' '$T/p2p8.txt' | awk '{print \$6}')\" = \"\$(grep -E '^ +[0-9]' '$T/p2p8a.txt' | awk '{print \$6}')\" ] && [ \$(grep -cE '^ +[0-9]' '$T/p2p8a.txt') -eq 4 ]"
check "sendrecv with collective.channels: the scenario's 16 channels at every size, the NIC binds on 16 nodes too" \
  "! grep -q '^# fewer channels' '$T/p2p16c.txt' && awk -v b=\$(bw '$T/p2p16c.txt' 268435456) 'BEGIN { exit !(b > 49 && b <= 50) }'"

# End to end on a published -g 8 log (8 H100, allgather): import it,
# predict its sizes with the settings the import prints, compare. The
# median error is under 10 %; without those settings it is over 60 %.
L=tests/validate/data/all_gather_g8_h100.log
"$G" validate --import-nccl-tests "$L" -o "$T/g8m.sqlite" >"$T/g8imp.txt" 2>&1
sets=$(sed -n 's/.*predict it with //p' "$T/g8imp.txt")
printf 'schema_version: 1\ntopology: {preset: dgx-h100, nodes: 1}\ncollective: {op: allgather, algo: ring, protocol: auto, sizes: [128B, 1KiB, 8KiB, 64KiB, 512KiB, 4MiB, 32MiB, 256MiB]}\n' >"$T/g8.yaml"
# shellcheck disable=SC2086
"$G" run "$T/g8.yaml" $sets --results "$T/g8p.sqlite" >/dev/null
"$G" run "$T/g8.yaml" --results "$T/g8p1.sqlite" >/dev/null
"$G" validate --measured "$T/g8m.sqlite" --predicted "$T/g8p.sqlite" >"$T/g8v.txt"
"$G" validate --measured "$T/g8m.sqlite" --predicted "$T/g8p1.sqlite" >"$T/g8v1.txt"
check "-g 8 log end to end: the import's settings, 8 compared, median within 10 % (over 60 % without)" \
  "[ -n \"$sets\" ] && grep -q '^# compared 8 points' '$T/g8v.txt' && awk '/median/ { m = \$4 + 0 } END { exit !(m < 10) }' '$T/g8v.txt' && awk '/median/ { m = \$4 + 0 } END { exit !(m > 60) }' '$T/g8v1.txt'"

# The published p5 sweep (validate/published): 14 runs cover its 45 rows; a
# missing binary is status 3 and leaves nothing; the 2-node rows (nvlstree)
# run end to end, and at 1 GiB, bound by NVLink rather than by EFA's
# per-message costs, the prediction is within 5 % of the measurement.
check "p5 sweep: 14 runs cover the 45 rows" \
  "[ \$(sh validate/p5-efa-sweep.sh --list | wc -l) -eq 14 ] && [ \$(sh validate/p5-efa-sweep.sh --list | awk '{ n += split(\$4, a, \",\") } END { print n }') -eq 45 ]"
sh validate/p5-efa-sweep.sh "$T/no-gcsim" "$T/p5none" >/dev/null 2>"$T/e"; rc=$?
check "p5 sweep without a binary: status 3, one line, no folder" "[ $rc -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && [ ! -e '$T/p5none' ]"
P5_SWEEP_NODES=2 sh validate/p5-efa-sweep.sh "$G" "$T/p5two" >"$T/p5two.txt" 2>/dev/null; rc=$?
check "p5 sweep, 2-node rows: 9 compared, verdict printed, 1 GiB within 5 %" \
  "[ $rc -eq 1 ] && grep -q '^# compared 9 points' '$T/p5two.txt' && awk -F, '\$4 == 1073741824 { e = \$7; if (e < 0) e = -e; found = 1; exit !(e < 5) } END { if (!found) exit 1 }' '$T/p5two/report.csv'"

# The same cluster's allgather and alltoall sweeps (P5_SWEEP_OP): 5 runs
# each cover their 35 rows (NCCL's own pick per size; pairwise), and an
# unknown collective is status 2 with one line.
check "p5 allgather and alltoall sweeps: 5 runs cover 35 rows each" \
  "[ \"\$(P5_SWEEP_OP=allgather sh validate/p5-efa-sweep.sh --list | awk '\$2 == \"nccl\" { r++; n += split(\$4, a, \",\") } END { print r + 0, n + 0 }')\" = '5 35' ] && [ \"\$(P5_SWEEP_OP=alltoall sh validate/p5-efa-sweep.sh --list | awk '\$2 == \"pairwise\" { r++; n += split(\$4, a, \",\") } END { print r + 0, n + 0 }')\" = '5 35' ]"
P5_SWEEP_OP=broadcast sh validate/p5-efa-sweep.sh "$G" "$T/p5bad" >/dev/null 2>"$T/e"; rc=$?
check "p5 sweep of an unknown collective: status 2, one line naming it, no folder" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q \"'broadcast'\" '$T/e' && [ ! -e '$T/p5bad' ]"

# The published H100 runs (validate/published/h100_*_nccl_tests.csv): 10
# groups cover the 304 rows (134 allreduce across nodes, 108 allgather and
# reduce-scatter and 62 allreduce on one node); a missing binary is status 3 and leaves
# nothing; on 2 nodes from 1 GiB the ring that NCCL_ALGO forced (run 7 of
# nccl-tests#309) is network-bound and its prediction within 5 % of the
# measurement, and the default rows of the same sizes are compared with the
# fastest algorithm; on one node from 1 GiB allgather, reduce-scatter and
# allreduce (NVLink-bound) are within 8 %, and up to 64 KiB, where one host
# thread enqueueing on all 8 GPUs (-g 8) sets the time, allgather and
# reduce-scatter within 10 % and allreduce within 20 %.
check "H100 nccl-tests: 10 groups cover the 304 rows (262 sizes)" \
  "[ \$(sh validate/h100-nccl-tests.sh --list | wc -l) -eq 10 ] && [ \$(sh validate/h100-nccl-tests.sh --list | awk '{ n += split(\$5, a, \",\") } END { print n }') -eq 262 ]"
sh validate/h100-nccl-tests.sh "$T/no-gcsim" "$T/h100none" >/dev/null 2>"$T/e"; rc=$?
check "H100 nccl-tests without a binary: status 3, one line, no folder" "[ $rc -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && [ ! -e '$T/h100none' ]"
H100_NODES=2 H100_MIN_BYTES=1073741824 sh validate/h100-nccl-tests.sh "$G" "$T/h100two" >"$T/h100two.txt" 2>/dev/null; rc=$?
check "H100 nccl-tests, 2 nodes from 1 GiB: 13 compared, one size band, forced ring within 5 %" \
  "[ $rc -le 1 ] && grep -q '^# compared 13 points' '$T/h100two.txt' && grep -Eq '^#   256 MiB and up +13 ' '$T/h100two.txt' && [ \$(grep -c '^#   ' '$T/h100two.txt') -eq 1 ] && awk -F, '\$2 == \"ring\" { e = \$7; if (e < 0) e = -e; n++; if (e >= 5) bad = 1 } END { exit !(n == 4 && !bad) }' '$T/h100two/report.csv'"
H100_NODES=1 H100_MIN_BYTES=1073741824 sh validate/h100-nccl-tests.sh "$G" "$T/h100one" >"$T/h100one.txt" 2>/dev/null; rc=$?
check "H100 nccl-tests, one node from 1 GiB: allgather, reduce-scatter and allreduce within 8 %" \
  "[ $rc -le 1 ] && grep -q '^# compared 24 points' '$T/h100one.txt' && awk -F, 'NR > 1 { e = \$7; if (e < 0) e = -e; n++; if (e >= 8) bad = 1 } END { exit !(n == 24 && !bad) }' '$T/h100one/report.csv'"
H100_NODES=1 H100_MAX_BYTES=65536 sh validate/h100-nccl-tests.sh "$G" "$T/h100small" >"$T/h100small.txt" 2>/dev/null; rc=$?
check "H100 nccl-tests, one node up to 64 KiB, one thread driving 8 GPUs: the host's floor within 10 % (allreduce 20 %)" \
  "[ $rc -le 1 ] && grep -q '^# compared 68 points' '$T/h100small.txt' && awk -F, 'NR > 1 { e = \$7; if (e < 0) e = -e; if (\$1 == \"allreduce\") { m++; if (e >= 20) bad = 1 } else { n++; if (e >= 10) bad = 1 } } END { exit !(n == 40 && m == 28 && !bad) }' '$T/h100small/report.csv'"

# The mixed reference set (validate/published/nccl_tests_published.csv): 4
# runs cover its 11 rows, the Azure H200 rows as their benchmark's code runs
# them (NVLS forced, one thread driving 8 GPUs, 40 iterations); a missing
# binary is status 3 and leaves nothing. The MoE set: 5 groups cover its 35
# rows; a group that does not exist and a missing binary are refused. (Both
# sets' points are pinned by validation_pinned.t.)
check "reference set: 4 runs cover the 11 rows, the Azure rows with NVLS forced on 8 GPUs per thread" \
  "[ \$(sh validate/nccl-reference.sh --list | wc -l) -eq 4 ] && [ \$(sh validate/nccl-reference.sh --list | awk -F', ' '{ n += split(\$NF, a, \",\") } END { print n }') -eq 11 ] && sh validate/nccl-reference.sh --list | grep -q '^8xH200 .*: p5en 0 nvls 8 40, '"
sh validate/nccl-reference.sh "$T/no-gcsim" "$T/refnone" >/dev/null 2>"$T/e"; rc=$?
check "reference set without a binary: status 3, one line, no folder" "[ $rc -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && [ ! -e '$T/refnone' ]"
check "MoE set: 5 groups cover the 35 rows" \
  "[ \$(sh validate/moe-published.sh --list | wc -l) -eq 5 ] && [ \$(sh validate/moe-published.sh --list | awk -F': ' '{ n += split(\$2, a, \",\") } END { print n }') -eq 35 ]"
MOE_GROUPS=pplx-ibgda,nope sh validate/moe-published.sh "$G" "$T/moenope" >/dev/null 2>"$T/e"; rc=$?
check "MoE set, an unknown group: status 2, named, nothing written" "[ $rc -eq 2 ] && grep -q \"unknown group 'nope'\" '$T/e' && [ ! -e '$T/moenope' ]"
sh validate/moe-published.sh "$T/no-gcsim" "$T/moenone" >/dev/null 2>"$T/e"; rc=$?
check "MoE set without a binary: status 3, one line, no folder" "[ $rc -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && [ ! -e '$T/moenone' ]"

# DeepEP's normal kernels (algo forward): the intranode rows of the
# published table run end to end and, NVLink-bound at the 160 GB/s the
# DeepEP README gives for H800, come within 10 %; a missing binary is
# status 3. At a training batch on 2 DGX nodes forward (one network copy
# per token and node) beats put (one per token and expert) by over 3x, its
# closed form is within 10 % of the flow model, the routing line counts
# what DeepEP counts, and a node limit that leaves a token too few experts
# is refused at moe.max_nodes.
DEEPEP_EP=8 sh validate/deepep-normal.sh "$G" >"$T/deepep.txt" 2>&1
check "DeepEP normal, 8 GPUs: dispatch and combine within 10 % of the published bandwidth" \
  "awk '\$1 == 8 { e = \$NF; sub(/%/, \"\", e); e += 0; if (e < 0) e = -e; n++; if (e >= 10) bad = 1 } END { exit !(n == 2 && !bad) }' '$T/deepep.txt'"
sh validate/deepep-normal.sh "$T/no-gcsim" >/dev/null 2>"$T/e"; rc=$?
check "DeepEP normal without a binary: status 3, one line" "[ $rc -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ]"
cat >"$T/fwd.yaml" <<'EOF'
schema_version: 1
name: forward vs put
topology: {preset: dgx-h100, nodes: 2}
collective: {op: dispatch, algo: forward, sizes: [7392B]}
moe: {tokens: 512, topk: 8, experts: 256}
EOF
for a in forward put; do
  for f in flow analytical; do
    "$G" run "$T/fwd.yaml" --set collective.algo=$a --set sim.fidelity=$f >"$T/fwd-$a-$f.txt"
  done
done
check "forward vs put at 512 tokens on 2 nodes: over 3x faster; closed form within 10 %" \
  "awk 'FNR == 1 { k++ } \$1 == 7392 { t[k] = \$6 } END { exit !(t[3] > 3 * t[1] && t[2] < 1.1 * t[1] && t[2] > 0.9 * t[1]) }' '$T/fwd-forward-flow.txt' '$T/fwd-forward-analytical.txt' '$T/fwd-put-flow.txt'"
check "forward's DeepEP bandwidths: token-node pairs and copies x bytes over the time" \
  "awk '/^# routing/ { c = substr(\$11, 2); p = substr(\$16, 2) } \$1 == 7392 { t = \$6 } /^# as DeepEP counts/ { split(\$0, a, \": \"); split(a[3], v, \" \"); r = v[3]; n = v[5] } END { er = r / (p * 7392 / t / 1e3) - 1; en = n / (c * 7392 / t / 1e3) - 1; exit !(er < 0.001 && er > -0.001 && en < 0.001 && en > -0.001) }' '$T/fwd-forward-flow.txt'"
check "forward's routing line: 512 tokens, each on 1 to 2 nodes" \
  "grep '^# routing' '$T/fwd-forward-flow.txt' | awk '{ exit !(\$6 == 512 && \$14 > 1.5 && \$14 <= 2) }'"
"$G" run "$T/fwd.yaml" --set moe.max_nodes=1 --set moe.topk=200 >/dev/null 2>"$T/e"; rc=$?
check "a node limit below the top-k: status 2 at moe.max_nodes" "[ $rc -eq 2 ] && grep -q 'moe.max_nodes: 1 of the 2 nodes hold 128 experts, fewer than the top-200' '$T/e'"
"$G" run "$T/fwd.yaml" --set collective.op=allreduce --set collective.sizes=1MiB >/dev/null 2>"$T/e"; rc=$?
check "forward refused for allreduce" "[ $rc -eq 2 ] && grep -q 'collective.op dispatch or combine' '$T/e'"
"$G" run "$T/fwd.yaml" --set collective.op=combine --set collective.sizes=1MiB >/dev/null 2>"$T/e"; rc=$?
check "forward's combine with a buffer below its lag: status 2 at collective.buffer" "[ $rc -eq 2 ] && grep -q 'collective.buffer: 4194304 B cannot hold 17825792 B' '$T/e'"
# (without a GPU generation, and so without NCCL's LL ceiling, auto picks LL here)
"$G" run "$T/fwd.yaml" --set collective.op=combine --set collective.protocol=auto --set collective.channels=1 \
  --set moe.tokens=16 --set collective.sizes=32KiB --set topology.gpu_arch=none >/dev/null 2>"$T/e"; rc=$?
check "forward's combine with a protocol's smaller buffer: status 2, no deadlock" "[ $rc -eq 2 ] && grep -q \"forward's combine needs 557056 B of buffer\" '$T/e' && ! grep -q deadlock '$T/e'"
"$G" run "$T/fwd.yaml" --set collective.group.size=8 --set moe.tokens=16 >"$T/fwdg.txt"
check "one-level groups are named in the table header" "grep -q '^# collective: dispatch, algo forward, 2 groups of 8 ranks at stride 1 at once' '$T/fwdg.txt'"

# Packet fidelity: the header names it, runs repeat byte for byte, and on
# the shipped comparison the two fidelities meet at 1 GiB (within 0.2 %).
# At 64 MiB the packets run ahead of the fluid model's lockstep by more
# than 5 % where a channel may take a whole free port (no GPU generation:
# 16 channels); with Hopper's 24 channels, each held to its CTA's 38.7
# GB/s, the two stay within 2 %.
shipped fidelity-flow-vs-packet "$T/fid.txt"
"$G" run scenarios/fidelity-flow-vs-packet.yaml >"$T/fid2.txt"
"$G" run scenarios/fidelity-flow-vs-packet.yaml --set topology.gpu_arch=none >"$T/fidn.txt"
check "packet fidelity: same scenario, byte-identical output" "cmp -s '$T/fid.txt' '$T/fid2.txt'"
fid_awk='$3 == 1073741824 { t[$1] = $4 } $3 == 67108864 { m[$1] = $4 }
  END { e = (t["packet"] - t["flow"]) / t["flow"]; if (e < 0) e = -e; r = m["packet"] / m["flow"];
        exit !(e < 0.002 && r >= lo && r < hi) }'
check "flow and packet within 0.2% at 1 GiB, within 2% at 64 MiB" \
  "awk -v lo=0.98 -v hi=1.02 '$fid_awk' '$T/fid.txt'"
check "without a channel rate: packet ahead by more than 5% at 64 MiB" \
  "awk -v lo=0 -v hi=0.95 '$fid_awk' '$T/fidn.txt'"
"$G" run scenarios/dgx-h100-allreduce.yaml --fidelity packet --set collective.sizes=1MiB >"$T/pk.txt"
check "packet fidelity named in the header" "grep -q '^# model     : packet (store and forward, 4KiB packets, 8 per hop)' '$T/pk.txt'"
"$G" run scenarios/flat-1024-ring.yaml --set topology.gpus=8 --fidelity packet --trace "$T/pt.json" >/dev/null
check "packet fidelity trace: link counters step between 1 and 0" "grep -q '\"ph\":\"C\"' '$T/pt.json' && grep -q '\"value\":0' '$T/pt.json' && grep -q '\"value\":1' '$T/pt.json'"
printf 'schema_version: 1\ntopology: {preset: dgx-h100}\ncollective: {op: allreduce, sizes: [1MiB]}\nsim: {fidelity: packet, packet: 10B}\n' >"$T/bp.yaml"
"$G" run "$T/bp.yaml" >"$T/out" 2>"$T/e"; rc=$?
check "packet below 64 B: status 2 at its key" "[ $rc -eq 2 ] && [ ! -s '$T/out' ] && grep -q 'bp.yaml:4:33: sim.packet: must be at least 64B' '$T/e'"
"$G" run scenarios/dgx-h100-8node-ring.yaml --fidelity packet --set sim.packet=64B >"$T/out" 2>"$T/e"; rc=$?
check "packet fidelity refuses a run of billions of packets before running any size (the packets of the ranks it simulates: one node's for all)" "[ $rc -eq 2 ] && [ ! -s '$T/out' ] && grep -q 'sim.packet: size 8589934592 B is about 2.15e+09 packets of 64 B over 8 ranks (the 8 simulated for all 64)' '$T/e'"
"$G" run scenarios/dgx-h100-8node-ring.yaml --fidelity packet --set sim.packet=64B --set sim.fold=false >"$T/out" 2>"$T/e"; rc=$?
check "every rank simulated: refused at the first size past the limit" "[ $rc -eq 2 ] && [ ! -s '$T/out' ] && grep -q 'sim.packet: size 2147483648 B is about 4.29e+09 packets of 64 B over 64 ranks,' '$T/e'"

# Simulated time is int64 picoseconds (about 106 days, half of it usable):
# a run that would pass that is refused in every fidelity, and in explain,
# with status 2 and one line, instead of overflowing.
printf 'schema_version: 1\ntopology: {kind: flat, gpus: 2, link: {bandwidth: 8bps, latency: 1us}}\ncollective: {op: allreduce, sizes: [1GiB]}\n' >"$T/slow.yaml"
for f in flow packet analytical; do
  "$G" run "$T/slow.yaml" --fidelity $f >"$T/out" 2>"$T/e"; rc=$?
  check "$f: 1 GiB at 1 B/s refused past the 53-day horizon" "[ $rc -eq 2 ] && [ ! -s '$T/out' ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'past the 53 days of simulated time' '$T/e'"
done
"$G" run "$T/slow.yaml" --set collective.sizes=8 --set collective.iters=1000000 --set topology.link.latency=1000s >"$T/out" 2>"$T/e"; rc=$?
check "latencies alone past the horizon: refused" "[ $rc -eq 2 ] && grep -q 'use fewer iterations or smaller latencies' '$T/e'"
"$G" explain --path inter:3 --bytes 1GiB --set nic.bandwidth=8bps >"$T/out" 2>"$T/e"; rc=$?
check "explain: a transfer past the horizon is refused" "[ $rc -eq 2 ] && grep -q 'past the 53 days' '$T/e'"

# Fabrics and generations (what-if scenarios): oversubscription slows the
# all-to-all across the spines, the rail fabric with PXN does not cross
# them, and the AWS generations order as their latency and bandwidth say.
shipped fabric-oversubscription "$T/ov.txt"
check "fat tree: 1 GiB all-to-all 1.5x slower at 2:1 than 1:1, 3x at 4:1" \
  "awk '\$3 == 1073741824 { t[\$1] = \$4 } END { exit !(t[2] > 1.5 * t[1] && t[4] > 3 * t[1]) }' '$T/ov.txt'"
shipped fabric-rail-vs-fat-tree "$T/rail.txt"
check "2:1: the rail fabric carries the 1 GiB all-to-all 1.7x faster than the fat tree" \
  "awk '\$3 == 1073741824 { t[\$1] = \$4 } END { exit !(t[\"fat-tree\"] > 1.7 * t[\"rail\"]) }' '$T/rail.txt'"
shipped aws-generations "$T/aws.txt"
check "AWS: p5en beats p5 at 8 B (35 vs 75 us), p5 beats p4d 7x at 1 GiB" \
  "awk '\$3 == 8 { s[\$1] = \$4 } \$3 == 1073741824 { b[\$1] = \$4 } END { exit !(s[\"p5en\"] < 0.7 * s[\"p5\"] && b[\"p4d\"] > 7 * b[\"p5\"]) }' '$T/aws.txt'"

shipped sharp-scaling "$T/sharp.txt"
check "SHARP: nvls 8 B at 43 us and 1 GiB the same on 2, 8 and 64 nodes; nvlstree 1.4x slower at 1 GiB from 8 nodes" \
  "awk '\$3 == 8 && \$4 != \"43.00\" { bad = 1 } \$3 == 1073741824 { t[\$1] = \$4; tr[\$1] = \$7 } END { exit !(!bad && t[2] == t[8] && t[8] == t[64] && tr[8] > 1.4 * t[8] && tr[64] > 1.4 * t[64]) }' '$T/sharp.txt'"

# Concurrent DP communicators on a fat tree: the rings keep one edge per
# two-node leaf in each direction, so 2:1 leaves them as fast as 1:1 and
# 4:1 halves them; the trees cross the uplinks more and slow down already at 2:1.
shipped dp-groups-fabric "$T/dp.txt"
check "DP groups: ring 256 MiB equal at 1:1 and 2:1, 2x at 4:1; tree slower at 2:1" \
  "awk '\$3 == 268435456 { t[\$1] = \$4; tr[\$1] = \$7 } END { exit !(t[1] == t[2] && t[4] > 1.9 * t[1] && tr[2] > 1.2 * tr[1]) }' '$T/dp.txt'"

# A training step scaled from 8 to 16384 GPUs: the TP phase stays inside a
# node (the same at every size), the DP phase grows with the nodes.
shipped training-step-scaling "$T/step.txt"
check "training step: TP 947 ms at every size; DP grows from 8 to 2048 nodes; the step is their sum" \
  "awk '\$1 ~ /^[0-9]+\$/ { tp[\$1] = \$7; dp[\$1] = \$10; if (\$11 - \$7 - \$10 > 0.02 || \$7 - \$11 + \$10 > 0.02) bad = 1 } END { exit !(!bad && tp[1] == \"947.24\" && tp[2048] == tp[1] && dp[1] == 0 && dp[8] > 0 && dp[2048] > 10 * dp[8]) }' '$T/step.txt'"
# NCCL's model chooses the step's allreduce, allgather and reduce-scatter;
# its MoE phases, which NCCL does not tune, keep gcsim's choice
"$G" run scenarios/training-step-moe.yaml --set collective.algo=auto --set collective.protocol=auto \
  --set collective.tuner=nccl --set sweep.key= --set sweep.values= --set topology.nodes=32 \
  --set train.pp=4 --set train.ep=8 >"$T/steptu.txt" 2>&1
check "training step with collective.tuner nccl: runs, says so, MoE phases keep gcsim's choice" \
  "grep -q \"NCCL's model choosing\" '$T/steptu.txt' && grep -q '^  ep-dispatch ' '$T/steptu.txt'"
"$G" run scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= --set topology.nodes=2 --format csv >"$T/step.csv"
check "training step CSV: one row per phase, the last DP bucket on its own" \
  "head -1 '$T/step.csv' | grep -q '^phase,op,group_size,group_stride,bytes,calls,call_us,total_us,algo,protocol,group_block,group_block_stride,exposed_us\$' && grep -q '^tp,allreduce,8,1,67108864,2560,.*,ring,simple,0,0,[0-9.]*\$' '$T/step.csv' && grep -q '^dp-last,allreduce,2,8,' '$T/step.csv'"

check "training step at 40 % MFU: compute the same at every size; TP alone exposed on one node, DP exposed from 64 GPUs (reduced in the last micro-batch only)" \
  "awk '\$1 ~ /^[0-9]+\$/ { c[\$1] = \$12; x[\$1] = \$13; tp[\$1] = \$7 } END { exit !(c[1] == c[2048] && x[1] == tp[1] && x[8] > tp[8] + 1000 && x[64] > tp[64] && x[2048] > 70000) }' '$T/step.txt'"

# Context parallelism on Llama 3's 128K-token stage: ring attention hides
# its rounds, the all-gathers do not; interleaving quarters the bubble.
"$G" run scenarios/llama3-405b-128k.yaml --format csv >"$T/cp.csv"
check "128K context: p2p exposes less than allgather; CP 16 in every run; interleaving cuts the bubble to a quarter and raises the end-to-end MFU" \
  "awk -F, 'NR > 1 { x[\$1 \",\" \$2] = \$14; b[\$1 \",\" \$2] = \$15; m[\$1 \",\" \$2] = \$18; if (\$16 != 16) bad = 1 } END { exit !(!bad && x[\"p2p,1\"] < x[\"allgather,1\"] && x[\"p2p,4\"] < x[\"allgather,4\"] && (b[\"p2p,4\"] * 4 - b[\"p2p,1\"])^2 < (1e-3 * b[\"p2p,1\"])^2 && m[\"p2p,4\"] > m[\"p2p,1\"]) }' '$T/cp.csv'"
"$G" run scenarios/llama3-405b-128k.yaml --set sweep.key= --set sweep.values= --set sweep.key2= --set sweep.values2= --format csv >"$T/cp1.csv"
check "128K context, p2p: the CP rounds hidden, the gradient's last hop exposed, CP x DP in two levels" \
  "grep -q '^cp-fwd,sendrecv,16,8,4194304,1920,.*,0,0,0.000000\$' '$T/cp1.csv' && grep -q '^cp-dkv,sendrecv,16,8,4194304,128,.*,0,0,[1-9][0-9.]*\$' '$T/cp1.csv' && grep -q '^dp,allreduce,128,8,.*,16,2048,\$' '$T/cp1.csv'"

# Expert parallelism: the wider EP, the more the dispatch costs and the
# less the expert gradients do.
"$G" run scenarios/training-step-moe.yaml >"$T/moe-step.txt"
check "MoE step: EP cost grows from EP 8 to 128, expert-DP cost falls" \
  "awk '\$1 ~ /^[0-9]+\$/ { ep[\$1] = \$9; dp[\$1] = \$10 } END { exit !(ep[8] < ep[16] && ep[64] < ep[128] && dp[8] > dp[16] && dp[64] > dp[128]) }' '$T/moe-step.txt'"
# On NVL72 racks (64 GPUs of each in use) an EP group up to 64 stays on
# NVLink: its exchange grows little to EP 64 and jumps at 128 (two racks),
# and every step up to EP 64 beats the best DGX H100 one.
"$G" run scenarios/moe-ep-nvl72.yaml >"$T/moe-nvl72.txt"
check "MoE step on NVL72: EP 8..64 on NVLink (ep within 1.2x), EP 128 over 5x, all below DGX H100's best" \
  "awk 'FNR == NR && \$1 ~ /^[0-9]+\$/ { h = (h == \"\" || \$11 < h) ? \$11 : h; next } \$1 ~ /^[0-9]+\$/ { ep[\$1] = \$9; st[\$1] = \$11 } END { exit !(ep[64] < 1.2 * ep[8] && ep[128] > 5 * ep[64] && st[8] < h && st[64] < h) }' '$T/moe-step.txt' '$T/moe-nvl72.txt'"

# The MoE step with DeepEP's normal kernels: the EP phase below the
# low-latency kernels' at every EP width, and the best step at EP 16, below
# put's best (EP 8).
"$G" run scenarios/training-step-moe-normal.yaml >"$T/moe-normal-step.txt"
check "MoE step, forward: ep below put's at every width; best at EP 16, below put's best" \
  "awk 'FNR == NR && \$1 ~ /^[0-9]+\$/ { ep[\$1] = \$9; h = (h == \"\" || \$11 < h) ? \$11 : h; next } \$1 ~ /^[0-9]+\$/ { if (\$9 >= ep[\$1]) bad = 1; if (b == \"\" || \$11 < b) { b = \$11; at = \$1 } } END { exit !(!bad && at == 16 && b < h) }' '$T/moe-step.txt' '$T/moe-normal-step.txt'"

# Pods under a 1:7 core: Megatron's layout sends whole pipeline stages
# across the core (PP over 2x slower), Llama 3's keeps them in a pod; the
# DP ring does not notice the core in either layout.
shipped llama3-405b-pods "$T/pods.txt"
check "16k GPUs in pods at 1:7: PP 2.3x slower with tp-dp-pp than tp-pp-dp, TP equal, DP within 1 %" \
  "awk '\$1 ~ /^tp-/ { tp[\$1] = \$7; pp[\$1] = \$8; dp[\$1] = \$10 } END { a = \"tp-dp-pp,7\"; b = \"tp-pp-dp,7\"; exit !(tp[a] == tp[b] && pp[a] > 2.2 * pp[b] && pp[a] < 2.5 * pp[b] && dp[a] < 1.01 * dp[b] && dp[b] < 1.01 * dp[a]) }' '$T/pods.txt'"
check "16k GPUs in pods at 1:1: the PP phase the same in both layouts, and as tp-pp-dp's at 1:7" \
  "awk '\$1 ~ /^tp-/ { pp[\$1] = \$8 } END { a = pp[\"tp-dp-pp,1\"]; b = pp[\"tp-pp-dp,1\"]; c = pp[\"tp-pp-dp,7\"]; exit !(a - b < 0.05 && b - a < 0.05 && b == c) }' '$T/pods.txt'"
"$G" run scenarios/llama3-405b-pods.yaml --format csv >"$T/pods.csv"
check "a two-key sweep in CSV: one column per key" \
  "head -1 '$T/pods.csv' | grep -q '^train.order,topology.fabric.pod_oversubscription,gpus,tp,pp,dp,ep,' && grep -c '^tp-' '$T/pods.csv' | grep -qx 4"

# DDP against FSDP: on 8 nodes the bucketed allreduce is the cheapest; on
# 512 the 4096-rank rings of 25 MiB buckets are latency-bound and both FSDP
# variants, moving more bytes in larger collectives, take less time.
shipped training-step-sharding "$T/shard.txt"
check "DDP vs FSDP: none < zero2 < zero3 on 8 nodes; zero2 and zero3 below none on 512" \
  "awk '\$1 ~ /^(none|zero)/ { dp[\$1] = \$10 } END { exit !(dp[\"none,8\"] < dp[\"zero2,8\"] && dp[\"zero2,8\"] < dp[\"zero3,8\"] && dp[\"zero2,512\"] < dp[\"none,512\"] && dp[\"zero3,512\"] < dp[\"none,512\"]) }' '$T/shard.txt'"

# CollNet Direct with SHARP on DGX A100: the same time at 1 GiB from 2 to
# 64 nodes, and faster than the ring at every size and node count.
shipped sharp-a100-collnet "$T/collnet.txt"
check "collnet on A100 with SHARP: 1 GiB flat from 2 to 64 nodes, faster than the ring everywhere" \
  "awk '\$1 ~ /^[0-9]+\$/ { n++; if (\$8 != \"collnet\") bad = 1; if (\$3 == 1073741824) t[\$1] = \$4 } END { exit !(n == 12 && !bad && t[2] == t[64]) }' '$T/collnet.txt'"

shipped one-process-vs-per-gpu "$T/g8.txt"
check "one process driving 8 GPUs: 1 KiB at the host's 32.34 us against 10.81, 64 MiB within 1 %" \
  "grep -Eq '^ +1 +8 +1024 +10.81 ' '$T/g8.txt' && grep -Eq '^ +8 +8 +1024 +32.34 ' '$T/g8.txt' && awk '\$3 == 67108864 { t[\$1] = \$4 } END { exit !(t[8] / t[1] < 1.01) }' '$T/g8.txt'"
shipped nccl-pick-vs-fastest "$T/pick.txt"
check "NCCL's pick vs the fastest: nvlstree at 16 MiB on 2 nodes, slower than gcsim's pick; the same pick at 64 KiB" \
  "awk '\$3 == 16777216 && \$1 == \"gcsim,2\" { g = \$4 } \$3 == 16777216 && \$1 == \"nccl,2\" { n = \$4; a = \$7 } \$3 == 65536 && \$1 ~ /,2\$/ { c[\$7]++ } END { exit !(a == \"nvlstree/simple\" && n > g && c[\"tree/ll\"] == 2) }' '$T/pick.txt'"
shipped fsdp-allgather-pat "$T/pat.txt"
check "FSDP allgather: PAT beats the ring at 64 KiB; at 4:1 it beats bruck at 16 MiB and the ring beats both at 256 MiB" \
  "awk '{ t[\$1 \" \" \$3] = \$4 } END { exit !(t[\"pat,1 65536\"] * 3 < t[\"ring,1 65536\"] && t[\"pat,4 16777216\"] < 0.85 * t[\"bruck,4 16777216\"] && t[\"ring,4 268435456\"] < t[\"pat,4 268435456\"]) }' '$T/pat.txt'"
shipped tp-allgather-nvls "$T/tpnv.txt"
check "TP allgather: NVLS beats the ring at 4 MiB on H100 and B200, the ring wins at 64 KiB (LL) and 4 GiB" \
  "awk '{ t[\$1 \" \" \$3] = \$4 } END { exit !(t[\"nvls,dgx-h100 4194304\"] < 0.8 * t[\"ring,dgx-h100 4194304\"] && t[\"nvls,dgx-b200 4194304\"] < 0.9 * t[\"ring,dgx-b200 4194304\"] && t[\"ring,dgx-h100 65536\"] < t[\"nvls,dgx-h100 65536\"] && t[\"ring,dgx-h100 4294967296\"] < 0.8 * t[\"nvls,dgx-h100 4294967296\"] && t[\"ring,dgx-b200 4294967296\"] < 0.8 * t[\"nvls,dgx-b200 4294967296\"]) }' '$T/tpnv.txt'"
shipped sharp-collnet-chain "$T/cnc.txt"
check "CollNet Chain vs Direct: the chain's 14 hops at 8 B, ahead at 16 MiB, tied at 1 GiB on 2 and 16 nodes, both well ahead of the ring" \
  "awk '{ t[\$1 \" \" \$3] = \$4 } END { c = t[\"collnetchain,16 1073741824\"]; d = t[\"collnet,16 1073741824\"]; exit !(t[\"collnetchain,2 8\"] > 2 * t[\"collnet,2 8\"] && t[\"collnetchain,2 16777216\"] < t[\"collnet,2 16777216\"] && c < 1.01 * d && d < 1.01 * c && c == t[\"collnetchain,2 1073741824\"] && c < 0.8 * t[\"ring,16 1073741824\"]) }' '$T/cnc.txt'"
shipped broadcast-weights "$T/bcast.txt"
sed '/^sweep:/,$d' scenarios/broadcast-weights.yaml >"$T/bcast1.yaml"
"$G" run "$T/bcast1.yaml" --set topology.nodes=2 >"$T/bcast1.txt"
check "weight broadcast: 16 GiB within 15 % from 2 to 32 nodes; 1 MiB over 10x slower on 32 than on 2; root column 0" \
  "awk '\$1 ~ /^[0-9]+\$/ { t[\$1 \" \" \$3] = \$4 } END { exit !(t[\"32 17179869184\"] < 1.15 * t[\"2 17179869184\"] && t[\"32 1048576\"] > 10 * t[\"2 1048576\"]) }' '$T/bcast.txt' && grep -Eq '^ +1048576 +262144 +float +sum +0 ' '$T/bcast1.txt'"
shipped net-latency-sensitivity "$T/lat.txt"
check "network latency sweep: 8 B (tree, LL) grows by two network hops of LL's 5/14 of the added latency" "grep -Eq '^ +14us +16 +8 +25.21 ' '$T/lat.txt' && grep -Eq '^ +56us +16 +8 +55.21 ' '$T/lat.txt'"

shipped pcie-node "$T/pcie.txt"
check "PCIe node: peer access binds at the socket link's 5/6 on Intel (20.8 GB/s), without it four GPUs share a switch uplink (6.25); 8 B is 14 PCIe latencies" \
  "awk '\$3 == 1073741824 { b[\$1] = \$6 } \$3 == 8 { t[\$1] = \$4 } END { exit !(b[\"true\"] > 20.7 && b[\"true\"] <= 20.84 && b[\"false\"] > 6.2 && b[\"false\"] <= 6.25 && t[\"true\"] == 88.20) }' '$T/pcie.txt'"
"$G" run scenarios/pcie-node.yaml --set collective.algo=nvls >"$T/out" 2>"$T/err"
check "PCIe node: nvls refused, no NVSwitch" "[ \$? -eq 2 ] && [ ! -s '$T/out' ] && grep -q 'has no NVSwitch' '$T/err'"

shipped shared-nics "$T/nics.txt"
check "shared NICs: busbw at 1 GiB is 50 GB/s per NIC of a node (1 to 8), 1 MiB the same within 2 %" \
  "awk '\$3 == 1073741824 { b = \$6 / (50 * \$1); if (b < 0.99 || b > 1.0) bad = 1; n++ } \$3 == 1048576 { t[\$1] = \$4 } END { exit !(n == 4 && !bad && t[1] < 1.02 * t[8]) }' '$T/nics.txt'"

# --- bad input: status 2, FILE:LINE:COLUMN on stderr, nothing on stdout ---------
bad() { # name, expected-stderr-regex, args...
  name=$1; re=$2; shift 2
  "$G" "$@" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && grep -Eq -- "$re" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]; then
    ok "$name"
  else
    nok "$name (status $rc)"; sed 's/^/# /' "$T/err"
  fi
}
for f in tests/fuzz/corpus/scenario/bad-*.yaml; do
  bad "$(basename "$f")" "^$f:[0-9]+:[0-9]+: " run "$f"
done
bad "missing file" "^$T/none.yaml:1:1: cannot open file" run "$T/none.yaml"
bad "directory" "^$T:[0-9]+:[0-9]+: " run "$T"
bad "an explain study is no run scenario" "^scenarios/taxonomy/flag-read.yaml:6:1: unknown key 'explain' at top level: explain.\\* keys describe an explain study .*'gcsim explain --scenario FILE' runs" run scenarios/taxonomy/flag-read.yaml
bad "--set explain.* names gcsim explain" "^--set explain.bytes=8B: unknown key 'explain.bytes': explain.\\* keys describe an explain study" run scenarios/dgx-h100-allreduce.yaml --set explain.bytes=8B
printf 'schema_version: 1\ntopology: {kind: flat, gpus: 4}\ncollective: {op: allreduce, algo: tree, sizes: [1MiB]}\n' >"$T/s.yaml"
bad "tree is for allreduce only" "^$T/s.yaml:3:[0-9]+: collective.algo: tree is implemented for allreduce only" run "$T/s.yaml" --set collective.op=allgather
bad "--sweep names the value that fails" "^--set topology.nodes=0: must be at least 1, got 0 \(sweep value topology.nodes=0\)" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,0
printf 'schema_version: 1\ntopology: {kind: flat, gpus: 4}\nsweep:\n  key: topology.gpuz\n  values: 2,4\n' >"$T/sw.yaml"
bad "a scenario's sweep.key must be a key" "^$T/sw.yaml:4:8: sweep.key: 'topology.gpuz' is not a scenario key" run "$T/sw.yaml"
bad "--sweep needs KEY=VALUES" "--sweep: expected KEY=V1,V2" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes
bad "--sweep does not combine with --links" "does not combine with --trace, --links or --results" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1 --links
bad "nvls across nodes without SHARP is refused at its key" "dgx-h100-nvls.yaml:[0-9]+:[0-9]+: .*nvls across nodes needs the network's switches to reduce" run scenarios/dgx-h100-nvls.yaml --set topology.nodes=2
bad "dgx GPUs that are not whole nodes are refused at topology.gpus" "^--set: topology.gpus: 100 GPUs are not whole nodes of 72 \\(gpus_per_node\\)" run scenarios/blackwell-nvl72.yaml --set topology.gpus=100
bad "dgx GPUs and nodes that disagree are refused" "^scenarios/blackwell-nvl72.yaml:[0-9]+:[0-9]+: topology.gpus: is 144 but nodes x gpus_per_node = 216" run scenarios/blackwell-nvl72.yaml --set topology.nodes=3
# two NVL72 racks: the closed form's round of nvlstree's strands meets
# ranks with no transfer on a link (sanitizer builds check the sort of none)
printf 'schema_version: 1\ntopology: {preset: gb200-nvl72, nodes: 2}\ncollective: {op: allreduce, algo: nvlstree, sizes: [64MiB, 1GiB]}\nsim: {fidelity: analytical}\n' >"$T/nvl72x2.yaml"
"$G" run "$T/nvl72x2.yaml" >"$T/nvl72x2.txt" 2>"$T/err"
check "nvlstree over two NVL72 racks in the closed form" "[ \$? -eq 0 ] && [ ! -s '$T/err' ] && grep -q '^  1073741824 ' '$T/nvl72x2.txt'"
bad "a preset with another topology kind is refused at its key" "^--set: topology.kind: preset p5 describes kind dgx, not 'flat'" run scenarios/ib-vs-efa.yaml --set topology.preset=p5 --set topology.kind=flat
bad "MoE experts that do not spread over the GPUs are refused at their key" "moe-dispatch.yaml:[0-9]+:[0-9]+: moe.experts: 256 experts do not spread evenly over 12 GPUs" run scenarios/moe-dispatch.yaml --set sweep.key= --set sweep.values= --set topology.gpus=12
bad "a MoE key on another collective is refused at its key" "moe-dispatch.yaml:[0-9]+:[0-9]+: moe.tokens: applies to collective.op dispatch or combine, not allreduce" run scenarios/moe-dispatch.yaml --set sweep.key= --set sweep.values= --set collective.op=allreduce --set collective.algo=ring
bad "MoE top-k above the experts is refused" "moe.topk: a token cannot go to 300 of 256 experts" run scenarios/moe-dispatch.yaml --set sweep.key= --set sweep.values= --set moe.topk=300
bad "nvlstree on one node is refused at its key" "dgx-h100-2node-nvlstree.yaml:[0-9]+:[0-9]+: .*at least 2 nodes \\(one node: nvls\\)" run scenarios/dgx-h100-2node-nvlstree.yaml --set topology.nodes=1
bad "nvls with LL is refused at its key" "^[^:]+:[0-9]+:[0-9]+: collective.algo: nvls runs NCCL.s Simple protocol only" run scenarios/dgx-h100-nvls.yaml --set collective.protocol=ll
bad "groups that do not tile the GPUs are refused at their key" "^--set: collective.group.size: groups of 3 ranks at stride 8 do not tile the 64 GPUs" run scenarios/dp-groups-fabric.yaml --set collective.group.size=3
"$G" run scenarios/dp-groups-fabric.yaml --set sweep.key= --set sweep.values= --set collective.group.size=4 --set collective.group.block=2 --set collective.group.block_stride=32 --set sim.fidelity=analytical >"$T/blk.txt" 2>&1
check "two-level groups are named in the table header" "grep -q '^# collective: allreduce, algo ring, 16 groups of 4 ranks (blocks of 2 at stride 8, 32 apart) at once' '$T/blk.txt'"
bad "a group block without its stride is refused at its key" "^--set: collective.group.block: two-level groups need both collective.group.block and collective.group.block_stride" run scenarios/dp-groups-fabric.yaml --set collective.group.block=2
bad "a block stride off the block's span is refused at its key" "^--set: collective.group.block_stride: 12 is not a multiple of the block's span, block 2 x stride 8" run scenarios/dp-groups-fabric.yaml --set collective.group.block=2 --set collective.group.block_stride=12
bad "two-level groups that do not tile the GPUs are refused" "^--set: collective.group.block_stride: groups of 8 ranks in blocks of 2 at stride 8, 48 apart, do not tile the 64 GPUs" run scenarios/dp-groups-fabric.yaml --set collective.group.size=8 --set collective.group.block=2 --set collective.group.block_stride=48
bad "nvlstree in groups is refused at the group key" "collective.group.size: nvlstree reduces in the switch over every GPU behind it, not in groups" run scenarios/dp-groups-fabric.yaml --set collective.algo=nvlstree --set collective.compare=none
bad "nvls in groups other than whole nodes is refused at the group key" "collective.group.size: nvls reduces in the switch over every GPU behind it: in groups only when each group is one whole node" run scenarios/dp-groups-fabric.yaml --set collective.algo=nvls --set collective.compare=none
bad "a training step does not take --trace" "a training step \\(workload: step\\) prints one table of its phases" run scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= --trace "$T/x.json"
bad "a third --sweep is refused" "^gcsim run: --sweep: 3 keys, at most 2" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,2 --sweep collective.channels=1,2 --sweep seed=1,2
bad "the same key swept twice is refused" "^gcsim run: --sweep: 'topology.nodes' twice" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,2 --sweep topology.nodes=4
bad "sweep.key2 without sweep.key is refused at its key" "^--set: sweep.key2: given without sweep.key" run scenarios/dgx-h100-allreduce.yaml --set sweep.key2=topology.nodes --set sweep.values2=1,2
bad "sweep.key2 naming sweep.key's key is refused" "^--set: sweep.key2: sweeps 'train.order', which sweep.key sweeps already" run scenarios/llama3-405b-pods.yaml --set sweep.key2=train.order
bad "a grid past 64 runs is refused" "^gcsim run: --sweep: 100 runs, at most 64" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,2,3,4,5,6,7,8,9,10 --sweep seed=1,2,3,4,5,6,7,8,9,10
vals=$(seq -s, 1 65536)
printf 'schema_version: 1\ntopology: {gpus: 2}\ncollective: {op: allreduce, sizes: [8B]}\nsweep: {key: seed, values: "%s", key2: collective.iters, values2: "%s"}\n' "$vals" "$vals" >"$T/grid.yaml"
bad "a grid of 2^32 runs is counted, not wrapped, and refused" "^gcsim run: the scenario's sweep: 4294967296 runs, at most 64" run "$T/grid.yaml"
bad "a pod that splits a leaf is refused at its key" "^--set: topology.fabric.pod_nodes: a pod of 101 nodes splits a leaf of 2 nodes" run scenarios/llama3-405b-pods.yaml --set sweep.key= --set sweep.values= --set topology.fabric.pod_nodes=101
bad "a training step's TP must divide the GPUs, at its key" "^--set: train.tp: TP 3 does not divide the 8 GPUs" run scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= --set train.tp=3
bad "a run of more than 10^10 steps is refused up front" "steps to simulate \\(1048576 ranks\\)" run scenarios/flat-1024-ring.yaml --set topology.gpus=1048576
bad "unknown --set key suggests" "unknown key 'topology.gpu'" run "$T/s.yaml" --set topology.gpu=8
bad "bad --set value" "expected an integer" run "$T/s.yaml" --set topology.gpus=many
bad "unknown format" "--format: expected table or csv" run "$T/s.yaml" --format xml
bad "unknown option" "Unknown option" run "$T/s.yaml" --frobnicate
bad "two files" "expected one scenario file" run "$T/s.yaml" "$T/s.yaml"
bad "unknown command" "unknown command 'rnu'" rnu "$T/s.yaml"

# --- help and models ----------------------------------------------------------------
"$G" run --help >"$T/help" 2>&1
check "run --help exits 0 and lists the options" "[ \$? -eq 0 ] && grep -q -- '--trace' '$T/help' && grep -q -- '--links' '$T/help'"
"$G" models --keys >"$T/models"
check "models lists the registry with sources" "grep -q '^ring ' '$T/models' && grep -q 'source: ' '$T/models'"
check "models --keys lists every key with its source" "grep -q '^topology.nvlink.bandwidth' '$T/models' && grep -q 'p2pBandwidthLatencyTest' '$T/models'"

# --- sweeps: one row per value and size, everything or nothing -------------------
"$G" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,8,2048 >"$T/sw.txt" 2>"$T/swerr"
check "--sweep prints one row per value and size" "[ \$(grep -c '^  ' '$T/sw.txt') -eq 6 ] && grep -Eq '^ +2048 +16384 +1073741824 ' '$T/sw.txt' && [ ! -s '$T/swerr' ]"
check "--sweep names the faster algorithm per row" "grep -Eq '^ +2048 +16384 +1073741824 .* tree\$' '$T/sw.txt' && grep -Eq '^ +1 +8 +1048576 .* ring\$' '$T/sw.txt'"
shipped dgx-h100-scaling "$T/sw4.txt"
check "a scenario's own sweep (sweep.key, sweep.values) runs without --sweep" "[ \$(grep -c '^  ' '$T/sw4.txt') -eq 10 ] && grep -q 'sweep of topology.nodes' '$T/sw4.txt'"
"$G" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,2 --format csv >"$T/sw.csv"
check "--sweep --format csv has the key and the compared time" "[ \"\$(head -1 '$T/sw.csv')\" = 'topology.nodes,ranks,size_bytes,time_us,algbw_GBps,busbw_GBps,tree_time_us' ] && [ \$(wc -l <'$T/sw.csv') -eq 5 ]"
"$G" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,8 >"$T/sw2.txt"
"$G" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,8 >"$T/sw3.txt"
check "--sweep twice: byte-identical" "cmp -s '$T/sw2.txt' '$T/sw3.txt'"

# --- a scenario on standard input or a pipe: read once, loaded as often as needed ---
"$G" run "$T/s.yaml" --set collective.algo=ring >"$T/file.txt"
"$G" run - --set collective.algo=ring <"$T/s.yaml" >"$T/stdin.txt" 2>"$T/err"; rc=$?
tail -n +2 "$T/stdin.txt" >"$T/stdin.txt.body"; (exit $rc)
check "run - reads the scenario from standard input, named <stdin>" "[ \$? -eq 0 ] && [ ! -s '$T/err' ] && head -1 '$T/stdin.txt' | grep -q 'scenario: <stdin>\$' && tail -n +2 '$T/file.txt' | cmp -s - '$T/stdin.txt.body'"
cat "$T/s.yaml" | "$G" run /dev/stdin --set collective.algo=ring >"$T/pipe.txt" 2>"$T/err"
check "a piped scenario named by its path runs as the file does" "[ \$? -eq 0 ] && [ ! -s '$T/err' ] && head -1 '$T/pipe.txt' | grep -q 'scenario: /dev/stdin\$' && tail -n +2 '$T/pipe.txt' | cmp -s - '$T/stdin.txt.body'"
"$G" run scenarios/dgx-h100-scaling.yaml --sweep topology.nodes=1,2 >"$T/swf.txt"
cat scenarios/dgx-h100-scaling.yaml | "$G" run - --sweep topology.nodes=1,2 >"$T/sws.txt" 2>"$T/err"; rc=$?
tail -n +2 "$T/sws.txt" >"$T/sws.body"; (exit $rc)
check "a sweep loads a piped scenario once per row" "[ \$? -eq 0 ] && [ ! -s '$T/err' ] && [ \$(grep -c '^  ' '$T/sws.txt') -eq 4 ] && tail -n +2 '$T/swf.txt' | cmp -s - '$T/sws.body'"
printf 'schema_version: 1\ntopology: {kind: flat, gpus: 4}\ncollective: {sizes: [1MiB], bogus: 1}\n' >"$T/bogus.yaml"
bad "errors in a scenario on standard input name <stdin>" "^<stdin>:3:29: unknown key 'bogus' in 'collective'" run - <"$T/bogus.yaml"
bad "an empty standard input is an empty file" "^<stdin>:1:1: empty file" run - </dev/null

# --- many strands: the step windows shrink instead of allocating without bound ---
# 65536 GPUs x 256 channels = 16.7 M strands; 64-step windows would be 43 GB.
# (Sanitizer builds reserve shadow memory that no address-space limit allows.)
if nm "$G" 2>/dev/null | grep -q __asan_init; then
  ok "16.7 M strands in 4 GB of address space # SKIP sanitizer build"
else
  (ulimit -v 4000000; "$G" run scenarios/flat-1024-ring.yaml --set topology.gpus=65536 \
    --set collective.channels=256 --set collective.sizes=8B >"$T/many.txt" 2>&1)
  check "16.7 M strands run in 4 GB of address space" "grep -q '^           8 ' '$T/many.txt'"
fi

# Every shipped scenario runs as shipped: exit 0, a table, nothing on stderr
# (the runs of the checks above count: each runs once)
for f in scenarios/*.yaml; do
  b=$(basename "$f" .yaml)
  shipped "$b" "$T/ship.txt"
  check "shipped scenario $f runs" "[ \$(cat '$T/ship/$b.rc') -eq 0 ] && [ ! -s '$T/ship/$b.err' ] && grep -q '^# gcsim ' '$T/ship.txt'"
done

tap_end
