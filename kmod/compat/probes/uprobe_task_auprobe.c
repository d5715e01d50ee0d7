// SPDX-License-Identifier: GPL-2.0
/*
 * struct uprobe_task's auprobe (absent in 5.10): the proxy, in headers, for
 * uprobes skipping the single step when a handler moved the ip (see
 * MT_UPROBE_HANDLER_MAY_JUMP in compat.h).
 */
#include <linux/uprobes.h>

struct arch_uprobe *memtrace_probe(struct uprobe_task *t);
struct arch_uprobe *memtrace_probe(struct uprobe_task *t)
{
	return t->auprobe;
}
