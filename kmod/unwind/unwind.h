/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks by call-frame tables (unwind.c).  The reader turns each
 * object's .eh_frame/.debug_frame into rows sorted by file offset
 * (struct memtrace_unwind_row) and hands them over with the object's file
 * (MEMTRACE_IOC_UNWIND_TABLE); a hook walking a user stack (user mode's
 * uprobes, USDT, growth) then finds each caller with a binary search per
 * frame.  Tables are the session's: appended under mt.lock, read
 * locklessly by handlers, freed only once no handler runs
 * (mt_user_release(), never while tracing).
 */
#ifndef MEMTRACE_UNWIND_H
#define MEMTRACE_UNWIND_H

#include <linux/types.h>
#include <linux/memtrace.h>

struct mm_struct;
struct pt_regs;

/*
 * Checks rows a reader handed over: sorted strictly by start, every start
 * below file_size, every rule known and its offsets within bounds.
 * 0 or -EINVAL.
 */
int mt_unwind_validate(const struct memtrace_unwind_row *rows, u32 nr, u64 file_size);

/* The row covering file offset off (the last one starting at or below it), or NULL. */
const struct memtrace_unwind_row *mt_unwind_find(const struct memtrace_unwind_row *rows,
						 u32 nr, u64 off);

/* Load (or share by build id) a table for fd's file: the ioctl's work, under mt.lock. */
int mt_unwind_add_table(const struct memtrace_unwind_table *t);
/* Drop every table and file: no handler may be running. */
void mt_unwind_release(void);
/* Whether any table is loaded (handlers then lock the mm for CFI). */
bool mt_unwind_active(void);
/* The snapshot's table counts (the per-CPU counters are summed by the caller). */
void mt_unwind_snapshot(struct memtrace_unwind_stats *st);

/*
 * The event hooks' walks (growth, USDT) are counted per CPU, each
 * family in its own sum, reported by MEMTRACE_IOC_EVSTATS.
 * mt_unwind_count(): one walk's counts into the sum, from any context.
 * mt_unwind_sum(): the sums over the CPUs added into *total, and the
 * session's table counts (under mt.lock).  mt_unwind_sum_reset(): zero,
 * while no walk runs.
 */
void mt_unwind_count(struct memtrace_unwind_stats __percpu *sum,
		     const struct memtrace_unwind_stats *st);
void mt_unwind_sum(struct memtrace_unwind_stats __percpu *sum,
		   struct memtrace_unwind_stats *total);
void mt_unwind_sum_reset(struct memtrace_unwind_stats __percpu *sum);

/* Where the user registers a walk starts from were taken. */
enum mt_unwind_from {
	/* A function's first instruction (a uprobe): its return address is at [sp]. */
	MT_UNWIND_FROM_ENTRY,
	/* Inside a function whose frame is set up (a USDT probe, a user page fault). */
	MT_UNWIND_FROM_INSIDE,
	/*
	 * A system call's saved registers: regs->ip is the instruction after
	 * the syscall, in libc's wrapper.  Where no table covers it, the
	 * wrapper is taken for a leaf without a frame of its own: its return
	 * address is the word between sp and the caller's frame (at most 16
	 * words up) that follows a call instruction; a heuristic, as any
	 * unwinder's for code without tables.
	 */
	MT_UNWIND_FROM_SYSCALL,
};

/*
 * The one user-stack walker (the uprobe, USDT and growth hooks' alike).
 * The return addresses of the user stack regs was taken from, innermost
 * first (regs->ip's own function is not one of them), into ip[max].
 * mm, if not NULL, is current's, read-locked by the caller: its mappings
 * tell which table covers a PC.  With mm NULL, or where no table covers a
 * PC, frames are found by frame pointers.  Counts in st; *faulted if a
 * read of the stack faulted.  Never sleeps; bounded by max.
 */
unsigned int mt_unwind_user(struct mm_struct *mm, struct pt_regs *regs,
			    enum mt_unwind_from from, unsigned long *ip, unsigned int max,
			    struct memtrace_unwind_stats *st, bool *faulted);

#endif
