#!/bin/sh
# Transports (transport.inter) from the command line: the golden outputs of
# the transport scenarios, explain --transport's walk against run's time
# for one message, the binding resource named per row, and refusals.
# TAP output; GCSIM is set by `make test` (defaults to build/gcsim).
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

golden() { # NAME, then the command's arguments
	g=$1; shift
	"$G" "$@" >"$T/$g.txt" 2>"$T/$g.err"
	check "$g: exits 0, matches tests/golden/transport/$g.txt" \
	  "[ ! -s '$T/$g.err' ] && diff -u tests/golden/transport/$g.txt '$T/$g.txt' >'$T/$g.diff' || { sed 's/^/# /' '$T/$g.diff' '$T/$g.err'; false; }"
}
golden sendrecv run scenarios/transport-sendrecv.yaml
golden moe-dispatch run scenarios/moe-dispatch-transport.yaml
golden moe-dispatch-gin run scenarios/moe-dispatch-gin.yaml
golden moe-garden run scenarios/moe-garden.yaml
golden alltoall-peers run scenarios/alltoall-peers.yaml
golden alltoall-peers-closed run scenarios/alltoall-peers-closed.yaml
golden explain-nccl explain --transport scenarios/transport-sendrecv.yaml --timeline

# explain's total is what run's 2-GPU message adds to the launch (8.4 us)
grep -v '^sweep' scenarios/transport-sendrecv.yaml >"$T/one.yaml"
for x in nccl ibrc ibgda; do
	w=$("$G" explain --transport "$T/one.yaml" --set transport.inter=$x --variant simple \
	     --set topology.channel_bandwidth=1000GB/s | sed -n 's/^total: \([0-9.]*\) us.*/\1/p')
	t=$("$G" run "$T/one.yaml" --set transport.inter=$x --set collective.sizes=8B \
	     --set collective.channels=1 --set topology.channel_bandwidth=1000GB/s --format csv | tail -1 | cut -d, -f6)
	check "$x: run's 8 B message = launch 8.4 us + explain's walk ($t us, $w us)" \
	  "awk 'BEGIN { d = $t - 8.4 - $w; if (d < 0) d = -d; exit !(d < 0.0015) }'"
done

check "proxy named as the binding resource on 64 nodes" \
  "grep -q '^#   1048576 B: .*proxy of rank [0-9]* [0-9.]* %; NIC stage .*: the proxy thread binds' '$T/alltoall-peers.txt'"
check "all-to-all grows with the peers" \
  "awk '\$1 ~ /^[0-9]+\$/ { t[n++] = \$4 } END { exit !(n == 4 && t[0] < t[1] && t[1] < t[2] && t[2] < t[3]) }' '$T/alltoall-peers.txt'"
# the closed form's proxy bound: 512 nodes in a moment, growing with the
# peers as the flow runs do
for nodes in 64 512; do
	"$G" run scenarios/alltoall-peers.yaml --sweep topology.nodes=$nodes --fidelity analytical \
		--format csv | tail -1 | cut -d, -f4 >"$T/cf$nodes"
done
check "closed form: 512 nodes take longer than 64 ($(cat "$T/cf64") -> $(cat "$T/cf512") us)" \
  "awk -v a=\$(cat '$T/cf64') -v b=\$(cat '$T/cf512') 'BEGIN { exit !(b > 4 * a) }'"
check "closed form, 1 to 512 nodes: the time grows with the peers" \
  "awk '\$1 ~ /^[0-9]+\$/ { t[n++] = \$4 } END { exit !(n == 4 && t[0] < t[1] && t[1] < t[2] && t[2] < t[3]) }' '$T/alltoall-peers-closed.txt'"
check "closed form: the binding resource named per point (the first GPU's proxy thread from 8 nodes on)" \
  "[ \$(grep -c '^#   1048576 B: [0-9]* network messages sent by the first GPU; proxy of rank 0 [0-9.]* %; NIC stage [0-9.]* %: the proxy thread binds' '$T/alltoall-peers-closed.txt') -eq 3 ] && grep -q '^#   1048576 B: 0 network messages sent by the first GPU; NIC stage 0.0 %: the data path and latencies bind' '$T/alltoall-peers-closed.txt'"
for nodes in 64 512; do
	awk -v n=$nodes '$1 == n { print $4 }' "$T/alltoall-peers.txt" >"$T/flow$nodes"
	check "closed form within 10 % of the flow run on $nodes nodes ($(cat "$T/flow$nodes") us)" \
	  "awk -v a=\$(cat '$T/cf$nodes') -v f=\$(cat '$T/flow$nodes') 'BEGIN { e = (a - f) / f; if (e < 0) e = -e; exit !(f > 0 && e < 0.1) }'"
done
check "EFA falls back to the proxy, with the reason" \
  "grep -q 'p5: transport ibrc (auto: one-sided, and EFA has no GPUDirect Async' '$T/moe-dispatch.txt'"
check "NCCL GIN on EFA through its CPU proxy, with the reason; GDAKI on InfiniBand" \
  "grep -q '=p5,gin: transport gin (its CPU-proxy back end: the NIC has no GPUDirect Async)' '$T/moe-dispatch-gin.txt' && grep -A1 '=dgx-h100,gin: transport gin:' '$T/moe-dispatch-gin.txt' | grep -q 'the data path and latencies bind'"
"$G" run scenarios/moe-dispatch-gin.yaml --set transport.gin=gdaki >"$T/o" 2>"$T/e"
check "transport.gin gdaki on p5: exit 2, nothing printed, the key and EFA named" \
  "[ \$? -eq 2 ] && [ ! -s '$T/o' ] && grep -q 'transport.gin' '$T/e' && grep -q 'EFA does not provide' '$T/e'"
check "pplx-garden through its own engine: a few hundred messages, the data path binds" \
  "[ \$(grep -c 'transport fabric (auto: pplx-garden.s own engine, a CPU worker per GPU)' '$T/moe-garden.txt') -eq 4 ] && [ \$(grep -c 'the data path and latencies bind' '$T/moe-garden.txt') -eq 4 ]"
"$G" run scenarios/moe-garden.yaml --format csv >"$T/garden.csv" 2>"$T/e"
"$G" run scenarios/moe-garden.yaml --set collective.algo=pplx --set transport.inter=ibrc --format csv >"$T/pplx-ibrc.csv" 2>"$T/e"
check "on 2 p5 nodes pplx-kernels' puts through NVSHMEM's proxy take over twice garden's ranges" \
  "awk -F, 'NR == FNR && \$1 == \"p5\" && \$2 == 2 { g = \$5 } NR != FNR && \$1 == \"p5\" && \$2 == 2 { p = \$5 } END { exit !(g > 0 && p > 2 * g) }' '$T/garden.csv' '$T/pplx-ibrc.csv'"
"$G" run scenarios/moe-garden.yaml --set transport.inter=ibrc >"$T/o" 2>"$T/e"
check "garden through another transport: exit 2, fabric named" "[ \$? -eq 2 ] && [ ! -s '$T/o' ] && grep -q 'use fabric' '$T/e'"
"$G" run scenarios/moe-dispatch-transport.yaml --set transport.inter=fabric >"$T/o" 2>"$T/e"
check "fabric for another schedule: exit 2, garden named" "[ \$? -eq 2 ] && grep -q 'runs collective.algo garden' '$T/e'"
"$G" explain --transport scenarios/moe-garden.yaml >"$T/o" 2>"$T/e"
check "explain --transport walks garden's write through the worker" \
  "[ \$? -eq 0 ] && grep -q 'CPU worker (GPU A)' '$T/o' && grep -q 'one RDMA write with immediate data' '$T/o'"
"$G" run scenarios/moe-dispatch-transport.yaml --set transport.gin=proxy >"$T/o" 2>"$T/e"
check "transport.gin without transport.inter gin: refused with the reason" \
  "[ \$? -eq 2 ] && grep -q 'transport.gin' '$T/e' && grep -q 'not gin' '$T/e'"

# --- every fidelity and the breakdown take the transport ---------------------
"$G" run "$T/one.yaml" --set transport.inter=nccl --fidelity packet >"$T/pk" 2>"$T/e"
check "packet fidelity runs a transport (exit 0, the proxy line)" \
  "[ \$? -eq 0 ] && grep -q 'transport nccl: the busiest proxy' '$T/pk'"
"$G" run "$T/one.yaml" --set transport.inter=ibrc --breakdown >"$T/bd" 2>"$T/e"
check "--breakdown with a transport names its proxy and control columns" \
  "[ \$? -eq 0 ] && grep -q ' proxy ' '$T/bd' && grep -q ' control ' '$T/bd' && grep -q '^#   proxy ' '$T/bd'"

# --- refusals: exit 2, one line naming what to do ----------------------------
"$G" run "$T/one.yaml" --set transport.inter=ibgda --set topology.preset=p5 >"$T/o" 2>"$T/e"
check "ibgda on p5: exit 2, EFA named" "[ \$? -eq 2 ] && [ ! -s '$T/o' ] && grep -q 'EFA does not provide' '$T/e'"
"$G" run "$T/one.yaml" --set transport.inter=udp >"$T/o" 2>"$T/e"
check "unknown transport: exit 2, choices listed" "[ \$? -eq 2 ] && grep -q 'ibgda' '$T/e'"
"$G" explain --transport scenarios/dgx-h100-allreduce.yaml >"$T/o" 2>"$T/e"
check "explain --transport on a scenario without one: exit 2" "[ \$? -eq 2 ] && grep -q 'transport.inter none' '$T/e'"
"$G" explain --transport "$T/one.yaml" --variant fast >"$T/o" 2>"$T/e"
check "explain --transport --variant checked" "[ \$? -eq 2 ] && grep -q 'simple, ll, put, signal (a put.s) or amo' '$T/e'"

tap_end
