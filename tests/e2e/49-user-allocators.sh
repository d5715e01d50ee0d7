#!/bin/sh
# userleak (tests/progs/userleak.c, whose allocations are known) with
# allocators other than glibc's, traced without -O: memtrace-read must
# probe the allocator ld.so binds the program's malloc to (its line on
# stderr names it) and report userleak's allocations exactly, under -c and
# under -p.  Linked with jemalloc, tcmalloc and mimalloc; glibc's userleak
# with jemalloc in LD_PRELOAD; jemalloc linked statically into the
# executable (userleak-jestatic defines malloc itself).  The oracles:
# userleak.c's own allocations (its four leaking stacks, 2724 bytes in 14
# blocks), and for the whole heap Memcheck, run in this guest, told where
# the allocator is (--soname-synonyms).
# Last, a process that grows only by the raw mmap system call (memgrowth
# rawmap 8: 8 MiB, no allocator call): the report of that interval says so
# in one line, with the 8192 KiB the program mapped.
# Cost: about 100 s on the 6.1 guest (TCG), 70 of them the five Memcheck runs.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
LIBDIR=/usr/lib/x86_64-linux-gnu
JEMALLOC=$LIBDIR/libjemalloc.so.2

# exact_stacks WHAT OUT PROG: the last report of OUT holds userleak's four
# leaking stacks, in PROG's frames, and of the stacks through userleak's
# own leak_* functions nothing else: 2724 bytes in 14.  (Others are the
# libraries' own: libstdc++'s emergency pool, which libjemalloc.so.2 and
# libtcmalloc.so.4 bring in, allocates 72704 bytes at its start.)
exact_stacks() {
	_stacks=$(last_report_stacks "$2")
	check_match "$1: 5 x malloc(100) from leak_malloc" \
		"$(stack_re 500 5 leak_malloc main "$3")" "$_stacks"
	check_match "$1: 3 x calloc(10, 20) from leak_calloc" \
		"$(stack_re 600 3 leak_calloc main "$3")" "$_stacks"
	check_match "$1: 2 x realloc(p, 300) from leak_realloc" \
		"$(stack_re 600 2 leak_realloc main "$3")" "$_stacks"
	check_match "$1: 4 x posix_memalign(64, 256) from leak_memalign" \
		"$(stack_re 1024 4 leak_memalign main "$3")" "$_stacks"
	check_eq "$1: userleak's own stacks: exactly 4, 2724 bytes in 14 allocations" \
		"4 stacks, 2724 bytes in 14" \
		"$(printf '%s\n' "$_stacks" | grep -E " ;; (leak_|churn|realloc_seed)[a-z_]*\\+0x" |
		awk '/ bytes in [0-9]+ allocations from stack/ {
			n++; b += $1; c += $4 } END { printf "%d stacks, %d bytes in %d", n, b, c }')"
}

# one WHAT PROG OBJ [PRELOAD]: PROG (LD_PRELOAD=PRELOAD) under -c and -p,
# its allocator OBJ's (a file name, or "the executable").
one() {
	_w=$1 _p=$2 _obj=$3 _pre=${4:-}
	_base=${_p##*/}
	if [ ! -x "$_p" ]; then
		skip "$_w" "$_p not in the guest"
		return
	fi
	case $_obj in
	"the executable") _re="malloc: $_base(,|\$)" _syn=NONE ;;
	*) _re="malloc: $(printf '%s' "$_obj" | sed 's/\./\\./g')(,|\$)" _syn="*${_obj%%.so*}*" ;;
	esac

	# -c (through env, so that LD_PRELOAD is the program's alone)
	# (Memcheck's preloads too: the environment of its run, see 42-user-real.sh.)
	_env=$VG_PRELOAD${_pre:+${VG_PRELOAD:+:}$_pre}
	timeout -s KILL $((120 * SCALE)) memtrace-read -- env ${_env:+LD_PRELOAD=$_env} "$_p" \
		>/tmp/al-c.out 2>/tmp/al-c.err </dev/null
	check_eq "$_w -c: exits 0" 0 "$?" || diag "$(tail -n 10 /tmp/al-c.out /tmp/al-c.err)"
	_pid=$(attached_pid /tmp/al-c.out)
	check_match "$_w -c: the allocator probed is $_obj's" \
		"^memtrace-read: pid [0-9]+ allocator: $_re" "$(cat /tmp/al-c.err)"
	exact_stacks "$_w -c" /tmp/al-c.out "$_base"
	# The whole heap, the libraries' allocations with the program's:
	# Memcheck's, told where the allocator is (as 43-user-commands.sh).
	rm -f /tmp/al-vg.log
	if [ -n "$VG_PRELOAD" ] && [ -n "$_pre" ]; then
		LD_PRELOAD=$_pre memcheck /tmp/al-vg.log "--soname-synonyms=somalloc=$_syn" "$_p" \
			>/dev/null 2>&1
	elif [ -n "$VG_PRELOAD" ]; then
		memcheck /tmp/al-vg.log "--soname-synonyms=somalloc=$_syn" "$_p" >/dev/null 2>&1
	fi
	if [ -n "$(memcheck_summary /tmp/al-vg.log 2>/dev/null)" ]; then
		check_summary "$_w -c: heap summary as Memcheck's (--soname-synonyms=somalloc=$_syn)" \
			/tmp/al-vg.log /tmp/al-c.out "$_p"
	else
		skip "$_w -c: heap summary as Memcheck's" "Memcheck gave none: $(tail -n 3 /tmp/al-vg.log 2>&1)"
	fi

	# -p: attached to userleak --wait, which allocates on SIGUSR1
	rm -f /tmp/al-t.out
	env ${_pre:+LD_PRELOAD=$_pre} "$_p" --wait >/tmp/al-t.out 2>&1 &
	_t=$!
	if ! wait_for 30 grep -qx ready /tmp/al-t.out; then
		not_ok "$_w: userleak --wait starts" "$(cat /tmp/al-t.out)"
		kill_quiet "$_t"
		return
	fi
	memtrace-read -p "$_t" -o 0 2 >/tmp/al-p.out 2>/tmp/al-p.err &
	_r=$!
	if ! wait_for 60 grep -qx "Attaching to pid $_t, Ctrl+C to quit." /tmp/al-p.out; then
		not_ok "$_w -p: attaches" "$(tail -n 10 /tmp/al-p.out /tmp/al-p.err)"
		kill_quiet "$_r" "$_t"
		return
	fi
	check_match "$_w -p: the allocator probed is $_obj's" \
		"^memtrace-read: pid $_t allocator: $_re" "$(cat /tmp/al-p.err)"
	kill -USR1 "$_t"
	wait_for 60 grep -qx done /tmp/al-t.out || diag "$_w: userleak did not say done"
	kill -INT "$_r"
	if wait_for 60 gone "$_r"; then
		wait "$_r"
		check_eq "$_w -p: memtrace-read exits 0 on SIGINT" 0 "$?"
	else
		not_ok "$_w -p: memtrace-read exits on SIGINT"
		kill_quiet "$_r"
	fi
	exact_stacks "$_w -p" /tmp/al-p.out "$_base"
	kill -TERM "$_t" 2>/dev/null
	wait "$_t" 2>/dev/null
}

VG_PRELOAD=$(memcheck_preload 2>/dev/null)

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

one "userleak-jemalloc" /usr/bin/userleak-jemalloc libjemalloc.so.2
one "userleak-tcmalloc" /usr/bin/userleak-tcmalloc libtcmalloc.so.4
one "userleak-mimalloc" /usr/bin/userleak-mimalloc libmimalloc.so.2
one "userleak with LD_PRELOAD=libjemalloc.so.2" /usr/bin/userleak libjemalloc.so.2 "$JEMALLOC"
one "userleak-jestatic (jemalloc in the executable)" /usr/bin/userleak-jestatic "the executable"

# --- growth without allocator calls: the report's hint line ---------------
rm -f /tmp/rawmap.out
memgrowth rawmap 8 >/tmp/rawmap.out 2>&1 &
G=$!
if wait_for 30 grep -qx ready /tmp/rawmap.out; then
	memtrace-read -p "$G" 1 >/tmp/rawmap-mt.out 2>&1 &
	R=$!
	# A first report ends the interval the hint compares with.
	if wait_for 60 grep -q '^Activity:' /tmp/rawmap-mt.out; then
		kill -USR1 "$G"
		wait_for 30 grep -qx done /tmp/rawmap.out
		wait_for 30 grep -q '^Growth: ' /tmp/rawmap-mt.out
		check_match "memgrowth rawmap 8 -p: the interval's report says 8 MiB grew with no allocator call" \
			"^Growth: pid $G's anonymous memory grew by 8192 KiB \\(RSS \\+[0-9]+ KiB\\) with no allocator call seen in this interval: likely memory it maps itself" \
			"$(grep -E '^Growth: |^Activity:' /tmp/rawmap-mt.out)"
	else
		not_ok "memgrowth rawmap 8 -p: a first report" "$(tail -n 10 /tmp/rawmap-mt.out)"
	fi
	kill -INT "$R"
	wait_for 60 gone "$R" || kill_quiet "$R"
	wait "$R" 2>/dev/null
	# One interval saw the mapping grow; a report that fell between the
	# mapping and its pages may see the RSS part in the next: that hint
	# is right too, and not counted here.
	check_eq "memgrowth rawmap: one hint of the mapping, for the one interval that grew (idle ones say nothing)" \
		1 "$(grep -c '^Growth: .* anonymous memory grew by ' /tmp/rawmap-mt.out)"
else
	not_ok "memgrowth rawmap 8 starts" "$(cat /tmp/rawmap.out)"
fi
kill -TERM "$G" 2>/dev/null
wait "$G" 2>/dev/null

check "memtrace.ko unloads" unload_memtrace
