#!/bin/sh
# Install, idempotently, every Debian package memtrace needs to build, test,
# demo and benchmark itself. Enables bookworm-backports for the 6.12 kernel.
# The user-mode tests run real programs (tests/e2e/host-files.list: perl,
# python3, apt, sqlite3, zstd, openssl, coreutils, time) next to Valgrind
# Memcheck, which needs ld.so's debug file (libc6-dbg), and programs linked
# with jemalloc and tcmalloc (libjemalloc-dev, libgoogle-perftools-dev) and
# musl (musl-tools).  memtrace-read's report formats use jansson for --json
# (libjansson-dev), protobuf-c and zlib for --pprof (libprotobuf-c-dev,
# protobuf-c-compiler, zlib1g-dev); their tests check each format with its
# real consumer: a JSON Schema validator (python3-jsonschema), go tool pprof
# (golang-go), promtool (prometheus) and, for --svg's flame graph, a
# headless browser (chromium) with fonts to render its text
# (fonts-dejavu-core).  USDT probes are tested with a program built with
# <sys/sdt.h> (systemtap-sdt-dev).
# The kernels the guests boot: Debian's 6.1, 6.12 and 6.12 PREEMPT_RT
# (bookworm-backports) images and headers, linux-source-6.1 for the debug
# kernel, Debian sid's linux-source-7.2 for the newest kernel: that one
# .deb alone is downloaded from sid, into memtrace's cache, not installed
# (scripts/newest-kernel.sh --fetch), and Debian 11's 5.10 for the oldest:
# its image, headers and kbuild .debs from bullseye, the same way
# (scripts/bullseye-kernel.sh --fetch).  Both use a private apt state
# (scripts/apt-mirror.sh): the system's apt sources never name sid or
# bullseye.
set -eu

[ "$(id -u)" -eq 0 ] || { echo "deps: must run as root (apt-get)" >&2; exit 1; }

# shellcheck source=scripts/apt-mirror.sh
. "$(dirname "$0")/apt-mirror.sh"

BACKPORTS=/etc/apt/sources.list.d/memtrace-bookworm-backports.list
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	mirror=$(bookworm_mirror)
	if [ -z "$mirror" ]; then
		echo "deps: no 'bookworm' entry in apt's sources to take the mirror of bookworm-backports from" >&2
		exit 1
	fi
	echo "deb $mirror bookworm-backports main" >"$BACKPORTS"
fi

# Packages from bookworm proper.
PKGS="build-essential pkg-config bc bison flex libssl-dev libelf-dev libdw-dev
	elfutils kmod cpio gzip xz-utils busybox-static qemu-system-x86
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 dkms
	valgrind sparse python3 zstd openssl debootstrap e2fsprogs libcap-dev
	libc6-dbg libjemalloc-dev libgoogle-perftools-dev libmimalloc-dev musl-tools sqlite3 time
	redis-server redis-tools
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libjansson-dev python3-jsonschema golang-go
	libcapstone-dev libunwind-dev liblzma-dev
	prometheus chromium fonts-dejavu-core strace gdb systemtap-sdt-dev"
# The 6.12 kernel from bookworm-backports, and its PREEMPT_RT flavour.
BPO_PKGS="linux-image-amd64 linux-headers-amd64"
BPO_RT_PKGS="linux-image-rt-amd64 linux-headers-rt-amd64"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
have_bpo=0 have_bpo_rt=0
for d in /usr/src/linux-headers-6.1[2-9]*-amd64; do
	case $d in
	*-rt-amd64) [ -d "$d" ] && have_bpo_rt=1 ;;
	*) [ -d "$d" ] && have_bpo=1 ;;
	esac
done

# sid's linux-source-7.2 (idempotent; a cached .deb is kept).  Only the
# 7.2 guest needs it, which make check does not run by default: a mirror
# without sid is a warning here, not a failed make deps.
"$(dirname "$0")/newest-kernel.sh" --fetch ||
	echo "deps: warning: no linux-source-7.2 from sid: the 7.2 guest cannot run" >&2

# bullseye's 5.10 image, headers and kbuild (idempotent: cached .debs
# are kept).  Only the 5.10 guest needs them: a mirror without bullseye
# is a warning, as for sid.
"$(dirname "$0")/bullseye-kernel.sh" --fetch ||
	echo "deps: warning: no 5.10 kernel from bullseye: the 5.10 guest cannot run" >&2

if [ -z "$missing" ] && [ "$have_bpo" -eq 1 ] && [ "$have_bpo_rt" -eq 1 ]; then
	echo "deps: all packages present"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# apt-get update only when something must be installed: keeps `make deps` fast.
apt-get update -q
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
if [ "$have_bpo" -eq 0 ]; then
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends -t bookworm-backports $BPO_PKGS
fi
if [ "$have_bpo_rt" -eq 0 ]; then
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends -t bookworm-backports $BPO_RT_PKGS
fi
echo "deps: done"
