// SPDX-License-Identifier: GPL-2.0
/*
 * Before 6.1 (5.10): kmalloc and kmem_cache_alloc have separate _node
 * events, and neither passes the node; kmem_cache_alloc passes the sizes
 * instead of its cache (MT_KMEM_TP_PROBES in compat.h).
 */
#include <linux/slab.h>
#include <trace/events/kmem.h>

static void memtrace_probe_fn(void *data, unsigned long call_site, const void *ptr,
			      size_t bytes_req, size_t bytes_alloc, gfp_t gfp, int node)
{
}

static int memtrace_probe(void)
{
	return register_trace_kmem_cache_alloc_node(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
