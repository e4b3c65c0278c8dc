#!/bin/sh
# SPDX-License-Identifier: MIT
# What hw/device-check.sh measured on a GPU machine, checked against the
# real-hardware acceptance, in one step on the dev machine:
#
#   sh validate/device-report.sh DIR [OUTDIR]
#
# DIR is the folder device-check wrote (it may be read-only: nothing is
# written there). OUTDIR (default: a fresh temporary folder) receives
# report.txt (what is printed), the calibration refitted from DIR's
# calib-input.csv by this binary (device.yaml, device-virtual.yaml,
# device-taxonomy.yaml), the held-aside points measured (measured.csv) and
# predicted (predicted.db), and gcsim validate's per-point report
# (validate.csv). The checks:
#  1. interpreter: every interp-* step's status in DIR/status.txt; rc=0
#     means every output equalled the CPU reference executor's;
#  2. SM copy: the calibrated HBM bandwidth of the SM copy kernel
#     (hbm_copy_sm) against the copy engine's (hbm_copy_ce), pass at >= 80 %;
#  3. proxy round trip: kernel -> host FIFO -> CPU proxy -> kernel, against
#     the 1.1 us PCIe floor (gdrcopy's pplat): a measurement below the
#     floor fails (it cannot be), above it the margin is reported;
#  4. held-aside schedules: the virtual-rank model (hw/gh_vrank.h) fitted to
#     ring allreduce at one rank count predicts the interpreter runs not
#     used for fitting (8 ranks, tree, allgather, reduce-scatter) with
#     `gcsim hw interp --predict`; gcsim validate compares them point by
#     point, pass at a median |error| <= 5 % and a largest <= 15 %. The
#     flat-link scenario's errors are printed beside them for comparison.
# The posting capacities (GPU-initiated vs CPU proxy, no NIC) the
# calibration derives are printed, and the taxonomy's IBGDA vs IBRC rates
# of 512 B puts with those measured costs (the NIC and PCIe path the
# platform's, since no NIC was measured), and the inter-CTA barrier
# measured at 32 CTAs and at one CTA per SM with the gpu.cta_barrier the
# taxonomy scenario takes from it, and shmem_put_bw's loop measured
# (put_loop: 32 CTAs, a post then the barrier per iteration) against the
# sum of its parts (the post of gpu_post 1cta-b1 + the barrier), the
# composition the model assumes, with the sum's error (figures, no verdict).
# GCSIM defaults to build/gcsim. Exits 0 when every check ran and passed,
# 1 when one failed (a result, not an error), 2 on a usage error, 3 when
# DIR lacks what a check needs (named in the report; the other checks
# still run), 4 when GCSIM is not runnable.
set -eu
usage() { echo "usage: sh validate/device-report.sh DIR [OUTDIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
case $1 in -h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
DIR=$1
[ -d "$DIR" ] || { echo "device-report: $DIR: no such folder (the one hw/device-check.sh wrote)" >&2; exit 2; }
G=${GCSIM:-build/gcsim}
"$G" version >/dev/null 2>&1 || { echo "device-report: $G is not runnable (make, or set GCSIM)" >&2; exit 4; }
if [ $# -eq 2 ]; then
	OUTD=$2
	mkdir -p "$OUTD"
else
	OUTD=$(mktemp -d /tmp/gcsim-device-report-XXXXXX)
fi
REP=$OUTD/report.txt
: >"$REP"
say() { echo "$*" | tee -a "$REP"; }
failed=0 missing=0
verdict() { # verdict CHECK pass|fail|missing TEXT
	say "$1: $(echo "$2" | tr a-z A-Z): $3"
	case $2 in fail) failed=1 ;; missing) missing=1 ;; esac
}

say "# device-report of $DIR"
[ -f "$DIR/info.txt" ] && sed 's/^/#   /' "$DIR/info.txt" | tee -a "$REP"

# 1. the interpreter's outputs
if [ -f "$DIR/status.txt" ] && grep -q '^interp-' "$DIR/status.txt"; then
	bad=$(grep '^interp-' "$DIR/status.txt" | grep -v ' rc=0 ' | grep -v ' skipped: ' || true)
	ran=$(grep -c '^interp-.* rc=0 ' "$DIR/status.txt" || true)
	if [ -n "$bad" ]; then
		verdict interpreter fail "$ran steps with every output checked; not: $(echo "$bad" | paste -sd ';' -)"
	else
		verdict interpreter pass "$ran steps, every output equal to the CPU reference"
	fi
else
	verdict interpreter missing "$DIR/status.txt has no interp-* step"
fi

# the calibration, refitted here
CAL=$OUTD/device.yaml
if [ -f "$DIR/calib-input.csv" ]; then
	# the GPU's L2 (the virtual-rank model's working set) from hw info
	l2=$(sed -n 's/^ *L2 *\([0-9][0-9]*\) MiB$/\1/p' "$DIR/info.txt" 2>/dev/null | head -n 1)
	if ! "$G" hw calibrate --name device --from "$DIR/calib-input.csv" --dir "$OUTD" ${l2:+--l2 "${l2}MiB"} >"$OUTD/calibrate.txt" 2>&1; then
		say "# gcsim hw calibrate failed: $(tail -n 1 "$OUTD/calibrate.txt")"
	fi
else
	say "# $DIR/calib-input.csv is missing: no calibration"
fi
# the bandwidth (GB/s) or value (us) a calibration line gives for KEY
cal_bw() { sed -n "s/^ *$1: {alpha: [^,]*, bandwidth: \([0-9.e+]*\)GB\/s}.*/\1/p" "$CAL" 2>/dev/null | head -n 1; }
cal_us() { sed -n "s/^ *$1: \([0-9.e+-]*\)us .*/\1/p" "$CAL" 2>/dev/null | head -n 1; }

# 2. SM copy against the copy engine
ce=$(cal_bw hbm_copy_ce) sm=$(cal_bw hbm_copy_sm)
if [ -n "$ce" ] && [ -n "$sm" ]; then
	pct=$(awk -v a="$sm" -v b="$ce" 'BEGIN { printf "%.1f", 100 * a / b }')
	r=$(awk -v p="$pct" 'BEGIN { print (p >= 80 ? "pass" : "fail") }')
	verdict sm-copy "$r" "SM copy ${sm} GB/s = ${pct} % of the copy engine's ${ce} GB/s (>= 80 %)"
else
	verdict sm-copy missing "no hbm_copy sm and ce fits in the calibration (bench.csv's hbm_copy points)"
fi

# 3. the proxy round trip against the PCIe floor
rt=$(cal_us proxy_roundtrip)
if [ -n "$rt" ]; then
	r=$(awk -v t="$rt" 'BEGIN { print (t >= 1.1 ? "pass" : "fail") }')
	x=$(awk -v t="$rt" 'BEGIN { printf "%.2f", t / 1.1 }')
	verdict proxy-roundtrip "$r" "${rt} us, ${x}x the 1.1 us PCIe floor (gdrcopy pplat)"
else
	verdict proxy-roundtrip missing "no proxy_rtt point in the calibration input"
fi
grep 'posting capacity' "$CAL" 2>/dev/null | sed 's/^ *# */# /' | tee -a "$REP" || true
# the measured posting costs in the taxonomy (the NIC is the platform's)
TX=$OUTD/device-taxonomy.yaml
if [ -f "$TX" ]; then
	if "$G" explain --scenario "$TX" --format csv >"$OUTD/taxonomy.csv" 2>"$OUTD/taxonomy.err"; then
		awk -F, '$1 == "3/proxy" { p = $6 } $1 == "5" { g = $6 }
			END { if (p > 0 && g > 0) printf "# taxonomy with the measured posting costs (device-taxonomy.yaml): 512 B puts, IBGDA %s Mops, CPU proxy %s Mops, ratio %.1fx (published: up to 9.5x below 1 KiB, DGX A100 class)\n", g, p, g / p }' \
			"$OUTD/taxonomy.csv" | tee -a "$REP"
	else
		say "# gcsim explain of $TX failed: $(tail -n 1 "$OUTD/taxonomy.err")"
	fi
fi
# the inter-CTA barrier between shmem_put_bw's iterations, as measured and
# as the taxonomy scenario sets it
bar=$(cal_us cta_barrier) bar_sms=$(cal_us cta_barrier_all_sms)
if [ -n "$bar" ]; then
	txb=$(sed -n 's/^gpu: {.*cta_barrier: \([0-9]*[np]s\).*/\1/p' "$TX" 2>/dev/null | head -n 1)
	say "# inter-CTA barrier (cta_barrier): ${bar} us per barrier at 32 CTAs${bar_sms:+, ${bar_sms} us at one CTA per SM}${txb:+; gpu.cta_barrier: $txb in device-taxonomy.yaml}"
fi
# the loop's composition: measured per iteration vs the sum of its parts
grep 'put_loop check' "$CAL" 2>/dev/null | sed 's/^ *# */# /' | tee -a "$REP" || true
# NVSHMEM perftest shmem_put_bw's loop with the measured costs: perftest's
# defaults (32 CTAs, 10 iterations) and 1000 iterations, 512 B
if [ -f "$TX" ]; then
	for it in 10 1000; do
		if "$G" explain --scenario "$TX" --set explain.messages=0 --set explain.bench=put-bw \
			--set explain.iters=$it --format csv >"$OUTD/put-bw-$it.csv" 2>"$OUTD/put-bw.err"; then
			awk -F, -v it="$it" '$1 == "3/proxy" { p = $8 } $1 == "5" { g = $8 }
				END { if (p > 0 && g > 0) printf "# shmem_put_bw loop with the measured costs (device-taxonomy.yaml): 32 CTAs x %d iterations of 512 B, IBGDA %s Mops, CPU proxy %s Mops, ratio %.2fx (published: up to 9.5x below 1 KiB, DGX A100 class)\n", it, g, p, g / p }' \
				"$OUTD/put-bw-$it.csv" | tee -a "$REP"
		else
			say "# gcsim explain --bench put-bw of $TX failed: $(tail -n 1 "$OUTD/put-bw.err")"
		fi
	done
fi

# 4. held-aside schedules, predicted by the virtual-rank model fitted to
# ring allreduce at one rank count (calibration.virtual_rank: the same
# schedule as the interpreter ran, replayed piece by piece), and, for
# comparison only, by the flat-link scenario (device-virtual.yaml)
VIRT=$OUTD/device-virtual.yaml
MEAS=$OUTD/measured.csv
PRED=$OUTD/predicted.db
FLAT=$OUTD/predicted-flat.db
rm -f "$PRED" "$FLAT"
held=""
for f in ring8 tree4 ag4 rs4; do
	[ -f "$DIR/interp-$f.csv" ] && held="${held:+$held }$f"
done
if ! grep -q '^  virtual_rank:' "$CAL" 2>/dev/null; then
	why=$(sed -n 's/^ *# virtual_rank: not fitted: //p' "$CAL" 2>/dev/null | head -n 1)
	verdict held-aside missing "no virtual-rank model in the calibration${why:+: $why}"
elif [ -z "$held" ]; then
	verdict held-aside missing "none of interp-ring8/tree4/ag4/rs4.csv in $DIR"
else
	# the held-aside points under one header, then one prediction per
	# (collective, algo, ranks) among them, at its sizes
	{
		grep -v '^#' "$DIR/interp-${held%% *}.csv" | head -n 1
		for f in $held; do grep -v '^#' "$DIR/interp-$f.csv" | tail -n +2; done
	} >"$MEAS"
	tail -n +2 "$MEAS" | awk -F, '{ k = $1 " " $2 " " $4; if (!(k in s)) { o[n++] = k; s[k] = $5 "B" } else s[k] = s[k] "," $5 "B" }
		END { for (i = 0; i < n; i++) print o[i], s[o[i]] }' |
		while read -r coll algo ranks sizes; do
			log=$OUTD/predict-$coll-$algo-$ranks.txt
			"$G" hw interp --predict "$CAL" --ranks "$ranks" --op "$coll" --algo "$algo" \
				--sizes "$sizes" --out "$PRED" >"$log" 2>&1 ||
				say "# $coll $algo $ranks ranks: gcsim hw interp --predict failed: $(tail -n 1 "$log")"
			[ -f "$VIRT" ] && "$G" run "$VIRT" --set topology.gpus="$ranks" --set collective.op="$coll" \
				--set collective.algo="$algo" --set collective.sizes="$sizes" \
				--results "$FLAT" >"$OUTD/run-$coll-$algo-$ranks.txt" 2>&1 || true
		done
	if [ -f "$FLAT" ] && "$G" validate --measured "$MEAS" --predicted "$FLAT" >"$OUTD/validate-flat.txt" 2>&1 ||
		[ -f "$OUTD/validate-flat.txt" ]; then
		sed -n 's/^# median/# flat-link scenario (device-virtual.yaml), for comparison: median/p' "$OUTD/validate-flat.txt" | tee -a "$REP" || true
	fi
	if [ -f "$PRED" ]; then
		rc=0
		"$G" validate --measured "$MEAS" --predicted "$PRED" --csv "$OUTD/validate.csv" \
			>"$OUTD/validate.txt" 2>&1 || rc=$?
		grep '^# median' "$OUTD/validate.txt" | tee -a "$REP" || true
		case $rc in
		0) verdict held-aside pass "$held within 5 % median, 15 % max" ;;
		1) verdict held-aside fail "$held: see $OUTD/validate.txt" ;;
		*) verdict held-aside missing "gcsim validate: $(tail -n 1 "$OUTD/validate.txt")" ;;
		esac
	else
		verdict held-aside missing "no prediction could be made (see $OUTD/predict-*.txt)"
	fi
fi
# ring allreduce on 8 virtual ranks with many channels: the bytes the ranks
# send each other, 2 (n - 1) x size, per second, against the SM copy
# kernel's bandwidth (figures, no verdict)
if [ -f "$DIR/interp-ring8-wide.csv" ]; then
	grep -v '^#' "$DIR/interp-ring8-wide.csv" | tail -n +2 | while IFS=, read -r _ _ _ n size _ us _; do
		bw=$(awk -v n="$n" -v s="$size" -v t="$us" 'BEGIN { printf "%.1f", 2 * (n - 1) * s / (t * 1e3) }')
		line="# ring allreduce, $n virtual ranks, $size B, many channels: $us us, the ranks send $bw GB/s"
		[ -n "$sm" ] && line="$line, $(awk -v a="$bw" -v b="$sm" 'BEGIN { printf "%.1f", 100 * a / b }') % of the SM copy kernel's $sm GB/s"
		say "$line"
	done
fi
# the interpreter's kernels on the same schedule (ring allreduce, 4
# virtual ranks): each one's time per size and its speed-up over the
# scalar kernel, the first interpreter's (figures, no verdict)
if [ -f "$DIR/interp-ring4-scalar.csv" ]; then
	grep -v '^#' "$DIR/interp-ring4-scalar.csv" | tail -n +2 | awk -F, '{ print $5, $7 }' >"$OUTD/scalar.txt"
	for k in ring4 ring4-pipe ring4-ll128 ring4-b8; do
		[ -f "$DIR/interp-$k.csv" ] || continue
		say "# interpreter kernel interp-$k, ring allreduce on 4 virtual ranks: size, us, scalar us, speed-up"
		grep -v '^#' "$DIR/interp-$k.csv" | tail -n +2 | awk -F, '{ print $5, $7 }' |
			while read -r size us; do
				s=$(awk -v z="$size" '$1 == z { print $2 }' "$OUTD/scalar.txt")
				[ -n "$s" ] && say "$(awk -v z="$size" -v v="$us" -v s="$s" 'BEGIN { printf "#   %12s %12.3f %12.3f %7.2fx", z, v, s, s / v }')"
			done
	done
fi
say "# files in $OUTD"
[ "$failed" -eq 0 ] || exit 1
[ "$missing" -eq 0 ] || exit 3
exit 0
