/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock a hook takes on a shared table.
 *
 * A kprobe planted as a breakpoint (a kernel without kprobes on ftrace)
 * runs its handler in the int3 trap, which the kernel enters as an NMI.
 * In NMI a lock may only be tried: were its holder the code the trap
 * interrupted, spinning would never end, and lockdep refuses any other
 * acquisition there.  No lock of ours is held around a function we probe,
 * so in the trap the holder is another CPU, which lets go within a table
 * operation; the lock is tried until it is taken.
 */
#ifndef MEMTRACE_HOOKLOCK_H
#define MEMTRACE_HOOKLOCK_H

#include <linux/hardirq.h>
#include <linux/spinlock.h>

static __always_inline void mt_hook_lock(raw_spinlock_t *lock)
{
	if (unlikely(in_nmi())) {
		while (!raw_spin_trylock(lock))
			cpu_relax();
		return;
	}
	raw_spin_lock(lock);
}

#define mt_hook_lock_irqsave(lock, flags)		\
	do {						\
		local_irq_save(flags);			\
		mt_hook_lock(lock);			\
	} while (0)

#endif /* MEMTRACE_HOOKLOCK_H */
