// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan:mm_vmscan_{direct,memcg}_reclaim_end: (nr_reclaimed) up to 6.x;
 * 7.x adds the memcg.  Probe the prototype, not the version.
 */
#include <linux/memcontrol.h>
#include <trace/events/vmscan.h>

static void memtrace_probe_fn(void *data, unsigned long nr_reclaimed, struct mem_cgroup *memcg)
{
}

static int memtrace_probe(void)
{
	return register_trace_mm_vmscan_direct_reclaim_end(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
