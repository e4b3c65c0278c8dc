#!/bin/sh
# make install and make uninstall: the installed gcsim runs an installed
# scenario from any folder, its man page renders, its bash completion is
# valid bash and completes commands, options and scenario files, DESTDIR
# stages an installation, and uninstall removes what install wrote. It
# installs the binary the suite runs ($BUILD/gcsim, as make test sets it)
# and never rebuilds it (make -o). TAP output.
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
R=$PWD
B=${BUILD:-build}
case $B in /*) ;; *) B=$R/$B ;; esac
if [ ! -x "$B/gcsim" ] || ! command -v make >/dev/null 2>&1; then
  ok "# SKIP no $B/gcsim to install (build it first) or no make"
  tap_end
  exit
fi
# make install, with the binary of $B taken as it is
inst() { make -s -C "$R" -o "$B/gcsim" BUILD="$B" "$@"; }

P=$T/inst
inst install PREFIX="$P" >"$T/make.out" 2>&1
rc=$?
check "make install PREFIX=... exits 0" "[ $rc -eq 0 ] || { sed 's/^/# /' '$T/make.out'; false; }"
check "it installs the suite's binary, not a rebuilt one" "cmp -s '$B/gcsim' '$P/bin/gcsim' && [ -x '$P/bin/gcsim' ]"
nscen=$(find scenarios -name '*.yaml' | wc -l)
check "the man page, the completion and all $nscen scenarios" \
  "[ -s '$P/share/man/man1/gcsim.1' ] && [ -s '$P/share/bash-completion/completions/gcsim' ] && [ \$(find '$P/share/gcsim/scenarios' -name '*.yaml' | wc -l) -eq $nscen ] && [ -s '$P/share/gcsim/scenarios/taxonomy/inter-8B.yaml' ]"

# --- the installed gcsim, from other folders ------------------------------------
(cd / && "$P/bin/gcsim" run "$P/share/gcsim/scenarios/dgx-h100-allreduce.yaml") >"$T/run.txt" 2>"$T/run.err"
rc=$?
check "from /: gcsim run on an installed scenario exits 0, nothing on stderr" "[ $rc -eq 0 ] && [ ! -s '$T/run.err' ]"
check "and prints the points of the repository's scenario" \
  "sed 1d tests/golden/dgx-h100-allreduce.txt >'$T/want' && sed 1d '$T/run.txt' | diff -u '$T/want' - >'$T/diff' || { sed 's/^/# /' '$T/diff'; false; }"
mkdir "$T/elsewhere"
(cd "$T/elsewhere" && ../inst/bin/gcsim run ../inst/share/gcsim/scenarios/dgx-h100-allreduce.yaml) >"$T/run2.txt" 2>&1
rc=$?
check "from another folder, by relative paths: the same points" "[ $rc -eq 0 ] && sed 1d '$T/run2.txt' | cmp -s '$T/want' -"
(cd "$T/elsewhere" && PATH="$P/bin:$PATH" gcsim explain --scenario "$P/share/gcsim/scenarios/taxonomy/inter-8B.yaml") >"$T/ex.txt" 2>&1
rc=$?
check "gcsim on PATH: an installed taxonomy scenario's explain study" "[ $rc -eq 0 ] && [ -s '$T/ex.txt' ] || { sed 's/^/# /' '$T/ex.txt'; false; }"

# --- the man page -----------------------------------------------------------------
M=$P/share/man/man1/gcsim.1
if command -v groff >/dev/null 2>&1; then
  groff -man -Tutf8 -ww -z "$M" >"$T/groff.err" 2>&1
  rc=$?
  check "groff reads the man page without a warning" "[ $rc -eq 0 ] && [ ! -s '$T/groff.err' ] || { sed 's/^/# /' '$T/groff.err'; false; }"
else
  ok "# SKIP no groff to check the man page with"
fi
if command -v man >/dev/null 2>&1; then
  MANWIDTH=100 man -l "$M" >"$T/man.txt" 2>"$T/man.err"
  rc=$?
  check "man -l renders it: NAME, SYNOPSIS, the commands, EXIT STATUS" \
    "[ $rc -eq 0 ] && grep -q '^NAME' '$T/man.txt' && grep -q '^SYNOPSIS' '$T/man.txt' && grep -q '^EXIT STATUS' '$T/man.txt' && grep -q 'gcsim - predict the time' '$T/man.txt'"
  missing=
  for c in $("$G" --help | awk '/^Commands:$/ { on = 1; next } on && $0 == "" { exit } on && $1 != "version" { print $1 }'); do
    grep -q "^   gcsim $c " "$T/man.txt" || missing="$missing $c"
  done
  check "a section per command, from its --help (missing:${missing:- none})" "[ -z '$missing' ]"
  check "the options as the help gives them (sweep --plot, --x)" \
    "grep -q -- '-p, --plot=FILE.svg' '$T/man.txt' && grep -q -- '--x=KEY' '$T/man.txt' && grep -q '^   gcsim hw calibrate ' '$T/man.txt'"
else
  ok "# SKIP no man to render the man page with"
fi

# --- bash completion --------------------------------------------------------------
C=$P/share/bash-completion/completions/gcsim
if command -v bash >/dev/null 2>&1; then
  check "the completion is valid bash" "bash -n '$C'"
  mkdir -p "$T/comp/sub"
  : >"$T/comp/a.yaml"
  : >"$T/comp/b.txt"
  # complete WORD...: what _gcsim offers for the last word of gcsim WORD...
  cat >"$T/complete.sh" <<'EOF'
. "$1"
shift
COMP_WORDS=(gcsim "$@")
COMP_CWORD=$#
_gcsim
printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
EOF
  comp() { (cd "$T/comp" && bash "$T/complete.sh" "$C" "$@"); }
  check "commands" "[ \"\$(comp sw)\" = 'sweep ' ] && [ \"\$(comp '')\" = '--help --version explain hw models run sweep validate version ' ]"
  check "a command's options" "[ \"\$(comp sweep --pl)\" = '--plot ' ] && [ \"\$(comp run --tr)\" = '--trace ' ]"
  check "hw's subcommands and their options" "[ \"\$(comp hw cal)\" = 'calibrate ' ] && [ \"\$(comp hw calibrate --fr)\" = '--from ' ]"
  check "scenario files: folders, *.yaml" "[ \"\$(comp run '')\" = 'a.yaml sub ' ] && [ \"\$(comp sweep x.yaml --x topology.nodes '')\" = 'a.yaml sub ' ]"
  check "files after an option that takes one (--results F, --results=F)" \
    "[ \"\$(comp sweep a.yaml --results b)\" = 'b.txt ' ] && [ \"\$(comp sweep a.yaml --results = b)\" = 'b.txt ' ]"
  check "nothing after an option with a value gcsim cannot list" "[ \"\$(comp sweep a.yaml --x '')\" = ' ' ]"
else
  ok "# SKIP no bash to check the completion with"
fi

# --- DESTDIR, uninstall -----------------------------------------------------------
inst install PREFIX=/opt/gcsim DESTDIR="$T/stage" >"$T/stage.out" 2>&1
rc=$?
check "DESTDIR stages the installation under it" \
  "[ $rc -eq 0 ] && [ -x '$T/stage/opt/gcsim/bin/gcsim' ] && [ -s '$T/stage/opt/gcsim/share/man/man1/gcsim.1' ] && [ ! -e /opt/gcsim/bin/gcsim ]"
inst uninstall PREFIX="$P" >"$T/un.out" 2>&1
rc=$?
check "make uninstall removes every file install wrote" \
  "[ $rc -eq 0 ] && [ -z \"\$(find '$P' -type f)\" ] && [ ! -e '$P/share/gcsim' ]"

tap_end
