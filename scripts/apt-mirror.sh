#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts that need a Debian mirror (deps.sh for
# bookworm-backports, bench-peers.sh for debootstrap, newest-kernel.sh
# and bullseye-kernel.sh for one suite's packages through a private apt,
# below): the mirror is the
# one the machine's own apt sources name for bookworm.  Operators use
# local mirrors and proxies, so no host name is ever written in here.
# Both source formats: one-line .list files and deb822 .sources files.
#
# bookworm_mirror: print the URI of the first enabled "deb" source of
# suite bookworm, or nothing.
bookworm_mirror() {
	{
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
				if ($i ~ /\]$/) i++
				if ($(i + 1) == "bookworm") print $i
			}'
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			# one stanza per blank-line separated paragraph
			awk 'BEGIN { RS = ""; FS = "\n" }
			{
				uris = ""; suites = ""; types = ""; enabled = "yes"
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
					else if ($i ~ /^Suites:/) { suites = " " $i " "; sub(/^ Suites:/, "", suites) }
					else if ($i ~ /^Types:/) types = $i
					else if ($i ~ /^Enabled:[ \t]*no/) enabled = "no"
				}
				if (enabled == "yes" && types ~ /(^|[ \t])deb([ \t]|$)/ &&
				    suites ~ /[ \t]bookworm[ \t]/) {
					split(uris, u, /[ \t]+/)
					print u[1]
				}
			}' "$f"
		done
	} | head -n 1
}

# A private apt for one suite of that same mirror (sid for the 7.2 source,
# bullseye for the 5.10 kernel): its own sources file, lists, cache and an
# empty dpkg status in $MEMTRACE_CACHE/SUITE-apt (default
# ~/.cache/memtrace), so that the suite never reaches the system's apt
# sources or dpkg and nothing is installed: only `apt-get download` and
# `apt-cache` go through it.  Root (apt-get update writes its lists).
#
# private_apt_update SUITE: write SUITE's sources file (main, on
# bookworm_mirror's host) and fetch its index; non-zero on failure.
# private_apt SUITE CMD ARGS...: run CMD (apt-get, apt-cache) on it.
# private_apt_clean SUITE: drop its lists and downloaded archives (the
# .debs are wanted elsewhere: download them into another directory).
private_apt_dir() {
	echo "${MEMTRACE_CACHE:-${HOME:-/root}/.cache/memtrace}/$1-apt"
}

private_apt() {
	_pa_st=$(private_apt_dir "$1")
	_pa_cmd=$2
	shift 2
	"$_pa_cmd" -o Dir::Etc::SourceList="$_pa_st/sources.list" \
		-o Dir::Etc::SourceParts="$_pa_st/parts" \
		-o Dir::Etc::PreferencesParts="$_pa_st/parts" \
		-o Dir::State::Lists="$_pa_st/lists" \
		-o Dir::Cache="$_pa_st/cache" \
		-o Dir::State::status=/dev/null \
		-o APT::Sandbox::User=root \
		-o Debug::NoLocking=1 "$@"
}

private_apt_update() {
	_pa_mirror=$(bookworm_mirror)
	if [ -z "$_pa_mirror" ]; then
		echo "apt-mirror: no 'bookworm' entry in apt's sources to take $1's mirror from" >&2
		return 1
	fi
	_pa_st=$(private_apt_dir "$1")
	mkdir -p "$_pa_st/lists/partial" "$_pa_st/cache/archives/partial" "$_pa_st/parts" || return 1
	echo "deb $_pa_mirror $1 main" >"$_pa_st/sources.list" || return 1
	echo "apt-mirror: $1's index from $_pa_mirror (private apt state in $_pa_st)" >&2
	private_apt "$1" apt-get -q update >&2
}

private_apt_clean() {
	_pa_st=$(private_apt_dir "$1")
	rm -rf "$_pa_st/lists" "$_pa_st/cache"
}
