#!/bin/sh
# User stacks by unwind tables, against gdb: Debian's libstdc++, libc and
# dynamic linker have no frame pointers.  For each block cxxchain keeps
# (a std::string's buffer through libstdc++'s _M_construct, a vector's
# storage through operator new) and libstdc++'s emergency pool (allocated
# by its initializer, called from the dynamic linker's _dl_init), the
# stack memtrace reports is the one gdb prints at a breakpoint on malloc
# for that call, frame by frame to main or the dynamic linker's entry.
# gdb unwinds with its own code from the same .eh_frame and shows inlined
# calls, which the comparison folds into the function they were inlined
# in, as memtrace's report does; parameter lists are left out (gdb prints
# them for functions without debug information only).
# mtt-timeout: 300
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

timeout -s KILL $((120 * SCALE)) memtrace-read --unwind=cfi -c /usr/bin/cxxchain \
	>/tmp/gdb-cxxchain.out 2>&1
check_eq "memtrace-read --unwind=cfi -c cxxchain: exits 0" 0 "$?" ||
	diag "$(tail -n 20 /tmp/gdb-cxxchain.out)"

cat >/tmp/gdb-cxxchain.cmds <<'EOF'
set pagination off
set confirm off
set startup-with-shell off
set breakpoint pending on
set print frame-arguments none
break malloc if $rdi == 101 || $rdi == 4000 || $rdi == 72704
commands
silent
printf "GDBSTACK %lu\n", $rdi
bt 40
printf "GDBEND\n"
continue
end
run
EOF
timeout -s KILL $((120 * SCALE)) gdb -batch -nx -x /tmp/gdb-cxxchain.cmds /usr/bin/cxxchain \
	>/tmp/gdb-cxxchain.log 2>&1
check_eq "gdb stopped at the 3 allocations" 3 "$(grep -c '^GDBEND' /tmp/gdb-cxxchain.log)" ||
	diag "$(tail -n 30 /tmp/gdb-cxxchain.log)"

# An awk function: a function's name without its trailing parameter list.
STRIP_PARAMS='
function strip(n,   d, i, c) {	# a trailing parameter list
	if (n !~ /\)$/)
		return n
	for (i = length(n); i > 0; i--) {
		c = substr(n, i, 1)
		if (c == ")")
			d++
		else if (c == "(" && --d == 0)
			return substr(n, 1, i - 1)
	}
	return n
}
'

# gdb's backtraces as "BYTES|f1;f2;...": from malloc's caller, one frame
# per return address (a group of inlined frames is named by its last, the
# function they were inlined in), to main or _dl_start_user (past which
# gdb reads on into the initial stack).
awk "$STRIP_PARAMS"'
function flush() {
	if (group == "")
		return
	frames = frames (frames == "" ? "" : ";") group
	if (group == "main" || group == "_dl_start_user")
		done = 1
	group = ""
}
/^GDBSTACK / { bytes = $2; frames = group = ""; done = 0; next }
/^GDBEND/ { flush(); print bytes "|" frames; bytes = ""; next }
bytes == "" || /^#0 / { next }
# operator new calls malloc: memtrace traces it as the allocator, as
# Memcheck does, and its stacks start at its caller.
/^#1 +0x[0-9a-f]+ in operator new(\[\])?\(/ { next }
/^#[0-9]+ / {
	name = $0
	if (name ~ /^#[0-9]+ +0x[0-9a-f]+ in /) {
		flush()
		sub(/^#[0-9]+ +0x[0-9a-f]+ in /, "", name)
	} else {
		sub(/^#[0-9]+ +/, "", name)
	}
	if (done)
		next
	sub(/ \(.*$/, "", name)
	group = name == "??" ? "???" : strip(name)
}' /tmp/gdb-cxxchain.log >/tmp/gdb-cxxchain.stacks

for what in "101 std::string's buffer: _M_construct in libstdc++, from make_string" \
	    "4000 std::vector's storage: operator new from make_vector" \
	    "72704 libstdc++'s emergency pool: its initializer, from the dynamic linker's _dl_init"; do
	bytes=${what%% *}
	want=$(grep "^$bytes|" /tmp/gdb-cxxchain.stacks | head -n 1 | cut -d'|' -f2)
	n=$(printf '%s\n' "$want" | awk -F';' '{ print NF }')
	if [ -z "$want" ]; then
		not_ok "cxxchain: gdb stopped at malloc($bytes)" "$(tail -n 30 /tmp/gdb-cxxchain.log)"
		continue
	fi
	got=$(report_stack_frames /tmp/gdb-cxxchain.out "$bytes" "$n" | awk -F';' "$STRIP_PARAMS"'
		{ for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? ";" : ""), strip($i); print "" }')
	check_eq "cxxchain: ${what#* }: the stack gdb prints ($n frames)" "$want" "$got"
done

unload_memtrace
