#!/bin/sh
# The include rule of docs/ARCHITECTURE.md: core <- sched <- engine <- models,
# and inside sim/models: net <- transport <- exec <- closed <- run <- report.
cd "$(dirname "$0")/../.."
n=0
fail=0
check() { # name, files, forbidden-include-regex
	n=$((n + 1))
	bad=$(grep -HnE "#include \"$3" $2 2>/dev/null || true)
	if [ -z "$bad" ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; echo "$bad" | sed 's/^/# /'; fail=1; fi
}
echo "1..11"
check "sim/core includes nothing above it" "sim/core/*.[ch]" '(\.\./|sim/)?(sched|models|topologies|ge_)'
check "sim/sched includes only core" "sim/sched/*.[ch]" '(\.\./)?(models|topologies|ge_|\.\./ge_)'
check "the engine includes only core" "sim/ge_*.[ch]" '(models|topologies|sched)/'
check "hw never includes the engine or models" "hw/*.[ch] hw/kernels/*" '(\.\./)*(sim/)?(ge_|models/|topologies/)'
check "validate never includes engine internals" "validate/*.[ch]" '(\.\./)*(sim/)?(ge_|models/gm_net|models/gm_coll)'
check "the network model includes no other model" "sim/models/net/*.[ch]" '\.\./(transport|exec|closed|run|report|train|host)/'
check "the transports include only the network" "sim/models/transport/*.[ch]" '\.\./(exec|closed|run|report|train)/'
check "the executor includes only the network and the transports" "sim/models/exec/*.[ch]" '\.\./(closed|run|report|train|host)/'
check "the host backends include only the executor, the transports and the network" "sim/models/host/*.[ch]" '\.\./(closed|run|report|train)/'
check "the closed forms include no run, report or workload" "sim/models/closed/*.[ch]" '\.\./(run|report|train)/'
check "no model below the report includes it" "sim/models/net/*.[ch] sim/models/transport/*.[ch] sim/models/exec/*.[ch] sim/models/closed/*.[ch] sim/models/run/*.[ch]" '\.\./report/'
exit $fail
