#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/completion.sh GCSIM > gcsim.bash
#
# Bash completion for gcsim, made from the help texts of the binary GCSIM:
# the commands (and hw's subcommands) from their lists in `gcsim --help` and
# `gcsim hw --help`, each command's options from its `--help`. It completes
# the command, the options of the command on the line, file names after an
# option whose value is a file, and scenario files (*.yaml, *.yml, folders)
# where a command takes a scenario. `make` builds it next to the binary and
# `make install` puts it where bash-completion finds it
# (share/bash-completion/completions/gcsim).
set -eu
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 GCSIM-BINARY > gcsim.bash" >&2
	exit 2
fi
G=$1
LC_ALL=C
export LC_ALL

# The names of a command list ("Commands:" or "Subcommands:") in a help text.
list_names() {
	awk '/^(Sub)?[Cc]ommands:$/ { on = 1; next } on && $0 == "" { exit } on { print $1 }'
}

# One command's case in the completion function, from its help text (stdin):
# opts (every option), files (options whose value is a file), scen (those
# whose file is a scenario), args (the options that take a value) and
# positional=scenario where the usage line names a SCENARIO.
command_case() {
	awk -v key="$1" '
	/^Usage:$/ { u = 1; next }
	u == 1 { pos = $0 ~ /SCENARIO/ ? "scenario" : ""; u = 2; next }
	/^Application Options:$/ || /^Help Options:$/ { on = 1; next }
	on && $0 == "" { on = 0; next }
	on {
		line = $0
		sub(/^ +/, "", line)
		if (line ~ /^-[A-Za-z0-9], /) { opts = opts " " substr(line, 1, 2); s = substr(line, 1, 2); line = substr(line, 5) }
		else s = ""
		spec = line
		sub(/ .*/, "", spec)
		desc = tolower(substr(line, length(spec) + 1))
		name = spec; arg = ""
		if ((i = index(spec, "=")) > 0) { name = substr(spec, 1, i - 1); arg = substr(spec, i + 1) }
		opts = opts " " name
		if (arg == "")
			next
		both = (s != "" ? s " " : "") name
		args = args " " both
		if (arg ~ /^(FILE|LOG|CAL|PATH|DIR)/) {
			if (arg ~ /^FILE/ && desc ~ /scenario/ && desc !~ /results|trace|csv|sqlite/)
				scen = scen " " both
			else
				files = files " " both
		}
	}
	END {
		printf "\t%s)\n", key ~ / / ? "\"" key "\"" : key
		printf "\t\topts=\"%s\"\n", substr(opts, 2)
		printf "\t\tfiles=\"%s\"\n", substr(files, 2)
		printf "\t\tscen=\"%s\"\n", substr(scen, 2)
		printf "\t\targs=\"%s\"\n", substr(args, 2)
		printf "\t\tpositional=%s\n", pos
		printf "\t\t;;\n"
	}'
}

top=$("$G" --help)
cmds=$(printf '%s\n' "$top" | list_names | tr '\n' ' ' | sed 's/ $//')

cat <<EOF
# bash completion for gcsim, made by scripts/completion.sh from the help
# texts of gcsim $("$G" --version | awk '{ print $2 }').

# Scenario files: folders, *.yaml and *.yml.
_gcsim_scenarios()
{
	local IFS=\$'\\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY=(\$(compgen -d -- "\$1") \$(compgen -f -X '!*.yaml' -- "\$1") \$(compgen -f -X '!*.yml' -- "\$1"))
}

_gcsim_files()
{
	local IFS=\$'\\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY=(\$(compgen -f -- "\$1"))
}

_gcsim()
{
	local cur=\${COMP_WORDS[COMP_CWORD]} prev= key opts= files= scen= args= positional=
	((COMP_CWORD > 0)) && prev=\${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=(\$(compgen -W "$cmds --help --version" -- "\$cur"))
		return
	fi
	key=\${COMP_WORDS[1]}
EOF
for c in $(printf '%s\n' "$top" | list_names); do
	h=$("$G" "$c" --help 2>&1) || true
	subs=$(printf '%s\n' "$h" | list_names | tr '\n' ' ' | sed 's/ $//')
	[ -n "$subs" ] || continue
	cat <<EOF
	if [ "\$key" = $c ]; then
		if ((COMP_CWORD == 2)); then
			COMPREPLY=(\$(compgen -W "$subs --help" -- "\$cur"))
			return
		fi
		key="$c \${COMP_WORDS[2]}"
	fi
EOF
done
cat <<'EOF'
	# --opt=value: bash splits it into --opt, = and value
	if [ "$cur" = = ]; then
		cur=
	elif [ "$prev" = = ] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	case $key in
EOF
for c in $(printf '%s\n' "$top" | list_names); do
	h=$("$G" "$c" --help 2>&1) || true
	case $h in Usage*) ;; *) continue ;; esac
	subs=$(printf '%s\n' "$h" | list_names)
	if [ -z "$subs" ]; then
		printf '%s\n' "$h" | command_case "$c"
	else
		for s in $subs; do
			"$G" "$c" "$s" --help | command_case "$c $s"
		done
	fi
done
cat <<'EOF'
	*) return ;;
	esac
	case " $scen " in *" $prev "*) _gcsim_scenarios "$cur"; return ;; esac
	case " $files " in *" $prev "*) _gcsim_files "$cur"; return ;; esac
	case " $args " in *" $prev "*) return ;; esac # a value gcsim cannot list
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [ "$positional" = scenario ]; then
		_gcsim_scenarios "$cur"
	fi
}
complete -F _gcsim gcsim
EOF
