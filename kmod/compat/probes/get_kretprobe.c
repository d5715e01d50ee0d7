// SPDX-License-Identifier: GPL-2.0
/* get_kretprobe(ri) (5.11); before, ri->rp. */
#include <linux/kprobes.h>

struct kretprobe *memtrace_probe(struct kretprobe_instance *ri);
struct kretprobe *memtrace_probe(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
