// SPDX-License-Identifier: GPL-2.0
/*
 * The session loop.  SIGINT and SIGTERM are blocked and taken with
 * sigtimedwait() as the interval's sleep: a signal can neither be lost
 * between checks nor interrupt a report half printed.  A signal ends the
 * session with one last report, as the interval would have.
 */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "spawn.h"
#include "tracefmt.h"
#include "trend.h"
#include "usermode.h"
#include "usyms.h"

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
	if (o->trace)
		cfg->flags |= MEMTRACE_CFG_TRACE;
	cfg->tgid = o->by_pid;
	if (o->by_comm)
		snprintf(cfg->comm, sizeof(cfg->comm), "%s", o->by_comm);
	/* --by-cgroup: the caller opens the directory and sets cgroup_fd. */
}

static uint32_t wanted_events(const struct mt_options *o)
{
	if (o->mode == MT_MODE_USER)
		return MEMTRACE_EV_USER;
	if (o->events)
		return o->events;
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
	if (ret == -ESRCH && o->by_pid) {
		fprintf(stderr, PROG ": --by-pid %d: no such process\n", o->by_pid);
		return;
	}
	if (o->by_cgroup && (ret == -EBADF || ret == -ENOTDIR || ret == -EINVAL)) {
		fprintf(stderr, PROG ": --by-cgroup %s: not a cgroup v2 directory (%s)\n",
			o->by_cgroup, err->msg);
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

/*
 * Sleeps until *deadline (CLOCK_MONOTONIC), a signal (returns true), or,
 * if poll_ms, at most that long (a user-mode target's state is checked
 * that often).
 */
static bool wait_interval(const sigset_t *signals, const struct timespec *deadline,
			  long poll_ms)
{
	int sig;

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
		if (poll_ms && (left.tv_sec > 0 || left.tv_nsec > poll_ms * 1000000L)) {
			left.tv_sec = 0;
			left.tv_nsec = poll_ms * 1000000L;
		}
		sig = sigtimedwait(signals, NULL, &left);
		if (sig == SIGCHLD)
			return false;	/* the -c command changed state: look at it */
		if (sig > 0)
			return true;
		if (errno == EAGAIN)
			return false;
		/* EINTR from another signal: keep waiting. */
	}
}

/* What became of a user-mode target. */
enum target_state {
	TARGET_RUNNING,
	TARGET_EXITING,		/* -c: stopped in exit, mappings still readable */
	TARGET_GONE,
	TARGET_EXECED,
};

struct session {
	const struct mt_options *o;
	struct mt_device dev;
	struct ksyms *ksyms;
	struct usyms *usyms;		/* user mode */
	pid_t pid;			/* user mode: the target */
	struct stat exe;		/* user mode: its executable when attached */
	bool child;			/* -c: the target is our ptrace child */
	bool child_gone;
	bool child_exiting;		/* -c: held in its exit stop */
	bool child_resumed;		/* -c: let go after its exec stop */
	enum target_state target;
	struct trend_table *trend;
	struct slab_state *slab;
	uint32_t wanted;
	uint32_t unloads_seen;		/* kernel mode: module code epoch reported */
	bool warned_ksyms, warned_events;
};

static void group_thousands(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	size_t n, out = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (size_t i = 0; i < n && out + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
}

/* Valgrind Memcheck's HEAP SUMMARY, over the target's malloc-family blocks. */
static void heap_summary(FILE *out, const struct mt_snapshot *snap, pid_t pid,
			 const char *when)
{
	uint64_t blocks = 0, bytes = 0, allocs = 0, frees = 0, allocated = 0;
	char b[5][40];

	for (size_t i = 0; i < snap->nr_stats; i++) {
		const struct memtrace_stat_rec *r = &snap->stats[i];

		if (r->kind != MEMTRACE_KIND_USER)
			continue;
		blocks += r->est_old_count;
		bytes += r->est_old_bytes;
		allocs += r->total_allocs;
		frees += r->frees;
		allocated += r->total_bytes;
	}
	group_thousands(bytes, b[0], sizeof(b[0]));
	group_thousands(blocks, b[1], sizeof(b[1]));
	group_thousands(allocs, b[2], sizeof(b[2]));
	group_thousands(frees, b[3], sizeof(b[3]));
	group_thousands(allocated, b[4], sizeof(b[4]));
	fprintf(out, "HEAP SUMMARY (pid %d):\n", (int)pid);
	fprintf(out, "    in use at %s: %s bytes in %s blocks\n", when, b[0], b[1]);
	fprintf(out, "  total heap usage: %s allocs, %s frees, %s bytes allocated\n",
		b[2], b[3], b[4]);
	if (snapshot_sampled(snap))
		fprintf(out, "  (sampling: in use is an estimate; totals count sampled "
			"allocations only)\n");
	fputc('\n', out);
}

static void exe_identity(pid_t pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, st))
		memset(st, 0, sizeof(*st));
}

/*
 * The target runs another executable than at attach: it exec'd after the
 * snapshot said it had not.  Checked right before re-reading its mappings,
 * which would otherwise be the new program's (an exec of the same file is
 * not seen here; the module's exec flag catches it at the next report).
 */
static bool exec_seen(const struct session *s)
{
	struct stat now;

	exe_identity(s->pid, &now);
	return now.st_ino && s->exe.st_ino &&
	       (now.st_ino != s->exe.st_ino || now.st_dev != s->exe.st_dev);
}

/*
 * One interval: snapshot, parse, report.  Errors are printed here.  The
 * last report of a user-mode target that exited (or exec'd) counts every
 * allocation still live, whatever its age, and ends with a heap summary.
 */
static int report_once(struct session *s)
{
	const struct mt_options *o = s->o;
	bool final = s->target != TARGET_RUNNING;
	struct report_ctx ctx = {
		.opts = o, .ksyms = s->ksyms, .usyms = s->usyms, .trend = s->trend,
	};
	char title[128];
	struct stack_total *totals = NULL;
	struct mt_snapshot snap;
	struct mt_err err;
	size_t len, nr_totals = 0;
	void *buf;
	int ret;

	ret = device_snapshot(&s->dev, o->show_allocs ? MEMTRACE_SNAP_ALLOCS : 0,
			      o->mode == MT_MODE_SLAB || final ? 0 : o->older_ms * 1000000ULL,
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
	if (o->mode == MT_MODE_USER && (snap.hdr.target.flags & MEMTRACE_TARGET_EXECED)) {
		/* Its new image is not traced; what the old one left is final. */
		s->target = TARGET_EXECED;
		final = true;
	}
	if (final) {
		snprintf(title, sizeof(title), "pid %d %s; allocations in use at %s:",
			 (int)s->pid, s->target == TARGET_EXECED ? "exec'd" : "exited",
			 s->target == TARGET_EXECED ? "exec" : "exit");
		ctx.title = title;
	}
	/* Libraries (and, for the kernel, modules) loaded since the last report must resolve. */
	if (s->usyms) {
		/*
		 * An exited target keeps its last mappings; an exec'd one's are
		 * another program's: keep those of the image that allocated.
		 */
		if (s->target != TARGET_EXECED && !exec_seen(s))
			usyms_refresh(s->usyms, &err);
	} else if (ksyms_refresh(s->ksyms, &err) && !s->warned_ksyms) {
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
		if (!ret && o->mode == MT_MODE_KERNEL_LEAKS)
			ret = report_module_unloads(stdout, &snap, totals, nr_totals, &ctx,
						    &s->unloads_seen);
		if (!ret)
			ret = report_leaks(stdout, &snap, totals, nr_totals, &ctx);
		if (!ret && final)
			heap_summary(stdout, &snap, s->pid,
				     s->target == TARGET_EXECED ? "exec" : "exit");
		free(totals);
	}
	snapshot_free(&snap);
	fflush(stdout);
	if (ret)
		fprintf(stderr, PROG ": %s\n", strerror(-ret));
	return ret;
}

/*
 * User mode: start the command stopped at its exec (-c), name the target,
 * probe its allocators, and open its symbols.
 */
static int setup_target(struct session *s, struct mt_err *err)
{
	const struct mt_options *o = s->o;
	int ret;

	if (o->command) {
		ret = spawn_stopped(o->command, &s->pid, err);
		if (ret)
			return ret;
		s->child = true;
	} else {
		s->pid = o->pid;
	}
	ret = device_set_target(&s->dev, s->pid, o->follow_forks, err);
	if (!ret) {
		ret = usermode_add_probes(&s->dev, s->pid, s->child,
					  (const char *const *)o->objs, o->nr_objs, err);
		ret = ret > 0 ? 0 : ret;
	}
	if (!ret)
		ret = usyms_new(s->pid, &s->usyms, err);
	if (!ret)
		exe_identity(s->pid, &s->exe);
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
	if (o->trace && !(s->dev.version.features & MEMTRACE_FEAT_TRACE)) {
		fprintf(stderr, PROG ": -t/--trace: not supported by this module "
			"(memtrace.ko %s has no trace ring)\n", s->dev.version.module_version);
		return -EOPNOTSUPP;
	}
	if ((o->by_pid || o->by_comm || o->by_cgroup) &&
	    !(s->dev.version.features & MEMTRACE_FEAT_TASK_FILTERS)) {
		fprintf(stderr, PROG ": --by-pid, --by-comm, --by-cgroup: not supported by this "
			"module (memtrace.ko %s filters no tasks)\n", s->dev.version.module_version);
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
	if (o->by_cgroup) {
		cfg.cgroup_fd = open(o->by_cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfg.cgroup_fd < 0) {
			fprintf(stderr, PROG ": --by-cgroup %s: %s\n", o->by_cgroup, strerror(errno));
			return -errno;
		}
		cfg.flags |= MEMTRACE_CFG_CGROUP;
	}
	ret = device_configure(&s->dev, &cfg, &err);
	if (o->by_cgroup)
		close(cfg.cgroup_fd);
	if (ret == -EINVAL || ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ESRCH ||
	    ret == -EBADF || ret == -ENOTDIR) {
		explain_config_error(o, ret, &err);
		return ret;
	}
	if (!ret && o->mode == MT_MODE_USER)
		ret = setup_target(s, &err);
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

/* -t: print the trace records waiting in the module's ring. */
static int drain_trace(struct session *s)
{
	struct memtrace_trace_rec recs[256];
	struct mt_err err;
	long n;

	if (!s->o->trace)
		return 0;
	do {
		n = device_read_trace(&s->dev, recs, MT_ARRAY_SIZE(recs), &err);
		for (long i = 0; i < n; i++)
			tracefmt_line(stdout, &recs[i], s->ksyms, s->usyms);
	} while (n == (long)MT_ARRAY_SIZE(recs));
	fflush(stdout);
	if (n < 0)
		fprintf(stderr, PROG ": %s\n", err.msg);
	return n < 0 ? (int)n : 0;
}

/*
 * A user-mode target's end: -c sees its exit stop (mappings still there:
 * refresh the symbols now), -p sees it gone.  True once it ended.
 */
static bool target_ended(struct session *s)
{
	int status;

	if (s->o->mode != MT_MODE_USER || s->target != TARGET_RUNNING)
		return s->target != TARGET_RUNNING;
	if (s->child) {
		switch (spawn_poll(s->pid, &status)) {
		case SPAWN_EXITING:
			/* Held until finish_child(): report_once() reads its maps. */
			s->child_exiting = true;
			s->target = TARGET_EXITING;
			return true;
		case SPAWN_GONE:
			s->child_gone = true;
			s->target = TARGET_GONE;
			return true;
		case SPAWN_NOTHING:
			return false;
		}
	}
	if (kill(s->pid, 0) && errno == ESRCH) {
		s->target = TARGET_GONE;
		return true;
	}
	/* A zombie nobody reaped has exited too. */
	{
		char path[64], state = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
				state = 0;
			fclose(f);
		}
		if (state == 'Z' || state == 'X') {
			s->target = TARGET_GONE;
			return true;
		}
	}
	return false;
}

/*
 * -c: after the last report, let the command finish (it runs on, untraced,
 * if the reader stops first), or kill it if it never got to run.
 */
static void finish_child(struct session *s)
{
	int status;

	if (!s->child_resumed) {
		spawn_kill(s->pid);
		return;
	}
	if (s->child_exiting) {
		spawn_resume(s->pid, NULL);
		while (spawn_poll(s->pid, &status) != SPAWN_GONE)
			usleep(10000);
	}
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
	/* Its state changes are polled (spawn_poll), not delivered. */
	if (o->command)
		sigaddset(&signals, SIGCHLD);
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
	else if (o->mode == MT_MODE_USER)
		printf("Attaching to pid %d, Ctrl+C to quit.\n", (int)s.pid);
	else
		printf("Attaching to kernel allocators, Ctrl+C to quit.\n");
	fflush(stdout);
	if (s.child) {
		struct mt_err err;

		if (spawn_resume(s.pid, &err)) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			status = 1;
			goto stop;
		}
		s.child_resumed = true;
	}

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long n = 0; !o->count || n < o->count; n++) {
		bool signalled = false, ended;

		deadline.tv_sec += o->interval_s;
		while (!signalled && !(ended = target_ended(&s))) {
			struct timespec now;

			/* A user-mode target's state, and trace records, every 100 ms. */
			signalled = wait_interval(&signals, &deadline,
						  o->mode == MT_MODE_USER || o->trace ? 100 : 0);
			if (drain_trace(&s)) {
				status = 1;
				goto stop;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline.tv_sec ||
			    (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
				break;
		}
		ended = target_ended(&s);
		if (drain_trace(&s) || report_once(&s)) {
			/* What was printed stays printed; say why it ends here. */
			status = 1;
			break;
		}
		if (signalled || ended || s.target == TARGET_EXECED)
			break;
	}
stop:
	if (s.dev.tracing) {
		struct mt_err err;

		if (device_stop(&s.dev, &err) && status == 0) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			status = 1;
		}
		/* What the ring still holds: written before the stop. */
		if (status == 0 && drain_trace(&s))
			status = 1;
	}
out:
	device_close(&s.dev);
	if (s.child && !s.child_gone)
		finish_child(&s);
	usyms_free(s.usyms);
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
