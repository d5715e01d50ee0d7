// SPDX-License-Identifier: GPL-2.0
/*
 * 7.x keeps a task's dumpability in its exec_state (task_exec_state_
 * get_dumpable(), not exported), no longer in its mm (get_dumpable()).
 */
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/exec_state.h>

bool memtrace_probe(struct task_struct *p);
bool memtrace_probe(struct task_struct *p)
{
	return rcu_dereference(p->exec_state)->dumpable == TASK_DUMPABLE_OWNER;
}
