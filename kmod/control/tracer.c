// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing session's control: configuration, start, stop, clear, and
 * attaching the event sources (through their table, sources.h); see
 * tracer.h.  Its state: session.c.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "control/tracer.h"
#include "session/sampling.h"
#include "sources/sources.h"
#include "sources/uprobes.h"
#include "sources/usdt.h"

/* Table sizes; the tables are allocated by the first start, not at load. */
static uint live_entries = 1U << 20;
module_param(live_entries, uint, 0444);
MODULE_PARM_DESC(live_entries, "Live allocations tracked before the index grows (default 1M)");
static uint live_max_entries = 1U << 24;
module_param(live_max_entries, uint, 0444);
MODULE_PARM_DESC(live_max_entries, "Most live allocations the index grows to (default 16M)");
static uint stack_pool_mb = 32;
module_param(stack_pool_mb, uint, 0444);
MODULE_PARM_DESC(stack_pool_mb, "MiB of distinct stacks kept (default 32)");
static uint trace_records = 1U << 16;
module_param(trace_records, uint, 0444);
MODULE_PARM_DESC(trace_records, "Trace records for -t, unless the reader asks: the read(2) ring's, or the event rings' together (default 65536)");
static uint stack_memo_slots = 128;
module_param(stack_memo_slots, uint, 0444);
MODULE_PARM_DESC(stack_memo_slots, "Per-CPU memo of kernel stacks, slots of 432 bytes; 0: unwind every time (default 128)");
/* Per possible CPU: a host with many possible CPUs pays it that many times. */
static uint evring_pages = 16;
module_param(evring_pages, uint, 0444);
MODULE_PARM_DESC(evring_pages, "Pages of each CPU's event ring, unless the reader asks; -t's are larger if trace_records needs (default 16)");
static uint stat_slots = 1U << 15;
module_param(stat_slots, uint, 0444);
MODULE_PARM_DESC(stat_slots, "Per-CPU (stack, cache) counter slots (default 32768)");

/*
 * Module code is freed: its init text once init is done, all of it when
 * it goes.  Stacks made with it must not match stacks made later with
 * other code at the same addresses, and keep names for their frames.
 */
static void mt_module_code_freed(struct module *mod, bool core)
{
	unsigned long base, size;
	u32 epoch = 0;

	/* No memo made with that code may stand (any state of the tables). */
	mt_kstack_module_gone(&mt.kstacks);
	mt_lock();
	/* A session of pressure events alone has no stack table. */
	if (mt.tracing && mt.allocated) {
		size = mt_module_text(mod, true, &base);
		if (size)
			epoch = mt_stacktab_code_freed(&mt.stacks, base, base + size);
		if (core) {
			size = mt_module_text(mod, false, &base);
			if (size)
				epoch = mt_stacktab_code_freed(&mt.stacks, base, base + size);
		}
		if (epoch)
			mt_modsyms_freed(&mt.modsyms, mod, core, epoch);
	}
	mt_unlock();
}

static int mt_module_event(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct module *mod = data;

	switch (action) {
	case MODULE_STATE_COMING:
		mt_lock();
		if (mt.tracing && mt.allocated)
			mt_modsyms_coming(&mt.modsyms, mod);
		mt_unlock();
		break;
	case MODULE_STATE_LIVE:
		mt_module_code_freed(mod, false);
		break;
	case MODULE_STATE_GOING:
		mt_module_code_freed(mod, true);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block mt_module_nb = {
	.notifier_call = mt_module_event,
};

/* Kernel-mode events (the kernel's allocations) this kernel has hooks for. */
static u32 mt_kernel_events(void)
{
	return mt_sources_available() & MEMTRACE_EV_ALL;
}

int mt_tracer_init(void)
{
	int ret;

	mt.pcpu = alloc_percpu(struct mt_pcpu);
	if (!mt.pcpu)
		return -ENOMEM;
	ret = mt_sources_init();
	if (ret) {
		free_percpu(mt.pcpu);
		return ret;
	}
	ret = register_module_notifier(&mt_module_nb);
	if (ret) {
		mt_sources_exit();
		free_percpu(mt.pcpu);
		return ret;
	}
	mt_ring_init(&mt.ring);
	spin_lock_init(&mt.evring_lock);
	mt_evwake_init(&mt.evwake);
	mt.cfg.size = sizeof(mt.cfg);
	mt.cfg.events = mt_kernel_events();
	mt.cfg.stack_depth = MEMTRACE_MAX_FRAMES;
	return 0;
}

static void mt_free_tables(void)
{
	if (!mt.allocated)
		return;
	mt_modsyms_destroy(&mt.modsyms);
	mt_livetab_destroy(&mt.live);
	mt_kstack_destroy(&mt.kstacks);
	mt_stacktab_destroy(&mt.stacks);
	mt_stattab_destroy(&mt.stats);
	mt_names_destroy(&mt.names);
	mt.allocated = false;
}

/* Drop the task filter's references (a new configuration, or unload). */
static void mt_put_task_filter(void)
{
	put_pid(mt.cfg_tgid);
	mt.cfg_tgid = NULL;
#ifdef CONFIG_CGROUPS
	if (mt.cfg_cgroup)
		cgroup_put(mt.cfg_cgroup);
#endif
	mt.cfg_cgroup = NULL;
}

static void mt_evring_drop(void);

void mt_tracer_exit(void)
{
	mt_lock();
	if (mt.tracing)
		mt_stop();
	mt_sources_exit();
	mt_put_task_filter();
	mt_free_tables();
	mt_ring_destroy(&mt.ring);
	mt_evring_drop();
	mt_unlock();
	mt_evwake_sync(&mt.evwake);
	unregister_module_notifier(&mt_module_nb);
	free_percpu(mt.pcpu);
}

u32 mt_available_events(void)
{
	return mt_sources_available();
}

/* The session lets go of its event rings (mappings keep theirs); under lock. */
static void mt_evring_drop(void)
{
	struct mt_evring *er;

	spin_lock(&mt.evring_lock);
	er = mt.evring;
	mt.evring = NULL;
	spin_unlock(&mt.evring_lock);
	/* Every hook that could use it is detached by now. */
	WRITE_ONCE(mt.filter.trace_er, NULL);
	mt_evring_put(er);
	if (mt.ev_pid_ns)
		put_pid_ns(mt.ev_pid_ns);
	mt.ev_pid_ns = NULL;
}

/* New event rings for a start with ring events, seen as the starter may see them. */
static int mt_evring_renew(u32 pages)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct mt_view view;
	struct mt_evring *er;

	er = mt_evring_create(pages ? pages : evring_pages, &mt.evwake);
	if (!er)
		return -ENOMEM;
	mt_view_init(&view);
	er->kaddr = view.kaddr;
	mt_evring_drop();
	mt.ev_pid_ns = ns == &init_pid_ns ? NULL : get_pid_ns(ns);
	spin_lock(&mt.evring_lock);
	mt.evring = er;
	spin_unlock(&mt.evring_lock);
	return 0;
}

static int mt_alloc_tables(void)
{
	int ret;

	if (mt.allocated)
		return 0;
	ret = mt_stacktab_init(&mt.stacks, (size_t)stack_pool_mb << 20,
			       (stack_pool_mb << 20) / 128);
	if (ret)
		return ret;
	ret = mt_kstack_init(&mt.kstacks, &mt.stacks, THIS_MODULE, stack_memo_slots);
	if (ret)
		goto err_kstack;
	ret = mt_livetab_init(&mt.live, live_entries, live_max_entries);
	if (ret)
		goto err_live;
	ret = mt_stattab_init(&mt.stats, stat_slots);
	if (ret)
		goto err_stats;
	ret = mt_names_init(&mt.names);
	if (ret)
		goto err_names;
	ret = mt_modsyms_init(&mt.modsyms, MT_MODSYMS_BYTES);
	if (ret)
		goto err_modsyms;
	mt.allocated = true;
	return 0;
err_modsyms:
	mt_names_destroy(&mt.names);
err_names:
	mt_stattab_destroy(&mt.stats);
err_stats:
	mt_livetab_destroy(&mt.live);
err_live:
	mt_kstack_destroy(&mt.kstacks);
err_kstack:
	mt_stacktab_destroy(&mt.stacks);
	return ret;
}

/* Empty every table and per-CPU counter; no hook may run. */
static void mt_clear_tables(void)
{
	int cpu;

	mt_stacktab_clear(&mt.stacks);
	mt_kstack_clear(&mt.kstacks);
	mt_livetab_clear(&mt.live);
	mt_stattab_clear(&mt.stats);
	mt_names_clear(&mt.names, &mt.cache_filter);
	mt_modsyms_clear(&mt.modsyms);
	atomic_set(&mt.page_order_max, 0);
	for_each_possible_cpu(cpu) {
		struct mt_pcpu *c = per_cpu_ptr(mt.pcpu, cpu);

		/* last_stat points into the table just cleared: it goes too. */
		BUILD_BUG_ON(offsetof(struct mt_pcpu, last_stat) >=
			     offsetof(struct mt_pcpu, frames));
		memset(c, 0, offsetof(struct mt_pcpu, frames));
		c->sample_left = max(mt.filter.sample_every, 1U);
		prandom_seed_state(&c->rnd, get_random_u64());
		memset(per_cpu_ptr(&mt_fastpath, cpu), 0, sizeof(struct mt_pcpu_fast));
		if (mt.filter.sample_bytes)
			per_cpu(mt_fastpath, cpu).bytes_to_sample =
				mt_bytes_to_next_sample(mt.filter.sample_bytes,
							prandom_u32_state(&c->rnd));
	}
}

/* A cache filter name must name a cache the kernel has, or an alias of one. */
static int mt_check_cache_name(const char *name)
{
	char path[sizeof("/sys/kernel/slab/") + MEMTRACE_NAME_LEN];
	struct path p;
	int ret;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	/* Without SLUB's sysfs there is nothing to check against. */
	if (kern_path("/sys/kernel/slab", LOOKUP_DIRECTORY, &p))
		return 0;
	path_put(&p);
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s", name);
	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret)
		return -ENOENT;
	path_put(&p);
	return 0;
}

/*
 * Resolve the task filter of cfg in the caller's view: the pid in its pid
 * namespace, the cgroup from its open directory (cgroup v2).
 */
static int mt_get_task_filter(const struct memtrace_config *cfg, struct pid **tgid,
			      struct cgroup **cgrp)
{
	*tgid = NULL;
	*cgrp = NULL;
	if (cfg->tgid < 0 || strnlen(cfg->comm, sizeof(cfg->comm)) == sizeof(cfg->comm))
		return -EINVAL;
	if (cfg->tgid) {
		struct task_struct *task;

		*tgid = find_get_pid(cfg->tgid);
		rcu_read_lock();
		task = *tgid ? pid_task(*tgid, PIDTYPE_TGID) : NULL;
		rcu_read_unlock();
		if (!task) {
			put_pid(*tgid);
			*tgid = NULL;
			return -ESRCH;
		}
	}
	if (cfg->flags & MEMTRACE_CFG_CGROUP) {
#ifdef CONFIG_CGROUPS
		struct cgroup *c = cgroup_get_from_fd(cfg->cgroup_fd);

		if (IS_ERR(c)) {
			put_pid(*tgid);
			*tgid = NULL;
			return PTR_ERR(c);
		}
		*cgrp = c;
#else
		put_pid(*tgid);
		*tgid = NULL;
		return -EOPNOTSUPP;
#endif
	}
	return 0;
}

int mt_configure(const struct memtrace_config *cfg)
{
	u32 events = cfg->events ? cfg->events : mt_kernel_events();
	struct cgroup *cgrp;
	struct pid *tgid;
	u32 i;
	int ret;

	if (mt.tracing)
		return -EBUSY;
	if (events & ~(MEMTRACE_EV_ALL | MEMTRACE_EV_USER | MT_EV_RING))
		return -EINVAL;
	if ((events & MEMTRACE_EV_USER) &&
	    (events & ~MEMTRACE_EV_PRESSURE) != MEMTRACE_EV_USER)
		return -EINVAL;
	if (cfg->evring_pages > 4096 || cfg->__pad_evring)
		return -EINVAL;
	if (events & ~mt_available_events())
		return -EOPNOTSUPP;
	if (cfg->max_size && cfg->min_size > cfg->max_size)
		return -EINVAL;
	if (cfg->stack_depth > MEMTRACE_MAX_FRAMES)
		return -EINVAL;
	if (cfg->sample_every > 1 && cfg->sample_bytes)
		return -EINVAL;
	if (cfg->nr_caches > MEMTRACE_MAX_CACHE_FILTERS)
		return -EINVAL;
	if ((cfg->flags & ~(MEMTRACE_CFG_TRACE | MEMTRACE_CFG_CGROUP)) ||
	    cfg->trace_records > MT_TRACE_MAX_RECORDS)
		return -EINVAL;
	if ((cfg->trace_flags & ~MEMTRACE_TRACEF_EVRING) || cfg->__pad_trace ||
	    (cfg->trace_flags && !(cfg->flags & MEMTRACE_CFG_TRACE)))
		return -EINVAL;
	/* User mode has its target; the task filters are kernel mode's. */
	if ((events & MEMTRACE_EV_USER) &&
	    (cfg->tgid || cfg->comm[0] || (cfg->flags & MEMTRACE_CFG_CGROUP)))
		return -EINVAL;
	for (i = 0; i < cfg->nr_caches; i++) {
		if (strnlen(cfg->caches[i], MEMTRACE_NAME_LEN) == MEMTRACE_NAME_LEN)
			return -EINVAL;
		ret = mt_check_cache_name(cfg->caches[i]);
		if (ret)
			return ret;
	}
	ret = mt_get_task_filter(cfg, &tgid, &cgrp);
	if (ret)
		return ret;
	mt_put_task_filter();
	mt.cfg_tgid = tgid;
	mt.cfg_cgroup = cgrp;
	mt.cfg = *cfg;
	mt.cfg.size = sizeof(mt.cfg);
	mt.cfg.events = events;
	if (!mt.cfg.stack_depth)
		mt.cfg.stack_depth = MEMTRACE_MAX_FRAMES;
	return 0;
}

/*
 * Data pages of each CPU's event ring: as the reader asked, else room for
 * the trace records it asked for (or the default) spread over the rings,
 * one for each possible CPU (mt_evring_create), as much memory as the
 * single trace ring would take, else the module's default.
 */
static u32 mt_evring_pages(const struct memtrace_config *cfg, bool trace_er)
{
	u32 records = cfg->trace_records ? cfg->trace_records : trace_records;
	u64 bytes;

	if (cfg->evring_pages)
		return cfg->evring_pages;
	if (!trace_er)
		return evring_pages;
	bytes = (u64)DIV_ROUND_UP(records, nr_cpu_ids) * sizeof(struct memtrace_ev_trace);
	return max_t(u64, evring_pages, DIV_ROUND_UP_ULL(bytes, PAGE_SIZE));
}

int mt_start(const void *owner)
{
	const struct memtrace_config *cfg = &mt.cfg;
	/* Trace records into the per-CPU event rings, not the read(2) ring. */
	bool trace_er = (cfg->flags & MEMTRACE_CFG_TRACE) &&
			(cfg->trace_flags & MEMTRACE_TRACEF_EVRING);
	int ret;

	ret = mt_claim(owner);
	if (ret)
		return ret;
	if (mt.tracing)
		return -EBUSY;
	/* User mode needs MEMTRACE_IOC_TARGET and MEMTRACE_IOC_UPROBE first. */
	if ((cfg->events & MEMTRACE_EV_USER) && !mt_user_ready())
		return -ESRCH;
	/* Ring events alone need none of the allocation tables. */
	if (cfg->events & ~MT_EV_RING) {
		ret = mt_alloc_tables();
		if (ret)
			return ret;
	}
	if ((cfg->events & MT_EV_RING) || trace_er) {
		ret = mt_evring_renew(mt_evring_pages(cfg, trace_er));
		if (ret)
			return ret;
	} else {
		/* No rings an earlier session left, which nothing would write. */
		mt_evring_drop();
	}
	if ((cfg->flags & MEMTRACE_CFG_TRACE) && !trace_er) {
		u32 records = cfg->trace_records ? cfg->trace_records : trace_records;

		if (mt_ring_size(&mt.ring) != roundup_pow_of_two(records))
			ret = mt_ring_resize(&mt.ring, records);
		if (ret)
			return ret;
		mt_ring_clear(&mt.ring);
	} else if (mt_ring_size(&mt.ring)) {
		mt_ring_clear(&mt.ring);	/* no records of an earlier session */
	}

	mt.filter = (struct mt_filter) {
		.min_size = cfg->min_size,
		.max_size = cfg->max_size,
		.sample_every = cfg->sample_every,
		.sample_bytes = cfg->sample_bytes,
		.depth = cfg->stack_depth,
		.by_cache = cfg->nr_caches > 0,
		.by_task = mt.cfg_tgid || mt.cfg_cgroup || cfg->comm[0],
		.trace = cfg->flags & MEMTRACE_CFG_TRACE,
		.trace_er = trace_er ? mt.evring : NULL,
		.tgid = mt.cfg_tgid,
		.cgroup = mt.cfg_cgroup,
	};
	strscpy(mt.filter.comm, cfg->comm, sizeof(mt.filter.comm));
	mt.filter.leaves_out = cfg->sample_every > 1 || cfg->sample_bytes ||
			       cfg->min_size || cfg->max_size || cfg->nr_caches ||
			       mt.filter.by_task;
	/* Drawn once: another within the session would strand its entries. */
	mt.filter.addr_sample_threshold = mt_addr_sample_threshold(cfg->sample_every);
	if (mt.filter.addr_sample_threshold)
		mt.filter.addr_sample_seed = get_random_u64();
	if (!cfg->min_size && !cfg->max_size && !cfg->nr_caches && !mt.filter.by_task)
		mt.filter.fast_bytes = cfg->sample_bytes;
	mt.cache_filter.nr = cfg->nr_caches;
	memcpy(mt.cache_filter.names, cfg->caches, sizeof(mt.cache_filter.names));
	if (mt.allocated)
		mt_clear_tables();

	mt.start_ns = ktime_get_mono_fast_ns();
	/*
	 * The kernel's allocators or one process's, and with either (or
	 * alone) pressure, growth and USDT events: sources.h.
	 */
	ret = mt_sources_attach(cfg->events);
	if (ret)
		return ret;
	mt.attached = cfg->events;
	WRITE_ONCE(mt.tracing, true);
	mt.has_data = true;
	return 0;
}

int mt_stop(void)
{
	if (!mt.tracing)
		return -EINVAL;
	mt_sources_detach(mt.attached);
	WRITE_ONCE(mt.tracing, false);
	/* A reader waiting for trace records gets the end of file. */
	wake_up_interruptible(&mt.ring.wait);
	wake_up_interruptible(&mt.evwake.wait);
	return 0;
}

int mt_clear(void)
{
	int ret;

	if (!mt.allocated)
		return 0;
	if (!mt.tracing) {
		mt_clear_tables();
		mt.has_data = false;
		return 0;
	}
	/* Quiesce the hooks, empty the tables, go on tracing. */
	mt_sources_detach(mt.attached);
	mt_clear_tables();
	mt.start_ns = ktime_get_mono_fast_ns();
	ret = mt_sources_attach(mt.attached);
	if (ret) {
		WRITE_ONCE(mt.tracing, false);
		wake_up_interruptible(&mt.ring.wait);
	}
	return ret;
}

int mt_claim(const void *file)
{
	if (mt.owner && mt.owner != file)
		return -EBUSY;
	WRITE_ONCE(mt.owner, file);
	return 0;
}

int mt_check_owner(const void *file)
{
	return mt.owner && mt.owner != file ? -EPERM : 0;
}

/*
 * The owner's file is gone: stop, and let nothing it recorded reach the
 * next reader (who may not have been allowed to trace what it traced).
 */
void mt_release_owner(const void *owner)
{
	mt_lock();
	if (mt.owner == owner) {
		if (mt.tracing)
			mt_stop();
		mt.has_data = false;
		if (mt_ring_size(&mt.ring))
			mt_ring_clear(&mt.ring);
		mt_evring_drop();
		WRITE_ONCE(mt.owner, NULL);
	}
	mt_user_release_owner(owner);
	mt_usdt_release_owner(owner);
	mt_unlock();
}
