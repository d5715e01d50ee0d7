#!/bin/bash
# Where the instructions go: a table from `make bench`'s profile boot
# (tests/bench/pairs-profile.sh under the tbprof plugin,
# tests/bench/profile/tbprof.c).  Attributes each window's instructions per
# translation block to functions by the guest's own symbols (its
# /proc/kallsyms, printed to the console as PROFSYM lines; Debian's
# System.map is a stub), and prints one column per configuration NAME:
# the instructions each function adds a pair over BASE's, largest first.
#
# usage: scripts/bench-profile.sh CONSOLE-LOG WINDOW-PREFIX BASE NAME...
#   CONSOLE-LOG    the profile boot's console (build/logs/bench-profile-console.log)
#   WINDOW-PREFIX  the plugin's out= prefix: files PREFIX.1, PREFIX.2, ...
#                  one per "# BENCHPROF window N NAME PAIRS PER-PAIR" line
#   BASE, NAME     a window's name, or the name of two windows NAME@SMALL
#                  and NAME@LARGE: then their difference (what the extra
#                  pairs cost, the command's fixed costs taken out)
# A block's instructions go to the function its first instruction lies in
# (a block ends at a branch, so it rarely spans two); user-space blocks
# are "[user]".  Rows: functions adding (or saving) at least 1% of some
# column's total (and 0.5 instructions a pair), then the rest summed, then
# the total, and the loop's own count of the same runs to check it by.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
console=$1 prefix=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tr -d '\r' <"$console" | sed -E 's/^(\[[ 0-9.]+\] ?)+//; s/^MTT://' >"$tmp/con"
grep -q '^PROFSYM ' "$tmp/con" || { echo "bench-profile: no symbols in $console" >&2; exit 1; }
grep '^# BENCHPROF window ' "$tmp/con" | cut -d' ' -f4- >"$tmp/windows"	# N NAME PAIRS PER

# The symbols, by the low 32 bits of their address, as numbers (mawk has
# no strtonum).
HEX='function hex(s,   i, n) {
	n = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n }'
awk "$HEX"'$1 == "PROFSYM" { printf "%.0f S %s%s\n", hex($2), $3, $4 == "" ? "" : " " $4 }' \
	"$tmp/con" >"$tmp/syms"

# A process's maps (PROFMAP lines, its /proc/PID/maps as the guest read
# it): user blocks in them go to functions of its files (user_counts);
# the guest's /usr/bin/NAME is the host's BINDIR/NAME for the first
# directory of $BENCH_PROFILE_BINDIRS that has it, the libraries are the
# host's own (the guest's are copies, at the same paths).
sed -n 's/^PROFMAP //p' "$tmp/con" | while read -r range perms off dev inode path; do
	if [ "${path#/usr/bin/}" != "$path" ]; then
		for d in ${BENCH_PROFILE_BINDIRS:-}; do
			[ -f "$d/${path#/usr/bin/}" ] && { path=$(cd "$d" && pwd)/${path#/usr/bin/}; break; }
		done
	fi
	echo "$range $perms $off $dev $inode $path"
done >"$tmp/maps"

# user_counts FILE: "function [object]<TAB>instructions" of the user
# blocks ("ADDRESS COUNT" lines) in FILE: by the maps' files' symbols
# (elfutils' eu-addr2line -M reads the maps and finds each file's
# symbols, separate debug files included); a block outside the maps
# (another process's) goes to "[user: other processes]".
user_counts() {
	if [ ! -s "$tmp/maps" ]; then
		awk '{ n += $2 } END { if (n) printf "[user]\t%.0f\n", n }' "$1"
		return
	fi
	command -v eu-addr2line >/dev/null ||
		{ echo "bench-profile: no eu-addr2line (Debian's elfutils; make deps installs it)" >&2; exit 1; }
	# ADDRESS COUNT OBJECT (OBJECT "-": outside the maps), in input order
	awk "$HEX"'FNR == NR { split($1, r, "-"); lo[NR] = hex(r[1]); hi[NR] = hex(r[2])
			o = $6; sub(/.*\//, "", o); obj[NR] = o == "" ? "anonymous" : o; nm = NR; next }
		{ a = hex($1); o = "-"
		  for (i = 1; i <= nm; i++) if (a >= lo[i] && a < hi[i]) { o = obj[i]; break }
		  print $1, $2, o }' "$tmp/maps" "$1" >"$tmp/ublocks"
	awk '$3 != "-" { print "0x" $1 }' "$tmp/ublocks" |
		eu-addr2line -M "$tmp/maps" -S -a 2>/dev/null |
		awk '/^0x[0-9a-f]+$/ { if (a != "") print s; a = $0; s = "??"; k = 0; next }
			{ if (k++ == 0) s = $0 } END { if (a != "") print s }' >"$tmp/usyms"
	# the symbols in the same order: "name+0xOFF" or "name@@VERSION+0xOFF"
	awk -F'\t' 'FILENAME == ARGV[1] { sym[++n] = $0; next }
		$3 == "-" { t["[user: other processes]"] += $2; next }
		{ s = sym[++i]; sub(/\+0x[0-9a-f]+$/, "", s); sub(/@.*/, "", s)
		  if (s == "??" || s == "") s = "[unknown]"
		  t[s " [" $3 "]"] += $2 }
		END { for (f in t) printf "%s\t%.0f\n", f, t[f] }' "$tmp/usyms" \
		<(tr ' ' '\t' <"$tmp/ublocks")
}

# fn_counts N: "function<TAB>instructions" of window N
fn_counts() {
	local f=$prefix.$1
	[ -s "$f" ] || { echo "bench-profile: no $f" >&2; return 1; }
	awk '!(length($1) == 16 && substr($1, 1, 8) == "ffffffff")' "$f" >"$tmp/user.$1"
	user_counts "$tmp/user.$1"
	{
		cat "$tmp/syms"
		awk "$HEX"'{
			if (length($1) == 16 && substr($1, 1, 8) == "ffffffff")
				printf "%.0f B %s\n", hex(substr($1, 9)), $2
		}' "$f"
	} | sort -s -k1,1n -k2,2r | awk '
		# Of the symbols at one address, the first: kallsyms sorts
		# section markers (__irqentry_text_end...) after the function
		# they share it with.
		$2 == "S" { if ($1 != at) sym = $3 (NF > 3 ? " " $4 : ""); at = $1; next }
		{ n[sym == "" ? "[unknown]" : sym] += $3 }
		END { for (s in n) printf "%s\t%.0f\n", s, n[s] }'
}

# per_pair NAME: "function<TAB>instructions a pair" to $tmp/NAME.fn, and
# "PAIRS PER" (the loop's own count) to $tmp/NAME.per
per_pair() {
	local name=$1 n pairs per n2 pairs2 per2
	if read -r n pairs per < <(awk -v w="$name" '$2 == w { print $1, $3, $4; exit }' "$tmp/windows"); then
		fn_counts "$n" | awk -F'\t' -v p="$pairs" '{ printf "%s\t%.3f\n", $1, $2 / p }' >"$tmp/$name.fn"
	else
		# NAME@SMALL and NAME@LARGE: the larger minus the smaller
		{ read -r n pairs per && read -r n2 pairs2 per2; } < <(awk -v w="$name" \
			'index($2, w "@") == 1 && $2 !~ /@.*@/ { print $1, $3, $4 }' "$tmp/windows" | sort -k2,2n) ||
			return 1
		fn_counts "$n" >"$tmp/small"
		fn_counts "$n2" >"$tmp/large"
		awk -F'\t' -v p="$((pairs2 - pairs))" 'FNR == NR { s[$1] = $2; next }
			{ l[$1] = $2 } END {
				for (f in s) if (!(f in l)) l[f] = 0
				for (f in l) printf "%s\t%.3f\n", f, (l[f] - s[f]) / p }' \
			"$tmp/small" "$tmp/large" >"$tmp/$name.fn"
		pairs=$((pairs2 - pairs)) per=$per2
	fi
	echo "$pairs $per" >"$tmp/$name.per"
}

# --window NAME [ROWS]: one window's own instructions (no base), its
# ROWS (default 25) largest functions, then the rest, each object's
# (the kernel, each user file) and the total, in millions and a unit
# (PAIRS of the BENCHPROF line, named by $BENCH_PROFILE_UNIT: e.g. stack)
if [ "$1" = --window ]; then
	read -r n units per < <(awk -v w="$2" '$2 == w { print $1, $3, $4; exit }' "$tmp/windows") ||
		{ echo "bench-profile: no window $2" >&2; exit 1; }
	fn_counts "$n" >"$tmp/one.fn"
	sort -t"$(printf '\t')" -k2,2nr "$tmp/one.fn" | awk -F'\t' -v rows="${3:-25}" -v u="$units" \
		-v unit="${BENCH_PROFILE_UNIT:-unit}" \
		-v per="$per" -v name="$2" '
		function row(f, x) { printf "| %s | %.1f | %.1f%% | %.0f |\n", f, x / 1e6, 100 * x / tot, x / u }
		{ f[NR] = $1; x[NR] = $2; tot += $2
		  o = "kernel"; if (match($1, / \[[^]]+\]$/)) o = substr($1, RSTART + 2, RLENGTH - 3)
		  if ($1 ~ /^\[user/) o = $1
		  # a kernel function is "name" or "name [module]"
		  else if (o != "kernel" && $1 !~ /\.so|memtrace-read|anonymous|vdso/) o = "kernel"
		  obj[o] += $2 }
		END {
			if (!tot) exit 1
			printf "| %s: function [object] | instructions (M) | share | per %s |\n", name, unit
			print "|---|---|---|---|"
			for (i = 1; i <= NR && i <= rows; i++) row(f[i], x[i])
			for (i = rows + 1; i <= NR; i++) rest += x[i]
			row("(the rest)", rest)
			# the sum of each object, largest first, those of 0.1% or more
			for (o in obj) if (obj[o] >= tot / 1000) ord[++no] = o
			for (i = 2; i <= no; i++) for (j = i; j > 1 && obj[ord[j]] > obj[ord[j - 1]]; j--) {
				t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t }
			for (i = 1; i <= no; i++) row("all of " ord[i], obj[ord[i]])
			row("total", tot)
			printf "| the window by the guest clock | %.1f | | |\n", per / 1e6 }'
	exit
fi

base=$1
shift
per_pair "$base" || { echo "bench-profile: no window $base" >&2; exit 1; }
names=()
for name in "$@"; do
	if per_pair "$name"; then names+=("$name"); else echo "bench-profile: no window $name" >&2; fi
done
[ ${#names[@]} -gt 0 ] || exit 1

printf '| function: instructions added a pair over %s |' "$base"
printf ' %s |' "${names[@]}"
echo
printf '|---|'
printf -- '---|%.0s' "${names[@]}"
echo
for name in "${names[@]}"; do
	awk -F'\t' -v col="$name" 'FNR == NR { b[$1] = $2; next } { t[$1] = $2 }
		END {
			for (f in b) if (!(f in t)) t[f] = 0
			for (f in t) printf "%s\t%s\t%.3f\n", col, f, t[f] - b[f] }' \
		"$tmp/$base.fn" "$tmp/$name.fn"
done >"$tmp/deltas"
bper=$(cut -d' ' -f2 "$tmp/$base.per")
measured=$(for name in "${names[@]}"; do
	awk -v b="$bper" '{ print ($2 == "" || b == "") ? "?" : $2 - b }' "$tmp/$name.per"
done | tr '\n' ' ')
awk -F'\t' -v cols="${names[*]}" -v measured="$measured" '
	{ d[$1, $2] = $3; fn[$2] = 1; sum[$1] += $3; if ($3 > big[$2]) big[$2] = $3 }
	END {
		nc = split(cols, c, " "); split(measured, m, " ")
		# a row for each function that adds or saves 1% of a column
		# (at least 0.5 instructions)
		for (k = 1; k <= nc; k++) {
			lim = sum[c[k]] / 100
			if (lim < 0.5) lim = 0.5
			for (f in fn) if (d[c[k], f] >= lim || d[c[k], f] <= -lim) shown[f] = 1
		}
		# shown functions, by their largest cost in any column
		for (f in shown) order[++n] = f
		for (i = 2; i <= n; i++) for (j = i; j > 1 && big[order[j]] > big[order[j - 1]]; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t }
		for (i = 1; i <= n; i++) {
			printf "| %s |", order[i]
			for (k = 1; k <= nc; k++) printf " %.1f |", d[c[k], order[i]]
			printf "\n"
		}
		printf "| (the rest, each under 1%% of its column) |"
		for (k = 1; k <= nc; k++) {
			r = 0
			for (f in fn) if (!(f in shown)) r += d[c[k], f]
			printf " %.1f |", r
		}
		printf "\n| total |"
		for (k = 1; k <= nc; k++) { r = 0; for (f in fn) r += d[c[k], f]; printf " %.1f |", r }
		printf "\n| the loop'"'"'s own count |"
		for (k = 1; k <= nc; k++) printf " %s |", m[k]
		printf "\n" }' "$tmp/deltas"
