// SPDX-License-Identifier: GPL-2.0
/*
 * oom:mark_victim passes the victim's task and uid (Debian's 6.1.192 and
 * 6.12, mainline from 6.9); before, only its pid.  A version check would
 * be wrong on backports: probe the prototype.
 */
#include <linux/sched.h>
#include <trace/events/oom.h>

static void memtrace_probe_fn(void *data, struct task_struct *task, uid_t uid)
{
}

static int memtrace_probe(void)
{
	return register_trace_mark_victim(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
