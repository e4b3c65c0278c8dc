# Sourced by the test scripts written in Python (after they cd to the
# repository root): the gcsim under test in G, and a TAP skip, ending the
# script, where python3 is not installed.
G=${GCSIM:-build/gcsim}
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not installed"
	exit 0
fi
