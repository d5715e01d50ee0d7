#!/bin/sh
# memtrace-read's user-mode errors (-p, -c, -O): each bad target gets a clear
# message and a non-zero exit, leaves no breakpoint in a process it touched,
# and leaves the module usable.
# mtt-timeout: 240
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
# A reader that wrongly starts tracing must not hang the script.
GUARD="timeout -s KILL $((60 * SCALE))"	# split on purpose where used

# expect_fail DESC REGEX CMD...: CMD fails and its output matches the
# (case-insensitive) extended REGEX.
expect_fail() {
	_d=$1 _re=$2
	shift 2
	_out=$($GUARD "$@" 2>&1)
	_rc=$?
	if [ "$_rc" -ne 0 ] && printf '%s\n' "$_out" | grep -Eiq -e "$_re"; then
		ok "$_d"
	else
		not_ok "$_d" "exit $_rc, expected a message matching: $_re
$(printf '%s\n' "$_out" | tail -n 15)"
	fi
}

# start_userleak OUT: userleak --wait in the background (sets ULPID), ready.
start_userleak() {
	rm -f "$1"
	userleak --wait >"$1" 2>&1 &
	ULPID=$!
	wait_for 30 grep -qx ready "$1"
}

# A live process every bad attempt is aimed at (or near): at the end it must
# still be clean and well.
if ! start_userleak /tmp/live.out; then
	not_ok "userleak --wait starts" "$(cat /tmp/live.out)"
	exit 1
fi
LIVE=$ULPID

expect_fail "no module loaded: says to load it" 'modprobe memtrace' \
	memtrace-read -p "$LIVE" 1 1

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	kill -KILL "$LIVE"
	exit 1
fi

# --- bad PIDs ----------------------------------------------------------------
# pid_max is at most 32768 on a small guest: 99999 cannot exist.
expect_fail "-p of a pid that does not exist: 'no such process'" 'no such process' \
	memtrace-read -p 99999 1 1
expect_fail "-p 2 (kthreadd): 'kernel thread'" 'kernel thread' \
	memtrace-read -p 2 1 1

# A process that has exited: first a zombie (its parent, sleep, never reaps
# it; ash would), then gone.
rm -f /tmp/zombie.pid /tmp/zombie.out
sh -c 'userleak --wait >/tmp/zombie.out 2>&1 & echo $! >/tmp/zombie.pid; exec sleep 600' &
holder=$!
if wait_for 30 grep -qx ready /tmp/zombie.out && read -r gone </tmp/zombie.pid; then
	kill -KILL "$gone"
	if wait_for 10 grep -q '^State:.*Z' "/proc/$gone/status"; then
		expect_fail "-p of a process that has exited (a zombie): 'exited' or 'no such process'" \
			'no such process|exited|zombie' memtrace-read -p "$gone" 1 1
	else
		not_ok "-p of a process that has exited (a zombie)" \
			"pid $gone is no zombie: $(grep State "/proc/$gone/status" 2>&1)"
	fi
	kill -KILL "$holder"
	wait "$holder" 2>/dev/null
	# its new parent, init, reaps it
	wait_for 10 test ! -e "/proc/$gone"
	expect_fail "-p of a process that has exited and been reaped: 'no such process'" \
		'no such process|exited' memtrace-read -p "$gone" 1 1
else
	not_ok "userleak --wait starts" "$(cat /tmp/zombie.out)"
	kill -KILL "$holder"
	wait "$holder" 2>/dev/null
fi

# A process killed while the reader attaches: whichever wins, the reader
# ends (exit 0 with its exit report, or an error saying the process is gone)
# and does not hang.
if start_userleak /tmp/race.out; then
	racer=$ULPID
	memtrace-read -p "$racer" -o 0 1 >/tmp/race.rd 2>&1 &
	reader=$!
	kill -KILL "$racer"
	wait "$racer" 2>/dev/null
	if wait_for 60 gone "$reader"; then
		wait "$reader"
		rc=$?
		if { [ "$rc" -eq 0 ] && grep -Eq "pid $racer exited" /tmp/race.rd; } ||
			{ [ "$rc" -ne 0 ] && grep -Eiq 'no such process|exited|zombie' /tmp/race.rd; }; then
			ok "a target killed while the reader attaches: the reader reports it and ends"
			diag "the reader exited $rc: $(tail -n 3 /tmp/race.rd)"
		else
			not_ok "a target killed while the reader attaches: the reader reports it and ends" \
				"exit $rc: $(tail -n 15 /tmp/race.rd)"
		fi
	else
		not_ok "a target killed while the reader attaches: the reader reports it and ends" \
			"still running after 60 s: $(tail -n 15 /tmp/race.rd)"
		kill -KILL "$reader"
		wait "$reader" 2>/dev/null
	fi
else
	not_ok "userleak --wait starts" "$(cat /tmp/race.out)"
fi

# --- bad objects (-O) ------------------------------------------------------
expect_fail "-O /etc/passwd: 'not an ELF file'" 'not an ELF file' \
	memtrace-read -p "$LIVE" -O /etc/passwd 1 1

# A shared library that defines no allocator: one the guest has for
# memtrace-read or probecheck (libelf, libz, ...), found the way ldd finds it.
nolib=
ldso=
for f in /lib64/ld-linux-x86-64.so.2 /usr/lib64/ld-linux-x86-64.so.2; do
	[ -x "$f" ] && ldso=$f && break
done
if [ -n "$ldso" ]; then
	libs=$(for b in /usr/bin/memtrace-read /usr/bin/probecheck; do
		"$ldso" --list "$b" 2>/dev/null
	done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
	for want in libz.so libelf.so libzstd.so ''; do
		nolib=$(printf '%s\n' "$libs" | grep -E "/${want}[^/]*\$" |
			grep -Ev '/(libc\.so|libc-|ld-linux|libpthread|libdl)' | head -n 1)
		[ -n "$nolib" ] && break
	done
fi
if [ -n "$nolib" ] && [ -f "$nolib" ]; then
	expect_fail "-O ${nolib##*/} (no malloc, calloc, realloc, free, ...): 'defines none of the allocator functions'" \
		'defines none of the allocator functions|no allocator' \
		memtrace-read -p "$LIVE" -O "$nolib" 1 1
else
	not_ok "-O of a library without allocators" "no shared library besides libc in the guest? ldd of memtrace-read, probecheck: $libs"
fi

# --- targets without a libc to probe -----------------------------------------
# busybox is static and stripped: no libc, no symbols.
sleep 600 &
bb=$!
if wait_for 10 grep -q busybox "/proc/$bb/maps"; then
	expect_fail "-p of a busybox process (static, stripped): says so" 'static|stripped|no libc' \
		memtrace-read -p "$bb" 1 1
else
	not_ok "-p of a busybox process (static, stripped): says so" \
		"sleep is not busybox here: $(readlink "/proc/$bb/exe")"
fi
kill -KILL "$bb"
wait "$bb" 2>/dev/null

expect_fail "-c of a command that does not exist: 'cannot run'" 'cannot run' \
	memtrace-read -c /nonexistent

# --- after all that ---------------------------------------------------------
out=$(probecheck "$LIVE" 2>&1)
check_eq "the process the failed attempts aimed at has no breakpoint" clean "$out"
kill -USR1 "$LIVE"
if wait_for 60 grep -qx 'done' /tmp/live.out; then
	ok "and it runs its allocations"
else
	not_ok "and it runs its allocations" "$(cat /tmp/live.out)"
fi
kill -TERM "$LIVE"
wait "$LIVE"
check_eq "and it ends normally" 0 "$?"

$GUARD memtrace-read -c /usr/bin/userleak >/tmp/after.out 2>&1
check_eq "after the errors, memtrace-read -c userleak exits 0" 0 "$?"
check_match "and reports userleak's heap summary" \
	'^[[:space:]]*in use at exit: 2,724 bytes in 14 blocks$' "$(cat /tmp/after.out)"

check "memtrace.ko unloads" unload_memtrace
