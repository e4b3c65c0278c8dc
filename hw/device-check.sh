#!/bin/sh
# SPDX-License-Identifier: MIT
# Every GPU check and calibration measurement of gcsim, on the GPU machine,
# in under 8 minutes. Results go to the folder $1 (default $OUT):
#   info.txt, bench.csv (microbenchmarks), interp-*.csv (schedule interpreter,
#   outputs checked), device.yaml (calibration; device-taxonomy.yaml: the
#   measured posting costs and inter-CTA barrier), rdma.csv (RDMA writes, where
#   an RDMA device exists), nccl.csv (the NCCL baseline, with >= 2 GPUs),
#   log.txt, status.txt (one line per step: rc and seconds, or "skipped"
#   with the command's one-line reason when it exits 3: no device).
# Time: every step has its own timeout, and no step may run past a budget
# of BUDGET seconds (default 450) from the start, so the whole script ends
# within 8 minutes even when every step hangs. Steps that feed calibration
# come first; RDMA and NCCL (which skip at once without their hardware)
# come before the held-aside interpreter runs.
# The CSVs are gcsim points CSVs: `gcsim hw calibrate --from bench.csv` and
# `gcsim validate --measured ...` read them on the dev machine, and
# `sh validate/device-report.sh DIR` checks the whole folder against the
# acceptance (interpreter outputs, SM copy, proxy round trip, held-aside).
#
# Binary: build/gcsim built on the dev machine (carry `build` to the GPU
# machine); it needs glibc only besides what it links statically when built
# with `hw/device-check.sh --prepare` (static GLib, libyaml, SQLite,
# cudart_static; RDMA off). Without a runnable binary the step fails clearly.
# GCSIM=path runs another binary (tests/hw/device_check_emu.t runs the script with
# build/tests/hw/gcsim-emu, the CUDA code under the CPU emulation).
set -eu
if [ "${1:-}" = "--prepare" ]; then
	# Dev machine: a GPU-machine binary with everything but glibc static.
	# Every command-line object (cli/*.c), whatever commands exist.
	CLI_OBJS=$(for f in cli/*.c; do printf 'build/portable/obj/%s.o ' "${f%.c}"; done)
	# plain -O2 objects: the link below is an ordinary (non-LTO) link
	make -j8 BUILD=build/portable RDMA=0 OPT=-O2 AR=ar build/portable/libgcsim.a $CLI_OBJS
	cc -o build/gcsim-portable $CLI_OBJS build/portable/libgcsim.a \
		-Wl,-Bstatic -lglib-2.0 -lpcre2-8 -lyaml -lsqlite3 -lz -Wl,-Bdynamic \
		-L/usr/local/cuda/lib64 -lcudart_static -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -static-libgcc \
		-lm -lpthread -ldl -lrt
	echo "built build/gcsim-portable: carry it (path build/gcsim-portable) to the GPU machine"
	exit 0
fi
DEST=${1:-${OUT:?give a result folder as \$1 or set OUT}}
mkdir -p "$DEST"
LOG="$DEST/log.txt"
: >"$LOG"
G=""
for c in ${GCSIM:-} build/gcsim-portable build/gcsim; do
	if [ -x "$c" ] && "$c" version >/dev/null 2>>"$LOG"; then G=$c; break; fi
done
[ -n "$G" ] || { echo "device-check: no runnable gcsim binary (run hw/device-check.sh --prepare on the dev machine and carry build/gcsim-portable)" | tee "$DEST/status.txt"; exit 4; }
BUDGET=${BUDGET:-450}
START=$(date +%s)
: >"$DEST/status.txt"
step() { # step NAME SECONDS CMD... : run with a timeout, log, record status
	name=$1; secs=$2; shift 2
	left=$(( BUDGET - ($(date +%s) - START) ))
	if [ "$left" -lt 5 ]; then
		echo "$name skipped: out of time (budget ${BUDGET}s)" | tee -a "$DEST/status.txt"
		return 0
	fi
	[ "$secs" -le "$left" ] || secs=$left
	echo "== $name (timeout ${secs}s): $*" >>"$LOG"
	t0=$(date +%s)
	if timeout "$secs" "$@" >"$DEST/.step" 2>&1; then rc=0; else rc=$?; fi
	cat "$DEST/.step" >>"$LOG"
	if [ "$rc" -eq 3 ]; then
		echo "$name skipped: $(tail -n 1 "$DEST/.step")" | tee -a "$DEST/status.txt"
	else
		echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a "$DEST/status.txt"
	fi
	rm -f "$DEST/.step"
}
{ uname -a; timeout 30 nvidia-smi 2>&1 || true; } >>"$LOG"
step info 20 sh -c "$G hw info >'$DEST/info.txt'"
# DEVICE_CHECK_QUICK=1: small sizes, 2 timed iterations, 32 MoE tokens --
# the whole script's course in a minute or two under the CPU emulation
# (tests/hw/device_check_emu.t); what it measures then calibrates nothing.
if [ -n "${DEVICE_CHECK_QUICK:-}" ]; then
	S=4KiB,64KiB S3=64KiB,1MiB S2=64KiB,1MiB Q="--iters 2" BQ=--quick TOK=32 FTOK=32 WS=64KiB WC=2
else
	S=4KiB,64KiB,1MiB,8MiB,64MiB S3=64KiB,1MiB,8MiB S2=64KiB,8MiB Q="" BQ="" TOK=128 FTOK=256 WS=1GiB WC=16
fi
# hw bench, whole: launches, copies, flags, the posting paths and the
# inter-CTA barrier (cta_barrier c32 and sms: 2 x 55 samples of 3000
# barriers of about a microsecond, well under a second) -- gpu.cta_barrier
# of the taxonomy scenario calibrate writes -- and shmem_put_bw's loop of a
# post and that barrier (put_loop c32, as long again), which calibrate
# checks against the sum of the two
step bench 200 "$G" hw bench $BQ --csv "$DEST/bench.csv"
# Fitting set: ring allreduce at 4 ranks. Held aside: tree, allgather,
# reduce-scatter, other rank counts.
step interp-ring4 45 "$G" hw interp $Q --ranks 4 --algo ring --op allreduce --sizes $S --csv "$DEST/interp-ring4.csv"
# The same runs with the first interpreter's kernel (one element per thread
# per pass): the vector kernel's speed-up is the ratio of the two, from one
# recording (validate/device-report.sh prints it)
step interp-ring4-scalar 45 "$G" hw interp $Q --kernel scalar --ranks 4 --algo ring --op allreduce --sizes $S --csv "$DEST/interp-ring4-scalar.csv"
# ... and with the newer ways of moving a piece, each against the same
# scalar baseline: warps split into loaders and storers (--kernel pipe),
# LL128 lines above 8 KiB (--protocol ll128), 8 blocks per strand
# (--blocks 8: 32 blocks where the default has 4)
step interp-ring4-pipe 45 "$G" hw interp $Q --kernel pipe --ranks 4 --algo ring --op allreduce --sizes $S --csv "$DEST/interp-ring4-pipe.csv"
step interp-ring4-ll128 45 "$G" hw interp $Q --protocol ll128 --ranks 4 --algo ring --op allreduce --sizes $S --csv "$DEST/interp-ring4-ll128.csv"
step interp-ring4-b8 45 "$G" hw interp $Q --blocks 8 --ranks 4 --algo ring --op allreduce --sizes $S --csv "$DEST/interp-ring4-b8.csv"
# Ring allreduce on 8 virtual ranks at 1 GiB with 16 channels (16 blocks per
# rank, 128 in all: the GPU's SMs busy, as NCCL's channels keep them): the
# bytes the ranks send each other per second against the SM copy kernel's
# (validate/device-report.sh)
step interp-ring8-wide 90 "$G" hw interp $Q --ranks 8 --channels $WC --algo ring --op allreduce --sizes $WS --csv "$DEST/interp-ring8-wide.csv"
if [ -f "$DEST/bench.csv" ] && [ -f "$DEST/interp-ring4.csv" ]; then
	{ cat "$DEST/bench.csv"; grep -v '^#' "$DEST/interp-ring4.csv" | tail -n +2; } >"$DEST/calib-input.csv"
	step calibrate 15 "$G" hw calibrate --name device --from "$DEST/calib-input.csv" --dir "$DEST"
fi
# RDMA: exits 3 at once without a device (or in a binary built without
# rdma-core, as build/gcsim-portable is); the quick sweep takes seconds.
step rdma 40 "$G" hw rdma --quick --csv "$DEST/rdma.csv"
# NCCL baseline: exits 3 at once with fewer than 2 GPUs or no libnccl.so.2.
step nccl 60 "$G" hw nccl --quick --csv "$DEST/nccl.csv"
step interp-ring8 45 "$G" hw interp $Q --ranks 8 --algo ring --op allreduce --sizes $S --csv "$DEST/interp-ring8.csv"
step interp-tree4 45 "$G" hw interp $Q --ranks 4 --algo tree --op allreduce --sizes $S --csv "$DEST/interp-tree4.csv"
step interp-ag4 30 "$G" hw interp $Q --ranks 4 --op allgather --sizes $S --csv "$DEST/interp-ag4.csv"
step interp-rs4 30 "$G" hw interp $Q --ranks 4 --op reducescatter --sizes $S --csv "$DEST/interp-rs4.csv"
# NVLS_TREE's schedule (a switch per virtual node, a tree between them):
# every output checked, the times are not part of the validation.
step interp-nvlstree8 30 "$G" hw interp $Q --ranks 8 --nodes 2 --algo nvlstree --sizes $S3 --csv "$DEST/interp-nvlstree8.csv"
# MoE dispatch and combine (DeepEP's shape on 8 virtual ranks): outputs
# checked, times not part of the validation.
step interp-moe8 30 sh -c "$G hw interp $Q --ranks 8 --op dispatch --tokens $TOK --csv '$DEST/interp-dispatch8.csv' && $G hw interp $Q --ranks 8 --op combine --tokens $TOK --csv '$DEST/interp-combine8.csv'"
# The same with DeepEP's normal kernels (forward) between 2 virtual nodes:
# the forwarders' PUTs, the chunk signals and combine's reduction on the way.
step interp-fwd8 30 sh -c "$G hw interp $Q --ranks 8 --nodes 2 --algo forward --op dispatch --tokens $FTOK --sizes 7392B --csv '$DEST/interp-fwd-dispatch8.csv' && $G hw interp $Q --ranks 8 --nodes 2 --algo forward --op combine --tokens $FTOK --sizes 14336B --csv '$DEST/interp-fwd-combine8.csv'"
# CollNet Direct (the network switch as virtual ranks), Bruck's allgather
# PAT's reduce-scatter (6 ranks: packed rounds), broadcast and reduce:
# outputs checked, times not part of the validation.
step interp-collnet8 30 "$G" hw interp $Q --ranks 8 --nodes 2 --algo collnet --sizes $S3 --csv "$DEST/interp-collnet8.csv"
step interp-collnetchain8 30 "$G" hw interp $Q --ranks 8 --nodes 2 --algo collnetchain --channels 4 --sizes $S3 --csv "$DEST/interp-collnetchain8.csv"
step interp-bruck8 30 "$G" hw interp $Q --ranks 8 --op allgather --algo bruck --sizes $S3 --csv "$DEST/interp-bruck8.csv"
# NVLS's allgather (one multicast engine) and reduce-scatter (one reduction
# engine) as virtual ranks: outputs checked.
step interp-nvls-agrs8 30 sh -c "$G hw interp $Q --ranks 8 --op allgather --algo nvls --sizes $S3 --csv '$DEST/interp-nvls-ag8.csv' && $G hw interp $Q --ranks 8 --op reducescatter --algo nvls --sizes $S3 --csv '$DEST/interp-nvls-rs8.csv'"
# nvls across 2 virtual nodes (the network's switch as virtual ranks, SHARP)
step interp-nvls-sharp8 30 sh -c "$G hw interp $Q --ranks 8 --nodes 2 --algo nvls --sizes $S3 --csv '$DEST/interp-nvls-sharp-ar8.csv' && $G hw interp $Q --ranks 8 --nodes 2 --op allgather --algo nvls --sizes $S3 --csv '$DEST/interp-nvls-sharp-ag8.csv'"
step interp-pat6 30 "$G" hw interp $Q --ranks 6 --op reducescatter --algo pat --sizes $S3 --csv "$DEST/interp-pat6.csv"
step interp-chain8 30 sh -c "$G hw interp $Q --ranks 8 --op broadcast --sizes $S2 --csv '$DEST/interp-broadcast8.csv' && $G hw interp $Q --ranks 8 --op reduce --sizes $S2 --csv '$DEST/interp-reduce8.csv'"
# One rank per GPU over peer access: exits 3 at once on a one-GPU machine.
step interp-gpus2 45 "$G" hw interp $Q --gpus 2 --sizes $S --csv "$DEST/interp-gpus2.csv"
echo "done in $(( $(date +%s) - START ))s; results in $DEST" | tee -a "$LOG"
