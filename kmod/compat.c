// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time half of the compat layer; see compat.h.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/memtrace.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "compat.h"

/* Where struct kmem_cache keeps its name pointer; -1: unknown. */
static int mt_kmem_cache_name_off = -1;

/* The name field lies early in every layout so far (~100 bytes in SLUB). */
#define MT_KMEM_CACHE_SCAN	192

static void mt_layout_probe_ctor(void *obj)
{
	/* A constructor keeps SLUB from merging the probe cache into another. */
}

/*
 * Offset of the first word of cache 'name' that points to a copy of its
 * name, or -1.  kmem_cache_create() stores kstrdup_const(name), a copy for
 * a module's string, so the strings are compared, read without risk of a
 * fault; the scan stops at the first match, so it never reads past the
 * name field of the structure.
 */
static int mt_scan_for_name(const char *name)
{
	char buf[MEMTRACE_NAME_LEN];
	const unsigned long *words;
	struct kmem_cache *s;
	int i, off = -1;

	s = kmem_cache_create(name, 24, 0, 0, mt_layout_probe_ctor);
	if (!s)
		return -1;
	words = (const unsigned long *)s;
	for (i = 0; i < MT_KMEM_CACHE_SCAN / (int)sizeof(long); i++) {
		void *p = (void *)words[i];

		/* Our own string if it was kept, a copy in the linear map if not. */
		if (p != name && (!virt_addr_valid(p) ||
				  copy_from_kernel_nofault(buf, p, sizeof(buf)) ||
				  strncmp(buf, name, sizeof(buf))))
			continue;
		off = i * sizeof(long);
		break;
	}
	kmem_cache_destroy(s);
	return off;
}

/* Two probes with different names must agree on the offset to trust it. */
static void mt_find_kmem_cache_name(void)
{
	int a = mt_scan_for_name("memtrace_layout_probe_a");
	int b = mt_scan_for_name("memtrace_layout_probe_bb");

	if (a >= 0 && a == b)
		mt_kmem_cache_name_off = a;
	else
		pr_warn("slab cache name not found in struct kmem_cache (%d/%d): caches reported by size\n",
			a, b);
}

int mt_compat_init(void)
{
	mt_find_kmem_cache_name();
	return 0;
}

const char *mt_kmem_cache_name(const struct kmem_cache *s)
{
	if (mt_kmem_cache_name_off < 0 || !s)
		return NULL;
	return *(const char * const *)((const char *)s + mt_kmem_cache_name_off);
}
