#!/bin/sh
# User mode on real Debian programs no one here wrote (interpreters, a C++
# program, C utilities), against Valgrind Memcheck run in this same guest
# (--run-libc-freeres=no --run-cxx-freeres=no: no exit-time frees an
# ordinary run never makes): memtrace-read's heap summary of the program
# must equal Memcheck's, "in use at exit" and "total heap usage" both.
#
# The same program, arguments, input and environment.  Memcheck gives its
# program one variable more, LD_PRELOAD (its preload libraries, which
# define no symbol a program could bind to outside Valgrind), and an
# interpreter copies its environment into its heap: so memtrace-read runs
# the program through env with that same LD_PRELOAD, an exec it follows,
# and the program's own image is compared.  Hash seeds are fixed (perl and
# python randomize their hashes, and so how often they grow).
# mtt-timeout: 900
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1
export LC_ALL=C

VG_PRELOAD=$(memcheck_preload)
if [ -n "$VG_PRELOAD" ]; then
	ok "Memcheck runs in the guest (its preloads: $VG_PRELOAD)"
else
	not_ok "Memcheck runs in the guest" "$(valgrind.bin --tool=memcheck /usr/bin/env 2>&1 | tail -n 15)"
	exit 0
fi

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

# compare NAME PROG ARGS...: PROG (a full path) under Memcheck and under
# memtrace-read; their heap summaries, exit statuses and outputs.
compare() {
	_name=$1
	shift
	_vg=/tmp/vg-$_name
	_mt=/tmp/mt-$_name
	t0=$(cut -d' ' -f1 /proc/uptime)
	memcheck "$_vg.log" "" "$@" >"$_vg.out" 2>&1
	_vrc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	timeout -s KILL $((300 * SCALE)) memtrace-read -- env LD_PRELOAD="$VG_PRELOAD" "$@" \
		>"$_mt.out" 2>"$_mt.err" </dev/null
	_mrc=$?
	t2=$(cut -d' ' -f1 /proc/uptime)
	diag "$_name: Memcheck $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, memtrace-read $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s"
	want=$(memcheck_summary "$_vg.log")
	got=$(memtrace_summary "$_mt.out" "$1")
	if [ -z "$want" ]; then
		not_ok "$_name: Memcheck's heap summary" "exit $_vrc: $(tail -n 15 "$_vg.log" "$_vg.out")"
		return
	fi
	check_eq "$_name: memtrace-read exits with the program's status, as Memcheck's run ($_vrc)" \
		"$_vrc" "$_mrc"
	check_eq "$_name: in use at exit as Memcheck's" \
		"$(printf '%s\n' "$want" | grep 'in use at exit')" \
		"$(printf '%s\n' "$got" | grep 'in use at exit')"
	check_eq "$_name: total heap usage as Memcheck's" \
		"$(printf '%s\n' "$want" | grep 'total heap usage')" \
		"$(printf '%s\n' "$got" | grep 'total heap usage')"
	# The program did the same work in both runs.
	if ! grep -Fxq -f "$_vg.out" "$_mt.out" 2>/dev/null; then
		diag "$_name: its output differs: Memcheck's run: $(head -c 300 "$_vg.out")"
		diag "memtrace-read's: $(head -c 300 "$_mt.out")"
	fi
	if [ -s "$_mt.err" ]; then
		diag "$_name: memtrace-read said: $(head -c 500 "$_mt.err")"
	fi
}

seq 1 400 | awk '{ print ($1 * 7919) % 1000, "line", $1 }' >/tmp/numbers
seq 1 300 | awk '{ a = $1 % 97; print "n" a, "n" (a + 1 + ($1 * 31) % 13) }' >/tmp/pairs

# Interpreters, with their library trees.
compare perl /usr/bin/perl -e 'use strict; my %h; $h{$_} = $_ * 2 for 1 .. 300;
	my @k = sort { $a <=> $b } keys %h; my $s = join(",", map { "$_=$h{$_}" } @k[0 .. 9]);
	$s =~ s/(\d+)=/<$1>/g; print scalar(@k), " $s\n";'
compare python3 /usr/bin/python3 -S -c 'words = {}
for line in open("/tmp/numbers"):
    for w in line.split():
        words[w] = words.get(w, 0) + 1
print(len(words), sorted(words.items())[:3])'
# C++: libapt-pkg and libstdc++, its operator new and delete.
compare apt-config /usr/bin/apt-config dump
# C, several kinds: a database, a compressor, cryptography, text tools.
compare sqlite3 /usr/bin/sqlite3 :memory: 'create table t(a, b); insert into t select value, value * 3 from generate_series(1, 500); select count(*), sum(b) from t where a % 7 = 1;'
compare zstd /usr/bin/zstd -q -3 -c /tmp/numbers
compare openssl /usr/bin/openssl dgst -sha256 /tmp/numbers
compare ptx /usr/bin/ptx -w 60 /tmp/numbers
compare tsort /usr/bin/tsort /tmp/pairs

check "memtrace.ko unloads" unload_memtrace
