// SPDX-License-Identifier: GPL-2.0
/* 6.11: uprobe_consumer.filter lost its enum uprobe_filter_ctx argument. */
#include <linux/uprobes.h>

static bool memtrace_filter(struct uprobe_consumer *self, struct mm_struct *mm)
{
	return true;
}

struct uprobe_consumer memtrace_probe = { .filter = memtrace_filter };
