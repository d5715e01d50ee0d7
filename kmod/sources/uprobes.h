/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User mode: one process's allocations through uprobes (uprobes.c), a
 * row of the table of event sources (sources.c).  Everything but the
 * handlers runs under mt.lock.  Without uprobes (or on an architecture
 * whose calling convention uprobes.c does not read) it is not built: the
 * module has no user mode and says so in its features.
 */
#ifndef MEMTRACE_UPROBES_H
#define MEMTRACE_UPROBES_H

#include <linux/types.h>
#include <linux/memtrace.h>

/* Built into the module (Kbuild's condition). */
#define MT_USER_BUILT	(IS_ENABLED(CONFIG_UPROBES) && IS_ENABLED(CONFIG_X86_64))

#if MT_USER_BUILT
/* The row's init (at load) and exit (at unload: mt_user_release()). */
int mt_user_init(void);
/* MEMTRACE_EV_USER */
u32 mt_user_available(void);
/* Name the process to trace (0: none), dropping the previous target. */
int mt_user_set_target(const void *owner, pid_t pid, bool follow_forks);
/* One allocator function of the target's: fd's file at offset. */
int mt_user_add_uprobe(const void *owner, int fd, u64 offset, u32 func, u32 kind);
/* A target with at least one function to probe is set. */
bool mt_user_ready(void);
/* Arm the probes (start), and disarm them, waiting out every handler. */
int mt_user_attach(void);
void mt_user_detach(void);
/* Drop the target and its files, if owner set them; not while armed. */
void mt_user_release_owner(const void *owner);
void mt_user_release(void);
void mt_user_snapshot(struct memtrace_target_state *ts);
/* An unwind table for the target's objects (MEMTRACE_IOC_UNWIND_TABLE). */
int mt_user_add_unwind_table(const void *owner, const struct memtrace_unwind_table *t);
/* The unwind tables' counts, into the snapshot. */
void mt_user_unwind_snapshot(struct memtrace_unwind_stats *st);

#else

static inline int mt_user_set_target(const void *owner, pid_t pid, bool follow_forks)
{
	return -EOPNOTSUPP;
}
static inline int mt_user_add_uprobe(const void *owner, int fd, u64 offset, u32 func, u32 kind)
{
	return -EOPNOTSUPP;
}
static inline bool mt_user_ready(void) { return false; }
static inline void mt_user_release_owner(const void *owner) { }
static inline void mt_user_snapshot(struct memtrace_target_state *ts) { }
static inline int mt_user_add_unwind_table(const void *owner,
					   const struct memtrace_unwind_table *t)
{
	return -EOPNOTSUPP;
}
static inline void mt_user_unwind_snapshot(struct memtrace_unwind_stats *st) { }
#endif

#endif
