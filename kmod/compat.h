/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one home of kernel version differences.  Each is decided by a
 * build-time probe of the API (compat-probed.h, made by probes.sh) or,
 * for a private structure layout that headers do not show, discovered
 * at module load and validated (mt_compat_init()).
 */
#ifndef MEMTRACE_COMPAT_H
#define MEMTRACE_COMPAT_H

#include <linux/mm.h>
#include "compat-probed.h"

struct kmem_cache;

static inline void mt_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef MEMTRACE_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void mt_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef MEMTRACE_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

int mt_compat_init(void);

/*
 * The name of a slab cache.  struct kmem_cache is private to mm/ (its
 * SLUB layout left the public headers in 6.8), so the offset of its name
 * is found once at load; NULL if that failed.
 */
const char *mt_kmem_cache_name(const struct kmem_cache *s);

#endif
