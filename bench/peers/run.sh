#!/bin/sh
# make bench-peers: gcsim next to SimGrid's SMPI on the same flat cluster
# (every host one 50 GB/s, 1 us link to a switch that is never the
# bottleneck), one ring allreduce of 1 MiB per rank (SMPI: MPI_Allreduce
# with smpi/allreduce:lr, the logical ring; gcsim: scenarios/flat-1024-ring
# .yaml at that many GPUs), at 64, 256 and 1024 ranks. Prints, per count,
# each one's wall time (the whole command: start-up included) and peak
# memory (GNU time), the simulated time each gives, and how many times
# faster gcsim is: as it runs by default (one GPU stands for all: the
# flat cluster and the ring repeat GPU by GPU, sim.fold) and with every
# rank simulated (sim.fold false, as SMPI does).
#
#   sh bench/peers/run.sh GCSIM [RANKS...]
set -eu
gcsim=$1
shift
ranks=${*:-64 256 1024}
here=$(cd "$(dirname "$0")" && pwd)
for tool in smpicc smpirun /usr/bin/time; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "bench-peers: $tool is missing (apt-get install libsimgrid-dev time)" >&2
		exit 3
	fi
done
tmp=$(mktemp -d /tmp/gcsim-peers-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
smpicc -O2 -o "$tmp/allreduce" "$here/smpi_allreduce.c"
bytes=1048576
printf '# ring allreduce, %d B per rank, flat cluster 50 GB/s 1 us; %s, %s cores\n' \
	"$bytes" "$(date -u +%Y-%m-%d)" "$(nproc)"
printf '# %6s %12s %12s %14s %12s %12s %14s %9s %12s %12s %9s\n' ranks smpi_wall_s smpi_peak_MB \
	smpi_sim_us gcsim_wall_s gcsim_peak_MB gcsim_sim_us speedup all_wall_s all_peak_MB speedup
for n in $ranks; do
	cat >"$tmp/p.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="flat" prefix="h" suffix="" radical="0-$((n - 1))" speed="1Gf"
           bw="50GBps" lat="1us" bb_bw="1000TBps" bb_lat="0us"/>
</platform>
XML
	seq 0 $((n - 1)) | sed 's/^/h/' >"$tmp/hosts"
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$tmp/smpi.time" smpirun -np "$n" -platform "$tmp/p.xml" \
		-hostfile "$tmp/hosts" --cfg=smpi/allreduce:lr --cfg=smpi/simulate-computation:no \
		--cfg=smpi/display-timing:no --log=root.thres:error "$tmp/allreduce" "$bytes" \
		>"$tmp/smpi.out" 2>"$tmp/smpi.err"
	t1=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$tmp/gcsim.time" "$gcsim" run "$here/../../scenarios/flat-1024-ring.yaml" \
		--set topology.gpus="$n" --set collective.sizes="[${bytes}B]" --format csv >"$tmp/gcsim.csv"
	t2=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$tmp/all.time" "$gcsim" run "$here/../../scenarios/flat-1024-ring.yaml" \
		--set topology.gpus="$n" --set collective.sizes="[${bytes}B]" --set sim.fold=false \
		--format csv >"$tmp/all.csv"
	t3=$(date +%s%N)
	if ! cmp -s "$tmp/gcsim.csv" "$tmp/all.csv"; then
		echo "bench-peers: gcsim's folded and unfolded runs differ at $n ranks" >&2
		exit 1
	fi
	sw=$(((t1 - t0) / 1000))
	gw=$(((t2 - t1) / 1000))
	aw=$(((t3 - t2) / 1000))
	sm=$(tail -1 "$tmp/smpi.time")
	gm=$(tail -1 "$tmp/gcsim.time")
	am=$(tail -1 "$tmp/all.time")
	st=$(tail -1 "$tmp/smpi.out")
	gt=$(tail -1 "$tmp/gcsim.csv" | cut -d, -f6)
	awk -v n="$n" -v sw="$sw" -v sm="$sm" -v st="$st" -v gw="$gw" -v gm="$gm" -v gt="$gt" \
		-v aw="$aw" -v am="$am" 'BEGIN {
		printf "  %6d %12.3f %12.1f %14.1f %12.3f %12.1f %14.1f %8.0fx %12.3f %12.1f %8.0fx\n",
			n, sw * 1e-6, sm / 1024, st, gw * 1e-6, gm / 1024, gt, sw / gw,
			aw * 1e-6, am / 1024, sw / aw }'
done
