/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allocation tracepoint probes (hooks.c): the events this kernel has
 * tracepoints for, and their two rows in the table of event sources
 * (sources.c): the free side, attached first and detached last, and the
 * allocation side, attached last and detached first, with the kprobe
 * hooks (kprobe_hooks.h) between them.
 */
#ifndef MEMTRACE_HOOKS_H
#define MEMTRACE_HOOKS_H

#include <linux/types.h>

/* Finds the tracepoints: 0, or -ENOENT if none is there. */
int mt_hooks_init(void);
/* MEMTRACE_EV_* the tracepoints found cover. */
u32 mt_hooks_available(void);
/*
 * Attach the free (allocation) probes of events: all or none.  Detaching
 * the free side waits until no probe of either side runs.
 */
int mt_hooks_attach_frees(u32 events);
void mt_hooks_detach_frees(void);
int mt_hooks_attach_allocs(u32 events);
void mt_hooks_detach_allocs(void);

#endif
