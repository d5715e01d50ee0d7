// SPDX-License-Identifier: GPL-2.0
/* in_hardirq() (5.11); before, in_irq(). */
#include <linux/preempt.h>

bool memtrace_probe(void);
bool memtrace_probe(void)
{
	return in_hardirq();
}
