#!/bin/sh
# The outputs docs/WHATIF.md and docs/TAXONOMY.md show are what gcsim
# prints now. Every block that is one `gcsim ...` command (lines joined at
# a trailing backslash) is run, and each line of the output block right
# after it (one that starts with '#') must be a line of the real output,
# or the start of one (the doc may cut columns); so must each line under
# a block's single "$ gcsim ..." line. Lines with an ellipsis are elided
# and skipped. TAP output; GCSIM is set by `make test`.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
for doc in docs/WHATIF.md docs/TAXONOMY.md; do
	# pairs: $T/cmd.K (the command) and $T/exp.K (the output shown)
	rm -f "$T"/cmd.* "$T"/exp.*
	awk -v dir="$T" '
		/^```/ { if (inb) { inb = 0; close_block() } else { inb = 1; nl = 0 } next }
		inb { line[++nl] = $0; next }
		function close_block(   i, cmd) {
			if (nl >= 1 && line[1] ~ /^gcsim /) {
				cmd = ""
				for (i = 1; i <= nl; i++) {
					l = line[i]
					cont = sub(/\\[ \t]*$/, "", l)
					cmd = cmd l
					if (!cont) break
				}
				if (i >= nl) { k++; print cmd > (dir "/cmd." k); close(dir "/cmd." k); want = k; return }
			}
			# "$ gcsim ..." and the output under it, in one block: one
			# command per block (a block with a second "$ " is skipped)
			if (nl >= 2 && line[1] ~ /^\$ gcsim /) {
				for (i = 2; i <= nl; i++) if (line[i] ~ /^\$ /) { want = 0; return }
				k++
				print substr(line[1], 3) > (dir "/cmd." k); close(dir "/cmd." k)
				for (i = 2; i <= nl; i++) print line[i] > (dir "/exp." k)
				close(dir "/exp." k)
				want = 0
				return
			}
			if (want && nl >= 1 && line[1] ~ /^#/) {
				for (i = 1; i <= nl; i++) print line[i] > (dir "/exp." want)
				close(dir "/exp." want)
			}
			want = 0
		}' "$doc"
	for c in "$T"/cmd.*; do
		[ -e "$c" ] || continue
		k=${c##*.}
		[ -e "$T/exp.$k" ] || continue
		cmd=$(cat "$c")
		sh -c "$(printf '%s' "$cmd" | sed "s|^gcsim |\"$G\" |")" >"$T/out" 2>"$T/err"
		rc=$?
		miss=$(awk 'FNR == NR { sub(/[ \t]+$/, ""); out[++no] = $0; next }
			{ sub(/[ \t]+$/, "") }
			$0 == "" || index($0, "...") { next }
			{ for (i = 1; i <= no; i++) if (index(out[i], $0) == 1) next; print; exit }' \
			"$T/out" "$T/exp.$k")
		if [ "$rc" -eq 0 ] && [ -z "$miss" ]; then
			ok "$doc: $cmd"
		else
			nok "$doc: $cmd (status $rc)"
			[ -z "$miss" ] || echo "# not in the output: $miss"
			sed 's/^/# /' "$T/err"
		fi
	done
done
tap_end
