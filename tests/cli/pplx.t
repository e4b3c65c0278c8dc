#!/bin/sh
# pplx-kernels' dispatch and combine (collective.algo pplx) from the command
# line: the shipped scenarios' sweeps, the flow model against the closed
# form on 2 nodes, the transport auto picks for it, the proxy named as the
# binding resource on IBRC, put's bytes under the same draw, and the
# refusals. TAP output; GCSIM is set by `make test` (defaults to
# build/gcsim).
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

# the shipped scenarios: EP16-128 on each transport, the proxy slower
for f in moe-pplx moe-pplx-combine; do
	"$G" run scenarios/$f.yaml >"$T/$f.txt" 2>"$T/$f.err"
	check "$f.yaml: 8 rows, IBRC slower than IBGDA at every EP, IBGDA slower with more nodes" \
	  "[ ! -s '$T/$f.err' ] && awk '\$1 ~ /^[0-9]+,/ { split(\$1, k, \",\"); t[k[1] \" \" k[2]] = \$4; n++ }
	     END { for (e = 2; e <= 16; e *= 2) if (!(t[e \" ibrc\"] > t[e \" ibgda\"])) exit 1;
	           exit !(n == 8 && t[\"2 ibgda\"] < t[\"4 ibgda\"] && t[\"4 ibgda\"] < t[\"8 ibgda\"]) }' '$T/$f.txt'"
done

# 2 nodes: the flow model's dispatch on IBGDA within 1 % of the closed form
# (the data path binds), and on IBRC the proxy thread named as binding
one="$T/one.yaml"
sed -e '/^sweep/d' -e '/^sim/d' scenarios/moe-pplx.yaml >"$one"
fl=$("$G" run "$one" --format csv | tail -1 | cut -d, -f6)
cf=$("$G" run "$one" --fidelity analytical --format csv | tail -1 | cut -d, -f6)
check "EP16 IBGDA dispatch: flow $fl us within 1 % of the closed form $cf us" \
  "awk 'BEGIN { d = $fl / $cf - 1; if (d < 0) d = -d; exit !(d < 0.01) }'"
"$G" run "$one" --set transport.inter=ibrc >"$T/ibrc.txt" 2>&1
check "EP16 IBRC dispatch: the proxy thread binds" \
  "grep -q '^#   7408 B: .*proxy of rank [0-9]* [0-9.]* %; .*: the proxy thread binds' '$T/ibrc.txt'"
"$G" run "$one" --set transport.inter=auto --fidelity analytical >"$T/auto.txt" 2>&1
check "transport auto takes IBGDA for pplx (one-sided) on DGX H100" \
  "grep -q 'transport ibgda (auto: one-sided' '$T/auto.txt'"

# the same draw as put: with no transport the closed form (the busiest link
# under the messages) is put's to the picosecond
a=$("$G" run "$one" --set transport.inter=none --fidelity analytical --format csv | tail -1 | cut -d, -f6)
b=$("$G" run "$one" --set transport.inter=none --fidelity analytical --set collective.algo=put \
     --format csv | tail -1 | cut -d, -f6)
check "pplx and put move the same messages ($a us, $b us)" "[ '$a' = '$b' ]"

# --- refusals: exit 2, one line naming what to do ---------------------------
printf 'schema_version: 1\ntopology: {preset: dgx-h100, nodes: 2}\ncollective: {op: allreduce, algo: pplx, sizes: [1MiB]}\n' >"$T/ar.yaml"
"$G" run "$T/ar.yaml" >"$T/o" 2>"$T/e"
check "pplx for allreduce: exit 2, named as MoE's" \
  "[ \$? -eq 2 ] && [ ! -s '$T/o' ] && grep -q 'pplx is the dispatch and combine of MoE' '$T/e'"

tap_end
