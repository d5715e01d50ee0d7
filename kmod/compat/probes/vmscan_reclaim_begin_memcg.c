// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan:mm_vmscan_{direct,memcg}_reclaim_begin: (order, gfp) up to 6.x;
 * 7.x passes (gfp, order, memcg).  Probe the prototype, not the version.
 */
#include <linux/memcontrol.h>
#include <trace/events/vmscan.h>

static void memtrace_probe_fn(void *data, gfp_t gfp_flags, int order, struct mem_cgroup *memcg)
{
}

static int memtrace_probe(void)
{
	return register_trace_mm_vmscan_direct_reclaim_begin(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
