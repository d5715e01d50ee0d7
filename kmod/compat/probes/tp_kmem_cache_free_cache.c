// SPDX-License-Identifier: GPL-2.0
/*
 * 6.1: kmem_cache_free passes the cache (5.10, 5.11: the object alone).
 */
#include <linux/slab.h>
#include <trace/events/kmem.h>

static void memtrace_probe_fn(void *data, unsigned long call_site, const void *ptr,
			      const struct kmem_cache *s)
{
}

static int memtrace_probe(void)
{
	return register_trace_kmem_cache_free(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
