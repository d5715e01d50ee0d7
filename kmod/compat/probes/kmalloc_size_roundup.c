// SPDX-License-Identifier: GPL-2.0
/* kmalloc_size_roundup(): the slot a kmalloc of size gets (6.1). */
#include <linux/slab.h>

size_t memtrace_probe(size_t size);
size_t memtrace_probe(size_t size)
{
	return kmalloc_size_roundup(size);
}
