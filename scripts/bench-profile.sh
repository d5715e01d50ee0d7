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

# fn_counts N: "function<TAB>instructions" of window N
fn_counts() {
	local f=$prefix.$1
	[ -s "$f" ] || { echo "bench-profile: no $f" >&2; return 1; }
	{
		cat "$tmp/syms"
		awk "$HEX"'{
			if (length($1) == 16 && substr($1, 1, 8) == "ffffffff")
				printf "%.0f B %s\n", hex(substr($1, 9)), $2
			else
				user += $2
		} END { printf "-1 U %.0f\n", user }' "$f"
	} | sort -s -k1,1n -k2,2r | awk '
		$2 == "U" { n["[user]"] += $3; next }
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
