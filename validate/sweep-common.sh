# shellcheck shell=sh disable=SC2154
# Shared by the scripts that predict a published sweep and compare it
# (p5-efa-sweep.sh, h100-nccl-tests.sh). Sourced with the script's own
# arguments after it has set `here` (its folder), `name` (its message
# prefix) and `meas` (the published CSV) and defined groups() (one line per
# gcsim run). Here: --list prints the groups and exits 0; a GCSIM that is
# not built is one line and status 3, with nothing written; otherwise OUTDIR
# (default: a fresh temporary folder) is made, and what follows "--" stays
# in "$@" for every run. append_part adds OUTDIR/part.csv's points to
# OUTDIR/predicted.csv; compare runs gcsim validate (with the errors by
# size), writes OUTDIR/report.csv and exits with its status.
if [ "${1:-}" = "--list" ]; then
	groups
	exit 0
fi
gcsim=${1:-$here/../build/gcsim}
if [ ! -x "$gcsim" ]; then
	echo "$name: $gcsim is not built (run make)" >&2
	exit 3
fi
out=${2:-$(mktemp -d "/tmp/gcsim-$name-XXXXXX")}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
: > "$out/predicted.csv"

append_part() {
	if [ -s "$out/predicted.csv" ]; then
		grep -v '^#' "$out/part.csv" | tail -n +2 >> "$out/predicted.csv"
	else
		cat "$out/part.csv" > "$out/predicted.csv"
	fi
	rm -f "$out/part.csv"
}

compare() {
	status=0
	"$gcsim" validate -m "$meas" -p "$out/predicted.csv" --csv "$out/report.csv" --by-size ||
		status=$?
	echo "$name: predictions and report in $out" >&2
	exit $status
}
