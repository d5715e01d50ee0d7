// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan:mm_shrink_slab_start and _end gained the memcg as their last
 * argument in 7.x.  Probe the prototypes, not the version.
 */
#include <linux/memcontrol.h>
#include <linux/shrinker.h>
#include <trace/events/vmscan.h>

static void memtrace_start_fn(void *data, struct shrinker *shr, struct shrink_control *sc,
			      long nr_objects_to_shrink, unsigned long cache_items,
			      unsigned long long delta, unsigned long total_scan, int priority,
			      struct mem_cgroup *memcg)
{
}

static void memtrace_end_fn(void *data, struct shrinker *shr, int nid, int shrinker_retval,
			    long unused_scan_cnt, long new_scan_cnt, long total_scan,
			    struct mem_cgroup *memcg)
{
}

static int memtrace_probe(void)
{
	return register_trace_mm_shrink_slab_start(memtrace_start_fn, NULL) ||
	       register_trace_mm_shrink_slab_end(memtrace_end_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
