// SPDX-License-Identifier: GPL-2.0
/*
 * The table of event sources; see sources.h.  A source the module is
 * built without (Kbuild's conditions, the *_BUILT macros of its header)
 * has no row; one that is built finds at load what this kernel has of
 * it, and its available() says so.
 */
#include <linux/kernel.h>
#include <linux/memtrace.h>

#include "session/session.h"
#include "sources/growth.h"
#include "sources/hooks.h"
#include "sources/kprobe_hooks.h"
#include "sources/pressure.h"
#include "sources/sources.h"
#include "sources/uprobes.h"
#include "sources/usdt.h"

struct mt_source {
	u32 events;		/* MEMTRACE_EV_* it serves: attached when a session asks for one */
	u32 unless;		/* ... and for none of these */
	int (*init)(void);	/* at load; NULL: nothing to find */
	void (*exit)(void);	/* at unload; NULL: nothing to drop */
	/* The events of .events this kernel has hooks for; NULL: another row says. */
	u32 (*available)(void);
	/* Attach for the session's events of .events: all of its hooks, or none. */
	int (*attach)(u32 events);
	void (*detach)(void);
};

/*
 * The sources that need more than the events read the session's state:
 * its event rings and the starter's pid namespace (mt_start() made them),
 * the stack depth and the task filter.
 */
static int mt_pressure_source_attach(u32 events)
{
	return mt_pressure_attach(events, mt.evring, mt.ev_pid_ns, mt.evring->kaddr);
}

#if MT_USER_BUILT
/* One event, user mode's: nothing to choose. */
static int mt_user_source_attach(u32 events)
{
	return mt_user_attach();
}
#endif

#if MT_GROWTH_BUILT
static int mt_growth_source_attach(u32 events)
{
	return mt_growth_attach(events, mt.evring, mt.ev_pid_ns, mt.filter.depth);
}
#endif

#if MT_USDT_BUILT
static int mt_usdt_source_attach(u32 events)
{
	return mt_usdt_attach(mt.evring, mt.filter.tgid, mt.ev_pid_ns, mt.filter.depth);
}

/* The probe sites the session's owner added (each owner drops its own on release). */
static void mt_usdt_source_exit(void)
{
	mt_usdt_release_owner(mt.owner);
}
#endif

static const struct mt_source mt_sources[] = {
	/*
	 * The kernel's allocations (MEMTRACE_EV_ALL), in kernel mode only.
	 * Every free hook before any allocation hook, and the reverse on
	 * the way out: an allocation recorded while its free could pass
	 * unseen would stay recorded, a false leak.  The first row finds
	 * the tracepoints of both sides.
	 */
	{
		.events = MEMTRACE_EV_ALL, .unless = MEMTRACE_EV_USER,
		.init = mt_hooks_init, .available = mt_hooks_available,
		.attach = mt_hooks_attach_frees, .detach = mt_hooks_detach_frees,
	},
#if MT_KPROBE_HOOKS_BUILT
	/* Free sides before their allocation sides, within the row too. */
	{
		.events = MEMTRACE_EV_ALL, .unless = MEMTRACE_EV_USER,
		.init = mt_kprobe_hooks_init, .available = mt_kprobe_hooks_available,
		.attach = mt_kprobe_hooks_attach, .detach = mt_kprobe_hooks_detach,
	},
#endif
	{
		.events = MEMTRACE_EV_ALL, .unless = MEMTRACE_EV_USER,
		.attach = mt_hooks_attach_allocs, .detach = mt_hooks_detach_allocs,
	},
#if MT_USER_BUILT
	/* One process's allocations: its target and files go at unload. */
	{
		.events = MEMTRACE_EV_USER,
		.init = mt_user_init, .exit = mt_user_release, .available = mt_user_available,
		.attach = mt_user_source_attach, .detach = mt_user_detach,
	},
#endif
	/* With either, or alone: records into the event rings. */
	{
		.events = MEMTRACE_EV_PRESSURE,
		.init = mt_pressure_init, .available = mt_pressure_available,
		.attach = mt_pressure_source_attach, .detach = mt_pressure_detach,
	},
#if MT_GROWTH_BUILT
	{
		.events = MEMTRACE_EV_GROWTH,
		.init = mt_growth_init, .available = mt_growth_available,
		.attach = mt_growth_source_attach, .detach = mt_growth_detach,
	},
#endif
#if MT_USDT_BUILT
	{
		.events = MEMTRACE_EV_USDT,
		.exit = mt_usdt_source_exit, .available = mt_usdt_available,
		.attach = mt_usdt_source_attach, .detach = mt_usdt_detach,
	},
#endif
};

static bool mt_source_wanted(const struct mt_source *s, u32 events)
{
	return (events & s->events) && !(events & s->unless);
}

static void mt_sources_exit_from(size_t n)
{
	while (n--) {
		if (mt_sources[n].exit)
			mt_sources[n].exit();
	}
}

int mt_sources_init(void)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(mt_sources); i++) {
		if (!mt_sources[i].init)
			continue;
		ret = mt_sources[i].init();
		if (ret) {
			mt_sources_exit_from(i);
			return ret;
		}
	}
	return 0;
}

void mt_sources_exit(void)
{
	mt_sources_exit_from(ARRAY_SIZE(mt_sources));
}

u32 mt_sources_available(void)
{
	u32 events = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mt_sources); i++) {
		if (mt_sources[i].available)
			events |= mt_sources[i].available();
	}
	return events;
}

int mt_sources_attach(u32 events)
{
	const struct mt_source *s;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(mt_sources); i++) {
		s = &mt_sources[i];
		if (!mt_source_wanted(s, events))
			continue;
		ret = s->attach(events & s->events);
		if (ret) {
			while (i--) {
				if (mt_source_wanted(&mt_sources[i], events))
					mt_sources[i].detach();
			}
			return ret;
		}
	}
	return 0;
}

void mt_sources_detach(u32 events)
{
	size_t i = ARRAY_SIZE(mt_sources);

	while (i--) {
		if (mt_source_wanted(&mt_sources[i], events))
			mt_sources[i].detach();
	}
}
