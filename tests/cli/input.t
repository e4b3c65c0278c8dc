#!/bin/sh
# Bad input is refused before anything runs or is written: size ranges on
# the command line as in a file, sizes past the largest one simulated, the
# values of a scenario's own sweep (named where they stand in the file, not
# as a --set never given), the one-run outputs beside a scenario's sweep,
# scenario paths that are not files, and the nccl-tests importer's and
# validate's checks (#wrong rows, collective names, rank counts, --run,
# the protocol hint). TAP output; GCSIM is set by `make test`.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/dgx-h100-allreduce.yaml
# one line on stderr, nothing on stdout, exit status $1
refused() { [ "$rc" -eq "$1" ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]; }

# --- --set takes a size range as a file does ---------------------------------
"$G" run "$S" --set 'collective.sizes={from: 1MiB, to: 4MiB, factor: 2}' --fidelity analytical \
  --format csv >"$T/out" 2>"$T/err"; rc=$?
check "--set collective.sizes={from, to, factor}: one row per size of the range" \
  "[ $rc -eq 0 ] && [ \"\$(cut -d, -f1 '$T/out' | tail -n +2 | tr '\n' ' ')\" = '1048576 2097152 4194304 ' ]"
"$G" run "$S" --set 'collective.sizes={from: 1MiB, to: 4MiB, factor: 1}' >"$T/out" 2>"$T/err"; rc=$?
check "--set size range with factor 1: exit 2, the key and the bound" \
  "refused 2 && grep -q '^--set collective.sizes={from: 1MiB, to: 4MiB, factor: 1}: collective.sizes.factor: must be at least 2, got 1\$' '$T/err'"

# --- sizes past the largest simulated: refused where they stand -----------------
printf 'schema_version: 1\ntopology: {preset: dgx-h100}\ncollective:\n  sizes: {from: 8B, to: 9223372036854775807B, factor: 2}\n' >"$T/huge.yaml"
timeout 60 "$G" run "$T/huge.yaml" >"$T/out" 2>"$T/err"; rc=$?
check "a range up to 2^63 B is refused at once with FILE:LINE:COLUMN" \
  "refused 2 && grep -q '^$T/huge.yaml:4:25: collective.sizes.to: must be at most 256TiB, got ' '$T/err'"
printf 'schema_version: 1\ntopology: {preset: dgx-h100}\ncollective:\n  sizes: [8B, 512TiB]\n' >"$T/big.yaml"
"$G" run "$T/big.yaml" >"$T/out" 2>"$T/err"; rc=$?
check "a size over 2^48 B in a list: FILE:LINE:COLUMN of the entry" \
  "refused 2 && grep -q '^$T/big.yaml:4:15: collective.sizes\[1\]: must be at most 256TiB, got 512TiB\$' '$T/err'"
"$G" sweep "$S" --sweep topology.nodes=1,2 --set collective.sizes=512TiB --results "$T/big.db" >"$T/out" 2>"$T/err"; rc=$?
check "gcsim sweep with a size over 2^48 B: exit 2, no results file" \
  "refused 2 && grep -q '^--set collective.sizes=512TiB: must be at most 256TiB' '$T/err' && [ ! -e '$T/big.db' ]"
"$G" run scenarios/training-step-scaling.yaml --set sweep.key= --set sweep.values= \
  --set train.seq=1073741824 --set train.hidden=16777216 >"$T/out" 2>"$T/err"; rc=$?
check "a training step whose messages pass 2^48 B: refused before any phase runs" \
  "refused 2 && grep -q '2^48 bytes' '$T/err' && ! grep -q -- '--set collective.sizes' '$T/err'"

# --- a scenario's own sweep: its values where they stand -----------------------
printf 'schema_version: 1\ntopology: {preset: dgx-h100}\ncollective: {sizes: [1MiB]}\nsweep:\n  key: topology.nodes\n  values: 1, 2,abc\n' >"$T/sw.yaml"
"$G" run "$T/sw.yaml" >"$T/out" 2>"$T/err"; rc=$?
check "a bad sweep.values entry: FILE:LINE:COLUMN of the entry, no --set" \
  "refused 2 && grep -q '^$T/sw.yaml:6:16: sweep.values: value 3 for topology.nodes: expected an integer, got .abc.\$' '$T/err'"
"$G" sweep "$T/sw.yaml" --results "$T/sw.db" >"$T/out" 2>"$T/err"; rc=$?
check "gcsim sweep: the same message, no results file" \
  "refused 2 && grep -q '^$T/sw.yaml:6:16: sweep.values: value 3 ' '$T/err' && [ ! -e '$T/sw.db' ]"
printf 'schema_version: 1\ntopology: {preset: dgx-h100}\ncollective: {sizes: [1MiB]}\nsweep: {key: topology.gpus, values: "8,12"}\n' >"$T/sw2.yaml"
"$G" run "$T/sw2.yaml" >"$T/out" 2>"$T/err"; rc=$?
check "a sweep value the topology refuses: named where it stands, not as --set" \
  "refused 2 && grep -q '^$T/sw2.yaml:4:40: topology.gpus: 12 GPUs are not whole nodes' '$T/err' && ! grep -q -- '--set' '$T/err'"
"$G" sweep "$T/sw2.yaml" --results "$T/sw2.db" >"$T/out" 2>"$T/err"; rc=$?
check "gcsim sweep: the same, no results file" \
  "refused 2 && grep -q '^$T/sw2.yaml:4:40: topology.gpus: ' '$T/err' && [ ! -e '$T/sw2.db' ]"
"$G" run "$T/sw.yaml" --set sweep.values=1,x >"$T/out" 2>"$T/err"; rc=$?
check "a bad value given with --set sweep.values: named as --set" \
  "refused 2 && grep -q '^--set: sweep.values: value 2 for topology.nodes: ' '$T/err'"
for flag in --links --trace --results; do
  arg=; [ "$flag" = --links ] || arg="$T/o.$$"
  # shellcheck disable=SC2086
  "$G" run scenarios/moe-dispatch.yaml $flag $arg >"$T/out" 2>"$T/err"; rc=$?
  check "$flag beside the scenario's sweep block: names the block and how to run it, not --sweep" \
    "refused 2 && grep -q '^gcsim run: $flag: the scenario sweeps topology.gpus (its sweep block, scenarios/moe-dispatch.yaml:18:8) .*--set sweep.key= --set sweep.values=.*gcsim sweep --results FILE' '$T/err' && ! grep -q -- '--sweep' '$T/err' && [ ! -e '$T/o.$$' ]"
done

# --- scenario paths that are not files -----------------------------------------
if mkfifo "$T/fifo" 2>/dev/null; then
  timeout 20 "$G" run "$T/fifo" >"$T/out" 2>"$T/err"; rc=$?
  check "a named pipe with no writer: refused at once, not a hang" \
    "refused 2 && grep -q '^$T/fifo:1:1: a pipe with nothing to read (no program had it open for writing' '$T/err'"
  cat "$S" >"$T/fifo" &
  timeout 60 "$G" run "$T/fifo" --fidelity analytical >"$T/out" 2>"$T/err"; rc=$?
  wait
  check "a named pipe with a writer is read" "[ $rc -eq 0 ] && grep -q '^# Avg bus bandwidth' '$T/out'"
else
  ok "named pipe # SKIP mkfifo failed"
  ok "named pipe with a writer # SKIP mkfifo failed"
fi
"$G" run "$T" >"$T/out" 2>"$T/err"; rc=$?
check "a directory: refused with what it is" \
  "refused 2 && grep -q '^$T:1:1: cannot read a scenario from a directory; expected a YAML file' '$T/err'"
timeout 20 "$G" run /dev/zero >"$T/out" 2>"$T/err"; rc=$?
check "a device: refused with what it is" \
  "refused 2 && grep -q '^/dev/zero:1:1: cannot read a scenario from a character device' '$T/err'"
"$G" run - --fidelity analytical <"$S" >"$T/out" 2>"$T/err"; rc=$?
check "standard input is still read" "[ $rc -eq 0 ] && grep -q '^# Avg bus bandwidth' '$T/out'"

# --- the nccl-tests importer ---------------------------------------------------
D=tests/validate/data
sed 's/^\(        8192 .*\)      0$/\1      3/' "$D/allreduce_new.log" >"$T/wrong.log"
"$G" validate --import-nccl-tests "$T/wrong.log" -o "$T/w.db" >"$T/out" 2>"$T/err"; rc=$?
check "rows nccl-tests marked #wrong: refused with how many and which sizes, nothing written" \
  "refused 2 && grep -q 'nccl-tests marked 1 row wrong .*size 8192 B; pass --accept-wrong' '$T/err' && [ ! -e '$T/w.db' ]"
"$G" validate --import-nccl-tests "$T/wrong.log" -o "$T/w.db" --accept-wrong >"$T/out" 2>"$T/err"; rc=$?
check "--accept-wrong imports them and says so" \
  "[ $rc -eq 0 ] && grep -q '^imported 3 allreduce points' '$T/out' && grep -q '^1 of them nccl-tests marked wrong' '$T/out'"
sed 's/Out of bounds values : 0 OK/Out of bounds values : 2 FAILED/' "$D/alltoall_old.log" >"$T/oob.log"
"$G" validate --import-nccl-tests "$T/oob.log" -o "$T/o.db" --nranks 8 >"$T/out" 2>"$T/err"; rc=$?
check "an older log whose check failed: refused, nothing written" \
  "refused 2 && grep -q 'found 2 out-of-bounds values' '$T/err' && [ ! -e '$T/o.db' ]"
"$G" validate --import-nccl-tests "$D/allreduce_new.log" -o "$T/c.db" --collective allreduc >"$T/out" 2>"$T/err"; rc=$?
check "--collective allreduc: refused with the accepted names, nothing written" \
  "refused 2 && grep -q \"^gcsim validate: --collective: 'allreduc' is not a collective nccl-tests times; expected one of: allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv, reduce\" '$T/err' && [ ! -e '$T/c.db' ]"
for nr in -3 0 abc 2x; do
  "$G" validate --import-nccl-tests "$D/allreduce_new.log" -o "$T/n.db" --nranks "$nr" >"$T/out" 2>"$T/err"; rc=$?
  check "--nranks $nr: refused, nothing written" \
    "refused 2 && grep -q \"^gcsim validate: --nranks: expected a whole number of ranks from 1 to 1048576, got '$nr'\" '$T/err' && [ ! -e '$T/n.db' ]"
done
"$G" validate --import-nccl-tests "$D/allreduce_new.log" -o "$T/m.db" --collective all_reduce >/dev/null 2>&1
check "--collective in nccl-tests' spelling is stored as gcsim names it" \
  "sqlite3 '$T/m.db' 'SELECT DISTINCT collective FROM points' 2>/dev/null | grep -qx allreduce || ! command -v sqlite3 >/dev/null"

# --- validate --run and the protocol hint ---------------------------------------
printf 'schema_version: 1\nname: four\ntopology: {kind: flat, gpus: 4}\ncollective: {op: allreduce, algo: ring, sizes: [8B, 8KiB, 1MiB]}\n' >"$T/four.yaml"
"$G" run "$T/four.yaml" --set collective.protocol=auto --set name=old --results "$T/p.db" >/dev/null
"$G" run "$T/four.yaml" --results "$T/p.db" >/dev/null
"$G" validate -m "$T/m.db" -p "$T/p.db" >"$T/v.txt" 2>"$T/err"
"$G" validate -m "$T/m.db" -p "$T/p.db" --run old >"$T/vold.txt" 2>"$T/err"
"$G" validate -m "$T/m.db" -p "$T/p.db" --run latest >"$T/vlast.txt" 2>"$T/err"
"$G" validate -m "$T/m.db" -p "$T/p.db" --run 1 >"$T/v1.txt" 2>"$T/err"
# the predicted time at 8 B in a report
at8() { awk '$1 == "allreduce" && $3 == 8 { print $5 }' "$1"; }
check "by default a point several runs predict is compared with the newest run's" \
  "[ -n \"\$(at8 '$T/v.txt')\" ] && [ \"\$(at8 '$T/v.txt')\" = \"\$(at8 '$T/vlast.txt')\" ] && grep -q 'the newest run.s; --run picks one run' '$T/v.txt'"
check "--run LABEL and --run ID pick that run, --run latest the newest" \
  "[ \"\$(at8 '$T/vold.txt')\" != \"\$(at8 '$T/vlast.txt')\" ] && cmp -s '$T/vold.txt' '$T/v1.txt' && ! grep -q 'several predictions' '$T/vlast.txt'"
check "small sizes predicted slow with protocol simple: one hint line naming protocol auto" \
  "[ \$(grep -c '^# hint: ' '$T/vlast.txt') -eq 1 ] && grep -q '^# hint: 2 points below 1 MiB are predicted slow (up to +[0-9]*%) with collective.protocol simple at every size; .*--set collective.protocol=auto' '$T/vlast.txt' && ! grep -q '^# hint' '$T/vold.txt'"
"$G" validate -m "$T/m.db" -p "$T/p.db" --run nope >"$T/out" 2>"$T/err"; rc=$?
check "--run with a label no run has: exit 2, the runs listed" \
  "refused 2 && grep -q \"no run labelled 'nope', and no run of that id; its runs, newest first: 2 'four' (sim, .*); 1 'old' (sim, \" '$T/err'"
"$G" validate -m "$T/m.db" -p "$T/p.db" --nranks 3 >"$T/out" 2>"$T/err"; rc=$?
check "import options without --import-nccl-tests: refused, not ignored" \
  "refused 2 && grep -q 'go with --import-nccl-tests LOG' '$T/err'"
tap_end
