// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe::fault_handler (to 5.13).  Its removal also took out the x86
 * kprobe_fault_handler() branch that counts a page fault taken in a
 * running handler (a user read that finds no page, fixed up) in the
 * probe's nmissed, as if a hit had been dropped: where the field is,
 * memtrace tells those apart (growth.c).
 */
#include <linux/kprobes.h>

void *memtrace_probe(struct kprobe *kp);
void *memtrace_probe(struct kprobe *kp)
{
	return kp->fault_handler;
}
