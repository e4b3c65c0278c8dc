#!/bin/sh
# Host backends (collective.backend gloo | mpi, gm_host): the scenario's
# golden output; where gloo's time goes at 100 MiB on two nodes (the two
# staging copies are the cudaMemcpy call plus the bytes over PCIe, the
# ring's TCP streams carry 2(n-1)/n of the buffer at the stream's rate,
# the CPU's sums hide behind them); the stream's rate, gloo's interface
# and a degraded process link move it as they should; cuda-aware MPI
# stages reductions only; bad combinations are refused with one line.
# TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/backends-gloo-mpi.yaml
"$G" run "$S" >"$T/s.txt" 2>"$T/s.err"
check "the backends scenario matches its golden output" \
  "[ ! -s '$T/s.err' ] && diff -u tests/golden/backends-gloo-mpi.txt '$T/s.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
"$G" run "$S" >"$T/s2.txt"
check "same scenario, same output (deterministic)" "cmp -s '$T/s.txt' '$T/s2.txt'"
check "100 MiB: gloo over 50 times NCCL's time, MPI between the two" \
  "awk '\$3 == 104857600 { t[\$1] = \$4 } END { exit !(t[\"gloo\"] > 50 * t[\"nccl\"] && t[\"mpi\"] > t[\"nccl\"] && t[\"mpi\"] < t[\"gloo\"]) }' '$T/s.txt'"

# one size, one backend, the breakdown in CSV; col NAME prints its value
ONE="--set sweep.key= --set sweep.values= --set collective.sizes=[100MiB] --format csv --breakdown"
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 { print $k }' "$2"; }
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=gloo --set topology.pcie.bandwidth=25GB/s >"$T/g.csv"
check "gloo: the copies are 2 x (6.5 us + 100 MiB / 25 GB/s) = 8401.608 us" \
  "awk -v c=\"\$(col copy_us '$T/g.csv')\" 'BEGIN { exit !(c > 8401.60 && c < 8401.62) }'"
check "gloo: the TCP streams carry 2 x 15/16 x 100 MiB at 3.125 GB/s (62914.56 us) within 0.5 %" \
  "awk -v h=\"\$(col host_us '$T/g.csv')\" 'BEGIN { exit !(h > 62600 && h < 63230) }'"
check "gloo: the CPU's sums (6.67 GB/s) hide behind the 3.125 GB/s streams, and the parts add up" \
  "awk -v r=\"\$(col reduce_us '$T/g.csv')\" -v t=\"\$(col time_us '$T/g.csv')\" -v c=\"\$(col copy_us '$T/g.csv')\" -v h=\"\$(col host_us '$T/g.csv')\" -v l=\"\$(col latency_us '$T/g.csv')\" 'BEGIN { exit !(r < 0.01 * t && c + h + l + r > 0.999 * t) }'"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=gloo --set topology.pcie.bandwidth=25GB/s --set gloo.tcp_stream_bw=6.25GB/s >"$T/g2.csv"
check "gloo: twice the stream's rate halves the streams' part (within 1 %)" \
  "awk -v a=\"\$(col host_us '$T/g.csv')\" -v b=\"\$(col host_us '$T/g2.csv')\" 'BEGIN { exit !(b > 0.495 * a && b < 0.505 * a) }'"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=gloo --set gloo.nic_bandwidth=1GB/s >"$T/g3.csv"
check "gloo: a 1 GB/s interface for the node's eight processes makes the network the bottleneck" \
  "awk -v n=\"\$(col network_us '$T/g3.csv')\" -v t=\"\$(col time_us '$T/g3.csv')\" 'BEGIN { exit !(n > 0.5 * t) }'"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=gloo --set faults.degrade=n0.proc7.inter=50% >"$T/g4.csv"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=gloo >"$T/g5.csv"
check "gloo: process 7's stream off node at half its rate doubles the ring's streams (within 2 %)" \
  "awk -v a=\"\$(col host_us '$T/g5.csv')\" -v b=\"\$(col host_us '$T/g4.csv')\" 'BEGIN { exit !(b > 1.98 * a && b < 2.02 * a) }'"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=mpi --set mpi.cuda_aware=true --set collective.op=allgather >"$T/m1.csv"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=mpi --set mpi.cuda_aware=true >"$T/m2.csv"
check "cuda-aware MPI: an allgather moves GPU to GPU (no copies), an allreduce is still staged" \
  "awk -v a=\"\$(col copy_us '$T/m1.csv')\" -v b=\"\$(col copy_us '$T/m2.csv')\" 'BEGIN { exit !(a == 0 && b > 0) }'"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set collective.backend=gloo --set collective.algo=halving-doubling >"$T/hd.csv"
check "gloo halving-doubling: the same 62914.56 us of streams as the ring, and each round's sums after its transfer (14745.6 us), within 0.5 %" \
  "awk -v h=\"\$(col host_us '$T/hd.csv')\" -v r=\"\$(col reduce_us '$T/hd.csv')\" 'BEGIN { exit !(h > 62600 && h < 63230 && r > 14672 && r < 14820) }'"
"$G" run "$S" --set collective.backend=gloo --set sweep.key= --set sweep.values= >"$T/h.txt"
check "the header names the backend and what it does" \
  "grep -q '^# collective: allreduce, algo ring, 16 ranks, backend gloo\$' '$T/h.txt' && grep -q '^# backend   : gloo: ring in host processes over TCP' '$T/h.txt'"

# the engine's invariants (credits, the critical path's sums) checked after
# every event (sim.check) on every backend and collective: the same output
ok_all=1
for b in gloo mpi; do
	for op in allreduce allgather alltoall; do
		"$G" run "$S" --set sweep.key= --set sweep.values= --set collective.backend=$b --set collective.op=$op --set sim.check=true --breakdown --format csv >"$T/c1.csv" 2>&1 || ok_all=0
		"$G" run "$S" --set sweep.key= --set sweep.values= --set collective.backend=$b --set collective.op=$op --breakdown --format csv >"$T/c2.csv" 2>&1 || ok_all=0
		cmp -s "$T/c1.csv" "$T/c2.csv" || ok_all=0
	done
done
"$G" run "$S" --set collective.algo=halving-doubling --set sweep.values=gloo,mpi --set sim.check=true >/dev/null 2>&1 || ok_all=0
check "sim.check holds on gloo and mpi (allreduce, allgather, alltoall, halving-doubling), outputs unchanged" '[ $ok_all -eq 1 ]'
"$G" explain --collective "$S" --set sweep.key= --set sweep.values= --set collective.backend=gloo --set collective.sizes=[1MiB] >"$T/w.txt" 2>&1
check "explain --collective walks gloo's ring and names the staging copies (6.5 us + 1 MiB over PCIe each)" \
  "grep -q '^# explain: allreduce of 1MiB with ring, backend gloo, on 16 ranks' '$T/w.txt' && grep -q '^# host backend: the steps below run between the staging copies (26.665 us in, 26.665 us out' '$T/w.txt' && grep -q 'RECV_REDUCE_SEND' '$T/w.txt'"
bad() { # NAME PATTERN ARGS...: exit 2, one line on stderr holding PATTERN, nothing on stdout
  name=$1 pat=$2
  shift 2
  "$G" run "$@" >"$T/b.txt" 2>"$T/b.err"
  check "$name" "[ \$? -eq 2 ] && [ ! -s '$T/b.txt' ] && [ \$(wc -l <'$T/b.err') -eq 1 ] && grep -q \"$pat\" '$T/b.err'"
}
NS="--set sweep.key= --set sweep.values="
# shellcheck disable=SC2086
bad "gloo's broadcast is refused" "gloo's broadcast is not modelled" "$S" $NS --set collective.backend=gloo --set collective.op=broadcast
# shellcheck disable=SC2086
bad "gloo for a MoE dispatch is refused" "collective.backend: gloo has no dispatch" scenarios/moe-dispatch-transport.yaml $NS --set collective.backend=gloo
# shellcheck disable=SC2086
bad "gloo under the closed form is refused" "runs under sim.fidelity flow only" "$S" $NS --set collective.backend=gloo --set sim.fidelity=analytical
bad "gloo on a flat topology is refused" "a flat topology has none" scenarios/flat-1024-ring.yaml --set collective.backend=gloo
# shellcheck disable=SC2086
bad "a gloo key under nccl is refused" "gloo.tcp_stream_bw: not used by this run: it applies to collective.backend gloo" "$S" $NS --set gloo.tcp_stream_bw=1GB/s
# shellcheck disable=SC2086
bad "NCCL's protocol under gloo is refused" "collective.protocol: not used by this run: NCCL reads it" "$S" $NS --set collective.backend=gloo --set collective.protocol=ll
# shellcheck disable=SC2086
bad "an algorithm gloo has not is refused" "collective.backend gloo runs allreduce as ring or halving-doubling, not tree" "$S" $NS --set collective.backend=gloo --set collective.algo=tree
# shellcheck disable=SC2086
bad "halving-doubling under NCCL is refused" "halving-doubling is the allreduce of the host backends" "$S" $NS --set collective.algo=halving-doubling
# shellcheck disable=SC2086
bad "halving-doubling on 24 ranks is refused" "halving-doubling needs a power-of-two count of ranks, and this communicator has 24" "$S" $NS --set collective.backend=mpi --set collective.algo=halving-doubling --set topology.nodes=3
bad "a training step on gloo is refused" "a training step's collectives run on NCCL" scenarios/training-step-scaling.yaml --set collective.backend=gloo
tap_end
