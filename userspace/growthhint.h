/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User mode's warning against a silent report: an interval in which the
 * traced process's memory grew while no allocator call was seen at all
 * says so in one line, with the likely cause (memory it maps itself, or an
 * allocator that is not the one probed).
 */
#ifndef MEMTRACE_READ_GROWTHHINT_H
#define MEMTRACE_READ_GROWTHHINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct growth_hint {
	bool primed;			/* one interval's end has been seen */
	uint64_t allocs;		/* allocator calls seen, in all */
	uint64_t anon_kib, rss_kib;	/* the process's anonymous mappings, its RSS */
};

/* Anonymous growth below this, in KiB, is not worth a line. */
#define GROWTH_HINT_MIN_KIB 256

/* The KiB of the anonymous mappings ([heap], [anon:...], unnamed; not the stack) in maps text. */
uint64_t growth_hint_anon_kib(const char *maps_text);

/*
 * The interval's line, or false: allocs is the count of allocator calls
 * seen since tracing began, anon_kib and rss_kib the process's now.
 * Updates h.
 */
bool growth_hint_judge(struct growth_hint *h, int pid, uint64_t allocs, uint64_t anon_kib,
		       uint64_t rss_kib, char *line, size_t len);

/* The same, reading pid's maps and statm; false if they cannot be read. */
bool growth_hint_update(struct growth_hint *h, int pid, uint64_t allocs, char *line,
			size_t len);

#endif
