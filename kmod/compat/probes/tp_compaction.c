// SPDX-License-Identifier: GPL-2.0
/*
 * The compaction tracepoints --compaction attaches to: only in kernels
 * built with CONFIG_COMPACTION (the mode is refused without them).
 */
#include <linux/mm.h>
#include <linux/compaction.h>

struct compact_control;	/* mm/internal.h's */
#include <trace/events/compaction.h>

static int memtrace_probe(void)
{
	return register_trace_mm_compaction_begin(NULL, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
