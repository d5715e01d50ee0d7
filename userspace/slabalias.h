/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The other names of a slab cache SLUB merged.  A mergeable cache lives in
 * /sys/kernel/slab under a unique ":X-0000096" directory, with a symlink
 * for every name it was created under; the module names it by the first
 * of those (the kernel's s->name).  /proc/slabinfo shows only that name.
 */
#ifndef MEMTRACE_READ_SLABALIAS_H
#define MEMTRACE_READ_SLABALIAS_H

#include <stddef.h>

/* Where SLUB's sysfs is; $MEMTRACE_SYS_SLAB overrides it (tests). */
#define SLABALIAS_DEFAULT_ROOT	"/sys/kernel/slab"
#define SLABALIAS_ROOT_ENV	"MEMTRACE_SYS_SLAB"

/*
 * The names merged with cache 'name' (not 'name' itself), sorted and
 * separated by ", ", in buf; returns how many (0: none, or not a merged
 * cache, or no sysfs to tell).
 */
unsigned int slab_aliases(const char *name, char *buf, size_t len);

#endif
