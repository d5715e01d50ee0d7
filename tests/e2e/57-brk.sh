#!/bin/sh
# memtrace-read --brk (brkstack's job) against tests/progs/memgrowth, which
# grows its break N times by 64 KiB from grow_heap() and gives it all back
# from shrink_heap(), printing each break before and after: the report must
# count N calls and the bytes the program saw its break grow under
# grow_heap < run_brk < main, and the shrink as one call that grew nothing.
# -p follows a running process; a process that is not there is an error.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
OUT=/tmp/brk.out
N=5

memtrace-read --brk -- memgrowth brk $N >"$OUT" 2>&1
check_eq "--brk -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
# The program's own account: the sum of its breaks' growth.
grown=$(awk '$1 == "BRK" { s += ($4 + 0) - ($2 + 0) } END { print s + 0 }' "$OUT")
check_eq "memgrowth grew its break by $N x 64 KiB" $((N * 65536)) "$grown"
check_match "--brk: $grown bytes in $N calls by memgrowth" \
	"^	$grown bytes grown in $N brk calls by memgrowth \[[0-9]+\] from stack$" "$(cat "$OUT")"
check_eq "--brk: the growth's stack is grow_heap < run_brk < main" "grow_heap run_brk main" \
	"$(growth_stack "$OUT" "^	$grown bytes grown in $N brk calls by memgrowth " | own_frames memgrowth)"
# The loader's brk(0) grows nothing too: one of those stacks is the shrink's.
check_eq "--brk: the shrink grew nothing, under shrink_heap < run_brk < main" \
	"shrink_heap run_brk main" \
	"$(growth_own_stacks "$OUT" "^	0 bytes grown in 1 brk calls by memgrowth " memgrowth |
	   grep -x "shrink_heap run_brk main")"
check_match "--brk: the innermost frame is libc's brk" \
	'^(__)?brk\+0x[0-9a-f]+ \[libc' "$(growth_stack "$OUT" "^	$grown bytes grown in $N brk" | head -n 1)"
check_match "--brk: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"

# -p: a running process, until it is gone.
OUT=/tmp/brk-p.out
rm -f /tmp/brk.fifo
mkfifo /tmp/brk.fifo
sh -c 'read x </tmp/brk.fifo; exec memgrowth brk 3' >/tmp/brk-p.prog 2>&1 &
TARGET=$!
memtrace-read --brk -p $TARGET 1 30 >"$OUT" 2>&1 &
READER=$!
if wait_for 60 grep -q "^Tracing " "$OUT"; then
	echo go >/tmp/brk.fifo
	wait "$TARGET"
	wait "$READER"
	check_match "--brk -p: 196608 bytes in 3 calls of the running process" \
		"^	196608 bytes grown in 3 brk calls by memgrowth \[$TARGET\] from stack$" "$(cat "$OUT")"
else
	not_ok "--brk -p attaches" "$(cat "$OUT")"
	kill -KILL "$READER" "$TARGET" 2>/dev/null
fi
rm -f /tmp/brk.fifo

out=$(memtrace-read --brk -p 999999 2>&1)
check_eq "--brk -p: no such process is an error" 1 "$?"
check_match "--brk -p: says so" "pid 999999: no such process" "$out"

unload_memtrace
