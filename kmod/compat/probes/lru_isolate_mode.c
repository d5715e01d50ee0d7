// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan:mm_vmscan_lru_isolate passes the isolate mode before the LRU
 * (6.1); 6.4 dropped it.  Probe the prototype, not the version.
 */
#include <linux/mmzone.h>
#include <trace/events/vmscan.h>

static void memtrace_probe_fn(void *data, int highest_zoneidx, int order,
			      unsigned long nr_requested, unsigned long nr_scanned,
			      unsigned long nr_skipped, unsigned long nr_taken,
			      isolate_mode_t isolate_mode, int lru)
{
}

static int memtrace_probe(void)
{
	return register_trace_mm_vmscan_lru_isolate(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
