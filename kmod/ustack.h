/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks by frame pointers, read with copy_from_user_nofault(): any
 * context that may not sleep, bounded, never faulting pages in.  The
 * growth hooks' walks (at a system call's return, at a page fault).  The
 * uprobe handlers' walk (at a function's entry) is mt_unwind_user()'s
 * (unwind.h), which reads unwind tables where the reader gave some and
 * frame pointers elsewhere; these do not use the tables yet.
 */
#ifndef MEMTRACE_USTACK_H
#define MEMTRACE_USTACK_H

#include <linux/types.h>

struct pt_regs;

/*
 * At a system call, from the user registers it saved: the instruction
 * after the syscall (in libc's wrapper), the wrapper's return address,
 * then the frame-pointer chain.  The wrappers are leaves without a frame
 * pointer of their own: the return address is the highest word between sp
 * and the caller's frame (at most 16 words up) that follows a call
 * instruction; a heuristic, as any unwinder's for code without unwind
 * tables it may read.
 */
unsigned int mt_ustack_at_syscall(struct pt_regs *regs, unsigned long *ip,
				  unsigned int max, bool *faulted);

/*
 * At a page fault in user mode: the faulting instruction, then the
 * frame-pointer chain (the faulting function's frame is set up).
 */
unsigned int mt_ustack_at_fault(struct pt_regs *regs, unsigned long *ip,
				unsigned int max, bool *faulted);

#endif
