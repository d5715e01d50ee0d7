#!/bin/sh
# User stacks by unwind tables (--unwind=auto|cfi|fp): memtrace-read builds
# each mapped object's table from its .eh_frame with libdw, the module walks
# the stack with them in the uprobe handler.  cfileak (tests/progs/cfileak.c)
# leaks through main -> level1 -> level2 -> level3 -> malloc, built without
# frame pointers (cfileak-nofp, as Debian builds) and with them (cfileak-fp):
# full stacks to main in both, and the report's "Unwind:" counters say how
# the frames were found, so a silent fall back to frame pointers fails.
# Through Debian's own libraries (libstdc++, libc, the dynamic linker),
# without frame pointers anywhere: the stacks equal those Memcheck prints
# for the same blocks, frame by frame to main.
# A signal handler's allocation: through the signal frame, into the
# function the signal interrupted.
# Hostile stacks: recursion 1000 deep (bounded by the stack depth), a stack
# whose caller's frame lies in unmapped memory (a counted fault).
# mtt-timeout: 400
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

# chain_re BYTES COUNT BINARY FUNC...: ERE of a stack whose frames begin with FUNC...
chain_re() {
	_re="^[[:space:]]*$1 bytes in $2 allocations? from stack[^;]*"
	_bin=$3
	shift 3
	for _f in "$@"; do
		_re="$_re ;; $(fr "$_f" "$_bin")"
	done
	printf '%s\n' "$_re( ;; |\$)"
}

klog_before=$(dmesg | wc -l)

# --- a. no frame pointers: tables for every object, none walked by rbp ----
run_read nofp-cfi --unwind=cfi -c /usr/bin/cfileak-nofp
OUT=/tmp/nofp-cfi.out
check_match "nofp, --unwind=cfi: 777 bytes in 7 from level3 <- level2 <- level1 <- main" \
	"$(chain_re 777 7 cfileak-nofp level3 level2 level1 main)" "$(last_report_stacks "$OUT")"
diag "$(grep '^Unwind:' "$OUT" | tail -n 1)"
check_eq "nofp, --unwind=cfi: no frame found by frame pointer" 0 "$(unwind_count "$OUT" 'by frame pointer')"
check_match "nofp, --unwind=cfi: frames found by table" '^[1-9]' "$(unwind_count "$OUT" 'by table')"
check_match "nofp, --unwind=cfi: stacks end at their outermost frame (_start)" '^[1-9]' \
	"$(unwind_count "$OUT" outermost)"
check_eq "nofp, --unwind=cfi: no stack ends at a PC without table" 0 "$(unwind_count "$OUT" 'no table')"
check_eq "nofp, --unwind=cfi: no fault" 0 "$(unwind_count "$OUT" fault)"
check_match "nofp, --unwind=cfi: tables loaded (executable, libc, loader)" '^[3-9]|^[1-9][0-9]' \
	"$(grep '^Unwind:' "$OUT" | tail -n 1 | sed -n -E 's/.* for ([0-9]+) files.*/\1/p')"

# auto (the default): the program has no frame pointers, so it gets a table.
run_read nofp-auto -c /usr/bin/cfileak-nofp
OUT=/tmp/nofp-auto.out
check_match "nofp, auto: the same full stack" \
	"$(chain_re 777 7 cfileak-nofp level3 level2 level1 main)" "$(last_report_stacks "$OUT")"
check_eq "nofp, auto: no frame found by frame pointer" 0 "$(unwind_count "$OUT" 'by frame pointer')"

# fp: what the tables are for (diagnostic only: what rbp holds is chance).
run_read nofp-fp --unwind=fp -c /usr/bin/cfileak-nofp
diag "nofp, --unwind=fp: $(last_report_stacks /tmp/nofp-fp.out | grep '777 bytes' | cut -c1-200)"
check_eq "nofp, --unwind=fp: no table loaded" 0 "$(grep '^Unwind:' /tmp/nofp-fp.out | tail -n 1 |
	sed -n -E 's/^Unwind: ([0-9]+) tables.*/\1/p')"

# --- a. frame pointers: auto walks the program by rbp, libc by table -------
run_read fp-auto -c /usr/bin/cfileak-fp
OUT=/tmp/fp-auto.out
check_match "fp, auto: 777 bytes in 7 from level3 <- level2 <- level1 <- main" \
	"$(chain_re 777 7 cfileak-fp level3 level2 level1 main)" "$(last_report_stacks "$OUT")"
diag "$(grep '^Unwind:' "$OUT" | tail -n 1)"
check_match "fp, auto: the program's frames found by frame pointer" '^[1-9]' \
	"$(unwind_count "$OUT" 'by frame pointer')"
check_match "fp, auto: libc's frames found by table" '^[1-9]' "$(unwind_count "$OUT" 'by table')"
run_read fp-cfi --unwind=cfi -c /usr/bin/cfileak-fp
OUT=/tmp/fp-cfi.out
check_match "fp, --unwind=cfi: the same full stack" \
	"$(chain_re 777 7 cfileak-fp level3 level2 level1 main)" "$(last_report_stacks "$OUT")"
check_eq "fp, --unwind=cfi: no frame found by frame pointer" 0 "$(unwind_count "$OUT" 'by frame pointer')"

# --- b. through Debian's libstdc++ and the dynamic linker, as Memcheck -------
# vg_stacks LOG: per block Memcheck reports, "BYTES|f1;f2;..." with the
# frames below the allocator's own ("at"), one per return address (an
# address's inlined lines dropped: the last one names its function).
vg_stacks() {
	sed -E 's/^==[0-9]+== ?//' "$1" | awk '
		function flush() { if (bytes != "") print bytes "|" frames; bytes = "" }
		/ bytes in [0-9,]+ blocks are / { flush(); bytes = $1; gsub(/,/, "", bytes)
			frames = ""; last = ""; n = 0; next }
		bytes != "" && /^ +at 0x/ { next }
		bytes != "" && /^ +by 0x/ {
			addr = $2; line = $0
			sub(/^ +by 0x[0-9A-Fa-f]+: /, "", line)
			sub(/ \([^()]*\)$/, "", line)
			if (addr == last) { sub(/;[^;]*$/, "", frames); n-- }
			frames = (n ? frames ";" : "") line; n++; last = addr; next }
		{ flush() }
		END { flush() }'
}
if memcheck /tmp/vg-cxxchain.log "--leak-check=full --show-leak-kinds=all --num-callers=40" \
	/usr/bin/cxxchain >/dev/null 2>&1; then
	run_read cxxchain -c /usr/bin/cxxchain
	vg_stacks /tmp/vg-cxxchain.log >/tmp/vg-cxxchain.stacks
	diag "$(grep '^Unwind:' /tmp/cxxchain.out | tail -n 1)"
	for what in "101 std::string's buffer: _M_construct in libstdc++, from make_string" \
		    "4000 std::vector's storage: operator new from make_vector" \
		    "72704 libstdc++'s emergency pool: its initializer, from the dynamic linker's _dl_init"; do
		bytes=${what%% *}
		want=$(grep "^$bytes|" /tmp/vg-cxxchain.stacks | head -n 1 | cut -d'|' -f2)
		n=$(printf '%s\n' "$want" | awk -F';' '{ print NF }')
		if [ -z "$want" ]; then
			not_ok "cxxchain: Memcheck reports the block of $bytes bytes" \
				"$(grep -A8 'reachable' /tmp/vg-cxxchain.log | head -n 40)"
			continue
		fi
		# Where Memcheck names no function ("???": the dynamic
		# linker's _dl_start_user, an assembly label), any name will
		# do; 46-user-gdb.sh holds those to gdb's names.
		got=$(report_stack_frames /tmp/cxxchain.out "$bytes" "$n" |
			awk -F';' -v want="$want" '{
				k = split(want, w, ";")
				for (i = 1; i <= NF; i++)
					printf "%s%s", (i > 1 ? ";" : ""), (i <= k && w[i] == "???" ? "???" : $i)
				print "" }')
		check_eq "cxxchain: ${what#* }: the stack Memcheck prints ($n frames)" \
			"$want" "$got"
	done
else
	not_ok "cxxchain under Memcheck" "$(tail -n 15 /tmp/vg-cxxchain.log)"
fi

# --- c. hostile stacks ------------------------------------------------------
run_read deep --unwind=cfi -c "/usr/bin/cfileak-nofp deep 1000"
OUT=/tmp/deep.out
stack=$(last_report_stacks "$OUT" | grep '222 bytes in 1 allocation')
check_match "deep 1000: the stack's frames are recurse's" \
	"$(chain_re 222 1 cfileak-nofp recurse recurse recurse recurse recurse)" "$stack"
frames=$(printf '%s\n' "$stack" | awk -F' ;; ' '{ print NF - 1 }')
check_eq "deep 1000: the stack is cut at the deepest stack kept (64 frames)" 64 "$frames"
check_eq "deep 1000: no fault" 0 "$(unwind_count "$OUT" fault)"

run_read badstack --unwind=cfi -c "/usr/bin/cfileak-nofp badstack"
OUT=/tmp/badstack.out
check_match "badstack: 333 bytes from malloc_on, the stack ending there" \
	"^[[:space:]]*333 bytes in 1 allocations? from stack[^;]* ;; $(fr malloc_on cfileak-nofp)\$" \
	"$(last_report_stacks "$OUT")"
check_eq "badstack: the read of the unmapped frame is a counted fault" 1 "$(unwind_count "$OUT" fault)"

# --- a signal handler's allocation: through the signal frame ---------------
# (Memcheck is no oracle here: its own signal trampoline ends its stacks.)
run_read signal --unwind=cfi -c "/usr/bin/cfileak-nofp signal"
OUT=/tmp/signal.out
check_match "signal: 444 bytes from on_signal <- the trampoline <- spin <- main" \
	"^[[:space:]]*444 bytes in 1 allocations? from stack[^;]* ;; $(fr on_signal cfileak-nofp) ;; [^;]*\\[libc[^]]*\\] ;; $(fr spin cfileak-nofp)( ;; [^;]* \\(inlined\\))* ;; $(fr main cfileak-nofp)( ;; |\$)" \
	"$(last_report_stacks "$OUT")"
check_eq "signal: one signal frame stepped over" 1 "$(unwind_count "$OUT" signal)"
check_eq "signal: no frame found by frame pointer" 0 "$(unwind_count "$OUT" 'by frame pointer')"

# --- no kernel complaint ------------------------------------------------------
check_no_match "no BUG, WARNING, KASAN or lockdep report in the kernel log" \
	'BUG|WARNING|KASAN|possible circular|suspicious RCU|sleeping function' \
	"$(dmesg | tail -n "+$((klog_before + 1))")"

unload_memtrace
