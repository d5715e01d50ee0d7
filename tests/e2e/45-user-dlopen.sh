#!/bin/sh
# Objects loaded after memtrace-read attached: dlopenprog (no frame
# pointers) dlopen()s libdlalloc.so (no frame pointers either) once it
# runs and leaks through it: main -> run_dlopen -> dlalloc_leak ->
# dl_level2 -> dl_level3 -> malloc.  With -c the reader holds the process
# at the loader's report of the dlopen, before any of the library's code
# runs, and hands over its unwind table: the stacks must be whole, to main,
# with no frame found by frame pointer and none ending at a PC without a
# table, and the library's frames named.  libdlalloc-dbg.so is the same
# library stripped, its only call-frame information (.debug_frame) and its
# symbols in a separate debug file found by .gnu_debuglink: the same
# stacks, named.  -p sees no dlopen happen: the library is taken at the
# next report, so what it allocates after that has whole stacks.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi


# chain_re BYTES COUNT LIB: a stack of BYTES in COUNT from malloc's caller
# through LIB's three functions into dlopenprog's run_dlopen and main.
# After "from stack", the trend tag a -p report adds once enough intervals
# passed ("[stable]", "[growing ...]"; more of them on a slow host).
chain_re() {
	printf '%s\n' "^[[:space:]]*$1 bytes in $2 allocations from stack( \[[^];]*\])? ;; $(fr dl_level3 "$3") ;; $(fr dl_level2 "$3") ;; $(fr dlalloc_leak "$3") ;; $(fr run_dlopen dlopenprog) ;; $(fr main dlopenprog)( ;; |\$)"
}

for lib in libdlalloc.so libdlalloc-dbg.so; do
	OUT=/tmp/dlopen-$lib.out
	timeout -s KILL $((120 * SCALE)) memtrace-read --unwind=cfi \
		-c "/usr/bin/dlopenprog /usr/bin/$lib 5 777" >"$OUT" 2>&1
	check_eq "$lib: memtrace-read -c dlopenprog exits 0" 0 "$?" || diag "$(tail -n 20 "$OUT")"
	check_match "$lib: the program leaked through the library" '^LEAKED 5$' "$(cat "$OUT")"
	re=$(chain_re 3885 5 "$(printf '%s' "$lib" | sed 's/\./\\./g')")
	check_match "$lib, dlopen()ed after attach: 3885 bytes in 5 from dl_level3 <- dl_level2 <- dlalloc_leak <- run_dlopen <- main" \
		"$re" "$(last_report_stacks "$OUT")" || diag "$(last_report_stacks "$OUT" | grep 3885)"
	diag "$lib: $(grep '^Unwind:' "$OUT" | tail -n 1)"
	check_eq "$lib: no frame found by frame pointer" 0 "$(unwind_count "$OUT" 'by frame pointer')"
	check_eq "$lib: no stack ends at a PC without a table" 0 "$(unwind_count "$OUT" 'no table')"
	# The program, libc, the loader and the library dlopen()ed.
	check_eq "$lib: tables for the 4 objects, the library included" 4 \
		"$(grep '^Unwind:' "$OUT" | tail -n 1 | sed -n -E 's/.* for ([0-9]+) files.*/\1/p')"
done

# The control: the stripped library away from its debug file has no
# call-frame information for its functions: its stacks end there.
mkdir -p /tmp/nodebug
cp /usr/bin/libdlalloc-dbg.so /tmp/nodebug/
OUT=/tmp/dlopen-nodebug.out
timeout -s KILL $((120 * SCALE)) memtrace-read --unwind=cfi \
	-c "/usr/bin/dlopenprog /tmp/nodebug/libdlalloc-dbg.so 5 777" >"$OUT" 2>&1
check_eq "without its debug file: memtrace-read exits 0" 0 "$?" || diag "$(tail -n 20 "$OUT")"
check_no_match "without its debug file: no whole stack through the stripped library" \
	"$(chain_re 3885 5 'libdlalloc-dbg\.so')" "$(last_report_stacks "$OUT")"
check_match "without its debug file: stacks end at a PC without a table, counted" '^[1-9]' \
	"$(unwind_count "$OUT" 'no table')"

# -p: the dlopen() after attach, the leak after two reports since.
OUT=/tmp/dlopen-p.out
PROG_OUT=/tmp/dlopen-p.prog
rm -f /tmp/dlopen.fifo "$PROG_OUT"
mkfifo /tmp/dlopen.fifo
dlopenprog /usr/bin/libdlalloc.so 5 777 wait </tmp/dlopen.fifo >"$PROG_OUT" 2>&1 &
TARGET=$!
exec 3>/tmp/dlopen.fifo
memtrace-read --unwind=cfi -p $TARGET 1 >"$OUT" 2>&1 &
READER=$!
reports() {
	grep -c '^\[[0-9:]*\] ' "$OUT"
}
# reports_reach N: the reader printed N reports (wait_for evaluates it anew each time).
reports_reach() {
	[ "$(reports)" -ge "$1" ]
}
if wait_for 60 grep -q '^Attaching to pid' "$OUT"; then
	echo go >&3
	wait_for 30 grep -q '^LOADED' "$PROG_OUT"
	n=$(reports)
	wait_for 60 reports_reach $((n + 2))
	echo leak >&3
	wait_for 30 grep -q '^LEAKED' "$PROG_OUT"
	n=$(reports)
	wait_for 60 reports_reach $((n + 1))
	# The program waits for the end of its input: the reader is
	# stopped while it runs.
	kill -INT "$READER"
	wait "$READER"
	check_eq "-p: memtrace-read exits 0 on SIGINT" 0 "$?"
	check_match "-p, dlopen()ed after attach: whole stacks once a report took the library" \
		"$(chain_re 3885 5 'libdlalloc\.so')" "$(last_report_stacks "$OUT")" ||
		diag "$(cat "$PROG_OUT"; tail -n 40 "$OUT")"
else
	not_ok "-p: memtrace-read attaches" "$(cat "$OUT")"
	kill -KILL "$READER" 2>/dev/null
fi
exec 3>&-
wait "$TARGET"
rm -f /tmp/dlopen.fifo

unload_memtrace
