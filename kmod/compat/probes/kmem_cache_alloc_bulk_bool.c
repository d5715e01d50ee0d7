// SPDX-License-Identifier: GPL-2.0
/*
 * 7.x: kmem_cache_alloc_bulk() returns whether it filled the whole array
 * (bool), no longer how many objects it put there (int).
 */
#include <linux/build_bug.h>
#include <linux/slab.h>

void memtrace_probe(struct kmem_cache *s, void **p);
void memtrace_probe(struct kmem_cache *s, void **p)
{
	BUILD_BUG_ON(!__builtin_types_compatible_p(typeof(kmem_cache_alloc_bulk(s, GFP_KERNEL, 1, p)),
						   bool));
}
