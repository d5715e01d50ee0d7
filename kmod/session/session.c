// SPDX-License-Identifier: GPL-2.0
/*
 * The session's state (session.h): the one struct mt_state, the hooks'
 * per-CPU fast-path counters, the lock, what a reader may see of it, and
 * its event rings for mmap.
 */
#include <linux/capability.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/spinlock.h>

#include "session/session.h"

DEFINE_PER_CPU(struct mt_pcpu_fast, mt_fastpath);

struct mt_state mt = {
	.lock = __MUTEX_INITIALIZER(mt.lock),
};

void mt_lock(void)
{
	mutex_lock(&mt.lock);
	WRITE_ONCE(mt.self, current);
}

void mt_unlock(void)
{
	WRITE_ONCE(mt.self, NULL);
	mutex_unlock(&mt.lock);
}

void mt_view_init(struct mt_view *v)
{
	struct pid_namespace *ns = task_active_pid_ns(current);

	/* As kallsyms shows addresses (kptr_restrict 1): CAP_SYSLOG, unaudited. */
	v->kaddr = ns_capable_noaudit(&init_user_ns, CAP_SYSLOG);
	v->pid_ns = ns == &init_pid_ns ? NULL : ns;
}

u32 mt_view_pid(const struct mt_view *v, u32 pid)
{
	struct pid *p;
	u32 nr;

	if (!v->pid_ns || !pid)
		return pid;
	rcu_read_lock();
	p = find_pid_ns(pid, &init_pid_ns);
	nr = p ? pid_nr_ns(p, v->pid_ns) : 0;
	rcu_read_unlock();
	return nr;
}

struct mt_evring *mt_evring_get_current(void)
{
	struct mt_evring *er;

	spin_lock(&mt.evring_lock);
	er = mt.evring;
	if (er)
		mt_evring_get(er);
	spin_unlock(&mt.evring_lock);
	return er;
}
