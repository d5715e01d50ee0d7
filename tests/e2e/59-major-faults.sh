#!/bin/sh
# Major page faults, counted exactly: a file of N pages on ext4 (a loop
# device: the guest's own files are in RAM, where nothing faults in from
# storage), evicted from the page cache by a remount, is read by
# tests/progs/memgrowth majfaults through a MADV_RANDOM mapping from
# read_pages(): one page read from the disk per fault (the debug kernel
# has no madvise(): there its read-around makes fewer, larger reads).
# Three oracles that are not memtrace: the program's getrusage()
# ru_majflt, mincore() (none of the pages resident before), and
# /proc/vmstat's pgmajfault growth over the run (the guest's other files
# are in RAM: no other task can take a major fault).  --ffaults must name
# the file with exactly those major faults, --faults --unwind=cfi carry
# them under read_pages < run_majfaults < main.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
IMG=/tmp/majfaults-ext4.img
MNT=/mnt/majfaults
if ! ext4_image_mount "$IMG" "$MNT"; then
	not_ok "an ext4 image mounts on a loop device" "$(dmesg | tail -n 5)"
	unload_memtrace
	exit 0
fi
N=32
DAT=$MNT/majfaults.dat
majflt() {
	awk '$1 == "pgmajfault" { print $2 }' /proc/vmstat
}
# The file's pages out of the page cache: its file system mounted anew.
evict() {
	sync
	umount "$MNT" && mount -o loop -t ext4 "$IMG" "$MNT"
}
# The major faults the reading must take: one per page, unless read-around.
want_major() {
	if grep -q '^RANDOM 1$' "$1"; then
		echo "$N"
	else
		awk '$1 == "READ" && $8 >= 1 { print $8 }' "$1"
	fi
}
dd if=/dev/zero of="$DAT" bs=4096 count=$N 2>/dev/null
check "the file's pages leave the page cache (remount)" evict

OUT=/tmp/majfaults-ffaults.out
evict
v0=$(majflt)
memtrace-read --ffaults -- memgrowth majfaults $N "$DAT" >"$OUT" 2>&1
rc=$?
v1=$(majflt)
check_eq "--ffaults -c: the command's exit status" 0 "$rc" || diag "$(cat "$OUT")"
check_match "the file's pages were out of the page cache (mincore)" \
	"^RESIDENT ${DAT##*/} 0 of $N pages\$" "$(cat "$OUT")"
read_min=$(awk '$1 == "READ" { print $6 }' "$OUT")
read_maj=$(awk '$1 == "READ" { print $8 }' "$OUT")
check_eq "memgrowth took a major fault per page read, or per read-around (getrusage)" \
	"$(want_major "$OUT")" "$read_maj"
check_match "--ffaults: the file has its $read_min minor, $read_maj major faults" \
	"^${DAT##*/} +$read_min +$read_maj\$" "$(cat "$OUT")"
total_maj=$(sed -n 's/^\[.*\] Page faults by file ([0-9]* faults, \([0-9]*\) major):$/\1/p' \
	"$OUT" | tail -n 1)
check_eq "--ffaults: the process's major faults are those of the file" "$read_maj" "$total_maj"
if [ -n "$v0" ]; then
	check_eq "--ffaults: as many as /proc/vmstat's pgmajfault grew" "$((v1 - v0))" "$total_maj"
else
	skip "--ffaults: as many as /proc/vmstat's pgmajfault grew" \
		"no pgmajfault in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS off)"
fi
check_match "--ffaults: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"

OUT=/tmp/majfaults-faults.out
evict
v0=$(majflt)
# By unwind tables: read_pages is a leaf without a frame, whose caller a
# frame-pointer walk does not see (59-faults.sh).
memtrace-read --faults --unwind=cfi -T 100 -- memgrowth majfaults $N "$DAT" >"$OUT" 2>&1
rc=$?
v1=$(majflt)
check_eq "--faults -c: the command's exit status" 0 "$rc" || diag "$(cat "$OUT")"
read_min=$(awk '$1 == "READ" { print $6 }' "$OUT")
read_maj=$(awk '$1 == "READ" { print $8 }' "$OUT")
check_eq "memgrowth took its major faults again (getrusage)" "$(want_major "$OUT")" "$read_maj"
line=$(growth_stacks_framed "$OUT" "^	[0-9]+ page faults \([0-9]+ major\) by memgrowth \[[0-9]+\] from stack$" memgrowth |
	sed -n 's/^read_pages run_majfaults main|//p' | head -n 1)
check_match "--faults: read_pages < run_majfaults < main has the $((read_min + read_maj)) faults, $read_maj major" \
	"^	$((read_min + read_maj)) page faults \($read_maj major\) by memgrowth " \
	"$line" || diag "$(head -n 60 "$OUT")"
total_maj=$(sed -n 's/^\[.*\] Top [0-9]* stacks by page faults ([0-9]* faults, \([0-9]*\) major):$/\1/p' \
	"$OUT" | tail -n 1)
if [ -n "$v0" ]; then
	check_eq "--faults: every major fault, as many as /proc/vmstat's pgmajfault grew" \
		"$((v1 - v0))" "$total_maj"
else
	skip "--faults: every major fault, as many as /proc/vmstat's pgmajfault grew" \
		"no pgmajfault in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS off)"
fi
check_match "--faults: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"

ext4_image_umount "$IMG" "$MNT"
unload_memtrace
