#!/bin/sh
# What gcsim writes when the place it writes to is not an ordinary file, or
# fails: outputs named by a link, a device, a FIFO, a directory; a full disk
# and a file size limit; a damaged, read-only or unwritable results file;
# stdout on a full device; running out of memory. Each ends in one line on
# stderr naming the file and the reason, gcsim's own exit status, and
# nothing half-written or replaced. TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

W=scenarios/ring-4gpu-walk.yaml
A=scenarios/dgx-h100-allreduce.yaml
# one line on stderr matching $2, status $1 ($T/err, from the last command)
said() { [ "$rc" -eq "$1" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Eq -- "$2" "$T/err"; }
# whether a trace is complete JSON
whole() { tail -c 4 "$1" | grep -q '\]}'; }

# --- outputs: links, devices, FIFOs, directories ---------------------------------
echo old >"$T/target.json"
ln -s target.json "$T/link.json"
"$G" run "$W" --trace "$T/link.json" >/dev/null 2>"$T/err"; rc=$?
check "--trace through a symbolic link: the link stays, its file gets the trace" \
  "[ $rc -eq 0 ] && [ -L '$T/link.json' ] && [ \"\$(readlink '$T/link.json')\" = target.json ] && whole '$T/target.json' && [ ! -e '$T/target.json.tmp' ] && [ ! -e '$T/link.json.tmp' ]"
ln -s new.json "$T/ahead.json"
"$G" run "$W" --trace "$T/ahead.json" >/dev/null 2>"$T/err"; rc=$?
check "--trace through a link to nothing yet: the file it names is made" \
  "[ $rc -eq 0 ] && [ -L '$T/ahead.json' ] && whole '$T/new.json'"
"$G" run "$W" --results "$T/link.csv" >/dev/null && mv "$T/link.csv" "$T/res.csv" && ln -s res.csv "$T/link.csv"
"$G" run "$W" --set topology.gpus=2 --results "$T/link.csv" >/dev/null 2>"$T/err"; rc=$?
check "--results FILE.csv through a link: the link stays, its file is rewritten" \
  "[ $rc -eq 0 ] && [ -L '$T/link.csv' ] && grep -q '^allreduce,ring,float,2,' '$T/res.csv'"

mkfifo "$T/fifo"
cat "$T/fifo" >"$T/from-fifo" &
reader=$!
"$G" run "$W" --trace "$T/fifo" >/dev/null 2>"$T/err"; rc=$?
# a FIFO replaced by a file would leave its reader waiting: ended after 10 s
(sleep 10; kill $reader 2>/dev/null) &
watchdog=$!
wait $reader
kill $watchdog 2>/dev/null
check "--trace FIFO: written in place, the FIFO stays a FIFO" \
  "[ $rc -eq 0 ] && [ -p '$T/fifo' ] && whole '$T/from-fifo' && [ ! -e '$T/fifo.tmp' ]"

# a character device: /dev/null itself only where it cannot be replaced
# (not root); as root, a node of the same device in the scratch folder
if [ "$(id -u)" -eq 0 ] && mknod "$T/null" c 1 3 2>/dev/null && mknod "$T/full" c 1 7 2>/dev/null; then
  NULL=$T/null FULL=$T/full
else
  NULL=/dev/null FULL=/dev/full
fi
"$G" run "$W" --trace "$NULL" >/dev/null 2>"$T/err"; rc=$?
check "--trace $NULL: written in place, still a character device" \
  "[ $rc -eq 0 ] && [ -c '$NULL' ] && [ ! -s '$T/err' ]"
"$G" sweep "$W" --sweep topology.gpus=2 --results "$T/nullplot.db" --plot "$NULL" >/dev/null 2>"$T/err"; rc=$?
check "sweep --plot $NULL: written in place, still a character device" "[ $rc -eq 0 ] && [ -c '$NULL' ]"
"$G" run "$W" --trace "$FULL" >/dev/null 2>"$T/err"; rc=$?
check "--trace on a full device: exit 4, the path and 'No space left on device'" \
  "said 4 '^$FULL: cannot write trace: No space left on device\$' && [ -c '$FULL' ]"
"$G" run "$W" --trace /dev/stdout >"$T/stdout.json" 2>"$T/err"; rc=$?
check "--trace /dev/stdout: the trace on stdout, before the table" \
  "[ $rc -eq 0 ] && head -1 '$T/stdout.json' | grep -q '^{\"displayTimeUnit\"' && grep -q '^# Avg bus bandwidth' '$T/stdout.json'"

mkdir "$T/dir.json"
"$G" run "$W" --trace "$T/dir.json" >"$T/out" 2>"$T/err"; rc=$?
check "--trace DIRECTORY: exit 4, one line, the directory untouched" \
  "said 4 'dir.json: cannot write trace: it is a directory' && [ -d '$T/dir.json' ] && [ ! -e '$T/dir.json.tmp' ] && [ ! -s '$T/out' ]"
"$G" run "$W" --trace "$T/nodir/t.json" >/dev/null 2>"$T/err"; rc=$?
check "--trace in a missing folder: exit 4 before the run" \
  "said 4 'nodir/t.json: cannot write trace: No such file or directory'"
# a stale FILE.tmp that is a link is removed, not written through
echo keep >"$T/victim"
ln -s victim "$T/stale.json.tmp"
"$G" run "$W" --trace "$T/stale.json" >/dev/null 2>"$T/err"; rc=$?
check "a stale FILE.tmp link is not followed" \
  "[ $rc -eq 0 ] && [ \"\$(cat '$T/victim')\" = keep ] && whole '$T/stale.json' && [ ! -e '$T/stale.json.tmp' ]"

# --- write failures: a file size limit (as a full disk) -------------------------
(ulimit -f 8; trap '' XFSZ; "$G" run "$A" --trace "$T/big.json" >/dev/null 2>"$T/err"); rc=$?
check "a trace over the file size limit: exit 4, 'File too large', no file, no .tmp" \
  "said 4 'big.json: cannot write trace: File too large' && [ ! -e '$T/big.json' ] && [ ! -e '$T/big.json.tmp' ]"
echo previous >"$T/kept.json"
(ulimit -f 8; trap '' XFSZ; "$G" run "$A" --trace "$T/kept.json" >/dev/null 2>"$T/err"); rc=$?
check "... and a file that was there is left as it was" \
  "[ $rc -eq 4 ] && [ \"\$(cat '$T/kept.json')\" = previous ]"

# --- stdout -------------------------------------------------------------------
if [ -w /dev/full ]; then
  "$G" run "$A" >/dev/full 2>"$T/err"; rc=$?
  check "stdout on /dev/full: exit 4, one line naming stdout and the reason" \
    "said 4 '^gcsim run: cannot write to stdout: No space left on device\$'"
  "$G" models >/dev/full 2>"$T/err"; rc=$?
  check "stdout on /dev/full for any command (models)" \
    "said 4 '^gcsim models: cannot write to stdout: No space left on device\$'"
else
  ok "stdout on /dev/full # SKIP no writable /dev/full"
  ok "stdout on /dev/full for any command # SKIP no writable /dev/full"
fi

# --- results files -----------------------------------------------------------------
"$G" run "$W" --trace "$T/pre.json" --results /nonexistent/dir/x.db >"$T/out" 2>"$T/err"; rc=$?
check "run --results in a missing folder: exit 4 before the simulation (no trace)" \
  "said 4 '^/nonexistent/dir/x.db: cannot create the results file: No such file or directory\$' && [ ! -e '$T/pre.json' ] && [ ! -s '$T/out' ]"
"$G" run "$W" --trace "$T/pre.json" --results "$T/dir.json" >/dev/null 2>"$T/err"; rc=$?
check "run --results DIRECTORY: exit 4 before the simulation" \
  "said 4 'dir.json: not a results file: it is a directory' && [ ! -e '$T/pre.json' ]"
"$G" run "$W" --trace "$T/pre.json" --results /nonexistent/dir/x.csv >/dev/null 2>"$T/err"; rc=$?
check "run --results FILE.csv in a missing folder: exit 4 before the simulation" \
  "said 4 'x.csv: cannot write results: No such file or directory' && [ ! -e '$T/pre.json' ]"
"$G" sweep "$W" --sweep topology.gpus=2,4 --results /nonexistent/dir/x.db >"$T/out" 2>"$T/err"; rc=$?
check "sweep --results in a missing folder: exit 4, one line" \
  "said 4 '^/nonexistent/dir/x.db: cannot create the results file' && [ ! -s '$T/out' ]"
"$G" sweep "$W" --sweep topology.gpus=2,4 --results "$T/p.db" --plot "$T/nodir/p.svg" >/dev/null 2>"$T/err"; rc=$?
check "sweep --plot in a missing folder: exit 4 before any cell runs, no results file" \
  "said 4 'p.svg: cannot write the plot: No such file or directory' && [ ! -e '$T/p.db' ]"

"$G" hw bench --quick --out /nonexistent/dir/x.db >"$T/out" 2>"$T/err"; rc=$?
check "hw bench --out in a missing folder: exit 4 before anything is measured" \
  "said 4 '^gcsim hw bench: /nonexistent/dir/x.db: cannot create the results file' && [ ! -s '$T/out' ]"

"$G" sweep "$W" --sweep topology.gpus=2,4 --set 'collective.sizes=[9223372036854775807B]' --results "$T/big.db" >/dev/null 2>"$T/err"; rc=$?
check "sweep with a bad size: exit 2, no results file left" \
  "[ $rc -eq 2 ] && [ ! -e '$T/big.db' ] && [ ! -e '$T/big.db-wal' ]"

# a damaged file: the b-tree page of the points table (page 3) with a cell
# pointer out of range; refused with what to do, and left as it was
"$G" sweep "$W" --sweep topology.gpus=2,4,8 --results "$T/bad.db" >/dev/null 2>&1
printf '\015\000\000\000\007' | dd of="$T/bad.db" bs=1 seek=8192 conv=notrunc 2>/dev/null
cp "$T/bad.db" "$T/bad.orig"
"$G" sweep "$W" --sweep topology.gpus=2,4,8 --results "$T/bad.db" >"$T/out" 2>"$T/err"; rc=$?
check "sweep on a damaged results file: exit 4, one line saying what to do, the file untouched" \
  "said 4 'bad.db: the results file is damaged \\(.*\\); gcsim does not use it: move it aside \\(or delete it\\)' && [ ! -s '$T/out' ] && cmp -s '$T/bad.db' '$T/bad.orig'"
"$G" run "$W" --results "$T/bad.db" >"$T/out" 2>"$T/err"; rc=$?
check "run --results on a damaged results file: exit 4, nothing appended" \
  "said 4 'bad.db: the results file is damaged' && cmp -s '$T/bad.db' '$T/bad.orig'"
"$G" validate --measured "$T/bad.db" --predicted "$T/bad.db" >/dev/null 2>"$T/err"; rc=$?
check "validate on a damaged results file: exit 4" "said 4 'the results file is damaged'"

# read-only files and folders: root may write anything, so as root these
# run as nobody (setpriv), or are skipped
U=
if [ "$(id -u)" -ne 0 ]; then
  U=" "
elif command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
  U="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ -n "$U" ] && $U test -x "$G" && $U test -r "$W"; then
  mkdir "$T/ro"
  "$G" run "$W" --results "$T/ro/r.db" >/dev/null
  chmod 755 "$T"
  chmod 444 "$T/ro/r.db"
  cp "$T/ro/r.db" "$T/r.orig"
  $U "$G" run "$W" --trace "$T/ro/t.json" --results "$T/ro/r.db" >"$T/out" 2>"$T/err"; rc=$?
  check "run --results on a read-only file: exit 4, 'read-only', before the simulation" \
    "said 4 'ro/r.db: the results file is read-only \\(Permission denied\\)' && [ ! -e '$T/ro/t.json' ] && cmp -s '$T/ro/r.db' '$T/r.orig'"
  $U "$G" sweep "$W" --sweep topology.gpus=2 --results "$T/ro/r.db" >"$T/out" 2>"$T/err"; rc=$?
  check "sweep --results on a read-only file: exit 4, 'read-only'" \
    "said 4 'ro/r.db: the results file is read-only'"
  $U "$G" validate --measured "$T/ro/r.db" --predicted "$T/ro/r.db" >"$T/out" 2>"$T/err"; rc=$?
  check "validate reads a read-only results file" "[ $rc -eq 0 ] && grep -q PASS '$T/out'"
  chmod 555 "$T/ro"
  $U "$G" run "$W" --results "$T/ro/new.db" >/dev/null 2>"$T/err"; rc=$?
  check "run --results in a read-only folder: exit 4, the folder named" \
    "said 4 'ro/new.db: cannot write results: its folder .*ro is not writable \\(Permission denied\\)' && [ ! -e '$T/ro/new.db' ]"
  $U "$G" sweep "$W" --sweep topology.gpus=2,4 --results "$T/ro/new.db" >/dev/null 2>"$T/err"; rc=$?
  check "sweep --results in a read-only folder: exit 4, the folder named" \
    "said 4 'ro/new.db: cannot write results: its folder .*ro is not writable'"
  $U "$G" run "$W" --trace "$T/ro/t.json" >/dev/null 2>"$T/err"; rc=$?
  check "--trace in a read-only folder: exit 4, 'Permission denied'" \
    "said 4 'ro/t.json: cannot write trace: Permission denied' && [ ! -e '$T/ro/t.json.tmp' ]"
  chmod 755 "$T/ro"
else
  for i in 1 2 3 4 5 6; do ok "read-only results files # SKIP running as root without setpriv"; done
fi

# --- out of memory ------------------------------------------------------------
# An address-space limit a small run fits in and a 4096-GPU NVLS_TREE run
# does not. A build that cannot run at all under it (a sanitizer's) skips.
N=scenarios/dgx-h100-nvlstree-scaling.yaml
if (ulimit -v 50000 && "$G" run "$W" >/dev/null 2>&1); then
  (ulimit -v 50000; "$G" run "$N" --set sweep.key= --set sweep.values= --set topology.nodes=512 \
    >"$T/out" 2>"$T/err"); rc=$?
  check "out of memory: exit 7 and one line, no signal" \
    "said 7 '^gcsim run: out of memory \\(failed to allocate [0-9]+ bytes\\)' && [ ! -s '$T/out' ]"
  (ulimit -v 50000; "$G" sweep "$N" --sweep topology.nodes=512 --results "$T/oom.db" \
    >"$T/out" 2>"$T/err"); rc=$?
  check "out of memory in a sweep's only cell: exit 7, no results file" \
    "said 7 '^gcsim sweep: out of memory' && [ ! -e '$T/oom.db' ]"
else
  ok "out of memory # SKIP this build does not run under ulimit -v"
  ok "out of memory in a sweep # SKIP this build does not run under ulimit -v"
fi

tap_end
