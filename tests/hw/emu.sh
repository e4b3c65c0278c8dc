# Sourced by the test scripts that run gcsim on the CUDA emulation, after
# they cd to the repository root: tests/tap.sh, and E, gcsim built for the
# emulation (tests/hw/emu). `make all` (and so `make test`) builds it, so
# its absence is a failure, not a skip.
. tests/tap.sh
E=${BUILD:-build}/tests/hw/gcsim-emu
if [ ! -x "$E" ]; then
	nok "$E is built (make all builds it)"
	tap_end
	exit 1
fi
