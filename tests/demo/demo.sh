#!/bin/sh
# Guest half of `make demo` (scripts/demo.sh): a kernel module that leaks,
# found by memtrace, and a user-space leak (memleak's fibonacci example,
# tests/progs/fibonacci.c) found in user mode.  Lines meant for the
# audience start with "# | ".
# mtt-timeout: 300
. "${0%/*}/lib.sh"

OUT=/tmp/demo.out
P=/sys/module/memtrace_leaker/parameters

say() {
	printf '%s\n' "$*" | sed 's/^/# | /'
}

show() {
	sed 's/^/# | /' "$1"
}

# reports_past N: the reader has printed more than N reports.
reports_past() {
	[ "$(grep -c '^\[[0-9:]*\] Top ' "$OUT")" -gt "$1" ]
}

# leak_each_interval ROUNDS: one round of leaks per reader interval.
leak_each_interval() {
	seen=0
	r=0
	while [ "$r" -lt "$1" ]; do
		echo 1 >"$P/leak"
		wait_for 60 reports_past "$seen" || return 1
		seen=$(grep -c '^\[[0-9:]*\] Top ' "$OUT")
		r=$((r + 1))
	done
}

load_memtrace || { not_ok "demo: load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_leaker.ko || { not_ok "demo: load memtrace_leaker.ko"; exit 1; }

say "Kernel $(uname -r): memtrace.ko loaded; memtrace_leaker.ko leaks, per round,"
say "10 x kmalloc(1000) and 7 objects of its own 200-byte cache, and frees"
say "10 more kmallocs from hrtimer/timer callbacks (IRQ context, not leaks)."
say ""
say "\$ memtrace-read --kernel-leaks -T 4 -o 0 1 4     (one leak round per interval)"
memtrace-read --kernel-leaks -T 4 -o 0 1 4 >"$OUT" 2>&1 &
reader=$!
wait_for 60 grep -q Attaching "$OUT"
leak_each_interval 3
wait "$reader"
show "$OUT"

say ""
say "\$ memtrace-read --slab -T 4 1 2      (one more round during the first interval)"
memtrace-read --slab -T 4 1 2 >"$OUT" 2>&1 &
reader=$!
wait_for 60 grep -q Attaching "$OUT"
leak_each_interval 1
wait "$reader"
show "$OUT"

rmmod memtrace_leaker

say ""
say "User space: memleak's example program, fibonacci, whose thread calloc()s"
say "8 KiB a step (every 250 ms here) and never frees it.  It runs; memtrace-read"
say "attaches to it, as memleak -p does (uprobes on its libc, no BPF):"
fibonacci 0 250 >/tmp/fib.out 2>&1 &
fib=$!
wait_for 30 grep -q '^2th' /tmp/fib.out
say ""
say "\$ memtrace-read -p $fib -o 0 1 4"
memtrace-read -p "$fib" -o 0 1 4 >"$OUT" 2>&1
show "$OUT"
kill "$fib"
wait "$fib" 2>/dev/null
say ""
say "And from its first instruction to its end (-c, or -- COMMAND ARGS), with the"
say "heap summary Valgrind Memcheck prints:"
say ""
say "\$ memtrace-read -- fibonacci 4 100"
memtrace-read -- fibonacci 4 100 >"$OUT" 2>&1
show "$OUT"

unload_memtrace
ok "demo: reports printed"
