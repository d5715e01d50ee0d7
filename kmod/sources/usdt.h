/* SPDX-License-Identifier: GPL-2.0 */
/*
 * USDT probes (MEMTRACE_EV_USDT): the statically defined tracepoints of
 * <sys/sdt.h>, found by the reader in an ELF object's .note.stapsdt and
 * handed over as (file, offset, semaphore offset, compiled argument
 * specs) with MEMTRACE_IOC_USDT.  Each is a uprobe with the semaphore as
 * its reference counter; a hit writes one record, with its arguments
 * decoded and the user stack, into the event rings (evring.h).  A row of
 * the table of event sources (sources.c), built where user mode is.
 * Everything but the handler runs under mt.lock.
 */
#ifndef MEMTRACE_USDT_H
#define MEMTRACE_USDT_H

#include <linux/types.h>
#include <linux/memtrace.h>

#include "sources/uprobes.h"

struct mt_evring;
struct pid;
struct pid_namespace;

/* Built into the module with user mode's uprobes (one Kbuild condition). */
#define MT_USDT_BUILT	MT_USER_BUILT

#if MT_USDT_BUILT
/* MEMTRACE_EV_USDT */
u32 mt_usdt_available(void);
/* One probe site, for the session of owner; not while armed. */
int mt_usdt_add(const void *owner, const struct memtrace_usdt *u);
/*
 * Arm every probe added, writing into er: in the address spaces of
 * tgid's process only (NULL: every one that maps a probe's file), for
 * the tasks that pass mt.filter; task ids numbered in ns (NULL: initial).
 * -ESRCH without a probe.
 */
int mt_usdt_attach(struct mt_evring *er, struct pid *tgid, struct pid_namespace *ns,
		   u32 depth);
/* Disarm; no handler runs after it returns. */
void mt_usdt_detach(void);
/* Drop the probes (and their files) owner added; not while armed. */
void mt_usdt_release_owner(const void *owner);
/* Adds what the handlers lost outside the rings since the last attach. */
void mt_usdt_stats(struct memtrace_evstats *st);
#else
static inline int mt_usdt_add(const void *owner, const struct memtrace_usdt *u)
{
	return -EOPNOTSUPP;
}
static inline void mt_usdt_release_owner(const void *owner) { }
static inline void mt_usdt_stats(struct memtrace_evstats *st) { }
#endif

#endif
