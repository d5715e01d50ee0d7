/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a mode is: one row (struct mt_mode_row) naming its option, the
 * module's event sources it needs, and its callbacks, which the session
 * driver (driver.h) calls in order: setup, banner, each record, each
 * interval, the end, fini.  The rows themselves are in the mode files
 * (pressure.c, use.c, ...) and listed in modes.c.  Only types here, so a
 * mode file and the table can both include it without including each
 * other.
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
	/* The module's event sources (MEMTRACE_EV_*): without them the mode cannot run... */
	uint32_t events;
	/* ...and those attached too when this module has them. */
	uint32_t events_if_any;
	/*
	 * The mode runs without the module (on /proc alone, --use): a
	 * module that cannot give its events is noted (driver.module_why),
	 * not an error.
	 */
	bool module_optional;
	/* Why not, when the module lacks events: "no vmscan tracepoints". */
	const char *missing;
	uint32_t stack_depth;		/* frames per record; 0: the module's maximum */
	/*
	 * Rings for bursts: at least this many pages a CPU, more as the
	 * budget allows (evreader_ring_pages()); 0: the module's default.
	 */
	uint32_t evring_min_pages;
	/*
	 * The mode reports totals at the end: the records written before
	 * the stop are drained after it, and a stop that fails is an error.
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
	 * The device open, before its events are checked: the mode's
	 * state, its own inputs (--usdt's sites).  0, or -1 said.
	 */
	int (*init)(struct mt_driver *d);
	/*
	 * Configured, before the start: what the mode hands the module
	 * beyond its configuration.  0, or -errno with err (start_failed says it).
	 */
	int (*attach)(struct mt_driver *d, struct mt_err *err);
	/* Says why the configuration or the start failed (NULL: err's words). */
	void (*start_failed)(struct mt_driver *d, int ret, const struct mt_err *err);
	/* After the module started (and init): the mode's state.  0, or -1 said. */
	int (*setup)(struct mt_driver *d);
	/* The first lines (a mode's "Tracing ..., Ctrl+C to quit."). */
	void (*banner)(struct mt_driver *d);
	/* One record of the event rings, in time order across CPUs. */
	void (*record)(struct mt_driver *d, const struct memtrace_ev_hdr *h);
	/*
	 * The command's news but its end (an exec, a loader done, an exit
	 * under way): the process is held until this returns.
	 */
	void (*process_news)(struct mt_driver *d, const struct spawn_event *ev);
	/*
	 * Each interval's end; last: a signal ends the session (the
	 * process's end: driver.ended).  0, or -1 (stop, failed).
	 */
	int (*interval)(struct mt_driver *d, bool last);
	/* After the stop (and its drain when totals): the exit status from status. */
	int (*end)(struct mt_driver *d, int status);
	/* Frees the mode's state; also after a setup that failed half way. */
	void (*fini)(struct mt_driver *d);

	/*
	 * Modes that still run a session of their own (growth, leaks): the
	 * whole run, and none of the above.
	 */
	int (*run)(const struct mt_options *o);
};

#endif
