// SPDX-License-Identifier: GPL-2.0
/*
 * The session driver; see driver.h.  One loop for every mode that reads
 * the module's event rings (and --use, which may run without them): the
 * modes used to carry a copy each, and their interval waits differed only
 * in what they slept on.
 */
#include "driver.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define PROG "memtrace-read"

static void on_record(void *ctx, const struct memtrace_ev_hdr *h)
{
	struct mt_driver *d = ctx;

	d->row->record(d, h);
}

int driver_drain(struct mt_driver *d)
{
	struct mt_err err;

	if (evreader_drain(&d->er, on_record, d, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	return evjson_flush(&d->json, d->o);
}

void driver_module_off(struct mt_driver *d, const char *why)
{
	struct mt_err err;

	snprintf(d->module_why, sizeof(d->module_why), "%s", why);
	if (d->dev.tracing)
		device_stop(&d->dev, &err);
	evreader_close(&d->er);
	device_close(&d->dev);
	d->dev.fd = -1;
}

/*
 * The device, and whether this module has the row's events.  0; or -1
 * said, for a mode that cannot run without them (a module_optional one
 * goes on, module_why set).
 */
static int module_open(struct mt_driver *d)
{
	const struct mt_mode_row *row = d->row;
	uint32_t features;
	struct mt_err err;

	if (device_open(&d->dev, NULL, &err)) {
		if (row->module_optional) {
			snprintf(d->module_why, sizeof(d->module_why), "%s", err.msg);
			return 0;
		}
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	features = d->dev.version.features;
	if (row->module_optional) {
		if (!(features & MEMTRACE_FEAT_EVRING) ||
		    !((row->events | row->events_if_any) & features)) {
			snprintf(err.msg, sizeof(err.msg), "memtrace.ko %s has %s",
				 d->dev.version.module_version, row->missing);
			driver_module_off(d, err.msg);
		}
		return 0;
	}
	if (!(features & MEMTRACE_FEAT_EVRING) || !(features & row->events)) {
		const char *kconfig = device_kconfig_reason(&d->dev.version, row->events);

		fprintf(stderr, PROG ": %s: not supported by this module on this kernel "
			"(memtrace.ko %s: %s)\n", row->option, d->dev.version.module_version,
			!(features & MEMTRACE_FEAT_EVRING) ? "no event rings" :
			kconfig ? kconfig : row->missing);
		return -1;
	}
	return 0;
}

/* Configures the row's events, starts, maps the rings.  0, or -1 (said unless optional). */
static int module_start(struct mt_driver *d)
{
	const struct mt_mode_row *row = d->row;
	struct memtrace_config cfg;
	struct mt_err err;

	if (d->dev.fd < 0)
		return 0;	/* module_optional, and the module could not */
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.events = row->events | (row->events_if_any & d->dev.version.features);
	cfg.stack_depth = row->stack_depth ? row->stack_depth : MEMTRACE_MAX_FRAMES;
	if (row->evring_min_pages)
		cfg.evring_pages = evreader_ring_pages(row->evring_min_pages);
	if (device_configure(&d->dev, &cfg, &err) || device_start(&d->dev, &err) ||
	    evreader_open(&d->er, &d->dev, &err)) {
		if (row->module_optional) {
			driver_module_off(d, err.msg);
			return 0;
		}
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	return 0;
}

/*
 * Sleeps until deadline (CLOCK_MONOTONIC), a signal, or records in the
 * rings; without the rings, on the signal alone.  An enum evreader_woke,
 * or -1 said.
 */
static int driver_wait(struct mt_driver *d, const struct timespec *deadline)
{
	struct mt_err err;

	if (d->er.map) {
		int w = evreader_wait(&d->er, d->sigfd, -1, deadline, -1, &err);

		if (w < 0)
			fprintf(stderr, PROG ": %s\n", err.msg);
		return w;
	}
	for (;;) {
		struct timespec now;
		int w, ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (int)((deadline->tv_sec - now.tv_sec) * 1000 +
			   (deadline->tv_nsec - now.tv_nsec) / 1000000);
		if (ms <= 0)
			return EVREADER_TIMEOUT;
		w = poll(&(struct pollfd){ .fd = d->sigfd, .events = POLLIN }, 1, ms);
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return -1;
		}
		if (w > 0) {
			struct signalfd_siginfo si;

			if (read(d->sigfd, &si, sizeof(si)) < 0 && errno != EAGAIN)
				return -1;
			return EVREADER_SIGNAL;
		}
	}
}

/* The intervals until the count, a signal, or a failure: the exit status so far. */
static int intervals(struct mt_driver *d)
{
	const struct mt_options *o = d->o;
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long n = 0; !o->count || n < o->count; n++) {
		bool signalled = false;

		deadline.tv_sec += o->interval_s;
		for (;;) {
			int w = driver_wait(d, &deadline);

			if (w < 0)
				return 1;
			signalled = w == EVREADER_SIGNAL;
			if (d->er.map && driver_drain(d))
				return 1;
			if (w != EVREADER_READY)
				break;
		}
		if (d->row->interval && d->row->interval(d, signalled))
			return 1;
		if (signalled)
			break;
	}
	return 0;
}

int driver_run(const struct mt_mode_row *row, const struct mt_options *o)
{
	struct mt_driver d = { .row = row, .o = o, .text = evjson_text_stream(o), .sigfd = -1 };
	struct mt_err err;
	int status = 1;

	d.dev.fd = -1;
	if (module_open(&d))
		goto out;
	if (evjson_open(&d.json, o, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		goto out;
	}
	if (module_start(&d) || (row->setup && row->setup(&d)))
		goto out;
	d.sigfd = stop_signals_fd();
	if (d.sigfd < 0) {
		fprintf(stderr, PROG ": cannot take signals: %s\n", strerror(errno));
		goto out;
	}
	if (row->banner)
		row->banner(&d);
	fflush(stdout);
	status = intervals(&d);
	if (row->totals) {
		if (d.dev.tracing && device_stop(&d.dev, &err) && !status) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			status = 1;
		}
		/* What the rings still hold was written before the stop. */
		if (!status && driver_drain(&d))
			status = 1;
	}
	if (row->end)
		status = row->end(&d, status);
	if (row->totals && evjson_flush(&d.json, o) && !status)
		status = 1;
	fflush(stdout);
out:
	if (row->fini)
		row->fini(&d);
	if (d.dev.tracing)
		device_stop(&d.dev, &err);
	evreader_close(&d.er);
	device_close(&d.dev);
	evjson_close(&d.json);
	if (d.sigfd >= 0)
		close(d.sigfd);
	return status;
}
