// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks by frame pointers; see ustack.h.
 */
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "ustack.h"

/* Nothing is mapped below this by default (vm.mmap_min_addr): no code either. */
#define MT_USER_CODE_MIN	0x10000UL

/* Words above sp searched for a leaf wrapper's return address. */
#define MT_USTACK_SCAN_WORDS	16

static bool mt_ustack_plausible(unsigned long ret)
{
	return ret >= MT_USER_CODE_MIN && ret < TASK_SIZE_MAX;
}

/*
 * The caller's frame-pointer chain from fp, after the nr frames in ip:
 * {next fp, return address} pairs.  A frame must lie above the one
 * before it, so a walk always ends.
 */
static unsigned int mt_ustack_chain(unsigned long sp, unsigned long fp, unsigned long *ip,
				    unsigned int nr, unsigned int max, bool *faulted)
{
	struct {
		unsigned long next_fp;
		unsigned long ret;
	} frame;

	while (nr < max) {
		if (fp <= sp || !IS_ALIGNED(fp, sizeof(long)))
			break;
		if (copy_from_user_nofault(&frame, (const void __user *)fp, sizeof(frame))) {
			*faulted = true;
			break;
		}
		/*
		 * Code built without frame pointers leaves rbp holding data:
		 * stop at what cannot be a return address rather than report it.
		 */
		if (!mt_ustack_plausible(frame.ret))
			break;
		ip[nr++] = frame.ret;
		sp = fp;
		fp = frame.next_fp;
	}
	return nr;
}

/*
 * x86-64: ret follows a call: e8 rel32 (5 bytes), or ff /2 with a ModRM
 * of 2 to 7 bytes (an indirect call through a register or memory).
 */
static bool mt_ustack_after_call(unsigned long ret)
{
	u8 b[8];
	int len;

	if (!mt_ustack_plausible(ret) ||
	    copy_from_user_nofault(b, (const void __user *)(ret - sizeof(b)), sizeof(b)))
		return false;
	if (b[3] == 0xe8)
		return true;
	for (len = 2; len <= 7; len++) {
		u8 op = b[8 - len], modrm = b[9 - len];

		if (op == 0xff && (modrm & 0x38) == 0x10)
			return true;
	}
	return false;
}

unsigned int mt_ustack_at_syscall(struct pt_regs *regs, unsigned long *ip,
				  unsigned int max, bool *faulted)
{
	unsigned long sp = user_stack_pointer(regs);
	unsigned long fp = frame_pointer(regs);
	unsigned long words[MT_USTACK_SCAN_WORDS];
	unsigned int nr = 0, n = MT_USTACK_SCAN_WORDS, i, found = n;

	*faulted = false;
	if (!max)
		return 0;
	ip[nr++] = instruction_pointer(regs);
	if (nr == max)
		return nr;
	/*
	 * The wrapper's words lie below the caller's frame (fp), its return
	 * address the highest of them: a wrapper's own locals (mremap's) hold
	 * stale return addresses of earlier calls, below it.  Without a
	 * frame pointer to bound them, the lowest one is taken.
	 */
	if (fp > sp)
		n = min_t(unsigned long, n, (fp - sp) / sizeof(long));
	if (n && copy_from_user_nofault(words, (const void __user *)sp, n * sizeof(long))) {
		*faulted = true;
		return nr;
	}
	for (i = 0; i < n; i++) {
		if (!mt_ustack_after_call(words[i]))
			continue;
		found = i;
		if (fp <= sp)
			break;
	}
	if (found < n) {
		ip[nr++] = words[found];
		sp += found * sizeof(long);
	}
	return mt_ustack_chain(sp, fp, ip, nr, max, faulted);
}

unsigned int mt_ustack_at_fault(struct pt_regs *regs, unsigned long *ip,
				unsigned int max, bool *faulted)
{
	*faulted = false;
	if (!max)
		return 0;
	ip[0] = instruction_pointer(regs);
	return mt_ustack_chain(user_stack_pointer(regs), frame_pointer(regs), ip, 1, max,
			       faulted);
}
