// SPDX-License-Identifier: GPL-2.0
/*
 * An interval's growth without allocator calls; see growthhint.h.
 */
#include "growthhint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "procmaps.h"

uint64_t growth_hint_anon_kib(const char *text)
{
	uint64_t bytes = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char one[256];
		struct maps_line m;

		/* One line alone: the parser's trailing blank would eat a newline. */
		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1),
			 line);
		if (procmaps_parse_line(one, &m) && !m.exec && m.inode == 0 &&
		    (m.name_len == 0 || !strncmp(m.name, "[heap]", 6) ||
		     !strncmp(m.name, "[anon:", 6)))
			bytes += m.end - m.start;
		line = nl ? nl + 1 : NULL;
	}
	return bytes / 1024;
}

static uint64_t grown(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

bool growth_hint_judge(struct growth_hint *h, int pid, uint64_t allocs, uint64_t anon_kib,
		       uint64_t rss_kib, char *line, size_t len)
{
	bool quiet = h->primed && allocs == h->allocs;
	uint64_t anon = grown(anon_kib, h->anon_kib), rss = grown(rss_kib, h->rss_kib);
	bool said = false;

	if (quiet && anon >= GROWTH_HINT_MIN_KIB) {
		snprintf(line, len, "Growth: pid %d's anonymous memory grew by %" PRIu64 " KiB "
			 "(RSS +%" PRIu64 " KiB) with no allocator call seen in this interval: "
			 "likely memory it maps itself (mmap or brk system calls, not through "
			 "the allocator probed), or an allocator not probed (see its allocator "
			 "line; name it with -O)", pid, anon, rss);
		said = true;
	} else if (quiet && rss >= 4 * GROWTH_HINT_MIN_KIB) {
		snprintf(line, len, "Growth: pid %d's RSS grew by %" PRIu64 " KiB with no "
			 "allocator call seen in this interval: likely memory allocated before "
			 "touched for the first time, or an allocator not probed (see its "
			 "allocator line; name it with -O)", pid, rss);
		said = true;
	}
	h->primed = true;
	h->allocs = allocs;
	h->anon_kib = anon_kib;
	h->rss_kib = rss_kib;
	return said;
}

bool growth_hint_update(struct growth_hint *h, int pid, uint64_t allocs, char *line, size_t len)
{
	unsigned long long size = 0, resident = 0;
	char *maps = NULL, *statm = NULL;
	size_t n;
	uint64_t anon;
	bool ok;

	if (procmaps_read_text(pid, &maps, &n))
		return false;
	anon = growth_hint_anon_kib(maps);
	free(maps);
	ok = !procfs_read(pid, "statm", &statm, &n) &&
	     sscanf(statm, "%llu %llu", &size, &resident) == 2;
	free(statm);
	if (!ok)
		return false;
	return growth_hint_judge(h, pid, allocs, anon,
				 (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024,
				 line, len);
}
