#!/bin/sh
# The growth modes' user stacks by unwind tables (-p/-c, --unwind=auto|cfi|fp):
# the module walks a system call's or a fault's stack with the same tables
# and walker as the allocators' uprobes.  cfileak-nofp growth (built
# without frame pointers, as Debian builds; Debian's libc has none either)
# maps 28672 bytes, writes its 7 pages and grows the break 3 times by
# 64 KiB, all in grow3, called through grow2 and grow1 from main; the break
# through libc's sbrk and brk.  For each, the stack memtrace shows is the
# one gdb prints at a breakpoint on mmap, on brk, and in grow3 (the
# faulting function), frame by frame to main.  With -p (the tables loaded
# before tracing starts; -c loads them once the loader has mapped the
# program, and walks the loader's own calls by frame pointers), the
# "Unwind:" line says every frame was found by a table, none by frame
# pointer, so a silent fall back to frame pointers fails; --unwind=fp
# loads no table.  With -p, a library dlopen()ed later (libdlalloc.so, no
# frame pointers) gets its table at the next interval.  A 32-bit program
# (ia32grow): said to be one, its faults counted with their PC alone.
# mtt-timeout: 400
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
PROG=/usr/bin/cfileak-nofp

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
cd /tmp || exit 1
klog_before=$(dmesg | wc -l)

rm -f /tmp/gcfi-*.out

# --- the oracle: gdb's backtraces at the three calls and in grow3 -----------
cat >/tmp/gcfi-gdb.cmds <<'EOF'
set pagination off
set confirm off
set startup-with-shell off
set breakpoint pending on
set print frame-arguments none
break mmap if $rsi == 28672
commands
silent
printf "GDBSTACK mmap\n"
bt 40
printf "GDBEND\n"
continue
end
break brk if $rdi != 0
commands
silent
printf "GDBSTACK brk\n"
bt 40
printf "GDBEND\n"
continue
end
break grow3
commands
silent
printf "GDBSTACK grow3\n"
bt 40
printf "GDBEND\n"
continue
end
run
EOF
timeout -s KILL $((120 * SCALE)) gdb -batch -nx -x /tmp/gcfi-gdb.cmds --args "$PROG" growth \
	>/tmp/gcfi-gdb.log 2>&1
check_eq "gdb stopped at mmap, 3 brk calls and grow3" 5 "$(grep -c '^GDBEND' /tmp/gcfi-gdb.log)" ||
	diag "$(tail -n 30 /tmp/gcfi-gdb.log)"

# gdb's backtraces as "WHAT|f0;f1;...": from frame 0 to main, names only
# (no parameter list; libc's aliases, __brk and brk, mmap and mmap64, are
# one function, which one a symbolizer names is chance: no leading
# underscores, no "64").
awk '
function flush() {
	if (name == "")
		return
	frames = frames (frames == "" ? "" : ";") name
	if (name == "main")
		done = 1
	name = ""
}
/^GDBSTACK / { what = $2; frames = name = ""; done = 0; next }
/^GDBEND/ { flush(); print what "|" frames; what = ""; next }
what == "" || done { next }
/^#[0-9]+ / {
	flush()
	n = $0
	sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, "", n)
	sub(/ \(.*$/, "", n)
	sub(/^_+/, "", n)
	sub(/64$/, "", n)
	name = n == "??" ? "???" : n
}' /tmp/gcfi-gdb.log >/tmp/gcfi-gdb.stacks
diag "gdb: $(tr '\n' ' ' </tmp/gcfi-gdb.stacks)"

# shown OUT REGEX N: the first N frames under the first line of OUT matching
# REGEX, as gdb's are put.
shown() {
	growth_stack "$1" "$2" | awk -v n="$3" '
		k < n && !/\(inlined\)$/ {
			f = $0
			if (f ~ /^0x[0-9a-f]+ /) f = "???"
			sub(/\+0x[0-9a-f]+ \[.*$/, "", f)
			sub(/ \[.*$/, "", f)
			sub(/^_+/, "", f)
			sub(/64$/, "", f)
			out = (k ? out ";" : "") f; k++ }
		END { print out }'
}

# check_stack LABEL OUT REGEX WHAT: the stack under REGEX is gdb's WHAT.
check_stack() {
	_want=$(grep "^$4|" /tmp/gcfi-gdb.stacks | head -n 1 | cut -d'|' -f2)
	_n=$(printf '%s\n' "$_want" | awk -F';' '{ print NF }')
	if [ -z "$_want" ]; then
		not_ok "$1: gdb stopped at $4" "$(tail -n 30 /tmp/gcfi-gdb.log)"
		return
	fi
	check_eq "$1: the stack gdb prints at $4 ($_n frames)" "$_want" "$(shown "$2" "$3" "$_n")" ||
		diag "$(cat "$2")"
}

# check_unwound LABEL OUT: frames by table, none by frame pointer, none ended early.
check_unwound() {
	diag "$1: $(grep '^Unwind:' "$2" | tail -n 1)"
	check_match "$1: frames found by table" '^[1-9]' "$(unwind_count "$2" 'by table')"
	check_eq "$1: no frame found by frame pointer" 0 "$(unwind_count "$2" 'by frame pointer')"
	check_eq "$1: no stack ended at a PC without table" 0 "$(unwind_count "$2" 'no table')"
	check_eq "$1: no fault" 0 "$(unwind_count "$2" fault)"
}

# run_p NAME ARGS...: memtrace-read ARGS -p on cfileak growth wait, which it
# lets go once the reader traces; into /tmp/NAME.out, exit status 0.
run_p() {
	_rp_name=$1
	shift
	rm -f "/tmp/$_rp_name.out"
	"$PROG" growth wait >"/tmp/$_rp_name.prog" &
	_rp_pid=$!
	wait_for 30 grep -q ready "/tmp/$_rp_name.prog"
	timeout -s KILL $((120 * SCALE)) memtrace-read "$@" -p "$_rp_pid" >"/tmp/$_rp_name.out" 2>&1 &
	_rp_reader=$!
	wait_for 60 grep -q "^Tracing" "/tmp/$_rp_name.out"
	kill -USR1 "$_rp_pid"
	wait "$_rp_pid"
	wait "$_rp_reader"
	check_eq "$_rp_name: memtrace-read $* -p PID exits 0" 0 "$?" ||
		diag "$(tail -n 20 "/tmp/$_rp_name.out")"
}

MMAP_RE="^	28672 bytes mapped in 1 calls by cfileak-nofp "
BRK_RE="^	196608 bytes grown in 3 brk calls by cfileak-nofp "
# faults_re OUT: the line of the 7 faults in grow3 (a stack of its own).
faults_re() {
	_l=$(grep -E "^	7 page faults \(0 major\) by cfileak-nofp \[[0-9]+\] from stack$" "$1" |
		head -n 1)
	[ -n "$_l" ] && printf '^%s$\n' "$(printf '%s' "$_l" | sed 's/[][()]/\\&/g')"
}

# --- -c: the stacks gdb prints ------------------------------------------------
run_read gcfi-mmap-cfi --mmap --stacks -T 100 --unwind=cfi -c "$PROG growth"
check_stack "--mmap --stacks --unwind=cfi -c" /tmp/gcfi-mmap-cfi.out "$MMAP_RE" mmap
run_read gcfi-brk-cfi --brk -T 100 --unwind=cfi -c "$PROG growth"
check_stack "--brk --unwind=cfi -c" /tmp/gcfi-brk-cfi.out "$BRK_RE" brk
run_read gcfi-faults-cfi --faults -T 200 --unwind=cfi -c "$PROG growth"
re=$(faults_re /tmp/gcfi-faults-cfi.out)
check_match "--faults --unwind=cfi -c: 7 faults on one stack" . "$re" ||
	diag "$(cat /tmp/gcfi-faults-cfi.out)"
[ -n "$re" ] && check_stack "--faults --unwind=cfi -c" /tmp/gcfi-faults-cfi.out "$re" grow3
# auto (the default): the program and libc have no frame pointers: tables.
run_read gcfi-mmap-auto --mmap --stacks -T 100 -c "$PROG growth"
check_stack "--mmap --stacks -c (auto)" /tmp/gcfi-mmap-auto.out "$MMAP_RE" mmap

# --- -p: the same, and every frame by table -------------------------------------
run_p gcfi-mmap-p --mmap --stacks -T 100 --unwind=cfi
check_stack "--mmap --stacks --unwind=cfi -p" /tmp/gcfi-mmap-p.out "$MMAP_RE" mmap
check_unwound "--mmap --stacks --unwind=cfi -p" /tmp/gcfi-mmap-p.out
run_p gcfi-brk-p --brk -T 100
check_stack "--brk -p (auto)" /tmp/gcfi-brk-p.out "$BRK_RE" brk
check_unwound "--brk -p (auto)" /tmp/gcfi-brk-p.out
run_p gcfi-faults-p --faults -T 200 --unwind=cfi
re=$(faults_re /tmp/gcfi-faults-p.out)
check_match "--faults --unwind=cfi -p: 7 faults on one stack" . "$re" ||
	diag "$(cat /tmp/gcfi-faults-p.out)"
[ -n "$re" ] && check_stack "--faults --unwind=cfi -p" /tmp/gcfi-faults-p.out "$re" grow3
check_unwound "--faults --unwind=cfi -p" /tmp/gcfi-faults-p.out

# fp: no table (what rbp holds is chance: the stack is not checked).
run_p gcfi-mmap-fp --mmap --stacks -T 100 --unwind=fp
check_eq "--mmap --stacks --unwind=fp: no table loaded" 0 "$(grep '^Unwind:' /tmp/gcfi-mmap-fp.out |
	tail -n 1 | sed -n -E 's/^Unwind: ([0-9]+) tables.*/\1/p')"
check_eq "--mmap --stacks --unwind=fp: no frame found by table" 0 \
	"$(unwind_count /tmp/gcfi-mmap-fp.out 'by table')"
diag "--unwind=fp: $(growth_stack /tmp/gcfi-mmap-fp.out "$MMAP_RE" | tr '\n' ' ')"

# --- -p, a library dlopen()ed after attach (no frame pointers): its table
# is handed over at the next interval; the stack of its mmap after that
# reaches main through it.  The reader is stopped from before that mmap
# until the process has exited: it drains the call, and names the
# library's frames, with the process gone (as a make check once had it by
# chance; the library's maps must have been read while it waited). ------
rm -f /tmp/gcfi.fifo
mkfifo /tmp/gcfi.fifo
/usr/bin/dlopenprog /usr/bin/libdlalloc.so 1 300000 wait </tmp/gcfi.fifo >/tmp/gcfi-dl.prog 2>&1 &
TARGET=$!
exec 4>/tmp/gcfi.fifo
# (Not holding the fifo open: the program ends at the end of its input.)
timeout -s KILL $((120 * SCALE)) memtrace-read --mmap --stacks -T 100 -p $TARGET 1 \
	>/tmp/gcfi-dl.out 2>&1 4>&- &
READER=$!
# reports_reach N: the reader printed N interval reports.
reports_reach() {
	[ "$(grep -c '^\[[0-9:]*\] ' /tmp/gcfi-dl.out)" -ge "$1" ]
}
if wait_for 60 grep -q '^Tracing' /tmp/gcfi-dl.out; then
	echo go >&4
	wait_for 30 grep -q '^LOADED' /tmp/gcfi-dl.prog
	n=$(grep -c '^\[[0-9:]*\] ' /tmp/gcfi-dl.out)
	wait_for 60 reports_reach $((n + 2))
	mtread=$(pidof memtrace-read)
	kill -STOP $mtread
	echo leak >&4
	wait_for 30 grep -q '^LEAKED' /tmp/gcfi-dl.prog
	exec 4>&-
	wait "$TARGET"
	kill -CONT $mtread
	wait "$READER"
	check_eq "-p dlopen: memtrace-read --mmap --stacks -p exits 0 once the process is gone" 0 "$?"
	# Per stack, the frames of the library and the program, innermost first.
	stacks=$(awk '/^\t[0-9]+ bytes mapped in / { if (s != "") print s; s = ""; next }
		/^\t\t/ && /\[(libdlalloc\.so|dlopenprog)\]/ {
			f = $1; sub(/\+0x.*/, "", f); s = (s == "" ? f : s " " f); next }
		END { if (s != "") print s }' /tmp/gcfi-dl.out)
	check_match "-p dlopen: malloc's mmap under dl_level3 < dl_level2 < dlalloc_leak < run_dlopen < main" \
		'^dl_level3 dl_level2 dlalloc_leak run_dlopen main( _start)?$' "$stacks" ||
		diag "$(cat /tmp/gcfi-dl.out)"
	check_match "-p dlopen: the library got its table (4 files: program, libc, loader, library)" \
		'^([4-9]|[1-9][0-9]+)$' "$(grep '^Unwind:' /tmp/gcfi-dl.out | tail -n 1 |
		sed -n -E 's/.* for ([0-9]+) files.*/\1/p')"
else
	not_ok "-p dlopen: memtrace-read --mmap --stacks -p attaches" "$(cat /tmp/gcfi-dl.out)"
	exec 4>&-
	kill -KILL "$READER" "$TARGET" 2>/dev/null
fi
rm -f /tmp/gcfi.fifo

# --- a 32-bit program: its system calls take the ia32 entry points, which
# are not probed, and its frames are not x86-64's: its faults are counted
# with their PC alone, and the reader says so. --------------------------------
if /usr/bin/ia32grow 2>/dev/null; then
	timeout -s KILL $((120 * SCALE)) memtrace-read --faults -T 50 -c /usr/bin/ia32grow \
		>/tmp/gcfi-ia32.out 2>&1
	check_eq "ia32: memtrace-read --faults -c ia32grow exits 0" 0 "$?" ||
		diag "$(cat /tmp/gcfi-ia32.out)"
	check_match "ia32: the reader says a 32-bit program's system calls are not seen" \
		"pid [0-9]+ runs a 32-bit program: its system calls are not seen" \
		"$(cat /tmp/gcfi-ia32.out)"
	# "FAULTS STACKS FRAMES-OF-THE-LONGEST" of ia32grow's stacks.
	got=$(awk '/^\t[0-9]+ page faults .* by ia32grow / { f += $1; s++; n = 0; inside = 1; next }
		inside && /^\t\t/ { if (++n > max) max = n; next }
		{ inside = 0 }
		END { print f + 0, s + 0, max + 0 }' /tmp/gcfi-ia32.out)
	check_match "ia32: its 2 stores' faults at least, each stack its PC alone (faults, stacks, frames)" \
		'^([2-9]|[1-9][0-9]+) [1-9][0-9]* 1$' "$got" || diag "$(cat /tmp/gcfi-ia32.out)"
else
	skip "ia32: this kernel runs no 32-bit program (IA32_EMULATION)"
fi

# --ffaults counts by file: no stack to walk, --unwind is refused.
check_match "--ffaults --unwind=cfi: refused, saying why" "cannot be combined with --unwind" \
	"$(memtrace-read --ffaults --unwind=cfi -c "$PROG growth" 2>&1)"

check_no_match "no BUG, WARNING, KASAN or lockdep report in the kernel log" \
	'BUG|WARNING|KASAN|possible circular|suspicious RCU|sleeping function|bad unlock' \
	"$(dmesg | tail -n "+$((klog_before + 1))")"

unload_memtrace
