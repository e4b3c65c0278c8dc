#!/bin/sh
# The calibration loop without a GPU: a recording whose truth is known (made
# by the simulator with link latency 3 us and bandwidth 200 GB/s at 4 ranks)
# is fitted by `gcsim hw calibrate`, the fitted virtual-rank scenario
# predicts the recording back, and predicts held-aside schedules (8 ranks,
# tree, allgather) that gcsim validate compares with the truth.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
truth="--set topology.link.latency=3us --set topology.link.bandwidth=200GB/s --set collective.chunk=1TiB --set collective.slice=1TiB --set collective.buffer=1TiB"
sizes="--set collective.sizes=4KiB,64KiB,1MiB,16MiB,256MiB"

"$G" run scenarios/flat-1024-ring.yaml --set topology.gpus=4 $truth $sizes --results "$T/meas.csv" >/dev/null
"$G" hw calibrate --from "$T/meas.csv" --name loop --dir "$T" >"$T/cal.txt"
check "calibrate writes the fit and the virtual-rank scenario" "[ -s '$T/loop.yaml' ] && [ -s '$T/loop-virtual.yaml' ]"
check "the fit recovers latency and bandwidth" "grep -q 'latency: 3us' '$T/loop-virtual.yaml' && grep -q 'bandwidth: 200GB/s' '$T/loop-virtual.yaml'"
"$G" run "$T/loop-virtual.yaml" --results "$T/pred.csv" >/dev/null
"$G" validate --measured "$T/meas.csv" --predicted "$T/pred.csv" >"$T/v1.txt"
check "predictions of the fitted schedule pass" "grep -q 'PASS' '$T/v1.txt' && grep -q 'compared 5 points' '$T/v1.txt'"
for held in "--set topology.gpus=8" "--set collective.algo=tree" "--set collective.op=allgather"; do
  "$G" run scenarios/flat-1024-ring.yaml --set topology.gpus=4 $truth $sizes $held --results "$T/hm.csv" >/dev/null
  "$G" run "$T/loop-virtual.yaml" $held --results "$T/hp.csv" >/dev/null
  "$G" validate --measured "$T/hm.csv" --predicted "$T/hp.csv" >"$T/v2.txt"
  check "held-aside schedule ($held) predicted within the bands" "grep -q 'PASS' '$T/v2.txt'"
done
tap_end
