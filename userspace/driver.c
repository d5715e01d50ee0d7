// SPDX-License-Identifier: GPL-2.0
/*
 * The session driver; see driver.h.  One loop for every mode: the modes
 * used to carry a copy each, and their interval waits differed only in
 * what they slept on.
 */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

#define PROG "memtrace-read"

static void on_record(void *ctx, const struct memtrace_ev_hdr *h)
{
	struct mt_driver *d = ctx;

	d->row->record(d, h);
}

int driver_drain(struct mt_driver *d, bool final)
{
	struct mt_err err;
	int failed = 0, ret = 0;

	if (!d->er.map && !d->row->drained)
		return 0;
	if (d->er.map) {
		d->drains++;
		failed = d->row->ordered ?
			 evreader_drain_ordered(&d->er, final, on_record, d, &err) :
			 evreader_drain(&d->er, on_record, d, &err);
	}
	if (d->row->drained)
		ret = d->row->drained(d, final, failed);
	if (failed) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	return ret ? -1 : evjson_flush(&d->json, d->o);
}

int driver_flush(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, PROG ": cannot write the report: %s\n",
		errno ? strerror(errno) : "write error");
	return -EIO;
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
 * The device.  0; or -1 said, for a mode that cannot run without it (a
 * module_optional one goes on, module_why set).
 */
static int module_open(struct mt_driver *d)
{
	struct mt_err err;

	if (!device_open(&d->dev, NULL, &err))
		return 0;
	if (d->row->module_optional) {
		snprintf(d->module_why, sizeof(d->module_why), "%s", err.msg);
		return 0;
	}
	fprintf(stderr, PROG ": %s\n", err.msg);
	return -1;
}

/*
 * Whether this module has the row's events.  0; or -1 said, for a mode
 * that cannot run without them (a module_optional one goes on without
 * the module, module_why set).
 */
static int module_check(struct mt_driver *d)
{
	const struct mt_mode_row *row = d->row;
	uint32_t features;
	struct mt_err err;

	if (d->dev.fd < 0)
		return 0;	/* module_optional, and there is none */
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
	if (!row->events)
		return 0;	/* they follow the options: the row's init checked them */
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

/*
 * Configures the row's events (and the process, --by-comm, --by-cgroup),
 * starts, maps the rings.  0, or -1 (said unless optional).
 */
static int module_start(struct mt_driver *d)
{
	const struct mt_mode_row *row = d->row;
	const struct mt_options *o = d->o;
	struct memtrace_config cfg;
	struct mt_err err;
	int ret;

	if (d->dev.fd < 0)
		return 0;	/* module_optional, and the module could not */
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	if (row->configure) {
		row->configure(d, &cfg);
	} else {
		cfg.events = row->events | (row->events_if_any & d->dev.version.features);
		cfg.stack_depth = o->stack_depth ? o->stack_depth :
				  row->stack_depth ? row->stack_depth : MEMTRACE_MAX_FRAMES;
		if (row->evring_min_pages)
			cfg.evring_pages = evreader_ring_pages(row->evring_min_pages);
		cfg.tgid = d->pid;
		if (o->by_comm)
			snprintf(cfg.comm, sizeof(cfg.comm), "%s", o->by_comm);
	}
	if (o->by_cgroup) {
		cfg.cgroup_fd = open(o->by_cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfg.cgroup_fd < 0) {
			fprintf(stderr, PROG ": --by-cgroup %s: %s\n", o->by_cgroup, strerror(errno));
			return -1;
		}
		cfg.flags |= MEMTRACE_CFG_CGROUP;
	}
	ret = device_configure(&d->dev, &cfg, &err);
	d->configured = !ret;
	if (!ret && row->attach)
		ret = row->attach(d, &err);
	if (!ret)
		ret = device_start(&d->dev, &err);
	if (!ret && d->rings)
		ret = evreader_open(&d->er, &d->dev, &err);
	/* The module holds the cgroup by now (or never will). */
	if (o->by_cgroup)
		close(cfg.cgroup_fd);
	if (!ret)
		return 0;
	if (row->module_optional) {
		driver_module_off(d, err.msg);
		return 0;
	}
	if (row->start_failed)
		row->start_failed(d, ret, &err);
	else
		fprintf(stderr, PROG ": %s\n", err.msg);
	return -1;
}

/* What driver_wait() saw. */
enum woke {
	WOKE_TIMEOUT,		/* the deadline passed */
	WOKE_READY,		/* something to look at: records, watch_fd, poll_ms */
	WOKE_SIGNAL,		/* SIGINT or SIGTERM (read from sigfd) */
};

/*
 * Sleeps until deadline (CLOCK_MONOTONIC), a signal, records in the rings
 * (unless quiet_rings), the mode's watch_fd, or poll_ms (2 ms while an
 * ordered drain holds records back: they are due by then).  An enum
 * woke, or -1 said.  SIGINT and SIGTERM are blocked and come
 * through sigfd, polled here: a signal can neither be lost between
 * checks nor interrupt a report half printed.
 */
static int driver_wait(struct mt_driver *d, const struct timespec *deadline)
{
	bool rings = d->er.map && !d->quiet_rings;
	struct pollfd pf[3] = { { d->sigfd, POLLIN, 0 }, { rings ? d->dev.fd : -1, POLLIN, 0 },
				{ d->watch_fd, POLLIN, 0 } };
	int max_ms = rings && d->er.held ? 2 : d->poll_ms;

	for (;;) {
		struct signalfd_siginfo si;
		struct timespec now;
		long long left;
		int n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (deadline->tv_sec - now.tv_sec) * 1000LL +
		       (deadline->tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0)
			return WOKE_TIMEOUT;
		if (max_ms >= 0 && left > max_ms)
			left = max_ms;
		n = poll(pf, 3, (int)left);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return -1;
		}
		/* Interrupted, or the bound: the caller looks and calls again. */
		if (n < 0 || (n == 0 && left == max_ms))
			return WOKE_READY;
		if (n == 0)
			return WOKE_TIMEOUT;
		if ((pf[0].revents & POLLIN) && read(d->sigfd, &si, sizeof(si)) == sizeof(si))
			return WOKE_SIGNAL;
		if (pf[1].revents & (POLLERR | POLLHUP)) {
			/*
			 * Tracing stopped under the reader: a mode that reports
			 * from the module's tables says why (the snapshot's
			 * header) and polls for records no more; the others end.
			 */
			if (!d->row->reports) {
				fprintf(stderr, PROG ": the session ended under this reader\n");
				return -1;
			}
			pf[1].fd = -1;
			d->quiet_rings = true;
			continue;
		}
		return WOKE_READY;
	}
}

/* The process's news: its end, or (-c) the command's events for the mode. */
static void process_news(struct mt_driver *d)
{
	struct spawn_event ev;

	if (d->row->watch) {
		if (!d->ended)
			d->ended = d->row->watch(d);
		return;
	}
	if (!d->spawn) {
		if (d->row->process && d->o->pid && kill(d->o->pid, 0) && errno == ESRCH)
			d->ended = true;
		return;
	}
	while (spawn_next(d->spawn, &ev)) {
		switch (ev.kind) {
		case SPAWN_EV_IMAGE:
		case SPAWN_EV_MAPPED:
		case SPAWN_EV_EXITING:
			if (d->row->process_news)
				d->row->process_news(d, &ev);
			spawn_release(d->spawn, ev.pid);
			break;
		case SPAWN_EV_ENDED:
			d->exit_code = spawn_exit_code(ev.status);
			d->ended = true;
			break;
		}
	}
}

/*
 * The intervals until the count, a signal, the process's end or a
 * failure: the exit status so far.
 */
static int intervals(struct mt_driver *d)
{
	const struct mt_options *o = d->o;
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long n = 0; !d->ended && (!o->count || n < o->count); n++) {
		bool signalled = false;

		deadline.tv_sec += o->interval_s;
		for (;;) {
			int w = driver_wait(d, &deadline);

			if (w < 0)
				return 1;
			signalled = w == WOKE_SIGNAL;
			if (driver_drain(d, false))
				return 1;
			process_news(d);
			if (w != WOKE_READY || d->ended)
				break;
		}
		if (d->row->interval && d->row->interval(d, signalled))
			return 1;
		if (signalled || d->ended)
			break;
	}
	return 0;
}

int driver_run(const struct mt_mode_row *row, const struct mt_options *o)
{
	struct mt_driver d = {
		.row = row, .o = o, .text = evjson_text_stream(o), .sigfd = -1,
		.rings = true, .watch_fd = -1, .poll_ms = -1,
	};
	struct mt_err err;
	int status = 1, ret;

	d.dev.fd = -1;
	if (row->process)
		d.pid = o->pid;
	if (module_open(&d) || (row->init && row->init(&d)) || module_check(&d))
		goto out;
	if ((!row->reports && evjson_open(&d.json, o, &err)) ||
	    (row->process && o->cmd_argv && spawn_start(o->cmd_argv, false, &d.spawn, &err))) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		goto out;
	}
	if (d.spawn) {
		d.pid = spawn_pid(d.spawn);
		d.watch_fd = spawn_event_fd(d.spawn);
	} else if (row->process && o->pid) {
		d.poll_ms = 100;	/* -p: notice the process gone */
	}
	/* A command spawned since or later runs with the mask we were started with. */
	d.sigfd = stop_signals_fd();
	if (d.sigfd < 0) {
		fprintf(stderr, PROG ": cannot take signals: %s\n", strerror(errno));
		goto out;
	}
	if (module_start(&d) || (row->setup && row->setup(&d)))
		goto out;
	ret = d.spawn ? spawn_exec(d.spawn, &err) : 0;
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		status = ret == -ENOENT ? 127 : 126;
		goto out;
	}
	if (row->banner)
		row->banner(&d);
	if (driver_flush())
		goto out;
	status = intervals(&d);
	if (row->totals) {
		if (d.dev.tracing && device_stop(&d.dev, &err) && !status) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			status = 1;
		}
		/* What the rings still hold was written before the stop. */
		if (!status && driver_drain(&d, true))
			status = 1;
	}
	if (row->end)
		status = row->end(&d, status);
	if (row->totals && evjson_flush(&d.json, o) && !status)
		status = 1;
	/* -c: a command that ended gives its exit status, unless we failed. */
	if (!status && d.spawn)
		status = d.exit_code;
	fflush(stdout);
	goto done;
out:
	if (d.fail_status)
		status = d.fail_status;
done:
	if (d.dev.tracing)
		device_stop(&d.dev, &err);
	if (d.spawn)
		spawn_finish(d.spawn);
	evreader_close(&d.er);
	device_close(&d.dev);
	evjson_close(&d.json);
	if (d.sigfd >= 0)
		close(d.sigfd);
	if (row->fini)
		row->fini(&d);
	return status;
}
