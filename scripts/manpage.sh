#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/manpage.sh GCSIM > gcsim.1
#
# The manual page of gcsim in roff (man(7)), made from the help texts of the
# binary GCSIM: `gcsim --help` gives the synopsis and the list of commands,
# each `gcsim COMMAND --help` (and `gcsim hw SUBCOMMAND --help`) a section
# with the command's usage, description and options. The page therefore
# says what that binary accepts; `make` builds it next to the binary and
# `make install` installs it.
set -eu
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 GCSIM-BINARY > gcsim.1" >&2
	exit 2
fi
G=$1
# GLib's option parser writes "[OPTION...]" as "[OPTION?]" outside UTF-8
# locales; C keeps the text the same on every machine.
LC_ALL=C
export LC_ALL

# One help text (stdin) as roff. HEAD=top: its usage line is the synopsis
# and its text the description; otherwise its usage line heads a subsection.
# The help texts have two forms: GLib's ("Usage:" then the usage line, the
# summary, "Help Options:", "Application Options:") and gcsim's own for the
# command lists ("Usage: LINE", the text, "Commands:" or "Subcommands:").
help_to_roff() {
	awk -v head="$1" '
	function esc(s) { # backslashes, and hyphens as the ASCII ones of options
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		if (s ~ /^[.\047]/) # a line that begins with a dot or quote: text, not a request
			s = "\\&" s
		return s
	}
	function usage(u) {
		sub(/^ +/, "", u)
		gsub(/\[OPTION\?\]/, "[OPTION...]", u)
		if (head == "top")
			printf ".SH SYNOPSIS\n%s\n.SH DESCRIPTION\n", esc(u)
		else
			printf ".SS \"%s\"\n", esc(u)
	}
	function endpre() { if (pre) { print ".fi"; print ".RE"; pre = 0 } }
	BEGIN { mode = "text"; blank = 0 }
	mode == "usage-next" { if ($0 != "") { usage($0); mode = "text" } ; next }
	/^Usage:$/ { mode = "usage-next"; next }
	/^Usage: / { usage(substr($0, 8)); next }
	/^Help Options:$/ { endpre(); mode = "skip"; next }
	/^Application Options:$/ { endpre(); print ".PP"; print "Options:"; mode = "opts"; next }
	/^(Sub)?[Cc]ommands:$/ { endpre(); print ".PP"; print esc($0); mode = "list"; next }
	$0 == "" { endpre(); mode = "text"; blank = 1; next }
	mode == "skip" { next }
	mode == "opts" {
		# "  -f, --format=FMT     what it does" or "  --set=KEY=VALUE   ..."
		line = $0
		sub(/^ +/, "", line)
		short = ""
		if (line ~ /^-[A-Za-z0-9], /) { short = substr(line, 1, 2); line = substr(line, 5) }
		spec = line
		sub(/ .*/, "", spec)
		desc = substr(line, length(spec) + 1)
		sub(/^ +/, "", desc)
		name = spec; arg = ""
		if ((i = index(spec, "=")) > 0) { name = substr(spec, 1, i - 1); arg = substr(spec, i + 1) }
		print ".TP"
		printf "%s\\fB%s\\fR%s\n", short != "" ? "\\fB" esc(short) "\\fR, " : "", esc(name),
			arg != "" ? "=\\fI" esc(arg) "\\fR" : ""
		print esc(desc)
		next
	}
	mode == "list" {
		line = $0
		sub(/^ +/, "", line)
		name = line
		sub(/ .*/, "", name)
		desc = substr(line, length(name) + 1)
		sub(/^ +/, "", desc)
		print ".TP"
		print "\\fB" esc(name) "\\fR"
		print esc(desc)
		next
	}
	{ # text: a paragraph, or indented lines (examples) kept as they are
		if (blank) { endpre(); print ".PP"; blank = 0 }
		if ($0 ~ /^  /) {
			if (!pre) { print ".RS 2"; print ".nf"; pre = 1 }
			print esc(substr($0, 3))
		} else {
			endpre()
			print esc($0)
		}
	}
	END { endpre() }
	'
}

# The names of a command list ("Commands:" or "Subcommands:") in a help text.
list_names() {
	awk '/^(Sub)?[Cc]ommands:$/ { on = 1; next } on && $0 == "" { exit } on { print $1 }'
}

ver=$("$G" --version | awk '{ print $2 }')
top=$("$G" --help)
# "Predict the time of ..." as the name line's "predict the time of ..."
summary=$(printf '%s\n' "$top" | awk 'NR > 1 && $0 != "" {
	sub(/\.$/, ""); gsub(/-/, "\\-"); print tolower(substr($0, 1, 1)) substr($0, 2); exit }')

cat <<EOF
.\\" The manual page of gcsim, made by scripts/manpage.sh from the help
.\\" texts of gcsim $ver.
.TH GCSIM 1 "" "gcsim $ver" "User Commands"
.SH NAME
gcsim \\- $summary
EOF
printf '%s\n' "$top" | help_to_roff top
echo ".SH COMMANDS"
printf '%s\n' 'Every command takes \fB\-h\fR, \fB\-\-help\fR: its usage and options, as below.'
for c in $(printf '%s\n' "$top" | list_names); do
	h=$("$G" "$c" --help 2>&1) || true
	# a command without a help text of its own (version): its line above
	case $h in Usage*) ;; *) continue ;; esac
	printf '%s\n' "$h" | help_to_roff cmd
	for s in $(printf '%s\n' "$h" | list_names); do
		"$G" "$c" "$s" --help | help_to_roff cmd
	done
done
cat <<'EOF'
.SH EXIT STATUS
.TP
.B 0
success
.TP
.B 1
an internal error
.TP
.B 2
bad input: usage, a scenario or a value refused (with FILE:LINE:COLUMN where it comes from a file)
.TP
.B 3
missing hardware: no usable GPU, RDMA device or NCCL library (gcsim hw)
.TP
.B 4
an input or output failure (a file that cannot be read or written, a damaged results file)
.TP
.B 7
out of memory: an allocation the input asked for failed (the message names its size)
.SH FILES
.TP
.I PREFIX/share/gcsim/scenarios/
the scenarios installed with gcsim (make install), e.g.
.B gcsim run PREFIX/share/gcsim/scenarios/dgx\-h100\-allreduce.yaml
.SH SEE ALSO
README.md and docs/USAGE.md in gcsim's source tree: the scenario keys
(docs/SCENARIOS.md), the models (docs/MODELS.md) and worked studies.
EOF
