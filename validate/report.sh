#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every published set that validate/ has a script for and write the
# accuracy report: DIR/VALIDATION.md (per set: what it is, a table of every
# point, the median and largest |error|, a plot) and DIR/validation/SET.svg
# (busbw against size, published as dots, predicted as lines).
#
#   sh validate/report.sh [-o DIR] [GCSIM]
#
# DIR defaults to docs (the committed report, `make validate`), GCSIM to
# build/gcsim. The sets: p5, p5ag and p5a2a (validate/p5-efa-sweep.sh:
# allreduce, and with P5_SWEEP_OP allgather and alltoall), h100
# (validate/h100-nccl-tests.sh: the InfiniBand and the one-node sets), b200
# (validate/b200-sendrecv.sh), deepep (validate/deepep-normal.sh), ref
# (validate/nccl-reference.sh: the mixed reference set) and moe
# (validate/moe-published.sh: DeepEP low-latency, pplx-kernels, torch's
# all-to-all). VALIDATE_ONLY="h100 deepep" (spaces or commas) runs only
# those. The scripts' own knobs (P5_SWEEP_NODES, B200_NODES, H100_NODES,
# H100_MIN_BYTES, H100_MAX_BYTES, DEEPEP_EP, MOE_GROUPS, H100_DEFAULT_ALGOS,
# H100_NCCL_ESTIMATE) pass through to them; the report then names the ones
# set, since its figures are no longer those of the whole sets.
#
# A set whose verdict fails is a result, written into the report. Exit
# status: 0 when the report was written, 1 when a set's script failed or
# gave no points, 2 for a bad argument, 3 when GCSIM is not built; on any
# of those nothing is written. The files are staged in a folder in DIR and
# renamed into place, the SVGs before VALIDATION.md. The output holds no
# date or path of this machine: the same gcsim gives the same bytes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
me=validate/report.sh

usage() {
	echo "usage: sh $me [-o DIR] [GCSIM]" >&2
	exit 2
}
outdir=$root/docs
while getopts o: opt; do
	case $opt in
	o) outdir=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
gcsim=${1:-$root/build/gcsim}
if [ ! -x "$gcsim" ]; then
	echo "$me: $gcsim is not built (run make)" >&2
	exit 3
fi
# the scripts run from their own folder: give them an absolute path
case $gcsim in /*) ;; *) gcsim=$(pwd)/$gcsim ;; esac
version=$("$gcsim" --version 2>/dev/null | head -n 1) || version=
case $version in
"gcsim "*) ;;
*)
	echo "$me: $gcsim --version did not print 'gcsim VERSION'" >&2
	exit 1
	;;
esac

# the sets asked for, in the report's order
only=$(echo "${VALIDATE_ONLY:-p5 p5ag p5a2a h100 b200 deepep ref moe}" | tr ',' ' ')
for s in $only; do
	case $s in
	p5 | p5ag | p5a2a | h100 | b200 | deepep | ref | moe) ;;
	*)
		echo "$me: VALIDATE_ONLY: unknown set '$s' (expected p5, p5ag, p5a2a, h100, b200, deepep, ref, moe)" >&2
		exit 2
		;;
	esac
done
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }

tmp=$(mktemp -d /tmp/gcsim-report-XXXXXX)
stage=
trap 'rm -rf "$tmp"; [ -z "$stage" ] || rm -rf "$stage"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/pts" "$tmp/svg" "$tmp/md"
pub=$here/published

# run_script NAME SCRIPT [OUTDIR]: runs a set's script with its output in
# $tmp/NAME.log; a status of 0 or 1 (the verdict) is a result, any other
# stops the report with the log's end.
run_script() {
	echo "$me: running $2 ..." >&2
	rc=0
	if [ $# -ge 3 ]; then
		sh "$2" "$gcsim" "$3" > "$tmp/$1.log" 2>&1 || rc=$?
	else
		sh "$2" "$gcsim" > "$tmp/$1.log" 2>&1 || rc=$?
	fi
	if [ "$rc" -gt 1 ]; then
		echo "$me: $2 failed (status $rc); the end of its output:" >&2
		tail -n 5 "$tmp/$1.log" | sed 's/^/  /' >&2
		exit 1
	fi
}

# The sets' points, one file per set ($tmp/pts/SET.tsv), tab-separated:
#   series  case  x  size_bytes  ranks  published_us  predicted_us
#   published_GBps  predicted_GBps  error_pct  algo/protocol  band
# series names a line of the plot, case a row of the table, x the plot's
# horizontal value (the size, or the GPUs for DeepEP). The bandwidths of
# the nccl-tests sets are busbw, from the size and the time with
# nccl-tests' factor for the collective.
busbw_awk='
function factor(coll, n) {
	if (coll == "allreduce") return 2 * (n - 1) / n;
	if (coll == "allgather" || coll == "reducescatter" || coll == "alltoall") return (n - 1) / n;
	return 1;
}
function busbw(coll, n, bytes, us) { return bytes / (us * 1e3) * factor(coll, n) }
# one CSV line into f[1..], quotes kept out of the fields; returns the count
function csv(line, f,    n, i, c, q, cur) {
	n = 0; q = 0; cur = "";
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1);
		if (c == "\"") q = !q;
		else if (c == "," && !q) { f[++n] = cur; cur = "" }
		else cur = cur c;
	}
	f[++n] = cur;
	return n;
}'

# p5_points OP SET: the rows of a p5 sweep (validate/p5-efa-sweep.sh with
# P5_SWEEP_OP=OP), with the algorithm and protocol of each point from its
# published row (the aws-ofi-nccl tuner's pick, which the script runs), or
# where the plugin leaves it to NCCL, NCCL's model's pick; alltoall rows
# name no tuner and run pairwise
p5_points() {
	P5_SWEEP_OP=$1
	export P5_SWEEP_OP
	run_script "$2" "$here/p5-efa-sweep.sh" "$tmp/$2"
	unset P5_SWEEP_OP
	[ -s "$tmp/$2/report.csv" ] || { echo "$me: validate/p5-efa-sweep.sh ($1) wrote no report.csv" >&2; exit 1; }
	awk -v OFS='\t' "$busbw_awk"'
		phase == 0 { nccl[$1 "/" $2] = $3 " (NCCL)"; next }
		phase == 1 { if ($0 ~ /^#/ || $0 ~ /^system,/) next; csv($0, f);
			if (f[10] !~ /tuner: /) pick[f[2] "/" f[6]] = "pairwise/simple";
			else { split(f[10], s, "tuner: "); split(s[2], ap, " ");
				pick[f[2] "/" f[6]] = ap[1] == "nccl" ? nccl[f[3] "/" f[6]] : ap[1] "/" ap[2] }
			nodes[f[2]] = f[3]; next }
		FNR == 1 { next }
		{ split($0, r, ",");
			n = r[3]; key = n "/" r[4];
			algo = (key in pick) ? pick[key] : r[2];
			series = nodes[n] " nodes";
			print series, series, r[4], r[4], n, r[5], r[6], busbw(r[1], n, r[4], r[5]),
				busbw(r[1], n, r[4], r[6]), r[7], algo, r[8] }' \
		phase=0 "$tmp/$2/nccl-picks.txt" phase=1 "$pub/p5_efa_$1_sweep.csv" \
		phase=2 "$tmp/$2/report.csv" > "$tmp/pts/$2.tsv"
}
if want p5; then p5_points allreduce p5-efa; fi
if want p5ag; then p5_points allgather p5-efa-allgather; fi
if want p5a2a; then p5_points alltoall p5-efa-alltoall; fi

# h100: one script for two sets, told apart by the published file each
# measured row comes from. The report's rows keep the measured rows' order
# (less the rows without a prediction), so each is matched to the next
# measured row of its collective, ranks and size, which names its run.
# The algorithm and protocol are what NCCL's model picked (chosen.txt).
if want h100; then
	run_script h100 "$here/h100-nccl-tests.sh" "$tmp/h100"
	[ -s "$tmp/h100/report.csv" ] || { echo "$me: validate/h100-nccl-tests.sh wrote no report.csv" >&2; exit 1; }
	awk -v OFS='\t' -v dir="$tmp/pts" "$busbw_awk"'
		phase == 1 { node[$0] = 1; next }
		phase == 2 { chosen[$1 " " $2 " " $3 " " $4] = $5; next }
		phase == 3 { if ($0 ~ /^system,/) next; m++; line[m] = $0; csv($0, f);
			sys[m] = f[1]; gpus[m] = f[2]; nodes[m] = f[3]; coll[m] = f[4]; algo[m] = f[5];
			bytes[m] = f[6]; src[m] = f[10]; next }
		FNR == 1 { j = 1; next }
		{ split($0, r, ",");
			while (j <= m && !(coll[j] == r[1] && gpus[j] == r[3] && bytes[j] == r[4])) j++;
			if (j > m) { print "no measured row for report row: " $0 > "/dev/stderr"; bad = 1; exit 1 }
			n = r[3];
			pick = chosen[r[1] " " nodes[j] " " (algo[j] == "default" ? "auto" : algo[j]) " " r[4]];
			if (pick == "") pick = r[2];
			if (line[j] in node) {
				set = "h100-node";
				series = r[1] ", " (algo[j] == "ring" ? "ring" : "default");
				cas = series;
			} else {
				set = "h100-ib";
				series = nodes[j] " nodes" (algo[j] == "ring" ? ", ring" : "");
				run = match(src[j], /run [0-9]+/) ? substr(src[j], RSTART, RLENGTH) : src[j];
				cl = match(sys[j], /^cluster [A-Z]/) ? " (" substr(sys[j], 1, RLENGTH) ")" : "";
				cas = series ", " run cl;
			}
			print series, cas, r[4], r[4], n, r[5], r[6], busbw(r[1], n, r[4], r[5]),
				busbw(r[1], n, r[4], r[6]), r[7], pick, r[8] > (dir "/" set ".tsv");
			j++ }
		END { if (bad) exit 1 }' \
		phase=1 "$pub/h100_node_nccl_tests.csv" phase=2 "$tmp/h100/chosen.txt" \
		phase=3 "$tmp/h100/measured.csv" phase=4 "$tmp/h100/report.csv" ||
		{ echo "$me: could not match h100's report to its measured rows" >&2; exit 1; }
	# a set with no row this run (H100_NODES) is reported as empty
	: >> "$tmp/pts/h100-ib.tsv"
	: >> "$tmp/pts/h100-node.tsv"
fi

# b200: the report's rows, one series per node count
if want b200; then
	run_script b200 "$here/b200-sendrecv.sh" "$tmp/b200"
	[ -s "$tmp/b200/report.csv" ] || { echo "$me: validate/b200-sendrecv.sh wrote no report.csv" >&2; exit 1; }
	awk -v OFS='\t' "$busbw_awk"'
		FNR == 1 { next }
		{ split($0, r, ",");
			n = r[3]; series = (n / 8) " nodes";
			print series, series, r[4], r[4], n, r[5], r[6], busbw(r[1], n, r[4], r[5]),
				busbw(r[1], n, r[4], r[6]), r[7], r[2], r[8] }' \
		"$tmp/b200/report.csv" > "$tmp/pts/b200-sendrecv.tsv"
fi

# deepep: the script's printed rows ("ep phase metric pub pred time error"),
# each with its published message size; the band by gcsim validate's
# default tolerances (5 %, 15 %)
if want deepep; then
	run_script deepep "$here/deepep-normal.sh"
	awk -v OFS='\t' "$busbw_awk"'
		phase == 1 { if ($0 ~ /^#/ || $0 ~ /^impl,/) next; csv($0, f);
			size[f[4] "/" f[6]] = f[9]; next }
		$1 ~ /^[0-9]+$/ && NF == 7 { e = $7; sub(/%$/, "", e); e += 0;
			a = e < 0 ? -e : e;
			band = a <= 5 ? "pass" : a <= 15 ? "warn" : "fail";
			print $2, $2 " (" $3 ")", $1, size[$1 "/" $2], $1, "", $6, $4, $5, e, "forward", band }' \
		phase=1 "$pub/deepep_normal.csv" phase=2 "$tmp/deepep.log" > "$tmp/pts/deepep-normal.tsv"
	[ -s "$tmp/pts/deepep-normal.tsv" ] || { echo "$me: validate/deepep-normal.sh printed no rows" >&2; exit 1; }
fi

# ref: one series per system; the algorithm and protocol from chosen.txt
# ("system<TAB>size<TAB>algo/protocol"), the one of the row's algorithm
if want ref; then
	run_script ref "$here/nccl-reference.sh" "$tmp/ref"
	[ -s "$tmp/ref/report.csv" ] || { echo "$me: validate/nccl-reference.sh wrote no report.csv" >&2; exit 1; }
	awk -v OFS='\t' "$busbw_awk"'
		phase == 1 { split($0, c, "\t"); split(c[3], ap, "/"); pick[c[1] "/" c[2] "/" ap[1]] = c[3]; next }
		FNR == 1 { next }
		{ csv($0, r); sys = r[1]; a = r[3]; sub(/^default\(/, "", a); sub(/\)$/, "", a);
			p = pick[sys "/" r[5] "/" a]; if (p == "") p = r[3];
			print sys, sys ", " r[3], r[5], r[5], r[4], r[6], r[7], busbw(r[2], r[4], r[5], r[6]),
				busbw(r[2], r[4], r[5], r[7]), r[8], p, r[9] }' \
		phase=1 "$tmp/ref/chosen.txt" phase=2 "$tmp/ref/report.csv" > "$tmp/pts/nccl-reference.tsv"
fi

# moe: one series per group and phase; x is the GPUs, the bandwidth the
# bytes the script names per point (tokens x top-k x message, or the
# all-to-all's bytes per GPU) over the time
if want moe; then
	run_script moe "$here/moe-published.sh" "$tmp/moe"
	[ -s "$tmp/moe/report.csv" ] || { echo "$me: validate/moe-published.sh wrote no report.csv" >&2; exit 1; }
	awk -F, -v OFS='\t' '
		BEGIN { name["deepep-ll"] = "DeepEP LL"; name["pplx-ibgda"] = "pplx IBGDA";
			name["pplx-ibrc"] = "pplx IBRC"; name["pplx-nvlink"] = "pplx NVLink";
			name["torch-ata"] = "torch all-to-all";
			algo["deepep-ll"] = "put (closed form)"; algo["pplx-ibgda"] = "pplx/ibgda";
			algo["pplx-ibrc"] = "pplx/ibrc"; algo["pplx-nvlink"] = "pplx"; algo["torch-ata"] = "pairwise" }
		FNR == 1 { next }
		{ series = name[$1] ($2 == "alltoall" ? "" : " " $2);
			print series, series, $3, $4, $3, $5, $6, $9 / ($5 * 1e3), $9 / ($6 * 1e3), $7, algo[$1], $8 }' \
		"$tmp/moe/report.csv" > "$tmp/pts/moe-published.tsv"
fi

# stats SET: "points median max verdict" of |error|; the verdict is gcsim
# validate's default: median at most 5 %, largest at most 15 %
stats() {
	cut -f 10 "$tmp/pts/$1.tsv" | awk '{ print $1 < 0 ? -$1 : $1 }' | LC_ALL=C sort -g | awk '
		{ a[NR] = $1 }
		END { if (NR == 0) { print 0, "-", "-", "-"; exit }
			med = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
			printf "%d %.1f %.1f %s\n", NR, med, a[NR], med <= 5 && a[NR] <= 15 ? "PASS" : "FAIL" }'
}

# table SET: the markdown table, one row per point in the set's order
table() {
	awk -F '\t' '
		# a size in the largest binary unit that divides it (7392 B stays so)
		function hsize(b,    u, k) {
			split("B KiB MiB GiB TiB", u, " "); k = 1;
			while (b >= 1024 && b % 1024 == 0 && k < 5) { b /= 1024; k++ }
			return sprintf("%.0f %s", b, u[k]);
		}
		BEGIN { print "| case | size | ranks | published us | published GB/s | predicted us | predicted GB/s | error | gcsim algorithm/protocol | band |";
			print "|---|--:|--:|--:|--:|--:|--:|--:|---|---|" }
		{ printf "| %s | %s | %d | %s | %.2f | %.1f | %.2f | %+.1f%% | %s | %s |\n", $2, hsize($4), $5,
			$6 == "" ? "-" : sprintf("%.1f", $6), $8, $7, $9, $10, $11, $12 }' "$tmp/pts/$1.tsv"
}

# svg SET TITLE XUNIT YLABEL: the plot, log2 x axis (XUNIT bytes or gpus),
# linear y from 0 (with ylog=1: log10 y over the decades the points span,
# for sets whose series differ by orders of magnitude); per series its published points as dots and its
# predictions as a line, in the series' colour; a legend on the right.
svg() {
	awk -F '\t' -v title="$2" -v xunit="$3" -v ylabel="$4" -v ylog="${ylog:-0}" '
		function xml(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
		function lg(v) { return log(v) / log(2) }
		function floor_(v) { return v == int(v) ? v : (v < 0 ? int(v) - 1 : int(v)) }
		function label(e,    b, u, k) {
			if (xunit != "bytes") return sprintf("%.0f", 2 ^ e);
			split("B KiB MiB GiB TiB", u, " "); k = 1; b = 2 ^ e;
			while (b >= 1024 && k < 5) { b /= 1024; k++ }
			return sprintf("%d %s", b, u[k]);
		}
		function px(x) { return L + (lg(x) - lx0) / (lx1 - lx0) * (R - L) }
		function py(y) { return ylog ? B - (log(y) / log(10) - ly0) / (ly1 - ly0) * (B - T) : B - y / ytop * (B - T) }
		BEGIN { W = 680; H = 360; L = 56; R = 480; T = 30; B = 310;
			split("#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22", col, " ") }
		{ s = $1;
			if (!(s in sid)) { sid[s] = ++ns; sname[ns] = s }
			k = sid[s];
			np[k]++; pubx[k, np[k]] = $3; puby[k, np[k]] = $8;
			if (!((k, $3) in seen)) { seen[k, $3] = 1; nl[k]++; lx[k, nl[k]] = $3; ly[k, nl[k]] = $9 }
			if (NR == 1 || $3 < xmin) xmin = $3;
			if (NR == 1 || $3 > xmax) xmax = $3;
			if ($8 > 0 && (ymin == "" || $8 < ymin)) ymin = $8;
			if ($9 > 0 && (ymin == "" || $9 < ymin)) ymin = $9;
			if ($8 > ymax) ymax = $8;
			if ($9 > ymax) ymax = $9 }
		END {
			# (the epsilon keeps an exact power of 2 from rounding past itself)
			lx0 = floor_(lg(xmin) + 1e-9); lx1 = -floor_(-lg(xmax) + 1e-9);
			if (lx1 <= lx0) { lx0--; lx1++ }
			# x ticks: every power of 2 whose exponent a step divides, at most 8
			split("1 2 3 4 5 6 8 10", steps, " ");
			for (i = 1; i <= 8 && (lx1 - lx0) / steps[i] > 7; i++) ;
			xs = steps[i > 8 ? 8 : i];
			# y: 0 to a round top in about 5 steps of 1, 2, 2.5 or 5 x 10^k
			if (ymax <= 0) ymax = 1;
			raw = ymax / 5; mag = 10 ^ floor_(log(raw) / log(10) + 1e-9);
			split("1 2 2.5 5 10", m, " ");
			for (i = 1; i <= 5 && m[i] * mag < raw; i++) ;
			ys = m[i] * mag; ytop = ys * (-floor_(-ymax / ys));
			# log y: whole decades around the points, a tick at 1, 2 and 5
			# of each
			if (ylog) {
				ly0 = floor_(log(ymin) / log(10) + 1e-9); ly1 = -floor_(-log(ymax) / log(10) + 1e-9);
				if (ly1 <= ly0) ly1 = ly0 + 1;
				nyt = 0;
				for (e = ly0; e <= ly1; e++)
					for (i = 1; i <= 3; i++) {
						v = (i == 1 ? 1 : i == 2 ? 2 : 5) * 10 ^ e;
						if (v <= 10 ^ ly1 * 1.0000001) yt[++nyt] = v;
					}
			} else {
				nyt = 0;
				for (y = 0; y <= ytop + ys / 2; y += ys) yt[++nyt] = y;
			}
			printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H, W, H;
			printf "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H;
			printf "<text x=\"%d\" y=\"18\" font-size=\"13\">%s</text>\n", L, xml(title);
			# grid and ticks
			printf "<g stroke=\"#ddd\">";
			for (e = lx0; e <= lx1; e++) if (e % xs == 0) printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", px(2 ^ e), T, px(2 ^ e), B;
			for (i = 1; i <= nyt; i++) printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", L, py(yt[i]), R, py(yt[i]);
			printf "</g>\n<g text-anchor=\"middle\">";
			for (e = lx0; e <= lx1; e++) if (e % xs == 0) printf "<text x=\"%.1f\" y=\"%d\">%s</text>", px(2 ^ e), B + 15, label(e);
			printf "<text x=\"%d\" y=\"%d\">%s</text>", (L + R) / 2, B + 32, xunit == "bytes" ? "size" : "GPUs";
			printf "<text transform=\"translate(14 %d) rotate(-90)\">%s</text>", (T + B) / 2, xml(ylabel);
			printf "</g>\n<g text-anchor=\"end\">";
			for (i = 1; i <= nyt; i++) printf "<text x=\"%d\" y=\"%.1f\">%g</text>", L - 4, py(yt[i]) + 4, yt[i];
			printf "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", L, T, R - L, B - T;
			# per series: the predictions as a line (sorted by x), the published points as dots
			for (k = 1; k <= ns; k++) {
				c = col[(k - 1) % 10 + 1];
				for (i = 2; i <= nl[k]; i++)
					for (j = i; j > 1 && lx[k, j] < lx[k, j - 1]; j--) {
						t = lx[k, j]; lx[k, j] = lx[k, j - 1]; lx[k, j - 1] = t;
						t = ly[k, j]; ly[k, j] = ly[k, j - 1]; ly[k, j - 1] = t;
					}
				printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c;
				for (i = 1; i <= nl[k]; i++) printf "%s%.1f,%.1f", (i > 1 ? " " : ""), px(lx[k, i]), py(ly[k, i]);
				printf "\"/>\n";
				# a line of one point: a short dash at it
				if (nl[k] == 1) printf "<path stroke=\"%s\" stroke-width=\"1.5\" d=\"M%.1f %.1fh12\"/>\n", c, px(lx[k, 1]) - 6, py(ly[k, 1]);
				printf "<path stroke=\"%s\" stroke-opacity=\"0.6\" stroke-width=\"6\" stroke-linecap=\"round\" d=\"", c;
				for (i = 1; i <= np[k]; i++) printf "M%.1f %.1fh0", px(pubx[k, i]), py(puby[k, i]);
				printf "\"/>\n";
			}
			# legend
			for (k = 1; k <= ns; k++) {
				y = T + 8 + (k - 1) * 18; c = col[(k - 1) % 10 + 1];
				printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"/>", R + 12, y, R + 36, y, c;
				printf "<path stroke=\"%s\" stroke-opacity=\"0.6\" stroke-width=\"6\" stroke-linecap=\"round\" d=\"M%d %dh0\"/>", c, R + 24, y;
				printf "<text x=\"%d\" y=\"%d\">%s</text>\n", R + 42, y + 4, xml(sname[k]);
			}
			y = T + 8 + ns * 18 + 10;
			printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">dots: published</text>\n", R + 12, y;
			printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">lines: gcsim</text>\n", R + 12, y + 15;
			print "</svg>";
		}' "$tmp/pts/$1.tsv"
}

# section SET TITLE XUNIT YLABEL: the set's heading, its figures, the plot
# (none when the run gave the set no point) and the table; the prose before
# the table comes on stdin
section() {
	set -- "$1" "$2" "$3" "$4" "$(stats "$1")"
	# shellcheck disable=SC2086
	set -- "$@" $5
	{
		printf '## %s\n\n' "$2"
		cat
		echo
		if [ "$6" -eq 0 ]; then
			printf 'No point in this run (restricted; see the top of the page).\n\n'
		else
			printf '**%s points: median |error| %s %%, largest %s %% (%s).**\n\n' "$6" "$7" "$8" "$9"
			svg "$1" "$2" "$3" "$4" > "$tmp/svg/$1.svg"
			printf '![%s: published and predicted against size](validation/%s.svg)\n\n' "$2" "$1"
			table "$1"
			echo
		fi
	} > "$tmp/md/$1.md"
	echo "$1 $6 $7 $8 $9" >> "$tmp/summary"
}

: > "$tmp/summary"
if want p5; then
	section p5-efa "AWS p5 (EFA) allreduce sweep" bytes "busbw (GB/s)" <<'EOF'
nccl-tests `all_reduce_perf` on 2 to 32 AWS p5.48xlarge nodes (8 H100, 32 x
100 Gb/s EFA each), 32 MiB to 8 GiB, from
crazyguitar/aws-gpu-communication-benchmark (SageMaker HyperPod,
`NCCL_BUFFSIZE=8388608`, the aws-ofi-nccl tuner plugin; NCCL 2.27.7 and
aws-ofi-nccl 1.16.3, the repository's Dockerfile when the data were added).
Each point is predicted with the algorithm and protocol the plugin's tuner
picks for it (read off its regions for p5), on the `p5` preset; on two
nodes the plugin leaves the choice to NCCL, and NCCL 2.27.7's model picks
("(NCCL)"). Published: `validate/published/p5_efa_allreduce_sweep.csv`;
script: `validate/p5-efa-sweep.sh` (`make validate-p5` runs it alone). Error:
predicted time / published time - 1.
Why the EFA rows are fast, what was ruled out and what would settle it:
docs/MODELS.md, "Collective algorithms", the paragraphs on the `p5` preset
(a cost per message on each network connection that no public source
states).
EOF
fi
if want p5ag; then
	section p5-efa-allgather "AWS p5 (EFA) allgather sweep" bytes "busbw (GB/s)" <<'EOF'
nccl-tests `all_gather_perf` on the same p5.48xlarge cluster, set-up and
releases as the allreduce sweep above (2 to 32 nodes, 32 MiB to 2 GiB of
output, `NCCL_BUFFSIZE=8388608`, NCCL 2.27.7, aws-ofi-nccl 1.16.3). The
plugin's tuner has no allgather regions for 8 GPUs a node, so NCCL 2.27.7's
own model picks every point ("(NCCL)"), and the prediction runs its pick.
Published: `validate/published/p5_efa_allgather_sweep.csv`; script:
`P5_SWEEP_OP=allgather validate/p5-efa-sweep.sh`. Error: predicted time /
published time - 1.
Why the EFA rows are fast, what was ruled out and what would settle it:
docs/MODELS.md, "Collective algorithms", the paragraphs on the `p5` preset
(a cost per message on each network connection that no public source
states).
EOF
fi
if want p5a2a; then
	section p5-efa-alltoall "AWS p5 (EFA) alltoall sweep" bytes "busbw (GB/s)" <<'EOF'
nccl-tests `alltoall_perf` on the same p5.48xlarge cluster and set-up (2 to
32 nodes, 32 MiB to 2 GiB per GPU, `NCCL_P2P_NET_CHUNKSIZE=524288`). NCCL
runs it as grouped send/receive; predicted as `algo pairwise` with the
run's 512 KiB send/receive step as the message and NCCL's 8 steps of it as
each connection's buffer (src/init.cc). Published:
`validate/published/p5_efa_alltoall_sweep.csv`; script:
`P5_SWEEP_OP=alltoall validate/p5-efa-sweep.sh`. Error: predicted time /
published time - 1.
Why the EFA rows are fast, what was ruled out and what would settle it:
docs/MODELS.md, "Collective algorithms", the paragraphs on the `p5` preset
(a cost per message on each network connection that no public source
states).
EOF
fi
if want h100; then
	section h100-ib "H100 nodes with 400 Gb/s InfiniBand: allreduce on 2 to 8 nodes" bytes "busbw (GB/s)" <<'EOF'
nccl-tests `all_reduce_perf` on 8x H100 SXM nodes, 8 x 400 Gb/s InfiniBand
per node, seven runs from NVIDIA/nccl-tests#309: cluster A (Dell XE9680,
ConnectX-7, NCCL 2.26.2; run 1 bare metal on 2 nodes, run 2 VMware VMs on 4)
and cluster B (NCCL version not stated; runs 3-5 on 8, 2 and 4 nodes, run 6
on 8 with `NCCL_MIN_CTAS=24 NCCL_IB_QPS_PER_CONNECTION=2`, run 7 on 2 with
`NCCL_ALGO=Ring` as well, "2 nodes, ring" below; the first two settings and
the VMs' topology file are not modelled). Predicted on the
`dgx-h100` preset with the algorithm and protocol NCCL's cost model picks
(the ring alone where `NCCL_ALGO` forced it). Published:
`validate/published/h100_ib_nccl_tests.csv`; script:
`validate/h100-nccl-tests.sh` (`make validate-h100`, which runs this set and
the next). Error: predicted time / published time - 1.
Where and why it misses (the 1-8 MiB band, cluster B's runs): docs/MODELS.md,
"Against published InfiniBand runs (DGX-class H100 nodes)".
EOF
	section h100-node "One H100 node: allgather, reduce-scatter and allreduce" bytes "busbw (GB/s)" <<'EOF'
nccl-tests `all_gather_perf`, `reduce_scatter_perf` and `all_reduce_perf` on
one node of 8 H100 SXM, NCCL 2.26.2, one process driving the 8 GPUs (`-g 8`,
predicted so: 20 back-to-back operations, one thread enqueueing for 8
GPUs), 128 B (allreduce 8 B) to 8 GiB, from
togethercomputer/together-nccl-tests (commit 6698e53, one run folder): with
`NCCL_ALGO=RING NCCL_NVLS_ENABLE=0` ("ring" below) and with NCCL's default,
NVLS enabled ("default").
Predicted on the `dgx-h100` preset with the algorithm and protocol NCCL's
cost model picks. Published: `validate/published/h100_node_nccl_tests.csv`;
script: `validate/h100-nccl-tests.sh`. Error: predicted time / published
time - 1.
Where and why it misses (below 4 MiB, the host thread's floor): the same
section of docs/MODELS.md, "One node".
EOF
fi
if want b200; then
	section b200-sendrecv "B200 nodes with 400 Gb/s InfiniBand: sendrecv on 2 to 16 nodes" bytes "busbw (GB/s)" <<'EOF'
nccl-tests `sendrecv_perf` on DGX B200 nodes (8 ConnectX-7 InfiniBand 400
Gb/s per node), one process per GPU, NCCL 2.29.7, NVLS and SHARP off, 1 KiB
to 256 MiB, from togethercomputer/together-nccl-tests
(benchmarks/B200/sendrecv-p2p-scaling, run 3): every rank sends to the next
and receives from the previous, so each node boundary is one InfiniBand hop
and the rest NVLink. Predicted on the `dgx-b200` preset on its default,
non-blocking fabric (the cluster's is not described), with NCCL 2.29.7's
point-to-point geometry (`collective.nccl_version`): 128 KiB steps, and
channels by size up to a
per-peer count that NCCL halves as the ranks grow (4 on 2 and 4 nodes, 2 on
8, 1 on 16), each moving at most the 14 GB/s NCCL counts on across the
network; that per-peer count is what the falls at 8 and 16 nodes (26 and
14.6 GB/s at 64 MiB against 43-44 on 2 and 4 nodes) follow (docs/MODELS.md,
sendrecv). Published:
`validate/published/b200_ib_sendrecv.csv`; script:
`validate/b200-sendrecv.sh` (`make validate-b200`). Error: predicted time /
published time - 1.
EOF
fi
if want deepep; then
	section deepep-normal "DeepEP normal kernels (dispatch and combine)" gpus "bandwidth as DeepEP counts it (GB/s)" <<'EOF'
DeepEP's normal (NVLink-forwarding) kernels on H800 nodes (~160 GB/s NVLink,
one CX7 400 Gb/s InfiniBand NIC per GPU), 8 to 64 GPUs, 4096 tokens per GPU,
hidden 7168, top-8 of 256 experts, FP8 dispatch and BF16 combine, from
deepseek-ai/DeepEP's README. Predicted with `algo forward` on the `dgx-h100`
preset with the H800's NVLink bandwidth; the size is the bytes of one token,
so the plot's x axis is the GPUs. Bandwidth as DeepEP's tests count it (NVLink
"nvl" on one node, "rdma" across nodes). Published:
`validate/published/deepep_normal.csv`; script: `validate/deepep-normal.sh`
(`make validate-deepep`). Error: predicted bandwidth / published bandwidth -
1 (positive: predicted faster).
Per row, with the resource that binds: docs/MODELS.md, "DeepEP's normal
kernels".
EOF
fi
if want ref; then
	section nccl-reference "Reference set: allreduce on one H100 or H200 node" bytes "busbw (GB/s)" <<'EOF'
The project's mixed reference set: nccl-tests `all_reduce_perf` on one node
of 8 H100 SXM (ring at 2 and 4 GiB, NVIDIA/nccl#1455 and
NVIDIA/nccl-tests#212; NVLS at 4 GiB) and of 4 H100 SXM (NVLS at 4 GiB),
predicted on the `dgx-h100` preset (4 GPUs: `topology.gpus_per_node 4`),
and on one Azure ND H200 v5 node (8 H200, NCCL 2.20.5), predicted on the
`p5en` preset's node (8 H200 on NVLink4; one node, so its network is not
used). The Azure benchmark's code (Azure/AI-benchmarking-guide
NCCLBandwidth.py) runs `NCCL_ALGO=NVLS all_reduce_perf -g 8 -n 40`: NVLS at
every size, one thread driving the 8 GPUs, 40 iterations, and so does the
prediction. The published rows give busbw only (the Azure table to two
digits: its 1 KiB point is known to about 8 %); the time is the size over
it. Published: `validate/published/nccl_tests_published.csv`; script:
`validate/nccl-reference.sh`. Error: predicted time / published time - 1.
EOF
fi
if want moe; then
	ylog=1
	section moe-published "MoE dispatch and combine, and the all-to-all they replace" gpus "tokens x top-k x message / time (GB/s)" <<'EOF'
Published expert-parallel latencies at 128 tokens per GPU, hidden 7168,
top-8 of 256 experts: DeepEP V1's low-latency kernels in their "pure RDMA"
setting on H800 with CX7 400 Gb/s (DeepEP's README, 8-256 GPUs; predicted
on a flat 400 Gb/s cluster, closed form, `scenarios/moe-dispatch.yaml`),
pplx-kernels' internode dispatch and combine over NVSHMEM IBGDA and IBRC
(EP16-128) and on one node (EP8), and the same benchmark's
`torch.distributed.all_to_all_single` of 242221056 B per GPU (pplx-kernels
tests/bench_all_to_all.py; NCCL's grouped send/recv, `algo pairwise`), all
on DGX H100 nodes (pplx-kernels' README; H100 and CX7 inferred). IBRC,
NVLink and the all-to-all run in the flow model, IBGDA in the closed form
(within 0.2 % of the flow model's docs/MODELS.md table, whose runs take
from a second to minutes a point). The bandwidth is tokens x top-k x
message over the time (the all-to-all: its bytes per GPU), so the plot's
x axis is the GPUs.
Published: `validate/published/moe_published.csv`; script:
`validate/moe-published.sh`. Error: predicted time / published time - 1.
Why pplx-kernels' rows miss (a cost per queue pair on IBGDA, the proxy's
per-request cost on IBRC): docs/MODELS.md, "pplx-kernels' internode
kernels".
The plot's y axis is logarithmic.
EOF
	ylog=0
fi

# the knobs set for this run, which restrict or change the sets
knobs=
for v in VALIDATE_ONLY P5_SWEEP_NODES B200_NODES H100_NODES H100_MIN_BYTES H100_MAX_BYTES DEEPEP_EP MOE_GROUPS H100_DEFAULT_ALGOS H100_NCCL_ESTIMATE; do
	eval "val=\${$v:-}"
	# shellcheck disable=SC2154
	[ -z "$val" ] || knobs="$knobs \`$v=$val\`"
done

# the document
doc=$tmp/VALIDATION.md
{
	cat <<EOF
# Validation against published measurements

Generated by \`make validate\` (\`validate/report.sh\`) with $version; do not
edit by hand, run it again (about a minute and a half on 2 cores): the same gcsim
gives the same file, byte for byte. Each set below is a published
measurement that a script in validate/ predicts point by point with gcsim
and compares with \`gcsim validate\`; the plots are under
[validation/](validation/).

EOF
	if [ -n "$knobs" ]; then
		printf '**Restricted run:**%s; the figures are not those of the whole sets.\n\n' "$knobs"
	fi
	awk '$2 > 0 { n++; pts += $2; if (n == 1 || $3 < lo) lo = $3; if (n == 1 || $3 > hi) hi = $3;
			if (n == 1 || $4 > mx) mx = $4 }
		END { if (n) printf "**Headline:** %d points in %d sets, median |error| per set %.1f %% to %.1f %%, largest %.1f %%.\n\n", pts, n, lo, hi, mx }' "$tmp/summary"
	cat <<'EOF'
| set | points | median \|error\| | largest \|error\| | verdict |
|---|--:|--:|--:|---|
EOF
	while read -r id n med max verdict; do
		[ "$n" -eq 0 ] && continue
		printf '| [%s](#%s) | %s | %s %% | %s %% | %s |\n' "$id" "$(grep -m 1 '^## ' "$tmp/md/$id.md" |
			sed 's/^## //' | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 -]//g; s/ /-/g')" "$n" "$med" "$max" "$verdict"
	done < "$tmp/summary"
	cat <<'EOF'

The verdict is `gcsim validate`'s default: PASS when the median |error| is at
most 5 % and the largest at most 15 %; a FAIL is a result, not a failed run.
The band of a point: pass within 5 %, warn within 15 %, fail beyond. The
bandwidths of the nccl-tests sets are busbw (the size over the time, times
nccl-tests' factor: 2(n-1)/n for allreduce, (n-1)/n for allgather and
reduce-scatter, (n-1)/n for alltoall); "gcsim algorithm/protocol" is
what the prediction ran.

EOF
	for id in p5-efa p5-efa-allgather p5-efa-alltoall h100-ib h100-node b200-sendrecv deepep-normal nccl-reference moe-published; do
		[ ! -f "$tmp/md/$id.md" ] || cat "$tmp/md/$id.md"
	done
	# a published file that no script here predicts is named, so that
	# the report never reads as complete when it is not
	left=
	for f in "$pub"/*.csv; do
		b=${f##*/}
		case $b in
		p5_efa_allreduce_sweep.csv | p5_efa_allgather_sweep.csv | p5_efa_alltoall_sweep.csv | h100_ib_nccl_tests.csv | h100_node_nccl_tests.csv | b200_ib_sendrecv.csv | deepep_normal.csv | nccl_tests_published.csv | moe_published.csv) ;;
		*) left="$left $b" ;;
		esac
	done
	if [ -n "$left" ]; then
		printf '## Published sets not yet run by make validate\n\n'
		for b in $left; do
			# shellcheck disable=SC2016
			printf -- '- `validate/published/%s`: no script in validate/ predicts its rows yet.\n' "$b"
		done
	fi
} > "$doc"

# into DIR: every file copied into a staging folder there (the same file
# system), then renamed into place, the SVGs before the document; a failure
# before the renames leaves the previous files as they were
mkdir -p "$outdir/validation"
stage=$(mktemp -d "$outdir/.validation-XXXXXX")
for f in "$tmp"/svg/*.svg "$doc"; do
	[ ! -f "$f" ] || cp "$f" "$stage/"
done
for f in "$stage"/*.svg; do
	[ -f "$f" ] || continue
	mv "$f" "$outdir/validation/${f##*/}"
done
mv "$stage/VALIDATION.md" "$outdir/VALIDATION.md"
rm -rf "$stage"
stage=
sed 's/^/validate: /' "$tmp/summary" | awk '{ if ($3 > 0) printf "%s %s: %d points, median |error| %s %%, largest %s %%: %s\n", $1, $2, $3, $4, $5, $6 }' >&2
echo "$me: wrote $outdir/VALIDATION.md and $outdir/validation/" >&2
