/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session driver: what every mode's session does, written once.
 * Open the device, configure it for the row's event sources (and the
 * process it traces, a command spawned for it), start, then wait for the
 * interval's end, a signal, the process's end or ring data, drain the
 * rings into the row's record callback, and at the end stop, drain what
 * is left and hand over to the row's end.  The mode (mode.h) says only
 * what is its own.
 */
#ifndef MEMTRACE_READ_DRIVER_H
#define MEMTRACE_READ_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "device.h"
#include "evjson.h"
#include "evreader.h"
#include "mode.h"
#include "options.h"

struct spawn;

struct mt_driver {
	const struct mt_mode_row *row;
	const struct mt_options *o;
	FILE *text;			/* the text report: stdout, or NULL when --json has stdout */
	struct evjson_out json;		/* --json */
	struct mt_device dev;
	struct evreader er;		/* er.map: the module's rings are read */
	/* module_optional: why the module gives no records (er.map NULL); "" if it does. */
	char module_why[sizeof(((struct mt_err *)0)->msg)];
	int sigfd;			/* SIGINT, SIGTERM */
	/* row->process: the process traced (0: every one), the command run for it */
	pid_t pid;
	struct spawn *spawn;
	bool ended;			/* the process has ended */
	int exit_code;			/* the command's, once ended */
	uint64_t drains;		/* drains of the rings so far */
	void *state;			/* the mode's own, set by its init or setup */
	bool configured;		/* the module took the configuration (the driver's) */
	/* Set by the mode (init, configure, attach, setup): */
	bool rings;			/* the session has event rings to read (default) */
	int fail_status;		/* the exit status if the session never ran (0: 1) */
	/*
	 * What wakes the wait besides the interval's end and a signal:
	 * records in the rings (unless quiet_rings; the driver sets it when
	 * tracing stopped under a reports row), a descriptor of the mode's
	 * own (watch_fd, -1 by default: -c's command's by the driver), or
	 * every poll_ms (default -1: never; -p's process every 100 ms).
	 */
	bool quiet_rings;		/* records do not wake the wait (-t: they are its own) */
	int watch_fd;
	int poll_ms;
};

/* Runs the mode of row with the options o; returns the process exit status. */
int driver_run(const struct mt_mode_row *row, const struct mt_options *o);

/*
 * Hands what the rings hold to the row's record callback (then its
 * drained); final: the module has stopped.  0, or -1 said.
 */
int driver_drain(struct mt_driver *d, bool final);

/* What was printed must have been written (a full disk, a closed pipe): 0, or -EIO said. */
int driver_flush(void);

/*
 * module_optional: gives up the module (stopped, closed) for why; the
 * mode goes on without its records.
 */
void driver_module_off(struct mt_driver *d, const char *why);

#endif
