// SPDX-License-Identifier: GPL-2.0
/* 6.13: uprobe handlers gained a per-call __u64 *data argument. */
#include <linux/uprobes.h>

static int memtrace_handler(struct uprobe_consumer *self, struct pt_regs *regs,
			    __u64 *data)
{
	return 0;
}

struct uprobe_consumer memtrace_probe = { .handler = memtrace_handler };
