// SPDX-License-Identifier: GPL-2.0
/*
 * The session loop.  SIGINT and SIGTERM are blocked and taken with
 * sigtimedwait() as the interval's sleep: a signal can neither be lost
 * between checks nor interrupt a report half printed.  A signal ends the
 * session with one last report, as the interval would have.
 */
#include "session.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "device.h"
#include "ksyms.h"
#include "report.h"
#include "slabview.h"
#include "snapshot.h"
#include "trend.h"

#define PROG "memtrace-read"

void session_build_config(const struct mt_options *o, uint32_t events,
			  struct memtrace_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->events = events;
	cfg->min_size = o->min_size;
	cfg->max_size = o->max_size;
	cfg->sample_every = o->sample_every;
	cfg->sample_bytes = o->sample_bytes;
	cfg->stack_depth = o->stack_depth;
	cfg->nr_caches = o->nr_caches;
	memcpy(cfg->caches, o->caches, sizeof(cfg->caches));
}

static uint32_t wanted_events(const struct mt_options *o)
{
	if (o->mode == MT_MODE_SLAB)
		return MEMTRACE_EV_KMALLOC | MEMTRACE_EV_CACHE;
	if (o->percpu)
		return MEMTRACE_EV_PERCPU;
	return MEMTRACE_EV_ALL;
}

/*
 * The module refuses a --cache name it does not know (ENOENT; EINVAL for a
 * malformed one) without saying which; SLUB lists every cache, and merged
 * alias, in /sys/kernel/slab, as the module checks: name the unknown ones.
 */
static void explain_config_error(const struct mt_options *o, int ret,
				 const struct mt_err *err)
{
	struct stat st;
	bool named = false;

	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, PROG ": the module cannot trace the requested allocations "
			"on this kernel (%s)\n", err->msg);
		return;
	}
	if (o->nr_caches && (ret == -ENOENT || ret == -EINVAL) &&
	    stat("/sys/kernel/slab", &st) == 0) {
		for (unsigned int i = 0; i < o->nr_caches; i++) {
			char path[128];

			snprintf(path, sizeof(path), "/sys/kernel/slab/%s", o->caches[i]);
			if (strchr(o->caches[i], '/') || stat(path, &st) != 0) {
				fprintf(stderr, PROG ": unknown slab cache '%s' (--cache): "
					"see /proc/slabinfo for the names\n", o->caches[i]);
				named = true;
			}
		}
	}
	if (named)
		return;
	fprintf(stderr, PROG ": %s", err->msg);
	if (o->nr_caches && (ret == -ENOENT || ret == -EINVAL)) {
		fprintf(stderr, " (--cache");
		for (unsigned int i = 0; i < o->nr_caches; i++)
			fprintf(stderr, " %s", o->caches[i]);
		fprintf(stderr, ": is each a slab cache in /proc/slabinfo?)");
	}
	fputc('\n', stderr);
}

static void timestamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "??:??:??");
}

/* Sleeps until *deadline (CLOCK_MONOTONIC) or a signal; true on a signal. */
static bool wait_interval(const sigset_t *signals, const struct timespec *deadline)
{
	for (;;) {
		struct timespec now, left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline->tv_sec - now.tv_sec;
		left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0)
			return false;
		if (sigtimedwait(signals, NULL, &left) > 0)
			return true;
		if (errno == EAGAIN)
			return false;
		/* EINTR from another signal: keep waiting. */
	}
}

struct session {
	const struct mt_options *o;
	struct mt_device dev;
	struct ksyms *ksyms;
	struct trend_table *trend;
	struct slab_state *slab;
	uint32_t wanted;
	bool warned_ksyms, warned_events;
};

/* One interval: snapshot, parse, report.  Errors are printed here. */
static int report_once(struct session *s)
{
	const struct mt_options *o = s->o;
	struct report_ctx ctx = { .opts = o, .ksyms = s->ksyms, .trend = s->trend };
	struct stack_total *totals = NULL;
	struct mt_snapshot snap;
	struct mt_err err;
	size_t len, nr_totals = 0;
	void *buf;
	int ret;

	ret = device_snapshot(&s->dev, o->show_allocs ? MEMTRACE_SNAP_ALLOCS : 0,
			      o->mode == MT_MODE_SLAB ? 0 : o->older_ms * 1000000ULL,
			      &buf, &len, &err);
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return ret;
	}
	ret = snapshot_parse(buf, len, &snap, &err);
	free(buf);
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return ret;
	}
	if (!s->warned_events && (snap.hdr.events & s->wanted) != s->wanted) {
		char missing[64];

		device_events_str(s->wanted & ~snap.hdr.events, missing, sizeof(missing));
		fprintf(stderr, PROG ": note: not traced on this kernel: %s\n", missing);
		s->warned_events = true;
	}
	/* Modules loaded since the last report must resolve. */
	if (ksyms_refresh(s->ksyms, &err) && !s->warned_ksyms) {
		fprintf(stderr, PROG ": %s: frames will not be symbolized\n", err.msg);
		s->warned_ksyms = true;
	}
	timestamp(ctx.timestamp, sizeof(ctx.timestamp));
	if (o->mode == MT_MODE_SLAB) {
		ret = slabview_report(stdout, &snap, s->slab, &ctx);
	} else {
		ret = aggregate_by_stack(&snap, report_kind_mask(o), &totals, &nr_totals);
		if (!ret)
			ret = trend_update(s->trend, totals, nr_totals);
		if (!ret)
			ret = report_leaks(stdout, &snap, totals, nr_totals, &ctx);
		free(totals);
	}
	snapshot_free(&snap);
	fflush(stdout);
	if (ret)
		fprintf(stderr, PROG ": %s\n", strerror(-ret));
	return ret;
}

static int setup(struct session *s, const sigset_t *signals)
{
	const struct mt_options *o = s->o;
	struct memtrace_config cfg;
	uint32_t features;
	struct mt_err err;
	int ret;

	ret = device_open(&s->dev, NULL, &err);
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return ret;
	}
	if (o->trace) {
		/* No MEMTRACE_EV_* bit announces a per-call trace ring yet. */
		fprintf(stderr, PROG ": -t/--trace: not supported by this module "
			"(memtrace.ko %s has no trace ring)\n", s->dev.version.module_version);
		return -EOPNOTSUPP;
	}
	s->wanted = wanted_events(o);
	features = s->dev.version.features;
	/* A module that reports no features yet attaches at start: the
	 * snapshot header's events say what it got. */
	if (features) {
		if (!(features & s->wanted)) {
			char have[64];

			device_events_str(features, have, sizeof(have));
			fprintf(stderr, PROG ": %s allocations cannot be traced on this kernel "
				"(the module can trace: %s)\n",
				o->percpu ? "percpu" : "the requested", have);
			return -EOPNOTSUPP;
		}
		if (s->wanted & ~features) {
			char missing[64];

			device_events_str(s->wanted & ~features, missing, sizeof(missing));
			fprintf(stderr, PROG ": note: not traced on this kernel: %s\n", missing);
		}
		s->wanted &= features;
	}
	session_build_config(o, s->wanted, &cfg);
	ret = device_configure(&s->dev, &cfg, &err);
	if (ret == -EINVAL || ret == -ENOENT || ret == -EOPNOTSUPP) {
		explain_config_error(o, ret, &err);
		return ret;
	}
	if (!ret)
		ret = device_set_buffer(&s->dev, DEVICE_INITIAL_BUFFER, &err);
	/* Block the signals before tracing starts, so none is lost. */
	if (!ret && sigprocmask(SIG_BLOCK, signals, NULL))
		ret = mt_errf(&err, errno, "cannot block signals: %s", strerror(errno));
	if (!ret)
		ret = device_start(&s->dev, &err);
	if (ret)
		fprintf(stderr, PROG ": %s\n", err.msg);
	return ret;
}

int session_run(const struct mt_options *o)
{
	struct session s = { .o = o };
	struct timespec deadline;
	sigset_t signals;
	int ret, status = 0;

	s.dev.fd = -1;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	s.ksyms = ksyms_new(NULL);
	s.trend = trend_new();
	s.slab = slab_state_new();
	if (!s.ksyms || !s.trend || !s.slab) {
		fprintf(stderr, PROG ": out of memory\n");
		status = 1;
		goto out;
	}
	ret = setup(&s, &signals);
	if (ret) {
		status = 1;
		goto out;
	}
	if (o->mode == MT_MODE_SLAB)
		slabview_preamble(stdout);
	else
		printf("Attaching to kernel allocators, Ctrl+C to quit.\n");
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long n = 0; !o->count || n < o->count; n++) {
		bool signalled;

		deadline.tv_sec += o->interval_s;
		signalled = wait_interval(&signals, &deadline);
		if (report_once(&s)) {
			/* What was printed stays printed; say why it ends here. */
			status = 1;
			break;
		}
		if (signalled)
			break;
	}
	if (s.dev.tracing) {
		struct mt_err err;

		if (device_stop(&s.dev, &err) && status == 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			status = 1;
		}
	}
out:
	device_close(&s.dev);
	ksyms_free(s.ksyms);
	trend_free(s.trend);
	slab_state_free(s.slab);
	return status;
}

int session_print_version(FILE *out)
{
	struct mt_device dev;
	struct mt_err err;
	char hooks[64];

	fprintf(out, "memtrace-read %s (ABI %u)\n", MEMTRACE_READ_VERSION, MEMTRACE_ABI_VERSION);
	if (device_open(&dev, NULL, &err)) {
		fprintf(out, "memtrace.ko: %s\n", err.msg);
		return 0;
	}
	device_events_str(dev.version.features, hooks, sizeof(hooks));
	fprintf(out, "memtrace.ko %s (ABI %u, hooks: %s)\n",
		dev.version.module_version[0] ? dev.version.module_version : "(no version)",
		dev.version.abi_version, hooks);
	device_close(&dev);
	return 0;
}
