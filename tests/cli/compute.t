#!/bin/sh
# Compute per GPU generation: a training step's compute takes its preset's
# GPU (train.gpu auto), so A100, H100 and B200 steps compute in the ratio
# of their dense BF16 FLOP/s; train.gpu and train.gpu_flops name it
# instead, and are refused where nothing computes; gcsim explain balance
# prints the ratios per generation. TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

S=scenarios/training-step-generations.yaml
"$G" run "$S" >"$T/gen.txt" 2>"$T/gen.err"
check "the generations scenario matches its golden output" \
  "[ ! -s '$T/gen.err' ] && diff -u tests/golden/training-step-generations.txt '$T/gen.txt' >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
# columns: preset gpus tp pp dp ep, then tp pp ep dp step compute exposed bubble (ms), mfu
check "A100, H100 and B200 compute in the ratio of 312, 989 and 2250 TFLOPS" \
  "awk '\$1 ~ /^dgx-/ { c[\$1] = \$12 } END { r1 = c[\"dgx-a100\"] / c[\"dgx-h100\"] / (989 / 312); r2 = c[\"dgx-h100\"] / c[\"dgx-b200\"] / (2250 / 989); exit !(r1 > 0.9999 && r1 < 1.0001 && r2 > 0.9999 && r2 < 1.0001) }' '$T/gen.txt'"
check "the end-to-end MFU falls with each generation (communication does not keep up)" \
  "awk '\$1 ~ /^dgx-/ { m[\$1] = \$15 } END { exit !(m[\"dgx-a100\"] > m[\"dgx-h100\"] && m[\"dgx-h100\"] > m[\"dgx-b200\"]) }' '$T/gen.txt'"
ONE="--set sweep.key= --set sweep.values="
# shellcheck disable=SC2086
"$G" run "$S" $ONE >"$T/gen1.txt"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set train.gpu=h200 >"$T/h200.txt"
# shellcheck disable=SC2086
"$G" run "$S" $ONE >"$T/h100.txt"
check "train.gpu h200 on dgx-h100: H200's compute is H100's (989 TFLOPS), and the line names it" \
  "grep -q 'MFU of 989 TFLOPS (H200 SXM 141 GB)' '$T/h200.txt' && [ \"\$(grep -o 'compute [0-9.]* ms' '$T/h200.txt')\" = \"\$(grep -o 'compute [0-9.]* ms' '$T/h100.txt')\" ]"
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set train.gpu_flops=1978e12 >"$T/f.txt"
check "train.gpu_flops in its place: twice H100's FLOP/s, half the compute" \
  "a=\$(grep -o 'compute [0-9.]* ms' '$T/h100.txt' | cut -d' ' -f2); b=\$(grep -o 'compute [0-9.]* ms' '$T/f.txt' | cut -d' ' -f2); grep -q 'MFU of 1978 TFLOPS (train.gpu_flops)' '$T/f.txt' && awk -v a=\"\$a\" -v b=\"\$b\" 'BEGIN { r = a / b; exit !(r > 1.999 && r < 2.001) }'"
bad() { # NAME PATTERN ARGS...: exit 2, one line naming the key, nothing on stdout
  name=$1
  pat=$2
  shift 2
  "$G" "$@" >"$T/b.txt" 2>"$T/b.err"
  check "$name" "[ \$? -eq 2 ] && [ ! -s '$T/b.txt' ] && [ \$(wc -l <'$T/b.err') -eq 1 ] && grep -q \"$pat\" '$T/b.err'"
}
# shellcheck disable=SC2086
bad "train.gpu without a compute estimate (train.mfu 0) is refused" "train.gpu: not used by this run: it sets the compute estimate" \
  run "$S" $ONE --set train.mfu=0 --set train.gpu=a100
# shellcheck disable=SC2086
bad "train.gpu beside train.gpu_flops is refused" "train.gpu: not used by this run: train.gpu_flops gives" \
  run "$S" $ONE --set train.gpu=a100 --set train.gpu_flops=1e15
# shellcheck disable=SC2086
bad "an unknown train.gpu lists the GPUs" "expected one of auto, v100, a100-40g, a100, h100, h200, b200, gb200" \
  run "$S" $ONE --set train.gpu=mi300
bad "train.gpu on a collective is refused" "applies to workload: step" \
  run scenarios/dgx-h100-allreduce.yaml --set train.gpu=a100

# train.precision fp8: the linear layers' GEMMs at the FP8 rate (H100:
# 1979 of 989 TFLOPS), attention at BF16's; the end-to-end MFU is quoted
# against the BF16 peak
# shellcheck disable=SC2086
"$G" run "$S" $ONE --set train.precision=fp8 >"$T/f8.txt"
check "fp8: compute = (BF16 compute - attention) x 989/1979 + attention, within 0.01 ms" \
  "a=\$(sed -n 's/.*compute \\([0-9.]*\\) ms (attention \\([0-9.]*\\) ms).*/\\1 \\2/p' '$T/gen1.txt'); b=\$(sed -n 's/.*compute \\([0-9.]*\\) ms (attention.*/\\1/p' '$T/f8.txt'); echo \"\$a \$b\" | awk '{ w = (\$1 - \$2) * 989 / 1979 + \$2; exit !(NF == 3 && w - \$3 < 0.06 && \$3 - w < 0.06) }'"
check "fp8: a shorter step, so a higher end-to-end MFU against the BF16 peak (27.5 -> 39.4 %)" \
  "a=\$(sed -n 's/.*end-to-end MFU \\([0-9.]*\\) %.*/\\1/p' '$T/gen1.txt'); b=\$(sed -n 's/.*end-to-end MFU \\([0-9.]*\\) %.*/\\1/p' '$T/f8.txt'); [ \"\$a\" = 27.5 ] && [ \"\$b\" = 39.4 ]"
bad "fp8 on an A100 is refused" "train.precision: the A100 SXM4 80 GB has no FP8 tensor cores" \
  run "$S" $ONE --set topology.preset=dgx-a100 --set train.precision=fp8
bad "fp8 beside train.gpu_flops is refused" "train.precision: fp8 takes train.gpu's FP8 FLOP/s" \
  run "$S" $ONE --set train.gpu_flops=1e15 --set train.precision=fp8
bad "train.precision without train.mfu is refused" "train.precision: not used by this run" \
  run "$S" $ONE --set train.mfu=0 --set train.precision=fp8

"$G" explain balance >"$T/bal.txt" 2>"$T/bal.err"
check "explain balance: one row per generation, V100 to GB200" \
  "[ ! -s '$T/bal.err' ] && [ \"\$(grep '^  ' '$T/bal.txt' | awk '{print \$1}' | tr '\n' ' ')\" = 'v100 a100-40g a100 h100 h200 b200 gb200 ' ]"
"$G" explain balance --format csv >"$T/bal.csv"
check "explain balance csv: FLOPs per byte are the ratios of its columns, the DP tokens (2/3) x FLOPS / NIC" \
  "awk -F, 'NR > 1 { if (\$4 * 1e12 / (\$6 * 1e12) - \$10 > 1 || \$4 * 1e12 / (\$6 * 1e12) - \$10 < -1) bad = 1; if (\$4 * 1e3 / \$9 - \$12 > 1 || \$4 * 1e3 / \$9 - \$12 < -1) bad = 1; t = 2 / 3 * \$4 * 1e3 / \$9; if (t - \$13 > 1 || t - \$13 < -1) bad = 1; n++ } END { exit !(n == 7 && !bad) }' '$T/bal.csv'"
check "explain balance: H100 19780 FLOPs per NIC byte, B200 45000" \
  "grep -q '^h100,.*,19780,13187\$' '$T/bal.csv' && grep -q '^b200,.*,45000,30000\$' '$T/bal.csv'"
bad "explain balance takes --format only" "takes --format only" explain balance --bytes 8
bad "explain balance: a bad --format" "expected table or csv" explain balance --format svg
tap_end
