/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process memory growth (MEMTRACE_EV_GROWTH): mmap, munmap, mremap, brk
 * and System V shared memory system calls, one record per call with the
 * caller's user stack, and page faults, one record per fault with the
 * user stack or the file, written into the per-CPU event rings
 * (evring.h) as the call returns.  Like the pressure events they need no
 * table.  A row of the table of event sources (sources.c); not built
 * without kretprobes or off x86-64.
 */
#ifndef MEMTRACE_GROWTH_H
#define MEMTRACE_GROWTH_H

#include <linux/types.h>
#include <linux/memtrace.h>

struct mt_evring;
struct pid_namespace;

/* Built into the module (Kbuild's condition). */
#define MT_GROWTH_BUILT	(IS_ENABLED(CONFIG_KRETPROBES) && IS_ENABLED(CONFIG_X86_64))

#if MT_GROWTH_BUILT
/* Find which system call entries (and the fault handler) can be probed, at load. */
int mt_growth_init(void);
/* MEMTRACE_EV_MMAP / _BRK / _SHM / _FAULT / _FFAULT this kernel has hooks for. */
u32 mt_growth_available(void);
/*
 * Attach the hooks of events, writing into er, for the callers that pass
 * mt.filter's task filters; task ids numbered in ns (NULL: initial).
 */
int mt_growth_attach(u32 events, struct mt_evring *er, struct pid_namespace *ns,
		     u32 depth);
/* Detach; no hook runs after it returns. */
void mt_growth_detach(void);
/* Adds what the hooks lost outside the rings since the last attach. */
void mt_growth_stats(struct memtrace_evstats *st);
#else
static inline void mt_growth_stats(struct memtrace_evstats *st) { }
#endif

#endif
