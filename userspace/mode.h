/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a mode is: one row (struct mt_mode_row) naming its option, the
 * module's event sources it needs, and its callbacks, which the session
 * driver (driver.h) calls in this order: init, configure, attach (or
 * start_failed), setup, banner; at each wake record for each ring record,
 * drained, process_news or watch; interval at each interval's end; end,
 * fini.  Every callback is optional but record, for a row whose session
 * has rings.  The rows themselves are in the mode files (leaks.c,
 * pressure.c, growth.c, use.c) and listed in modes.c.  Only types here,
 * so a mode file and the table can both include it without including
 * each other.
 */
#ifndef MEMTRACE_READ_MODE_H
#define MEMTRACE_READ_MODE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/memtrace.h>

#include "options.h"

struct mt_driver;
struct mt_err;
struct spawn_event;

struct mt_mode_row {
	enum mt_mode mode;
	const char *option;		/* "--oom": how messages name the mode */
	/*
	 * The module's event sources (MEMTRACE_EV_*): without them the mode
	 * cannot run (0: they follow the options; init checks them)...
	 */
	uint32_t events;
	/* ...and those attached too when this module has them. */
	uint32_t events_if_any;
	/*
	 * The mode runs without the module (on /proc alone, --use): a
	 * module that cannot give its events is noted (driver.module_why),
	 * not an error.
	 */
	bool module_optional;
	/*
	 * Why not, when the module lacks events, read after "(memtrace.ko
	 * V: " and, module_optional, after "memtrace.ko V has ": "no vmscan
	 * tracepoints".
	 */
	const char *missing;
	uint32_t stack_depth;		/* frames per record; 0: the module's maximum */
	/*
	 * Rings for bursts: at least this many pages a CPU, more as the
	 * budget allows (evreader_ring_pages()); 0: the module's default.
	 */
	uint32_t evring_min_pages;
	/*
	 * The mode reports totals at the end: the records written before
	 * the stop are drained after it, a stop that fails is an error, and
	 * what end() wrote (--json too) is flushed and checked.
	 */
	bool totals;
	/*
	 * The mode traces one process if asked (-p PID, or -c / -- CMD run
	 * under the driver until it ends, its exit status the reader's), or
	 * every one: the driver spawns the command, names the process to
	 * the module and notices its end.
	 */
	bool process;
	/*
	 * The mode reports from the module's tables at each interval (the
	 * leak modes): its --json is that report's, not a stream of records.
	 */
	bool reports;
	/*
	 * Records are handed on in time order across drains too (-t prints
	 * each): one whose cause may not be published yet waits for the next
	 * drain (evreader_drain_ordered()).
	 */
	bool ordered;

	/*
	 * The device open, before its events are checked: the mode's
	 * state, its own inputs (--usdt's sites).  A row without events
	 * (they follow its options: the leak modes) checks them here.  0,
	 * or -1 said.
	 */
	int (*init)(struct mt_driver *d);
	/*
	 * The module's configuration, instead of the driver's (the row's
	 * events, the process, --by-comm); --by-cgroup is the driver's.
	 * May leave d->rings false: no event rings to read.
	 */
	void (*configure)(struct mt_driver *d, struct memtrace_config *cfg);
	/*
	 * Configured, before the start: what the mode hands the module
	 * beyond its configuration.  0, or -errno with err (start_failed says it).
	 */
	int (*attach)(struct mt_driver *d, struct mt_err *err);
	/*
	 * Says why the configuration (d->configured false) or the start
	 * failed (NULL: err's words).
	 */
	void (*start_failed)(struct mt_driver *d, int ret, const struct mt_err *err);
	/*
	 * After the module started: the rest of the mode's state (made in
	 * init where attach needs it).  0, or -1 said.
	 */
	int (*setup)(struct mt_driver *d);
	/* The first lines (a mode's "Tracing ..., Ctrl+C to quit."). */
	void (*banner)(struct mt_driver *d);
	/*
	 * One record of the event rings, in time order across CPUs.  Never
	 * calls driver_drain() (the other callbacks may).
	 */
	void (*record)(struct mt_driver *d, const struct memtrace_ev_hdr *h);
	/*
	 * The command's news but its end (an exec, a loader done, an exit
	 * under way), after the rings were drained: the process is held
	 * until this returns.
	 */
	void (*process_news)(struct mt_driver *d, const struct spawn_event *ev);
	/*
	 * A mode that watches a process of its own (user mode's target,
	 * d->watch_fd): its news handled at each wake; true once it ended.
	 */
	bool (*watch)(struct mt_driver *d);
	/*
	 * After each drain of the rings (and at each wake without them);
	 * final: the module has stopped; failed: the drain failed (the
	 * driver says why).  0, or -1 said.
	 */
	int (*drained)(struct mt_driver *d, bool final, bool failed);
	/*
	 * Each interval's end; signalled: a signal ends the session (the
	 * process's end is d->ended, the count's end neither).  0, or -1
	 * (stop, failed).
	 */
	int (*interval)(struct mt_driver *d, bool signalled);
	/* After the stop (and its drain when totals): the exit status from status. */
	int (*end)(struct mt_driver *d, int status);
	/*
	 * Frees the mode's state; also after an init or setup that failed
	 * half way, and with d->state NULL.
	 */
	void (*fini)(struct mt_driver *d);
};

#endif
