#!/bin/sh
# User mode the everyday ways programs are started and stopped: the exit
# status of the command, -c quoting and -- CMD ARGS, wrappers that exec the
# real program (env, nice, a script; -p of one) or fork it (time), a program that
# forks and execs, a multithreaded program whose main thread leaves with
# pthread_exit() (-c and -p), Ctrl+Z and SIGCONT, a program in a chroot
# with its own copy of libc (-c and -p), one linked with musl, programs
# linked with jemalloc and tcmalloc (-O), and C++ (operator new and delete,
# demangled names).
# Exact counts: userleak's known ones (tests/progs/userleak.c), else
# Valgrind Memcheck's in this guest.
# mtt-timeout: 600
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
RUN="timeout -s KILL $((120 * SCALE))"	# split on purpose where used
UL_INUSE='in use at exit: 2,724 bytes in 14 blocks'
UL_TOTAL='total heap usage: 1,016 allocs, 1,002 frees, 66,824 bytes allocated'

state_of() {
	sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null
}

# check_userleak_image WHAT OUT PATH: the image running PATH in memtrace-read's
# output OUT has userleak's numbers and its four leaking stacks, tagged with
# that image when there are several.
check_userleak_image() {
	_stacks=$(last_report_stacks "$2")
	_bin=${3##*/}
	check_eq "$1: userleak's image: its heap summary" "$UL_INUSE
$UL_TOTAL" "$(memtrace_summary "$2" "$3")"
	check_match "$1: userleak's 5 x malloc(100) from leak_malloc called by main" \
		"$(stack_re 500 5 leak_malloc main "$_bin")" "$_stacks"
	check_match "$1: userleak's posix_memalign(64, 256) x 4 from leak_memalign" \
		"$(stack_re 1024 4 leak_memalign main "$_bin")" "$_stacks"
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
# Where counts are Memcheck's, the program runs with Memcheck's environment.
VG_PRELOAD=$(memcheck_preload)
[ -n "$VG_PRELOAD" ] || not_ok "Memcheck runs in the guest" "$(valgrind.bin /usr/bin/env 2>&1 | tail -n 5)"

# --- a. exit status, quoting, -- --------------------------------------------
$RUN memtrace-read -- sh -c 'exit 3' >/tmp/st.out 2>&1
check_eq "-- sh -c 'exit 3': memtrace-read exits 3, the command's status" 3 "$?"
$RUN memtrace-read -c "sh -c 'exit 4'" >/tmp/st.out 2>&1
check_eq "-c \"sh -c 'exit 4'\": quotes keep 'exit 4' one word; exits 4" 4 "$?"
$RUN memtrace-read -c 'sh -c "kill -KILL \$\$"' >/tmp/st.out 2>&1
check_eq "a command killed by SIGKILL: memtrace-read exits 137, as a shell would" 137 "$?"
# The command's blocked signals are memtrace-read's starting ones (this
# shell's): not the SIGINT and SIGTERM it takes through a signalfd, nor the
# SIGCHLD its tracer thread does.
MASK=$(grep '^SigBlk' /proc/$$/status)
for mode in "" --brk --mmap; do
	rm -f /tmp/mask.out
	$RUN memtrace-read $mode -- sh -c 'grep "^SigBlk" /proc/$$/status >/tmp/mask.out' \
		>/tmp/st.out 2>&1
	check_eq "memtrace-read ${mode:-(leaks)} -- CMD: the command blocks the signals memtrace-read's caller does" \
		"$MASK" "$(cat /tmp/mask.out 2>&1)"
done
# kill (SIGTERM; Ctrl+C's SIGINT takes the same path) ends the reader's
# session as usual, exit 0 and the command let go untraced, whichever of
# the reader's threads the kernel hands the signal to.
for mode in "" --brk; do
	rm -f /tmp/int.pid
	$RUN memtrace-read $mode -- sh -c 'echo $$ >/tmp/int.pid; exec sleep 300' \
		>/tmp/int.out 2>&1 &
	R=$!
	if wait_for 60 test -s /tmp/int.pid; then
		C=$(cat /tmp/int.pid)
		kill -TERM "$R"
		wait "$R"
		check_eq "memtrace-read ${mode:-(leaks)} -- CMD, SIGTERM to the reader: exits 0" 0 "$?"
		check_eq "... and lets the command go on, untraced" "TracerPid:	0" \
			"$(grep '^TracerPid' "/proc/$C/status" 2>&1)"
		kill -KILL "$C" 2>/dev/null
	else
		not_ok "memtrace-read ${mode:-(leaks)} -- CMD runs the command" "$(cat /tmp/int.out)"
		kill -KILL "$R" 2>/dev/null
	fi
done
$RUN memtrace-read -- /nonexistent/prog >/tmp/st.out 2>&1
rc=$?
if [ "$rc" = 127 ] && grep -q "cannot run '/nonexistent/prog'" /tmp/st.out; then
	ok "a command that does not exist: 'cannot run', status 127"
else
	not_ok "a command that does not exist: 'cannot run', status 127" "exit $rc: $(cat /tmp/st.out)"
fi
$RUN memtrace-read -- /usr/bin/userleak >/dev/full 2>/tmp/full.err
rc=$?
if [ "$rc" -ne 0 ] && grep -q "cannot write the report" /tmp/full.err; then
	ok "a report that cannot be written (stdout /dev/full): an error, status $rc"
else
	not_ok "a report that cannot be written (stdout /dev/full): an error" \
		"exit $rc: $(cat /tmp/full.err)"
fi

# --- b. wrappers that exec the program, and one that forks it ----------------
printf '#!/bin/sh\nexec "$@"\n' >/tmp/wrapper.sh
chmod +x /tmp/wrapper.sh
n=0
for w in "env X=1" "nice -n 5" "/tmp/wrapper.sh"; do
	n=$((n + 1))
	$RUN memtrace-read -c "$w /usr/bin/userleak" >/tmp/w$n.out 2>&1
	check_eq "-c '$w userleak': exits 0" 0 "$?"
	check_userleak_image "$w userleak" /tmp/w$n.out /usr/bin/userleak
	check_match "$w userleak: the wrapper is one image, userleak another" \
		'^Forks: 2 processes traced' "$(cat /tmp/w$n.out)"
done
# env's own allocations (setenv) are env's, in use when it exec'd.
check_match "env X=1 userleak: env's image has its own heap summary, in use at exec" \
	'^HEAP SUMMARY \(pid [0-9]+ /usr/bin/env\): ;; +in use at exec: [1-9]' \
	"$(awk '/^HEAP SUMMARY/ { h = $0; getline; print h " ;; " $0 }' /tmp/w1.out)"
# GNU time forks the program and waits for it: a child, followed.
$RUN memtrace-read --follow-forks -- /usr/bin/time -f '%e s' /usr/bin/userleak >/tmp/time.out 2>&1
check_eq "--follow-forks -- time userleak: exits 0" 0 "$?"
check_userleak_image "time userleak" /tmp/time.out /usr/bin/userleak

# -p follows an exec too: perl, attached to, then execs userleak.
rm -f /tmp/p.go
perl -e 'select(undef, undef, undef, 0.1) until -e "/tmp/p.go"; exec "/usr/bin/userleak", "--wait"' \
	>/tmp/pexec.ul 2>&1 &
ppid=$!
# Attach to perl, not to the shell's child before it has exec'd perl.
wait_for 30 sh -c "readlink /proc/$ppid/exe | grep -q perl"
memtrace-read -p "$ppid" -o 0 1 >/tmp/pexec.out 2>&1 &
reader=$!
if wait_for 60 grep -q "^Attaching to pid $ppid" /tmp/pexec.out; then
	touch /tmp/p.go
	wait_for 60 grep -qx ready /tmp/pexec.ul
	# A report (every second) takes the new image in: its symbols, its libc.
	wait_reports 60 /tmp/pexec.out 2
	kill -USR1 "$ppid"
	wait_for 60 grep -qx done /tmp/pexec.ul
	kill -TERM "$ppid"
	wait_for 60 gone "$reader"
	wait "$reader"
	check_eq "-p of perl that execs userleak: the reader ends with the process, exit 0" 0 "$?"
	check_userleak_image "-p perl, exec'd into userleak" /tmp/pexec.out /usr/bin/userleak
else
	not_ok "-p of perl that execs userleak: attaches" "$(cat /tmp/pexec.out)"
	kill -KILL "$reader" 2>/dev/null
fi
kill -KILL "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null

# ... but not into a program that gains privileges.  A uid-1000 reader
# (CAP_PERFMON alone) traces a uid-1000 perl, which execs a setuid-root
# copy of userleak: ptrace could not attach to that image, and memtrace
# must not show its allocations either; the reader says why it stops.
cp /usr/bin/userleak /tmp/suid-userleak
chown 0:0 /tmp/suid-userleak && chmod 4755 /tmp/suid-userleak
chgrp 990 "$MEMTRACE_DEV" && chmod 0660 "$MEMTRACE_DEV"
rm -f /tmp/s.go
privcheck run-as 1000 990 "" perl -e \
	'select(undef, undef, undef, 0.1) until -e "/tmp/s.go"; exec "/tmp/suid-userleak", "--wait"' \
	>/tmp/sexec.ul 2>&1 &
spid=$!
wait_for 30 sh -c "readlink /proc/$spid/exe | grep -q perl"
privcheck run-as 1000 990 cap_perfmon memtrace-read -p "$spid" -o 0 1 >/tmp/sexec.out 2>&1 &
reader=$!
if wait_for 60 grep -q "^Attaching to pid $spid" /tmp/sexec.out; then
	touch /tmp/s.go
	wait_for 60 grep -qx ready /tmp/sexec.ul
	check_match "the setuid copy runs with euid 0 (the exec gained privileges)" \
		'^Uid:[[:space:]]+1000[[:space:]]+0[[:space:]]' "$(grep '^Uid:' "/proc/$spid/status")"
	wait_reports 60 /tmp/sexec.out 2
	kill -USR1 "$spid"
	wait_for 60 grep -qx done /tmp/sexec.ul
	wait_reports 60 /tmp/sexec.out 2
	kill -TERM "$spid"
	wait_for 60 gone "$reader"
	wait "$reader"
	check_eq "-p of a uid-1000 perl that execs a setuid program: the reader ends with it, exit 0" \
		0 "$?"
	check_match "... and says the exec gained privileges it may not trace" \
		"pid $spid exec'd a program that runs with privileges or ids the reader does not have" \
		"$(cat /tmp/sexec.out)"
	check_no_match "... and shows none of the setuid program's allocations" \
		'leak_malloc|leak_memalign|suid-userleak' "$(cat /tmp/sexec.out)"
else
	not_ok "-p of a uid-1000 perl, by a uid-1000 reader: attaches" "$(cat /tmp/sexec.out)"
	kill -KILL "$reader" 2>/dev/null
fi
kill -KILL "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# The same through a child that was never a process of its own: with
# --follow-forks, the traced perl execs forkexec --vfork, whose child
# shares its address space until it execs the setuid program.  The reader
# names that child too, rather than go quiet about it.
rm -f /tmp/s.go
privcheck run-as 1000 990 "" perl -e \
	'select(undef, undef, undef, 0.1) until -e "/tmp/s.go"; exec "/usr/bin/forkexec", "--vfork", "/tmp/suid-userleak", "--wait"' \
	>/tmp/vexec.ul 2>&1 &
spid=$!
wait_for 30 sh -c "readlink /proc/$spid/exe | grep -q perl"
privcheck run-as 1000 990 cap_perfmon memtrace-read --follow-forks -p "$spid" -o 0 1 \
	>/tmp/vexec.out 2>&1 &
reader=$!
if wait_for 60 grep -q "^Attaching to pid $spid" /tmp/vexec.out; then
	touch /tmp/s.go
	wait_for 60 grep -qx ready /tmp/vexec.ul
	# Reports: the reader learns forkexec's image and the refusal.
	wait_reports 60 /tmp/vexec.out 2
	child=$(awk -v p="$spid" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null)
	kill -TERM $child
	wait "$spid"
	check_eq "forkexec --vfork of a setuid program: the child ran it, exit 0" 0 "$?"
	wait_for 60 gone "$reader"
	wait "$reader"
	check_eq "--follow-forks -p, a vfork'd child execs a setuid program: the reader exits 0" \
		0 "$?"
	check_match "... and says which child exec'd what it may not trace" \
		"pid [0-9]+ exec'd a program that runs with privileges or ids the reader does not have" \
		"$(grep -v "pid $spid exec'd" /tmp/vexec.out)"
	check_no_match "... and shows none of the setuid program's allocations" \
		'leak_malloc|leak_memalign|suid-userleak' "$(cat /tmp/vexec.out)"
	check_match "... while forkexec's own 2 x malloc(128) are there" \
		"^[[:space:]]*256 bytes in 2 allocations from stack[^;]* ;; $(fr parent_leak forkexec)" \
		"$(last_report_stacks /tmp/vexec.out)"
else
	not_ok "--follow-forks -p of a uid-1000 perl, by a uid-1000 reader: attaches" \
		"$(cat /tmp/vexec.out)"
	kill -KILL "$reader" 2>/dev/null
fi
kill -KILL "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
chgrp 0 "$MEMTRACE_DEV" && chmod 0600 "$MEMTRACE_DEV"

# --- c. a program that forks and execs ---------------------------------------
$RUN memtrace-read --follow-forks -- /usr/bin/forkexec /usr/bin/userleak >/tmp/fe.out 2>&1
check_eq "--follow-forks -- forkexec userleak: exits with the child's status, 0" 0 "$?"
check_userleak_image "forkexec userleak" /tmp/fe.out /usr/bin/userleak
fpid=$(attached_pid /tmp/fe.out)
check_match "forkexec: the parent's 2 x malloc(128), its own" \
	"^[[:space:]]*256 bytes in 2 allocations from stack \\[pid $fpid /usr/bin/forkexec\\] ;; $(fr parent_leak forkexec)" \
	"$(last_report_stacks /tmp/fe.out)"
check_match "forkexec: userleak ran in another process" \
	"^HEAP SUMMARY \\(pid [0-9]+ /usr/bin/userleak\\):\$" \
	"$(grep '^HEAP SUMMARY' /tmp/fe.out | grep -v "(pid $fpid ")"
$RUN memtrace-read -- /usr/bin/forkexec /usr/bin/userleak >/tmp/fe0.out 2>&1
check_eq "-- forkexec userleak (no --follow-forks): exits 0" 0 "$?"
check_match "without --follow-forks, forkexec itself is traced: its 2 x malloc(128)" \
	"^[[:space:]]*256 bytes in 2 allocations from stack[^;]* ;; $(fr parent_leak forkexec)" \
	"$(last_report_stacks /tmp/fe0.out)"
if grep -q 'userleak' /tmp/fe0.out; then
	not_ok "without --follow-forks, forkexec's child is not traced" "$(cat /tmp/fe0.out)"
else
	ok "without --follow-forks, forkexec's child is not traced"
fi

# --- d. threads, and a main thread gone with pthread_exit() ------------------
memcheck /tmp/vg-thread.log "" /usr/bin/threadleak >/dev/null 2>&1
$RUN memtrace-read -- env LD_PRELOAD="$VG_PRELOAD" /usr/bin/threadleak >/tmp/thr.out 2>&1
check_eq "-- threadleak (main leaves by pthread_exit): exits 0 when its last thread does" 0 "$?"
check_match "threadleak: the threads' allocations, made after main left: 1400 bytes in 6 from thread_leak" \
	"$(stack_re 1400 6 thread_leak worker threadleak)" "$(last_report_stacks /tmp/thr.out)"
check_summary "threadleak: heap summary as Memcheck's in this guest" \
	/tmp/vg-thread.log /tmp/thr.out /usr/bin/threadleak

# -p: attached after main has left, the process lives in its threads.
rm -f /tmp/thr.go
threadleak /tmp/thr.go &
tpid=$!
zombie() {
	[ "$(state_of "$1")" = Z ]
}
if wait_for 30 zombie "$tpid"; then
	memtrace-read -p "$tpid" -o 0 >/tmp/thrp.out 2>&1 &
	reader=$!
	if wait_for 60 grep -q "^Attaching to pid $tpid" /tmp/thrp.out; then
		ok "-p of a process whose main thread has left: attaches"
		sleep 1
		if alive "$reader"; then
			ok "-p: it is not taken for exited while its threads run"
		else
			not_ok "-p: it is not taken for exited while its threads run" "$(cat /tmp/thrp.out)"
		fi
		touch /tmp/thr.go
		if wait_for 60 gone "$reader"; then
			wait "$reader"
			check_eq "-p: the reader ends when the last thread does, exit 0" 0 "$?"
		else
			not_ok "-p: the reader ends when the last thread does" "$(cat /tmp/thrp.out)"
			kill -KILL "$reader"
		fi
		check_match "-p: the threads' 1400 bytes in 6 from thread_leak" \
			"$(stack_re 1400 6 thread_leak worker threadleak)" "$(last_report_stacks /tmp/thrp.out)"
		check_match "-p: the report says it exited" "^\\[[0-9:]+\\] pid $tpid exited;" \
			"$(cat /tmp/thrp.out)"
	else
		not_ok "-p of a process whose main thread has left: attaches" "$(cat /tmp/thrp.out)"
		kill -KILL "$reader" 2>/dev/null
	fi
else
	not_ok "threadleak's main thread leaves" "state $(state_of "$tpid")"
fi
touch /tmp/thr.go
wait "$tpid" 2>/dev/null

# --- e. Ctrl+Z and SIGCONT ---------------------------------------------------
# fibonacci: 6 steps 300 ms apart, each a calloc(1024, 8) kept.  In a process
# group of its own, as a shell's job (SIGTSTP to an orphaned group is lost).
newpgrp memtrace-read -- /usr/bin/fibonacci 6 300 >/tmp/job.out 2>&1 &
reader=$!
wait_for 60 grep -q '^Attaching to pid' /tmp/job.out
cpid=$(attached_pid /tmp/job.out)
stopped() {
	case $(state_of "$1") in t|T) return 0 ;; esac
	return 1
}
if [ -n "$cpid" ] && alive "$cpid"; then
	sleep 0.5
	kill -TSTP "$cpid"
	if wait_for 10 stopped "$cpid"; then
		ok "SIGTSTP (Ctrl+Z) stops the traced command (state $(state_of "$cpid"))"
	else
		not_ok "SIGTSTP (Ctrl+Z) stops the traced command" "state $(state_of "$cpid")"
	fi
	sleep 3
	if stopped "$cpid" && alive "$reader"; then
		ok "it stays stopped, past the end it would have reached"
	else
		not_ok "it stays stopped, past the end it would have reached" \
			"state $(state_of "$cpid"): $(tail -n 5 /tmp/job.out)"
	fi
	kill -CONT "$cpid"
	if wait_for 60 gone "$reader"; then
		wait "$reader"
		check_eq "SIGCONT resumes it: it runs to its end, memtrace-read exits 0" 0 "$?"
	else
		not_ok "SIGCONT resumes it" "state $(state_of "$cpid"): $(tail -n 5 /tmp/job.out)"
		kill -KILL "$cpid" "$reader" 2>/dev/null
	fi
	check_match "and every step of it is counted: 6 x calloc(1024, 8) from fibonacci" \
		"$(stack_re 49152 6 fibonacci child fibonacci)" "$(last_report_stacks /tmp/job.out)"
else
	not_ok "the command of the job-control test runs" "$(cat /tmp/job.out)"
	kill -KILL "$reader" 2>/dev/null
fi

# --- f. a chroot with its own copy of libc ---------------------------------
# Copies, not links: other inodes than the libc memtrace-read and the rest
# of the guest run, so only the chroot's own libc can see its allocations.
ROOT=/tmp/croot
rm -rf "$ROOT"
mkdir -p "$ROOT/usr/bin" "$ROOT/lib64" "$ROOT/lib/x86_64-linux-gnu" "$ROOT/tmp"
cp /usr/bin/userleak "$ROOT/usr/bin/"
for l in $(/lib64/ld-linux-x86-64.so.2 --list /usr/bin/userleak | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
	cp "$l" "$ROOT/lib/x86_64-linux-gnu/"
done
cp /lib64/ld-linux-x86-64.so.2 "$ROOT/lib64/"
$RUN memtrace-read -- chroot "$ROOT" /usr/bin/userleak >/tmp/chroot.out 2>&1
check_eq "-- chroot ROOT userleak (its own libc): exits 0" 0 "$?"
check_userleak_image "chroot" /tmp/chroot.out "$ROOT/usr/bin/userleak"
if [ "$(stat -c %i "$ROOT/lib/x86_64-linux-gnu/libc.so.6")" != "$(stat -L -c %i /lib/x86_64-linux-gnu/libc.so.6)" ]; then
	ok "the chroot's libc is its own file"
else
	not_ok "the chroot's libc is its own file"
fi
# -p of a process in the chroot.
chroot "$ROOT" /usr/bin/userleak --wait >/tmp/cul.out 2>&1 &
cul=$!
if wait_for 30 grep -qx ready /tmp/cul.out; then
	memtrace-read -p "$cul" -o 0 >/tmp/chp.out 2>&1 &
	reader=$!
	wait_for 60 grep -q "^Attaching to pid $cul" /tmp/chp.out
	kill -USR1 "$cul"
	wait_for 60 grep -qx done /tmp/cul.out
	kill -INT "$reader"
	wait_for 60 gone "$reader"
	wait "$reader"
	check_eq "-p of a chroot'ed userleak: exits 0 on SIGINT" 0 "$?"
	check_match "-p chroot: userleak's 5 x malloc(100) from leak_malloc, through its own libc" \
		"$(stack_re 500 5 leak_malloc main userleak)" "$(last_report_stacks /tmp/chp.out)"
else
	not_ok "a chroot'ed userleak --wait starts" "$(cat /tmp/cul.out)"
fi
kill -TERM "$cul" 2>/dev/null
wait "$cul" 2>/dev/null

# A program linked with musl: its libc is its loader, probed at its start.
$RUN memtrace-read -- /usr/bin/userleak-musl >/tmp/musl.out 2>&1
check_eq "-- userleak-musl: exits 0" 0 "$?"
check_userleak_image "musl" /tmp/musl.out /usr/bin/userleak-musl

# --- g. jemalloc and tcmalloc (-O) -----------------------------------------
for a in jemalloc tcmalloc; do
	memcheck /tmp/vg-$a.log "--soname-synonyms=somalloc=*$a*" /usr/bin/userleak-$a \
		>/dev/null 2>&1
	$RUN memtrace-read -O "$a" -- env LD_PRELOAD="$VG_PRELOAD" /usr/bin/userleak-$a \
		>/tmp/$a.out 2>&1
	check_eq "-O $a -- userleak-$a: exits 0" 0 "$?"
	check_summary "userleak-$a: heap summary as Memcheck's (--soname-synonyms=somalloc=*$a*)" \
		/tmp/vg-$a.log /tmp/$a.out /usr/bin/userleak-$a
	check_match "userleak-$a: 5 x malloc(100) from leak_malloc, through $a" \
		"$(stack_re 500 5 leak_malloc main userleak-$a)" "$(last_report_stacks /tmp/$a.out)"
	check_match "userleak-$a: 2 x realloc(p, 300) from leak_realloc" \
		"$(stack_re 600 2 leak_realloc main userleak-$a)" "$(last_report_stacks /tmp/$a.out)"
done

# --- h. C++: operator new and delete, demangled ------------------------------
memcheck /tmp/vg-cxx.log "" /usr/bin/cxxleak >/dev/null 2>&1
$RUN memtrace-read -- env LD_PRELOAD="$VG_PRELOAD" /usr/bin/cxxleak >/tmp/cxx.out 2>&1
check_eq "-- cxxleak: exits 0" 0 "$?"
check_summary "cxxleak: heap summary as Memcheck's" /tmp/vg-cxx.log /tmp/cxx.out /usr/bin/cxxleak
stacks=$(last_report_stacks /tmp/cxx.out)
check_match "cxxleak: 3 x new Circle from shapes::Shapes::keep_circles(), demangled" \
	'^[[:space:]]*144 bytes in 3 allocations from stack[^;]* ;; shapes::Shapes::keep_circles\(\)\+0x[0-9a-f]+ \[cxxleak\]' \
	"$stacks"
check_match "cxxleak: new char[1000] from shapes::Shapes::keep_buffer()" \
	'^[[:space:]]*1000 bytes in 1 allocations from stack[^;]* ;; shapes::Shapes::keep_buffer\(\)\+0x[0-9a-f]+ \[cxxleak\]' \
	"$stacks"
check_match "cxxleak: nothing lost: every delete's free() is its own, not a second free" \
	'^Lost: .* 0 frees of untracked addresses(,|$)' "$(cat /tmp/cxx.out)"

check "memtrace.ko unloads" unload_memtrace
