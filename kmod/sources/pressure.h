/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pressure events (MEMTRACE_EV_PRESSURE): OOM kills, direct and
 * memcg reclaim, page reclaim's work (vmscan), compaction and page
 * migration, written as records into the per-CPU event rings (evring.h).
 * Unlike the allocation hooks they record what happened, not what is
 * live: no table, no stack table, nothing but the ring.  A row of the
 * table of event sources (sources.c), built on every kernel; a family
 * whose tracepoints (or, for OOM kills, whose kprobe) a kernel lacks is
 * left out of what it has hooks for.
 */
#ifndef MEMTRACE_PRESSURE_H
#define MEMTRACE_PRESSURE_H

#include <linux/types.h>

struct mt_evring;
struct pid_namespace;

/* Find the tracepoints and functions at load. */
int mt_pressure_init(void);
/*
 * MEMTRACE_EV_OOM / _RECLAIM / _VMSCAN / _COMPACTION / _MIGRATION this
 * kernel has hooks for.
 */
u32 mt_pressure_available(void);
/*
 * Attach the hooks of events, writing into er.  Task ids are numbered in
 * ns (NULL: the initial namespace); kernel stacks only with kaddr.
 */
int mt_pressure_attach(u32 events, struct mt_evring *er, struct pid_namespace *ns,
		       bool kaddr);
/* Detach; no hook runs after it returns. */
void mt_pressure_detach(void);
/* kprobe hits the kernel dropped (a probe inside a probe). */
u64 mt_pressure_missed(void);

#endif
