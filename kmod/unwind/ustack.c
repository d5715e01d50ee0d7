// SPDX-License-Identifier: GPL-2.0
/*
 * The growth hooks' user stacks; see ustack.h.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "unwind/ustack.h"

unsigned int mt_ustack(struct pt_regs *regs, enum mt_unwind_from from, unsigned long *ip,
		       unsigned int max, struct memtrace_unwind_stats *st, bool *faulted)
{
	struct mm_struct *mm = NULL;
	unsigned int nr;

	*faulted = false;
	if (!max)
		return 0;
	ip[0] = instruction_pointer(regs);
	/* A 32-bit task's frames are 4-byte words, its tables i386's: its PC alone. */
	if (!user_64bit_mode(regs))
		return 1;
	/*
	 * The tables are found through the mappings: the mm read-locked,
	 * never waited for (a fault's handler may hold it already, for
	 * reading: a reader's trylock succeeds then, unless a writer waits).
	 */
	if (mt_unwind_active()) {
		if (mmap_read_trylock(current->mm))
			mm = current->mm;
		else
			st->mm_busy++;
	}
	nr = 1 + mt_unwind_user(mm, regs, from, ip + 1, max - 1, st, faulted);
	if (mm)
		mmap_read_unlock(mm);
	return nr;
}
