// SPDX-License-Identifier: GPL-2.0
/* 6.13: hrtimer_setup() sets the callback with the clock; 7.x drops hrtimer_init(). */
#include <linux/hrtimer.h>

static enum hrtimer_restart memtrace_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void memtrace_probe(struct hrtimer *t);
void memtrace_probe(struct hrtimer *t)
{
	hrtimer_setup(t, memtrace_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
