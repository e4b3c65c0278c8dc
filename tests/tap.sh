# Shared by the shell test scripts (sourced after they cd to the repository
# root): the gcsim under test, a scratch folder removed on exit, and TAP.
#   ok NAME / nok NAME    one result
#   check NAME COND       ok if the shell condition COND holds
#   tap_end               the plan, and a status that says whether all passed
G=${GCSIM:-build/gcsim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }
tap_end() { echo "1..$n"; [ "$fails" -eq 0 ]; }
