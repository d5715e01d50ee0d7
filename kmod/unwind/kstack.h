/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel stacks for the allocation hooks: unwind, trim the tracing
 * machinery off, intern the rest in the stack table.  And a kprobe's
 * stack from its registers (the OOM kill's trigger, pressure.c).
 *
 * An unwind costs far more than the rest of a hook, so on x86-64 with the
 * ORC unwinder a per-CPU memo spares most of them.  For an allocation site
 * it keeps the last two stacks unwound there: each frame's return address
 * and where in the stack, from the capture's own frame, it was read.  When
 * the site is reached again and every one of those stack words still holds
 * its return address, the unwinder would find the same frames, and the
 * memo's stack id stands.  That is exact because ORC locates each frame
 * from the previous one by the previous return address alone (the frame
 * size objtool recorded for that code): equal return addresses at equal
 * offsets give equal frames, step by step, from the first one.
 *
 * The stacks for which that argument fails are never memoized: a frame
 * entered through an interrupt or exception (its successor comes from
 * saved registers), a return address that a kretprobe or the function
 * graph tracer rewrote, a frame off the task stack (interrupt context,
 * exception stacks), stacks deeper than MT_KSTACK_MEMO_FRAMES, and a step
 * that used the frame pointer (found by taking the step again with the
 * frame pointer moved), but for one: the system call entry's, whose frame
 * has a random size (randomize_kstack_offset).  The frames past it are
 * kept from that frame pointer, read where the stack holds it.  The rest
 * are unwound every time, as without a memo.  docs/design.md has more.
 */
#ifndef MEMTRACE_KSTACK_H
#define MEMTRACE_KSTACK_H

#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/types.h>

#include "compat/compat.h"
#include "tables/stacktab.h"

/* Frames a memo slot verifies; deeper stacks are unwound every time. */
#define MT_KSTACK_MEMO_FRAMES	40

struct mt_kstack_memo_slot;
struct mt_kstack_tfn_cache;

struct mt_kstack {
	struct mt_stacktab *stacks;
	/*
	 * With no call site to start from, frames of this module are
	 * trimmed off the top of a stack (NULL: none are).
	 */
	const struct module *self;
	/* With self: per CPU, the functions last found tracing or not. */
	struct mt_kstack_tfn_cache __percpu *tfn;
	struct mt_kstack_memo_slot *memo;	/* nr_cpu_ids * (memo_mask + 2) */
	u32 memo_mask;
	atomic_t generation;	/* see mt_kstack_module_gone() */
};

/*
 * memo_slots per CPU (rounded up to a power of two; 0: no memo).  The
 * memo is left out, not an error, where the unwinder is not ORC.
 */
int mt_kstack_init(struct mt_kstack *ks, struct mt_stacktab *stacks,
		   const struct module *self, u32 memo_slots);
void mt_kstack_destroy(struct mt_kstack *ks);
/* Forget every memoized stack (their ids die with the stack table's). */
void mt_kstack_clear(struct mt_kstack *ks);

/*
 * A module is going away: a module loaded later at its addresses has other
 * ORC data, so no memo made before may stand.  Any context; the caller
 * (a module notifier) is registered once, by the module, not per table.
 */
static inline void mt_kstack_module_gone(struct mt_kstack *ks)
{
	atomic_inc(&ks->generation);
}

/*
 * With interrupts disabled: the id of the current kernel stack, from the
 * allocation's call site on (if the stack has it), at most depth frames;
 * MEMTRACE_STACK_NONE when the stack table is full.  frames is scratch
 * space for depth + MT_KSTACK_SLACK entries.  *memo_hit, unless NULL,
 * tells whether the memo answered.
 */
#define MT_KSTACK_SLACK	16
u32 mt_kstack_id(struct mt_kstack *ks, unsigned long *frames,
		 unsigned long call_site, unsigned int depth, bool *memo_hit);

/*
 * The current task's stack in a kprobe's handler, from the probed
 * function out, into frames (at most max, no more than
 * MT_KSTACK_KPROBE_MAX): regs' ip, then the unwinder started from regs
 * (MT_HAVE_REGS_UNWIND, compat.h); else the stack from the handler, cut
 * at its first frame in [fn, fn + fn_size), the probed function.
 * Returns the number of frames.
 */
#define MT_KSTACK_KPROBE_MAX	32
unsigned int mt_kstack_kprobe(struct pt_regs *regs, unsigned long fn, unsigned long fn_size,
			      u64 *frames, unsigned int max);

#endif
