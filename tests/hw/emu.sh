# Sourced by the test scripts that run gcsim on the CUDA emulation, after
# they cd to the repository root: tests/tap.sh, and E, gcsim built for the
# emulation (tests/hw/emu); without it, an empty plan that says why.
. tests/tap.sh
E=${BUILD:-build}/tests/hw/gcsim-emu
if [ ! -x "$E" ]; then
	echo "1..0 # SKIP $E not built"
	exit 0
fi
