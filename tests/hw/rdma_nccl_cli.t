#!/bin/sh
# SPDX-License-Identifier: MIT
# gcsim hw rdma and gcsim hw nccl from the command line: without an RDMA
# device (or NCCL, or 2 GPUs) one line on stderr, status 3, no file written;
# bad options exit 2 before any device is touched; the help lists every
# subcommand and option.
set -u
G=${GCSIM:-build/gcsim}
case "$G" in /*) ;; *) G=$(pwd)/$G ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "1..10"

# 1-2: rdma without a device.
(cd "$T" && "$G" hw rdma --out r.sqlite --csv r.csv >out 2>err); rc=$?
if [ $rc -eq 0 ]; then
	echo "ok 1 # SKIP an RDMA device is present"
	echo "ok 2 # SKIP an RDMA device is present"
else
	line=$(cat "$T/err")
	case "$line" in
	"gcsim hw rdma: no RDMA device found (libibverbs lists none)" | "gcsim hw rdma: gcsim was built without rdma-core"*)
		[ $rc -eq 3 ] && echo "ok 1 - rdma exits 3: $line" || echo "not ok 1 - exit $rc: $line" ;;
	*) echo "not ok 1 - exit $rc, unexpected message: $line" ;;
	esac
	n=$(wc -l <"$T/err")
	[ "$n" -eq 1 ] && [ ! -s "$T/out" ] && [ ! -e "$T/r.sqlite" ] && [ ! -e "$T/r.csv" ] &&
		echo "ok 2 - one line, nothing written" || echo "not ok 2 - $n lines; $(ls "$T")"
fi
rm -f "$T"/*

# 3: bad rdma options are refused before any device is opened.
"$G" hw rdma --op read 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^gcsim hw rdma: --op: expected write or write_imm, got 'read'$" "$T/err" &&
	echo "ok 3 - rdma --op read exits 2" || echo "not ok 3 - exit $rc: $(cat "$T/err")"
"$G" hw rdma --max-size 1KiB --min-size 4KiB 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && echo "ok 4 - rdma --min-size above --max-size exits 2" || echo "not ok 4 - exit $rc"

# 5-6: nccl without its library, then with it but without 2 GPUs.
(cd "$T" && "$G" hw nccl --lib /nonexistent/libnccl.so.2 --csv n.csv >out 2>err); rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ] && [ ! -e "$T/n.csv" ] &&
	grep -q "^gcsim hw nccl: cannot load NCCL: /nonexistent/libnccl.so.2: " "$T/err" &&
	echo "ok 5 - nccl without libnccl exits 3: $(cat "$T/err")" || echo "not ok 5 - exit $rc: $(cat "$T/err")"
rm -f "$T"/*
(cd "$T" && "$G" hw nccl --quick --csv n.csv >out 2>err); rc=$?
if [ $rc -eq 0 ]; then
	echo "ok 6 # SKIP NCCL and >= 2 GPUs are present"
else
	line=$(cat "$T/err")
	case "$line" in
	"gcsim hw nccl: NCCL baseline needs at least 2 GPUs (found "* | "gcsim hw nccl: cannot load NCCL: "*)
		[ $rc -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -e "$T/n.csv" ] &&
			echo "ok 6 - nccl exits 3: $line" || echo "not ok 6 - exit $rc: $line" ;;
	*) echo "not ok 6 - exit $rc, unexpected message: $line" ;;
	esac
fi
"$G" hw nccl --op broadcast 2>/dev/null; rc=$?
[ $rc -eq 2 ] && echo "ok 7 - nccl --op broadcast exits 2" || echo "not ok 7 - exit $rc"
"$G" hw nccl --gpus 1 2>/dev/null; rc=$?
[ $rc -eq 2 ] && echo "ok 8 - nccl --gpus 1 exits 2" || echo "not ok 8 - exit $rc"

# 9-10: the help.
h=$("$G" hw --help)
miss=""
for s in info bench interp calibrate rdma nccl; do
	echo "$h" | grep -q "^  $s " || miss="$miss $s"
done
[ -z "$miss" ] && echo "ok 9 - hw --help lists every subcommand" || echo "not ok 9 - missing:$miss"
miss=""
r=$("$G" hw rdma --help)
for o in --device --port --gid-index --op --test --mem --min-size --max-size --iters --window --quick --out --csv; do
	echo "$r" | grep -q -- "$o" || miss="$miss rdma$o"
done
n=$("$G" hw nccl --help)
for o in --op --sizes --gpus --iters --warmup --lib --quick --out --csv; do
	echo "$n" | grep -q -- "$o" || miss="$miss nccl$o"
done
[ -z "$miss" ] && echo "ok 10 - rdma and nccl --help list their options" || echo "not ok 10 - missing:$miss"
