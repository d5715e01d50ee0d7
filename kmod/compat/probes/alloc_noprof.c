// SPDX-License-Identifier: GPL-2.0
/*
 * 6.10 (memory allocation profiling): the allocator functions that kprobes
 * reach are the *_noprof ones, the old names macros around them.
 */
#include <linux/vmalloc.h>

void *memtrace_probe(unsigned long size);
void *memtrace_probe(unsigned long size)
{
	return __vmalloc_node_range_noprof(size, 1, VMALLOC_START, VMALLOC_END,
					   GFP_KERNEL, PAGE_KERNEL, 0,
					   NUMA_NO_NODE, NULL);
}
