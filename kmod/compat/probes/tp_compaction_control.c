// SPDX-License-Identifier: GPL-2.0
/*
 * mm_compaction_begin/end pass the compact_control (6.1); 5.10's pass the
 * scanners' PFNs instead.
 */
#include <linux/mm.h>
#include <linux/compaction.h>

struct compact_control;	/* mm/internal.h's */
#include <trace/events/compaction.h>

static void memtrace_probe_fn(void *data, struct compact_control *cc,
			      unsigned long zone_start, unsigned long zone_end, bool sync)
{
}

static int memtrace_probe(void)
{
	return register_trace_mm_compaction_begin(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
