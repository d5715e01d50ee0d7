// SPDX-License-Identifier: GPL-2.0
/* get_kretprobe_retaddr(ri) (5.15); before, ri->ret_addr. */
#include <linux/kprobes.h>

unsigned long memtrace_probe(struct kretprobe_instance *ri);
unsigned long memtrace_probe(struct kretprobe_instance *ri)
{
	return get_kretprobe_retaddr(ri);
}
