/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprobe and kretprobe hooks on the paths no tracepoint covers
 * (kprobe_hooks.c): a row of the table of event sources (sources.c),
 * between the tracepoint probes' free and allocation sides (hooks.h).  On
 * a kernel without kretprobes, not built: no row, and every such path
 * reported unseen.
 */
#ifndef MEMTRACE_KPROBE_HOOKS_H
#define MEMTRACE_KPROBE_HOOKS_H

#include <linux/kconfig.h>
#include <linux/types.h>
#include <linux/memtrace.h>

/* Built into the module (Kbuild's condition). */
#define MT_KPROBE_HOOKS_BUILT	IS_ENABLED(CONFIG_KRETPROBES)

#if MT_KPROBE_HOOKS_BUILT
/*
 * The row's init, available, attach and detach (sources.c).  Attach
 * registers what it can and says what it could not (0 always; a path not
 * probed is reported unseen): the table never detaches a row whose
 * attach failed, so an attach that may fail must unregister what it did.
 */
int mt_kprobe_hooks_init(void);
u32 mt_kprobe_hooks_available(void);
int mt_kprobe_hooks_attach(u32 events);
void mt_kprobe_hooks_detach(void);
/* Hits the kprobes dropped since they were attached. */
u64 mt_kprobe_hooks_missed(void);
/* MEMTRACE_BLIND_*: the paths the last attach could not hook. */
u32 mt_kprobe_hooks_blind(void);
#else
/* A kernel without kprobes: no vmalloc events, and every such path unseen. */
static inline u64 mt_kprobe_hooks_missed(void) { return 0; }
static inline u32 mt_kprobe_hooks_blind(void)
{
	return MEMTRACE_BLIND_BULK_FREE | MEMTRACE_BLIND_BULK_ALLOC | MEMTRACE_BLIND_VMALLOC |
	       MEMTRACE_BLIND_KREALLOC | MEMTRACE_BLIND_MEMPOOL | MEMTRACE_BLIND_PERCPU_CHUNK |
	       MEMTRACE_BLIND_CACHE_DESTROY | MEMTRACE_BLIND_SPLIT_PAGE;
}
#endif

#endif
