#!/bin/sh
# Allocator binding in the cases issue 24's review named (test_linkmap.c
# and test_elfsyms.c show the rules on the host; this, the whole path):
# - the program started as "ld.so ./prog": /proc/PID/exe is the loader,
#   the allocator the program's (userleak-jestatic: jemalloc linked into
#   the executable; userleak-jemalloc: libjemalloc.so.2 ahead of libc),
#   under -c and -p, userleak's known allocations exact: its four leaking
#   stacks, 2724 bytes in 14 blocks;
# - a 32-bit program under -c: said in one line, not probed, exit 0.
# Cost: about 40 s on the 6.1 guest (TCG).
# mtt-timeout: 240
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
LOADER=/lib64/ld-linux-x86-64.so.2

# exact_stacks WHAT OUT PROG: as 49-user-allocators.sh's.
exact_stacks() {
	_stacks=$(last_report_stacks "$2")
	check_match "$1: 5 x malloc(100) from leak_malloc" \
		"$(stack_re 500 5 leak_malloc main "$3")" "$_stacks"
	check_match "$1: 4 x posix_memalign(64, 256) from leak_memalign" \
		"$(stack_re 1024 4 leak_memalign main "$3")" "$_stacks"
	check_eq "$1: userleak's own stacks: exactly 4, 2724 bytes in 14 allocations" \
		"4 stacks, 2724 bytes in 14" \
		"$(printf '%s\n' "$_stacks" | grep -E " ;; (leak_|churn|realloc_seed)[a-z_]*\\+0x" |
		awk '/ bytes in [0-9]+ allocations from stack/ {
			n++; b += $1; c += $4 } END { printf "%d stacks, %d bytes in %d", n, b, c }')"
}

# via_loader WHAT PROG MALLOC-RE: "ld.so PROG" under -c and -p.
via_loader() {
	_w=$1 _p=$2 _re=$3
	_base=${_p##*/}
	if [ ! -x "$_p" ]; then
		skip "$_w" "$_p not in the guest"
		return
	fi
	timeout -s KILL $((120 * SCALE)) memtrace-read -- "$LOADER" "$_p" \
		>/tmp/ld-c.out 2>/tmp/ld-c.err </dev/null
	check_eq "$_w -c: exits 0" 0 "$?" || diag "$(tail -n 10 /tmp/ld-c.out /tmp/ld-c.err)"
	check_match "$_w -c: the allocator probed is the program's" \
		"^memtrace-read: pid [0-9]+ allocator: malloc: $_re(,|\$)" "$(cat /tmp/ld-c.err)"
	exact_stacks "$_w -c" /tmp/ld-c.out "$_base"

	rm -f /tmp/ld-t.out
	"$LOADER" "$_p" --wait >/tmp/ld-t.out 2>&1 &
	_t=$!
	if ! wait_for 30 grep -qx ready /tmp/ld-t.out; then
		not_ok "$_w: userleak --wait starts" "$(cat /tmp/ld-t.out)"
		kill_quiet "$_t"
		return
	fi
	memtrace-read -p "$_t" -o 0 2 >/tmp/ld-p.out 2>/tmp/ld-p.err &
	_r=$!
	if ! wait_for 60 grep -qx "Attaching to pid $_t, Ctrl+C to quit." /tmp/ld-p.out; then
		not_ok "$_w -p: attaches" "$(tail -n 10 /tmp/ld-p.out /tmp/ld-p.err)"
		kill_quiet "$_r" "$_t"
		return
	fi
	check_match "$_w -p: the allocator probed is the program's" \
		"^memtrace-read: pid $_t allocator: malloc: $_re(,|\$)" "$(cat /tmp/ld-p.err)"
	kill -USR1 "$_t"
	wait_for 60 grep -qx done /tmp/ld-t.out || diag "$_w: userleak did not say done"
	kill -INT "$_r"
	if wait_for 60 gone "$_r"; then
		wait "$_r"
		check_eq "$_w -p: memtrace-read exits 0 on SIGINT" 0 "$?"
	else
		not_ok "$_w -p: memtrace-read exits on SIGINT"
		kill_quiet "$_r"
	fi
	exact_stacks "$_w -p" /tmp/ld-p.out "$_base"
	kill -TERM "$_t" 2>/dev/null
	wait "$_t" 2>/dev/null
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

via_loader "ld.so userleak-jestatic" /usr/bin/userleak-jestatic userleak-jestatic
via_loader "ld.so userleak-jemalloc" /usr/bin/userleak-jemalloc 'libjemalloc\.so\.2'

# --- a 32-bit program: refused in one line, not probed with garbage --------
if /usr/bin/ia32grow 2>/dev/null; then
	timeout -s KILL $((60 * SCALE)) memtrace-read -c /usr/bin/ia32grow >/tmp/ld-32.out 2>&1
	check_eq "ia32: memtrace-read -c ia32grow exits 0" 0 "$?" || diag "$(cat /tmp/ld-32.out)"
	check_match "ia32: the reader says its allocator calls are not traced" \
		"note: pid [0-9]+ runs a 32-bit program \\(/usr/bin/ia32grow\\): its allocator calls are not traced" \
		"$(cat /tmp/ld-32.out)"
else
	skip "ia32: this kernel runs no 32-bit program (IA32_EMULATION)"
fi

check "memtrace.ko unloads" unload_memtrace
