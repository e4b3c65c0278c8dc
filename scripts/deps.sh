#!/bin/sh
# Install the Debian packages gcsim needs, if any is missing (with the
# argument peers, also those of make bench-peers). As root this
# runs apt-get; otherwise it prints the exact command and fails.
set -e
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v g++ >/dev/null 2>&1 || need="$need g++"
command -v make >/dev/null 2>&1 || need="$need make"
command -v prove >/dev/null 2>&1 || need="$need perl"
have_pc glib-2.0 || need="$need libglib2.0-dev"
have_pc yaml-0.1 || need="$need libyaml-dev"
have_pc sqlite3 || need="$need libsqlite3-dev"
[ -e /usr/include/infiniband/verbs.h ] || need="$need libibverbs-dev"
# Open MPI: gcsim sweep across the ranks of mpirun (optional to build: MPI=auto)
have_pc ompi-c || need="$need libopenmpi-dev"
command -v mpirun >/dev/null 2>&1 || need="$need openmpi-bin"
# make bench-peers (sh scripts/deps.sh peers): SimGrid's SMPI and GNU time
if [ "${1:-}" = peers ]; then
	command -v smpicc >/dev/null 2>&1 || need="$need libsimgrid-dev"
	[ -x /usr/bin/time ] || need="$need time"
fi
[ -z "$need" ] && exit 0
cmd="apt-get install -y --no-install-recommends$need"
if [ "$(id -u)" = 0 ]; then
	echo "gcsim: installing missing packages:$need"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && $cmd
else
	echo "gcsim: missing packages:$need" >&2
	echo "run as root:  apt-get update && $cmd" >&2
	exit 1
fi
