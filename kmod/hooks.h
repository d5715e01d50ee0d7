/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every hook shares, kernel tracepoint probes (hooks.c) and user-mode
 * uprobe handlers (uprobes.c) alike: the entry guard, the sampling
 * decision, and the accounting of an allocation or a free in the tables.
 */
#ifndef MEMTRACE_HOOKS_H
#define MEMTRACE_HOOKS_H

#include "tracer.h"

/*
 * Enter a hook: refuse NMI, disable interrupts, and claim this CPU's
 * state, or count the re-entry and return NULL.  With interrupts off no
 * other context level can run on this CPU, so one busy flag guards them
 * all.  Pair with mt_hook_exit().
 */
struct mt_pcpu *mt_hook_enter(unsigned long *flags);
void mt_hook_exit(struct mt_pcpu *c, unsigned long flags);

/* Sampling decision; true if an allocation of bytes is to be recorded. */
bool mt_sample(struct mt_pcpu *c, const struct mt_filter *f, size_t bytes);
/* The current task's name, interned (0 when the table is full). */
u16 mt_current_comm(struct mt_pcpu *c);

/*
 * Inside a hook: record e (all but comm_id filled in) in the live index
 * and its stack's counters, counting what does not fit.
 */
void mt_account_alloc(struct mt_pcpu *c, struct mt_live *e);
/* Inside a hook: a free of addr; false if the index does not hold it. */
bool mt_account_free(struct mt_pcpu *c, unsigned long addr, u8 kind);

#endif
