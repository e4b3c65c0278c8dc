#!/bin/sh
# The committed accuracy report (docs/VALIDATION.md, `make validate`) still
# holds: the sets named by PIN_SETS (default: every set, about a minute
# and a half) are predicted again and must give the committed summary rows
# (median and largest |error|), every point of their tables and their
# plots, byte for byte. A change that moves a prediction fails here until
# `make validate` regenerates the report and it is committed with the
# change. TAP output; GCSIM is set by `make test`.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh

sets=${PIN_SETS:-p5,p5ag,p5a2a,h100,b200,deepep,ref,moe}
# per set: its sections' ids and the start of their headings
ids=
heads=
for s in $(echo "$sets" | tr ',' ' '); do
	case $s in
	p5) ids="$ids p5-efa" heads="$heads|AWS p5 [(]EFA[)] allreduce" ;;
	p5ag) ids="$ids p5-efa-allgather" heads="$heads|AWS p5 [(]EFA[)] allgather" ;;
	p5a2a) ids="$ids p5-efa-alltoall" heads="$heads|AWS p5 [(]EFA[)] alltoall" ;;
	h100) ids="$ids h100-ib h100-node" heads="$heads|H100 nodes|One H100 node" ;;
	b200) ids="$ids b200-sendrecv" heads="$heads|B200 nodes" ;;
	deepep) ids="$ids deepep-normal" heads="$heads|DeepEP normal" ;;
	ref) ids="$ids nccl-reference" heads="$heads|Reference set" ;;
	moe) ids="$ids moe-published" heads="$heads|MoE dispatch" ;;
	*)
		echo "validation_pinned.t: PIN_SETS: unknown set '$s'" >&2
		exit 2
		;;
	esac
done
heads=${heads#|}

VALIDATE_ONLY=$sets sh validate/report.sh -o "$T/v" "$G" >/dev/null 2>"$T/err"
check "the sets $sets run" "[ \$? -eq 0 ] || { sed 's/^/# /' '$T/err'; false; }"
for s in $ids; do
	check "$s: its median and largest error are the committed ones" \
	  "grep '^| \\[$s\\]' docs/VALIDATION.md >'$T/a' && grep '^| \\[$s\\]' '$T/v/VALIDATION.md' >'$T/b' && cmp -s '$T/a' '$T/b' || { sed 's/^/# committed: /' '$T/a'; sed 's/^/# now:       /' '$T/b'; false; }"
	check "$s: its plot is the committed one" "cmp -s docs/validation/$s.svg '$T/v/validation/$s.svg'"
done
# the sections of those sets (heading to the next heading)
sections() {
	awk -v re="^## ($heads)" '/^## / { keep = $0 ~ re } keep' "$1"
}
sections docs/VALIDATION.md >"$T/c"
sections "$T/v/VALIDATION.md" >"$T/d"
check "every point of those sets is the committed one" \
  "[ -s '$T/c' ] && diff -u '$T/c' '$T/d' >'$T/diff' || { sed 's/^/# /' '$T/diff' | head -40; false; }"
tap_end
