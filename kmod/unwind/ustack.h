/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The growth hooks' user stacks (growth.c: at a system call's return, at
 * a page fault), in a kretprobe's handler, which may not sleep.  A thin
 * caller of the one user-stack walker, mt_unwind_user() (unwind.h): it
 * read-locks the mm for the unwind tables if it can without waiting
 * (mmap_read_trylock(); else the stack is walked by frame pointers and
 * counted as mm_busy), and puts the interrupted instruction first.
 */
#ifndef MEMTRACE_USTACK_H
#define MEMTRACE_USTACK_H

#include <linux/types.h>

#include "unwind/unwind.h"

struct pt_regs;

/*
 * regs: current's user registers (task_pt_regs()); from: where they were
 * taken (MT_UNWIND_FROM_SYSCALL at a system call, MT_UNWIND_FROM_INSIDE at
 * a user-mode fault).  ip[0] is regs' instruction, then its callers.
 * Counts in st; *faulted if a read of the stack faulted.  A 32-bit
 * task's stack is its PC alone (its frames are not x86-64's).
 */
unsigned int mt_ustack(struct pt_regs *regs, enum mt_unwind_from from, unsigned long *ip,
		       unsigned int max, struct memtrace_unwind_stats *st, bool *faulted);

#endif
