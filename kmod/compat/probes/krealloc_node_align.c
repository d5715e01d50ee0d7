// SPDX-License-Identifier: GPL-2.0
/*
 * 6.17: krealloc() is a macro around krealloc_node_align(), whose function
 * (krealloc_node_align_noprof) is the one kprobes reach; no krealloc
 * function is left to probe.
 */
#include <linux/slab.h>

void *memtrace_probe(const void *p);
void *memtrace_probe(const void *p)
{
	return krealloc_node_align(p, 64, 8, GFP_KERNEL, NUMA_NO_NODE);
}
