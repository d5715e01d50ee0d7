#!/bin/sh
# memtrace-read in user mode (-c COMMAND, -p PID: uprobes on libc's
# allocators) against userleak, whose allocations are known exactly
# (tests/progs/userleak.c), and the memleak example program fibonacci:
# exact bytes and counts per stack, the allocating functions named, no stack
# for what was freed, a heap summary equal to Valgrind Memcheck's (run in
# this guest), exec'd images traced each on its own, and no breakpoint left
# in a target after its reader is gone, even by SIGKILL
# (tests/progs/probecheck.c compares the target's code with its files).
# mtt-timeout: 400
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
# probecheck_clean PID: probecheck says "clean" (and nothing else).
probecheck_clean() {
	[ "$(probecheck "$1" 2>&1)" = clean ]
}

# check_clean DESC PID: probecheck PID says clean; if not, its output.
check_clean() {
	_out=$(probecheck "$2" 2>&1)
	check_eq "$1" clean "$_out"
}

# start_target OUT: userleak --wait in the background (TARGET), ready.
start_target() {
	rm -f "$1"
	userleak --wait >"$1" 2>&1 &
	TARGET=$!
	if ! wait_for 30 grep -qx ready "$1"; then
		not_ok "userleak --wait starts" "$(cat "$1")"
		kill_quiet "$TARGET"
		return 1
	fi
}

attached_or_gone() {
	grep -qx "Attaching to pid $TARGET, Ctrl+C to quit." "$1" || gone "$READER"
}

# stop_reader: SIGINT to READER; RC is its exit status (killed, and 124, if
# it has not exited after 60 s).
stop_reader() {
	kill -INT "$READER"
	if wait_for 60 gone "$READER"; then
		wait "$READER"
		RC=$?
	else
		diag "memtrace-read did not exit on SIGINT: killed it"
		kill_quiet "$READER"
		RC=124
	fi
}

# start_reader OUT ARGS...: memtrace-read ARGS in the background (READER),
# attached to TARGET.
start_reader() {
	_o=$1
	shift
	rm -f "$_o"
	memtrace-read "$@" >"$_o" 2>&1 &
	READER=$!
	wait_for 60 attached_or_gone "$_o"
	if ! grep -qx "Attaching to pid $TARGET, Ctrl+C to quit." "$_o"; then
		not_ok "memtrace-read ${1:-} attaches" "$(printf '%s\n' "command: memtrace-read $*"; tail -n 20 "$_o")"
		kill_quiet "$READER"
		return 1
	fi
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

# --- a. -c: the report at the command's exit, and Memcheck's summary -------
check_userleak_c "-c userleak"

# --- b. -p: attach to a running process, SIGINT for the final report -------
if start_target /tmp/ul.out; then
	# The reader runs until SIGINT; -o 0: report even allocations made just
	# before the final report.
	if start_reader /tmp/p.out -p "$TARGET" -o 0 2; then
		ok "-p: 'Attaching to pid PID, Ctrl+C to quit.'"
		kill -USR1 "$TARGET"
		if wait_for 60 grep -qx 'done' /tmp/ul.out; then
			ok "-p: the traced userleak runs its allocations"
		else
			not_ok "-p: the traced userleak runs its allocations" "$(cat /tmp/ul.out)"
		fi
		stop_reader
		check_eq "-p: memtrace-read exits 0 on SIGINT" 0 "$RC"
		diag "$(awk '/^\[[0-9:]+\] Top / { n++ } { r[n] = r[n] $0 "\n" } END { printf "%s", r[n] }' /tmp/p.out | head -n 40)"
		check_userleak_stacks "-p userleak" /tmp/p.out
		check_clean "-p: after the reader is gone, no breakpoint is left in the target" "$TARGET"
	fi
	if alive "$TARGET"; then
		kill -TERM "$TARGET"
		wait "$TARGET"
		check_eq "-p: userleak ends normally after it was traced" 0 "$?"
	else
		not_ok "-p: userleak ends normally after it was traced" "it died while traced: $(cat /tmp/ul.out)"
		wait "$TARGET" 2>/dev/null
	fi
fi

# --- c. fibonacci, the memleak example: a thread leaking 8192 bytes a step --
OUT=/tmp/fib.out
timeout -s KILL $((120 * SCALE)) memtrace-read -c "/usr/bin/fibonacci 5 50" >"$OUT" 2>&1
check_eq "-c fibonacci: memtrace-read exits 0" 0 "$?"
check_eq "-c fibonacci: the command ran its 5 steps and returned" "6th => 8
main thread exit" "$(grep -E '^(6th|main thread)' "$OUT")"
check_match "-c fibonacci: 5 steps of calloc(1024, 8) = 40960 bytes in 5 allocations, from fibonacci called by child" \
	"$(stack_re 40960 5 fibonacci child fibonacci)" "$(last_report_stacks "$OUT")"
if memcheck /tmp/vg-fibonacci.log "" /usr/bin/fibonacci 5 50 >/dev/null 2>&1; then
	check_eq "-c fibonacci: heap summary as Memcheck's in this guest" \
		"$(memcheck_summary /tmp/vg-fibonacci.log)" \
		"$(memtrace_summary "$OUT" /usr/bin/fibonacci)"
else
	not_ok "Memcheck runs fibonacci in the guest" "$(tail -n 15 /tmp/vg-fibonacci.log)"
fi

# --- d. a reader killed by SIGKILL leaves no breakpoint behind -------------
if start_target /tmp/ul2.out; then
	if start_reader /tmp/k.out -p "$TARGET" -o 0 2; then
		kill -KILL "$READER"
		wait "$READER" 2>/dev/null
		# The module removes the probes when the reader's descriptor is
		# released, which its exit may leave to a moment later.
		if wait_for 10 probecheck_clean "$TARGET"; then
			ok "after SIGKILL of its reader, no breakpoint is left in the target"
		else
			not_ok "after SIGKILL of its reader, no breakpoint is left in the target" \
				"$(probecheck "$TARGET" 2>&1)"
		fi
		if start_reader /tmp/k2.out -p "$TARGET" -o 0 2; then
			ok "after SIGKILL of a reader, a new one attaches to the same process"
			kill -USR1 "$TARGET"
			wait_for 60 grep -qx 'done' /tmp/ul2.out ||
				diag "userleak did not say done: $(cat /tmp/ul2.out)"
			stop_reader
			check_eq "the new reader exits 0 on SIGINT" 0 "$RC"
			check_userleak_stacks "-p after a SIGKILLed reader" /tmp/k2.out
			check_clean "and the new reader leaves no breakpoint either" "$TARGET"
		fi
	fi
	if alive "$TARGET"; then
		kill -TERM "$TARGET"
		wait "$TARGET"
		check_eq "userleak ends normally after its readers" 0 "$?"
	else
		not_ok "userleak ends normally after its readers" "it died: $(cat /tmp/ul2.out)"
		wait "$TARGET" 2>/dev/null
	fi
fi

# --- e. exec: each image traced on its own, the old one's "in use at exec" --
# userleak allocates, execs userleak (which allocates and exits): two images
# of one process, with the same stacks, each its own numbers.
OUT=/tmp/exec.out
# A long interval: the one report comes when the exec'd program exits.
timeout -s KILL $((120 * SCALE)) memtrace-read -c "/usr/bin/userleak --exec /usr/bin/userleak" 60 \
	>"$OUT" 2>&1
check_eq "-c userleak --exec userleak: memtrace-read exits 0 once the last image exited" 0 "$?"
epid=$(attached_pid "$OUT")
check_match "-c userleak --exec userleak: '[HH:MM:SS] pid PID exited; allocations in use at exit:'" \
	"^\\[[0-9:]+\\] pid $epid exited; allocations in use at exit:\$" "$(cat "$OUT")"
stacks=$(last_report_stacks "$OUT")
check_eq "-c userleak --exec userleak: each of userleak's 4 leaking stacks twice, one per image" \
	"8 stacks, 5448 bytes in 28, 4 + 4 tagged" \
	"$(printf '%s\n' "$stacks" | awk '/ bytes in [0-9]+ allocations from stack/ {
		n++; b += $1; c += $4; if (/\[pid [0-9]+ \/usr\/bin\/userleak\]/) t++ }
		END { printf "%d stacks, %d bytes in %d, %d + %d tagged", n, b, c, t / 2, t - t / 2 }')"
check_eq "-c userleak --exec userleak: two heap summaries, the first in use at exec" \
	"in use at exec: 2,724 bytes in 14 blocks
in use at exit: 2,724 bytes in 14 blocks" \
	"$(sed -n -E 's/^ +(in use at (exec|exit): .*)$/\1/p' "$OUT" | head -n 2)"
check_match "-c userleak --exec userleak: and one of both images" \
	'^HEAP SUMMARY \(all 2 images\):$' "$(cat "$OUT")"

# A static program re-exec'ing itself: its allocators are in the executable,
# mapped before the new image was traced; its probes are armed in it anew.
OUT=/tmp/exec-static.out
timeout -s KILL $((120 * SCALE)) memtrace-read 60 -- /usr/bin/userleak-static \
	--exec /usr/bin/userleak-static >"$OUT" 2>&1
check_eq "-- userleak-static --exec userleak-static: exits 0" 0 "$?"
# Static glibc allocates for itself at its start (its own link map): the two
# images, the same program, must agree with each other, and on userleak's.
inuse=$(sed -n -E 's/^ +in use at (exec|exit): (.*)$/\1 \2/p' "$OUT" | head -n 2)
check_eq "userleak-static --exec itself: the first image in use at exec, the second at exit, the same" \
	"exec $(printf '%s\n' "$inuse" | sed -n '2s/^exit //p')
exit $(printf '%s\n' "$inuse" | sed -n '2s/^exit //p')" "$inuse"
stacks=$(last_report_stacks "$OUT")
for leak in "500 5 leak_malloc" "600 3 leak_calloc" "600 2 leak_realloc" "1024 4 leak_memalign"; do
	set -- $leak
	check_eq "userleak-static --exec itself: $1 bytes in $2 allocations from $3, in each image" 2 \
		"$(printf '%s\n' "$stacks" | grep -cE "$(stack_re "$1" "$2" "$3" main userleak-static)")"
done

# --- f. fork: a child is traced only with --follow-forks ----------------------
# forkleak: the parent keeps 3 x malloc(100) (parent_leak), its child
# 5 x malloc(200) (child_leak) before it exits.
OUT=/tmp/fork.out
timeout -s KILL $((120 * SCALE)) memtrace-read -c /usr/bin/forkleak >"$OUT" 2>&1
check_eq "-c forkleak: memtrace-read exits 0" 0 "$?"
stacks=$(last_report_stacks "$OUT")
check_match "-c forkleak: the parent's 3 x malloc(100) from parent_leak" \
	"$(stack_re 300 3 parent_leak main forkleak)" "$stacks"
if printf '%s\n' "$stacks" | grep -q 'child_leak'; then
	not_ok "-c forkleak: the child is not traced unless asked" "$stacks"
else
	ok "-c forkleak: the child is not traced unless asked"
fi

OUT=/tmp/follow.out
timeout -s KILL $((120 * SCALE)) memtrace-read --follow-forks -c /usr/bin/forkleak >"$OUT" 2>&1
check_eq "--follow-forks -c forkleak: memtrace-read exits 0" 0 "$?"
stacks=$(last_report_stacks "$OUT")
diag "$(printf '%s\n' "$stacks" | grep -E '_leak' | cut -c1-160)"
check_match "--follow-forks: the parent's 3 x malloc(100) from parent_leak" \
	"$(stack_re 300 3 parent_leak main forkleak)" "$stacks"
check_match "--follow-forks: the child's 5 x malloc(200) from child_leak" \
	"$(stack_re 1000 5 child_leak main forkleak)" "$stacks"
check_match "--follow-forks: two processes traced" '^Forks: 2 processes traced, 0 children' \
	"$(cat "$OUT")"
ppid=$(attached_pid "$OUT")
check_match "--follow-forks: the parent's stack says it is the parent's" \
	"^[[:space:]]*300 bytes in 3 allocations from stack \\[pid $ppid /usr/bin/forkleak\\] ;; " \
	"$stacks"
check_match "--follow-forks: the child's stack says it is another process's" \
	"^[[:space:]]*1000 bytes in 5 allocations from stack \\[pid [0-9]+ /usr/bin/forkleak\\] ;; " \
	"$(printf '%s\n' "$stacks" | grep -v "\\[pid $ppid ")"
check_eq "--follow-forks: a heap summary per process, and of both" \
	"in use at exit: 300 bytes in 3 blocks
in use at exit: 1,000 bytes in 5 blocks
in use at exit: 1,300 bytes in 8 blocks" \
	"$(sed -n -E 's/^ +(in use at exit: .*)$/\1/p' "$OUT")"

# --- g. ------------------------------------------------------------------
check "memtrace.ko unloads" unload_memtrace
