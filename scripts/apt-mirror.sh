#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts that need a Debian mirror (deps.sh for
# bookworm-backports, bench-peers.sh for debootstrap): the mirror is the
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
