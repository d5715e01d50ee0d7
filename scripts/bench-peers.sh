#!/bin/bash
# Benchmark memtrace's peers (issue 5) in the same kind of qemu TCG guest
# as `make bench`: BCC's memleak (memleak-bpfcc, kernel and -p user mode),
# Valgrind Memcheck and heaptrack, on the loops `make bench` uses
# (memtrace_bench.ko's kmalloc+kfree pairs, mallocbench's malloc+free pairs)
# and on a realistic allocator-heavy program. Prints a markdown table and
# writes it to docs/benchmarks-peers.md. Benchmarks report; they never fail
# on a number.
#
# usage: scripts/bench-peers.sh [--rootfs-only] [--no-doc]
#   --rootfs-only   build (or find) the cached root filesystem and stop
#   --no-doc        print the tables, do not write docs/benchmarks-peers.md
#   --from-console FILE   make the tables from a saved console log
#                   (build/logs/bench-peers-console.log) instead of booting
#
# The peers need a real Debian root filesystem (python3, BCC and LLVM, the
# guest kernel's headers, valgrind, heaptrack): it is made once with
# debootstrap and cached, as an ext4 image, OUTSIDE the repository:
#   $MEMTRACE_CACHE/bench-rootfs-<key>/rootfs.ext4 (default ~/.cache/memtrace)
# <key> hashes the package list, the suite, the kernel headers' version and
# ROOTFS_FORMAT below: change any and the image is rebuilt (older
# bench-rootfs-* are then removed). The image is never written: qemu boots
# it with snapshot=on. Build: ~ a few minutes and ~1.5 GB of downloads the
# first time (docs/benchmarks-peers.md has the last measured figures).
#
# Each run builds memtrace.ko, memtrace_bench.ko and the test programs for
# the 6.1 kernel, packs them with tests/bench/peers/*.sh into a small busybox
# initramfs that loads virtio_blk and ext4, mounts /dev/vda (the image),
# copies its payload to /opt/memtrace-bench there and switch_roots into
# tests/bench/peers/init.sh, which measures and prints "# BENCH name value"
# lines on the serial console, then reboots.
#
# Environment:
#   MEMTRACE_CACHE          cache root (default ~/.cache/memtrace)
#   MEMTRACE_DEBIAN_MIRROR  debootstrap/apt mirror (default: the one apt's
#                           sources name for bookworm)
#   PEERS_TIMEOUT           whole qemu run in seconds (default 5400)
#   PEERS_KEEP=1            keep the temporary initramfs tree and console log
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

rootfs_only=0 write_doc=1 from_console=''
while [ $# -gt 0 ]; do
	case $1 in
	--from-console) from_console=$(readlink -f "$2"); shift ;;
	--rootfs-only) rootfs_only=1 ;;
	--no-doc) write_doc=0 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-peers: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

log() { echo "bench-peers: $*" >&2; }
die() { echo "bench-peers: error: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot)"
kver=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | sort -V | tail -n1 | cut -d/ -f4)
[ -n "$kver" ] || die "no 6.1 kernel headers: make deps"
[ -r "/boot/vmlinuz-$kver" ] || die "no /boot/vmlinuz-$kver: make deps"
[ -d "/lib/modules/$kver/kernel" ] || die "no /lib/modules/$kver/kernel (linux-image-$kver): make deps"
missing=""
for t in debootstrap mke2fs chroot qemu-system-x86_64 busybox cpio gzip flock sha256sum; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] || die "missing:$missing (run: make deps)"

cache=${MEMTRACE_CACHE:-${HOME:-/root}/.cache/memtrace}
# shellcheck source=scripts/apt-mirror.sh
. "$top/scripts/apt-mirror.sh"
mirror=${MEMTRACE_DEBIAN_MIRROR:-$(bookworm_mirror)}
[ -n "$mirror" ] || die "no bookworm mirror in apt's sources: set MEMTRACE_DEBIAN_MIRROR"
suite=bookworm
# Bump when the way the image is made changes (not the package list: that
# is in the key already).
ROOTFS_FORMAT=1
# The guest kernel is the host's /boot/vmlinuz-$kver: its headers must be
# the same Debian version in the image.
hdrver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null) ||
	die "linux-headers-$kver is not installed on the host: make deps"
PKGS="bpfcc-tools python3 python3-bpfcc linux-headers-$kver valgrind libc6-dbg
	heaptrack coreutils kmod procps zstd"
pkg_key=$(printf '%s\n' "$suite" "$ROOTFS_FORMAT" "linux-headers-$kver=$hdrver" $PKGS |
	sha256sum | cut -c1-12)
rdir=$cache/bench-rootfs-$pkg_key
image=$rdir/rootfs.ext4

# ------------------------------------------------------------------ rootfs
build_rootfs() {
	local tree=$rdir/tree t0 t1 mib size
	t0=$(date +%s)
	log "building the root filesystem $rdir (key $pkg_key): debootstrap $suite"
	rm -rf "$rdir"
	mkdir -p "$rdir"
	# minbase first: bookworm-security (the kernel headers) is another
	# archive than the one debootstrap takes, so the packages come from
	# apt inside the tree.
	debootstrap --variant=minbase "$suite" "$tree" "$mirror" >"$rdir/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$rdir/debootstrap.log" >&2; die "debootstrap failed (log: $rdir/debootstrap.log)"; }
	cat >"$tree/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main
EOF
	mount -t proc proc "$tree/proc"
	# shellcheck disable=SC2064 # expand now
	trap "umount '$tree/proc' 2>/dev/null || true" EXIT
	log "apt-get install $(echo $PKGS) (log: $rdir/apt.log)"
	# shellcheck disable=SC2086 # a list
	if ! chroot "$tree" /usr/bin/env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
		sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends \
			$(echo $PKGS) linux-headers-$kver=$hdrver && apt-get clean" \
		>"$rdir/apt.log" 2>&1; then
		tail -n 30 "$rdir/apt.log" >&2
		umount "$tree/proc" || true
		die "apt-get install in the tree failed (log: $rdir/apt.log)"
	fi
	umount "$tree/proc"
	trap - EXIT
	rm -rf "$tree"/var/lib/apt/lists/* "$tree"/var/cache/apt/*.bin
	[ -e "$tree/lib/modules/$kver/build/Makefile" ] ||
		die "the tree has no /lib/modules/$kver/build (linux-headers-$kver)"
	echo "bench-rootfs" >"$tree/etc/hostname"
	mkdir -p "$tree/opt/memtrace-bench"
	# ext4 image straight from the directory (mke2fs -d: no loop mount),
	# with 1 GiB free for the benchmarks' files.
	mib=$(du -sm "$tree" | cut -f1)
	size=$((mib * 12 / 10 + 1024))
	t1=$(date +%s)
	log "tree: $mib MiB in $((t1 - t0)) s; mke2fs -d into a $size MiB image"
	rm -f "$image"
	truncate -s "${size}M" "$image.tmp"
	mke2fs -q -F -t ext4 -L bench-root -d "$tree" "$image.tmp" >"$rdir/mke2fs.log" 2>&1 ||
		{ cat "$rdir/mke2fs.log" >&2; die "mke2fs -d failed"; }
	mv "$image.tmp" "$image"
	rm -rf "$tree"
	{
		echo "key $pkg_key"
		echo "packages $(echo $PKGS)"
		echo "linux-headers-$kver $hdrver"
		echo "tree_mib $mib"
		echo "image_mib $size"
		echo "image_disk_mib $(du -m "$image" | cut -f1)"
		echo "build_s $(($(date +%s) - t0))"
		echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$rdir/info"
	touch "$rdir/.complete"
	log "built in $(($(date +%s) - t0)) s: $image ($(du -m "$image" | cut -f1) MiB on disk)"
	local d
	for d in "$cache"/bench-rootfs-*; do
		[ -d "$d" ] && [ "$d" != "$rdir" ] || continue
		log "removing older image $d"
		rm -rf "$d"
	done
}

mkdir -p "$cache"
exec 9>"$cache/bench-rootfs.lock"
if ! flock -n 9; then
	log "another build holds $cache/bench-rootfs.lock; waiting"
	flock 9
fi
if [ -f "$rdir/.complete" ] && [ -f "$image" ]; then
	log "cached: $image (key $pkg_key)"
else
	build_rootfs
fi
[ "$rootfs_only" = 0 ] || { echo "$image"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/memtrace-peers.XXXXXX")
if [ "${PEERS_KEEP:-0}" = 1 ]; then
	log "keeping $work"
else
	trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM
mem=${PEERS_MEM:-3072}
if [ -n "$from_console" ]; then
	cp "$from_console" "$work/con" || die "cannot read $from_console"
else

# ------------------------------------------------------------ the payload
# Build outputs of our own (build/peers-*), not those `make bench` uses at
# the same time.
make -s module KVER="$kver"
make -s userspace
make -s -C tests/progs O="$top/build/peers-progs"
tests/guest/build-test-module.sh "/lib/modules/$kver/build" "build/testkmod-$kver" >/dev/null

ird=$work/initramfs
mkdir -p "$ird"/{bin,proc,sys,dev,newroot,modules,payload/bin,payload/ko,payload/lib}
cp "$(command -v busybox)" "$ird/bin/busybox"
ln -s busybox "$ird/bin/sh"
cp tests/bench/peers/initramfs-init.sh "$ird/init"
chmod 0755 "$ird/init"
# virtio_blk, virtio_pci and ext4 (with crc32c, which ext4 asks the crypto
# API for at mount time: nothing in the initramfs could modprobe it), in
# dependency order.
for m in virtio_pci virtio_blk crc32c_generic ext4; do
	modprobe --show-depends -S "$kver" "$m" || die "modprobe --show-depends $m"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$work/modules"
while read -r m; do
	cp "$m" "$ird/modules/"
	echo "${m##*/}"
done <"$work/modules" >"$ird/modules.list"
pl=$ird/payload
cp tests/bench/peers/init.sh tests/bench/peers/alloc.pl "$pl/"
chmod 0755 "$pl/init.sh"
cp "build/kmod-$kver/memtrace.ko" "build/testkmod-$kver/memtrace_bench.ko" "$pl/ko/"
cp build/user/memtrace-read build/peers-progs/mallocbench build/peers-progs/ufnoffset \
	"$(command -v busybox)" "$pl/bin/"
# memtrace-read's libraries (the image has most; init.sh adds the others)
ldd build/user/memtrace-read | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	grep -v -e '/libc\.so' | xargs -r cp -L -t "$pl/lib/"
{
	# sizes: a traced pair costs tens of microseconds under TCG
	echo "KPAIRS=100000 KROUNDS=5"
	echo "UPAIRS_UNTRACED=1000000 UPAIRS_TRACED=10000 UPAIRS_TOOL=100000"
	echo "PERL_N=${PEERS_PERL_N:-20000} REPS=3 ATTACH_TIMEOUT=2400"
	[ -z "${PEERS_PARTS:-}" ] || echo "PARTS='$PEERS_PARTS'"
} >"$pl/peers.conf"
(cd "$ird" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$work/initrd" || die "cpio"

# PVH boot of the uncompressed vmlinux (as tests/guest/run-guest.sh does,
# sharing its cache build/guest-cache): a compressed bzImage spends seconds
# in its decompressor under TCG.
img=/boot/vmlinuz-$kver
vcache=$top/build/guest-cache
vmlinux=$vcache/vmlinux-${img##*/}-$(readlink -f "$img" | md5sum | cut -c1-8)-$(stat -L -c '%s-%Y' "$img")
if [ ! -s "$vmlinux" ]; then
	mkdir -p "$vcache"
	for dec in 'xz -dc:\xfd7zXZ\x00' 'zstd -dc:\x28\xb5\x2f\xfd' 'gzip -dc:\x1f\x8b\x08'; do
		magic=${dec#*:} dec=${dec%%:*}
		for off in $(LC_ALL=C grep -obUaP "$magic" "$img" 2>/dev/null | cut -d: -f1 | head -n 5); do
			tail -c +$((off + 1)) "$img" | $dec >"$vmlinux.tmp$$" 2>/dev/null || :
			if head -c 4 "$vmlinux.tmp$$" | grep -q ELF; then
				mv "$vmlinux.tmp$$" "$vmlinux"
				break 2
			fi
		done
	done
	rm -f "$vmlinux.tmp$$"
fi
boot=$img
[ -s "$vmlinux" ] && boot=$vmlinux

# ------------------------------------------------------------------- qemu
mkdir -p build/logs
console=$work/console.log
cmdline="console=ttyS0,115200 panic=-1 loglevel=4 printk.time=1 rdinit=/init tsc=reliable"
# -icount shift=0,sleep=off: the guest clock advances 1 ns per instruction
# executed (and jumps over idle time), so every "ns" the guest measures is
# an instruction count, the same run to run; one vCPU, as make bench's
# headline boot.  Start-up "seconds" are then billions of instructions.
log "booting $kver with $image (snapshot=on), ${mem} MiB; console: build/logs/bench-peers-console.log"
t0=$(date +%s)
# thread=single, sockets=2: as tests/guest/run-guest.sh (see there).
timeout -k 10 "${PEERS_TIMEOUT:-5400}" qemu-system-x86_64 \
	-accel tcg,thread=single -cpu max -smp 1,sockets=1 -m "$mem" \
	-icount shift=0,sleep=off \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial "file:$console" \
	-drive "file=$image,if=virtio,format=raw,snapshot=on" \
	-kernel "$boot" -initrd "$work/initrd" -append "$cmdline" \
	</dev/null >"$work/qemu.log" 2>&1 || log "qemu exited $? ($(tail -n 3 "$work/qemu.log" | tr '\n' ' '))"
t1=$(date +%s)
tr -d '\r' <"$console" | sed -E 's/^(\[[ 0-9.]+\] ?)+//' >"$work/con"
cp "$work/con" build/logs/bench-peers-console.log
log "guest ran $((t1 - t0)) s"
grep -q '^# BENCH-DONE' "$work/con" || {
	log "the guest did not finish; last console lines:"
	tail -n 30 "$work/con" >&2
}
grep '^# BENCH' "$work/con" >&2
fi

# ----------------------------------------------------------------- tables
val() { sed -n "s/^# BENCH $1 //p" "$work/con" | head -n1; }
# ratio X BASE: X / BASE as "N.NNx" ("" if either is missing)
ratio() { awk -v x="$1" -v b="$2" 'BEGIN { if (x == "" || b == "") exit; if (b > 0) printf "%.2fx", x / b; else printf "n/a" }'; }
# added X BASE: X - BASE
added() { awk -v x="$1" -v b="$2" 'BEGIN { if (x != "" && b != "") printf "%d", x - b }'; }
q() { echo "${1:-?}"; }
startup() {	# startup NAME: "attach s / ready s"
	local a r
	a=$(val "$1-attach-s") r=$(val "$1-ready-s")
	[ -n "$a" ] || { echo ""; return; }
	echo "$a / ${r:-?}"
}

# Target (issue 14): memtrace's added cost at most 1/10 of BCC memleak's,
# full stacks both, kernel and -p: "added / memtrace's added" >= 10.
# tenfold X: "met" / "not met" / "?" for that ratio ("N.NNx")
tenfold() {
	case $1 in
	[0-9]*x) awk -v r="${1%x}" 'BEGIN { print (r >= 10 ? "met" : "not met") }' ;;
	*) echo "?" ;;
	esac
}
kpl=$(val k-untraced) kfl=$(val k-floor)
kadd() {	# kadd LABEL NAME [STARTUP [target]]: a kernel row
	local x a r="" m="" t="" tm=""
	x=$(val "$2")
	a=$(added "$x" "$kpl")
	[ "$2" = k-untraced ] && a=0
	[ -z "$x" ] || [ "$2" = k-untraced ] || r=$(ratio "$a" "$(added "$kfl" "$kpl")")
	case $2 in k-memleak*) m=$(ratio "$a" "$(added "$(val k-memtrace)" "$kpl")") ;; esac
	[ -z "${4:-}" ] || { t=">= 10x (memtrace <= 1/10)"; tm=$(tenfold "$m"); }
	echo "| $1 | $(q "$x") | ${a} | $r | $m | $t | $tm | ${3:-} |"
}
ktable=$(
	echo "| kmalloc(64)+kfree pair | instructions/pair | added | added / floor's added | added / memtrace's added | target | | start-up: \"Attaching\" / idle (G instructions) |"
	echo "|---|---|---|---|---|---|---|---|"
	kadd "untraced" k-untraced
	kadd "empty tracepoint probe (floor)" k-floor
	kadd "memtrace-read --kernel-leaks (full stacks)" k-memtrace "$(startup k-memtrace)"
	kadd "memleak-bpfcc (full stacks)" k-memleak "$(startup k-memleak)" target
	kadd "memleak-bpfcc -s 100" k-memleak-s100 "$(startup k-memleak-s100)"
)

upl=$(val u-untraced) ufl=$(val u-floor)
uadd() {	# uadd LABEL NAME PAIRS [STARTUP [floor-ratio [target]]]
	local x f="" m="" t="" tm=""
	x=$(val "$2")
	[ -z "${5:-}" ] || f=$(ratio "$(added "$x" "$upl")" "$(added "$ufl" "$upl")")
	if [ -n "${6:-}" ]; then
		m=$(ratio "$(added "$x" "$upl")" "$(added "$(val u-memtrace)" "$upl")")
		t=">= 10x (memtrace <= 1/10)" tm=$(tenfold "$m")
	fi
	echo "| $1 | $3 | $(q "$x") | $(ratio "$x" "$upl") | $f | $m | $t | $tm | ${4:-} |"
}
utable=$(
	echo "| malloc(32)+free pair (mallocbench) | pairs a round | instructions/pair | slowdown | added / floor's added | added / memtrace's added | target | | start-up: \"Attaching\" / idle (G instructions) |"
	echo "|---|---|---|---|---|---|---|---|---|"
	uadd "untraced" u-untraced 1000000
	uadd "untraced" u-untraced-small 10000
	uadd "empty uprobes on malloc, its return, free (floor)" u-floor 10000 "" 1
	uadd "memtrace-read -c (full stacks; ret-instruction probes)" u-memtrace 10000 "" 1
	uadd "memtrace-read -c --returns=uretprobe (full stacks)" u-memtrace-uretprobe 10000 "" 1
	uadd "memleak-bpfcc -p (full stacks)" u-memleak 10000 "$(startup u-memleak)" 1 target
	uadd "valgrind --tool=memcheck --leak-check=full" u-valgrind 100000
	uadd "heaptrack" u-heaptrack 100000
)

ppl=$(val p-untraced)
padd() {	# padd LABEL NAME [STARTUP]
	local x
	x=$(val "$2")
	echo "| $1 | $(q "$x") | $(ratio "$x" "$ppl") | ${3:-} |"
}
ptable=$(
	echo "| perl alloc.pl $(val perl-n) | M instructions | slowdown | start-up: \"Attaching\" / idle (G instructions) |"
	echo "|---|---|---|---|"
	padd "untraced" p-untraced
	padd "memtrace-read -c (full stacks)" p-memtrace
	padd "memleak-bpfcc -p (full stacks; from SIGCONT, start-up apart)" p-memleak-wall-ms "$(startup p-memleak)"
	padd "valgrind --tool=memcheck --leak-check=full" p-valgrind
	padd "heaptrack" p-heaptrack
)

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
doc=$(
	echo "# memtrace and its peers"
	echo
	echo "Measured $(date -u +%Y-%m-%d) by \`scripts/bench-peers.sh\` on a $(nproc)-core host ($cpu),"
	echo "guest: Debian kernel $kver under qemu TCG with -icount shift=0,sleep=off:"
	echo "the guest's clock advances 1 ns per instruction, so every time below is an"
	echo "instruction count (ns = instructions, s = G instructions), the same run to"
	echo "run. Instructions are not cycles: atomics, popf, traps and cache misses"
	echo "cost more on hardware. 1 vCPU, ${mem} MiB,"
	echo "clocksource tsc (tsc=reliable), root filesystem: a Debian bookworm image"
	echo "made by debootstrap ($(sed -n 's/^packages //p' "$rdir/info"); $(sed -n 's/^tree_mib //p' "$rdir/info") MiB,"
	echo "built in $(sed -n 's/^build_s //p' "$rdir/info") s, cached outside the repository). All numbers of one table come from one boot."
	echo
	echo "## Kernel allocation tracing: cost per kmalloc+kfree pair"
	echo
	echo "memtrace_bench.ko's in-kernel loop of 100000 kmalloc(64)+kfree pairs, the"
	echo "median of 5, as in docs/benchmarks.md; memleak-bpfcc without -p traces"
	echo "the kmem tracepoints (kmalloc, kfree, kmem_cache_*, mm_page_*) with a"
	echo "kernel stack id per allocation. Start-up: guest seconds (G instructions)"
	echo "from launching the tool to its \"Attaching\" line, and to its going idle"
	echo "(its CPU time unchanged for 2 s: attached), polled every 0.2 s and 1 s (make"
	echo "bench's profile boot times memtrace-read's own start-up exactly). BCC"
	echo "compiles its BPF C program with LLVM at each start. Target (issue 14):"
	echo "memtrace's added cost at most 1/10 of memleak's, full stacks both."
	echo
	echo "$ktable"
	echo
	echo "## User allocation tracing: slowdown of a malloc(32)+free loop"
	echo
	echo "tests/progs/mallocbench.c times its own loop (median of 5 rounds after a"
	echo "warm-up), so the tools' own start-up is not in the per-pair figure; median of 3 runs,"
	echo "but one run under memleak-bpfcc -p (each run would compile again). For -p"
	echo "mallocbench starts with --wait-usr1 and is signalled once memleak is idle"
	echo "(attached). Slowdown: instructions per pair over the untraced 1000000-pair runs."
	echo
	echo "$utable"
	echo
	echo "## A realistic allocator-heavy program"
	echo
	echo "perl (Debian's perl calls glibc's malloc for every SV, array and hash"
	echo "entry) running tests/bench/peers/alloc.pl: a hash of N keys, each with a"
	echo "two-element array, sorted by value; some 4 malloc+free pairs per key."
	echo "Guest time of the whole command, i.e. its instructions and those of"
	echo "all that ran meanwhile (start-up of valgrind and heaptrack included;"
	echo "memtrace-read -c starts the program itself and includes its own"
	echo "start-up and its report). memleak-bpfcc -p needs a running process:"
	echo "a shell stops itself, memleak attaches to it, SIGCONT, and it execs perl"
	echo "(same pid, the uprobes stay); its count runs from SIGCONT, so memleak's"
	echo "start-up is not in it. Valgrind: one run; the others the median of 3."
	echo
	echo "$ptable"
	echo
	echo '```'
	grep '^# BENCHINFO' "$work/con" | sed 's/^# BENCHINFO //'
	echo '```'
)
echo
echo "$doc"
if [ "$write_doc" = 1 ]; then
	echo "$doc" >docs/benchmarks-peers.md
	log "written to docs/benchmarks-peers.md"
fi
