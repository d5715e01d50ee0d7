// SPDX-License-Identifier: GPL-2.0
/*
 * ri->fp (to 5.18): the stack slot of the return address a kretprobe
 * replaced, which memtrace's own recovery (compat.c) keys on.
 */
#include <linux/kprobes.h>

void *memtrace_probe(struct kretprobe_instance *ri);
void *memtrace_probe(struct kretprobe_instance *ri)
{
	return ri->fp;
}
