// SPDX-License-Identifier: GPL-2.0
/* 6.2 (and stable backports): timer_delete_sync(); 7.x drops del_timer_sync(). */
#include <linux/timer.h>

int memtrace_probe(struct timer_list *t);
int memtrace_probe(struct timer_list *t)
{
	return timer_delete_sync(t);
}
