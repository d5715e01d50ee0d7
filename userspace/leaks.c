// SPDX-License-Identifier: GPL-2.0
/*
 * The leak modes, --kernel-leaks, --slab and user mode (-p, -c, --): the
 * module keeps every live allocation by stack; at each interval (and a
 * signal's last one, and a traced command's end) a snapshot of its
 * tables is reported as memleak reports it (report.h, slabview.h) and in
 * the formats asked for (fmt.h).  Their rings carry -t's records and
 * --oom's kills, whose stacks are reported as they come.  The session
 * itself is the driver's (driver.h); user mode's process is a target
 * (target.h), watched at each wake.
 */
#include "leaks.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "device.h"
#include "driver.h"
#include "evreader.h"
#include "fmt.h"
#include "growthhint.h"
#include "ksyms.h"
#include "pressure.h"
#include "report.h"
#include "rmodel.h"
#include "slabview.h"
#include "snapshot.h"
#include "target.h"
#include "tracefmt.h"
#include "trend.h"

#define PROG "memtrace-read"

void leaks_build_config(const struct mt_options *o, uint32_t events,
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

struct leaks {
	const struct mt_options *o;
	struct mt_driver *d;		/* the session: its device, rings, d->ended */
	struct ksyms *ksyms;
	struct target *target;		/* user mode */
	struct growth_hint hint;	/* user mode: growth no allocator call explains */
	struct trend_table *trend;
	struct slab_state *slab;
	uint32_t wanted;
	uint32_t unloads_seen;		/* kernel mode: module code epoch reported */
	bool warned_ksyms, warned_events;
	/* -t: records from the per-CPU event rings (else read(2), an older module) */
	bool trace_ring;
	/* --oom: kills come through the same rings */
	char *cgroot;			/* cgroup2's mount, to name a kill's memcg */
	int64_t mono_to_real_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	/* Kills whose stacks follow the victim's "killed process" line. */
	struct oom_pending {
		uint32_t victim_pid;
		uint64_t ts_ns;
		char comm[MEMTRACE_COMM_LEN];
		int snap_ret;		/* 0: snap holds the stacks at the kill */
		struct mt_snapshot snap;
		uint64_t read_ns;	/* when its record was read (and snap taken) */
	} oom_pending[8];
	unsigned int nr_oom_pending;
};

struct heap_totals {
	uint64_t blocks, bytes, allocs, frees, allocated;
};

/*
 * User mode's first lines.  memleak -c says what it runs first: with
 * --memleak-format, so does this, the command as given (-c) or its words
 * (-- CMD ARGS...).
 */
static void attaching_line(const struct mt_options *o, int pid)
{
	if (o->memleak_format && o->cmd_argv) {
		printf("Executing '");
		if (o->command)
			fputs(o->command, stdout);
		for (char **w = o->command ? NULL : o->cmd_argv; w && *w; w++)
			printf("%s%s", w == o->cmd_argv ? "" : " ", *w);
		printf("' and tracing the resulting process.\n");
	}
	printf("Attaching to pid %d, Ctrl+C to quit.\n", pid);
}

/* Valgrind Memcheck's HEAP SUMMARY, worded as Memcheck words it. */
static void print_heap_summary(FILE *out, const char *whose, const char *when,
			       const struct heap_totals *h, bool sampled)
{
	char b[5][40];

	mt_group_thousands(h->bytes, b[0], sizeof(b[0]));
	mt_group_thousands(h->blocks, b[1], sizeof(b[1]));
	mt_group_thousands(h->allocs, b[2], sizeof(b[2]));
	mt_group_thousands(h->frees, b[3], sizeof(b[3]));
	mt_group_thousands(h->allocated, b[4], sizeof(b[4]));
	fprintf(out, "HEAP SUMMARY (%s):\n", whose);
	fprintf(out, "    in use at %s: %s bytes in %s blocks\n", when, b[0], b[1]);
	fprintf(out, "  total heap usage: %s allocs, %s frees, %s bytes allocated\n",
		b[2], b[3], b[4]);
	if (sampled)
		fprintf(out, "  (sampling: in use is an estimate; totals count sampled "
			"allocations only)\n");
}

/* A later slot holds a newer image of slot's process: it exec'd. */
static bool image_replaced(const struct memtrace_target_state *t, unsigned int slot)
{
	for (unsigned int i = slot + 1; i < t->nr_processes && i < MEMTRACE_MAX_PROCS; i++)
		if (t->procs[i].pid == t->procs[slot].pid && t->procs[i].how == MEMTRACE_PROC_EXEC)
			return true;
	return false;
}

/*
 * The heap summary of each image traced (the malloc family's blocks; a
 * replaced image's "in use at exec"), and their total when there are
 * several, as Memcheck --trace-children=yes prints one per image.
 */
static void heap_summaries(FILE *out, const struct mt_snapshot *snap,
			   const struct images *images)
{
	const struct memtrace_target_state *t = &snap->hdr.target;
	unsigned int nr = t->nr_processes < MEMTRACE_MAX_PROCS ? t->nr_processes :
			  MEMTRACE_MAX_PROCS;
	struct heap_totals all = { 0 };
	unsigned int shown = 0;

	for (unsigned int slot = 0; slot < (nr ? nr : 1); slot++) {
		struct heap_totals h = { 0 };
		char whose[PATH_MAX + 32];

		for (size_t i = 0; i < snap->nr_stats; i++) {
			const struct memtrace_stat_rec *r = &snap->stats[i];

			if (r->kind != MEMTRACE_KIND_USER || r->cache_id != slot)
				continue;
			h.blocks += r->est_old_count;
			h.bytes += r->est_old_bytes;
			h.allocs += r->total_allocs;
			h.frees += r->frees;
			h.allocated += r->total_bytes;
		}
		/* The target is always shown; an image that never allocated is not. */
		if (slot && !h.allocs && !h.frees)
			continue;
		all.blocks += h.blocks;
		all.bytes += h.bytes;
		all.allocs += h.allocs;
		all.frees += h.frees;
		all.allocated += h.allocated;
		images_name(images, slot, whose, sizeof(whose));
		print_heap_summary(out, whose, nr && image_replaced(t, slot) ? "exec" : "exit", &h,
				   snapshot_sampled(snap));
		shown++;
	}
	if (shown > 1) {
		char whose[64];

		snprintf(whose, sizeof(whose), "all %u images", shown);
		print_heap_summary(out, whose, "exit", &all, snapshot_sampled(snap));
	}
	fputc('\n', out);
}

/*
 * At a traced command's end, after the heap summaries: every stack still
 * in use, in Memcheck's words (the report above shows the top -T).
 */
static int leak_summary(const struct mt_snapshot *snap, const struct stack_total *totals,
			size_t nr_totals, const struct report_ctx *ctx)
{
	struct mt_options all = *ctx->opts;
	struct report_ctx c = *ctx;
	struct report_model m;
	int ret;

	all.top = UINT_MAX;
	c.opts = &all;
	/*
	 * Every stack: their frames one stack at a time, not all at once
	 * (100K stacks of 17 frames were 190 MB of frames).
	 */
	ret = rmodel_build_leaks_frameless(&m, snap, totals, nr_totals, &c);
	if (ret)
		return ret;
	fmt_memcheck_head(stdout, &m);
	for (size_t i = m.nr_stacks; i-- > 0 && !ret;) {
		ret = rmodel_stack_frames(&m.stacks[i], snap, &c);
		if (!ret)
			fmt_memcheck_record(stdout, &m, i);
		rmodel_stack_drop_frames(&m.stacks[i]);
	}
	if (!ret)
		ret = fmt_memcheck_tail(stdout);
	rmodel_free(&m);
	if (ret)
		fprintf(stderr, PROG ": cannot write the report: %s\n", strerror(-ret));
	return ret;
}

/*
 * The report formats of one interval, from one model of it: to stdout
 * (--folded, --json without a file) or each to its file, atomically.
 * totals NULL: --slab.  Errors are printed here; 0 or -errno.
 */
static int write_formats(const struct mt_options *o, const struct mt_snapshot *snap,
			 const struct stack_total *totals, size_t nr_totals,
			 const struct report_ctx *ctx)
{
	struct report_model m;
	struct mt_err err = { "" };
	int ret;

	if (!o->folded && !o->json && !o->pprof_file && !o->prometheus_file && !o->svg_file)
		return 0;
	ret = totals ? rmodel_build_leaks(&m, snap, totals, nr_totals, ctx) :
		       rmodel_build_slab(&m, snap, ctx);
	if (ret)
		return ret;
	if (o->folded && !o->folded_file)
		ret = fmt_folded(stdout, &m);
	else if (o->folded)
		ret = fmt_write_file(o->folded_file, &m, fmt_folded_file, &err);
	if (!ret && o->json && !o->json_file)
		ret = fmt_json(stdout, &m);
	else if (!ret && o->json)
		ret = fmt_write_file(o->json_file, &m, fmt_json_file, &err);
	if (!ret)
		ret = fmt_write_files(o->pprof_file, o->prometheus_file, o->svg_file, &m, &err);
	if (ret) {
		/* Standard output's formats set no message: the write failed. */
		fprintf(stderr, PROG ": %s\n", err.msg[0] ? err.msg : "cannot write the report");
		ret = -EIO;	/* said; report_once() does not say it again */
	}
	rmodel_free(&m);
	return ret;
}

/* A snapshot from the module, parsed; an error is said on stderr. */
static int take_snapshot(struct leaks *s, uint32_t flags, uint64_t older_ns,
			 struct mt_snapshot *snap)
{
	struct mt_err err;
	size_t len;
	void *buf;
	int ret;

	ret = device_snapshot(&s->d->dev, flags, older_ns, &buf, &len, &err);
	if (!ret) {
		ret = snapshot_parse(buf, len, snap, &err);
		free(buf);
	}
	if (ret)
		fprintf(stderr, PROG ": %s\n", err.msg);
	return ret;
}

/*
 * One interval: snapshot, parse, report.  Errors are printed here.  The
 * last report of a user-mode target that ended counts every allocation
 * still live, whatever its age, and ends with the heap summaries.
 */
static int report_once(struct leaks *s)
{
	const struct mt_options *o = s->o;
	bool final = s->d->ended;
	struct report_ctx ctx = {
		.opts = o, .ksyms = s->ksyms, .trend = s->trend,
		.images = s->target ? target_images(s->target) : NULL,
	};
	char title[128];
	struct stack_total *totals = NULL;
	struct mt_snapshot snap;
	struct mt_err err;
	size_t nr_totals = 0;
	int ret;

	ret = take_snapshot(s, o->show_allocs ? MEMTRACE_SNAP_ALLOCS : 0,
			    /* -C counts every live allocation, as memleak's does. */
			    o->mode == MT_MODE_SLAB || final || o->combined_only ? 0 :
			    o->older_ms * 1000000ULL, &snap);
	if (ret)
		return ret;
	if (!s->warned_events && (snap.hdr.events & s->wanted) != s->wanted) {
		char missing[64];

		device_events_str(s->wanted & ~snap.hdr.events, missing, sizeof(missing));
		fprintf(stderr, PROG ": note: not traced on this kernel: %s\n", missing);
		s->warned_events = true;
	}
	if (final) {
		snprintf(title, sizeof(title), "pid %d exited; allocations in use at exit:",
			 (int)target_pid(s->target));
		ctx.title = title;
	}
	if (s->target) {
		/* Images exec'd, and libraries loaded, since the last report must resolve. */
		target_snapshot(s->target, &snap.hdr.target, PROG);
	} else if (ksyms_refresh(s->ksyms, &err) && !s->warned_ksyms) {
		fprintf(stderr, PROG ": %s: frames will not be symbolized\n", err.msg);
		s->warned_ksyms = true;
	}
	timestamp(ctx.timestamp, sizeof(ctx.timestamp));
	ctx.final = final;
	if (o->verbose)
		fprintf(stderr, PROG ": snapshot: %zu stacks, %zu counters, %zu allocations, "
			"%zu caches; allocations younger than %llu ms left out\n", snap.nr_stacks,
			snap.nr_stats, snap.nr_allocs, snap.nr_caches,
			(unsigned long long)(snap.hdr.min_age_ns / 1000000ULL));
	if (o->mode == MT_MODE_SLAB) {
		if (cli_text_report(o))
			ret = slabview_report(stdout, &snap, s->slab, &ctx);
		if (!ret)
			ret = write_formats(o, &snap, NULL, 0, &ctx);
	} else {
		bool text = cli_text_report(o);
		const struct stack_total **ranked = NULL;

		ret = aggregate_by_stack(&snap, report_kind_mask(o), &totals, &nr_totals);
		if (!ret)
			ret = trend_update(s->trend, totals, nr_totals);
		/* One ranking for the report, the summary and the formats */
		if (!ret)
			ret = report_rank(&snap, totals, nr_totals, &ctx, &ranked, &ctx.nr_ranked);
		ctx.ranked = ranked;
		if (!ret && text && o->mode == MT_MODE_KERNEL_LEAKS)
			ret = report_module_unloads(stdout, &snap, totals, nr_totals, &ctx,
						    &s->unloads_seen);
		if (!ret && text)
			ret = report_leaks(stdout, &snap, totals, nr_totals, &ctx);
		if (!ret && text && s->target && !final && !o->memleak_format) {
			char hint[512];

			if (growth_hint_update(&s->hint, (int)target_pid(s->target),
					       snap.hdr.activity.allocs_seen, hint, sizeof(hint)))
				printf("%s\n\n", hint);
		}
		if (!ret && text && final && !o->memleak_format) {
			heap_summaries(stdout, &snap, ctx.images);
			ret = leak_summary(&snap, totals, nr_totals, &ctx);
		}
		if (!ret)
			ret = write_formats(o, &snap, totals, nr_totals, &ctx);
		free(ranked);
		free(totals);
	}
	snapshot_free(&snap);
	if (ret && ret != -EIO)
		fprintf(stderr, PROG ": %s\n", strerror(-ret));
	else if (ret)
		fflush(stdout);	/* what was printed stays printed */
	return ret;
}

static void leaks_fini(struct mt_driver *d);

/*
 * The device open: the mode's state, and whether this module can trace
 * what the options ask.  0, or -1 said.
 */
static int leaks_init(struct mt_driver *d)
{
	const struct mt_options *o = d->o;
	struct leaks *s = calloc(1, sizeof(*s));
	uint32_t features;

	d->state = s;
	if (s) {
		s->o = o;
		s->d = d;
		s->ksyms = ksyms_new(NULL);
		s->trend = trend_new();
		s->slab = slab_state_new();
	}
	if (!s || !s->ksyms || !s->trend || !s->slab) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	if (o->trace && !(d->dev.version.features & MEMTRACE_FEAT_TRACE)) {
		fprintf(stderr, PROG ": -t/--trace: not supported by this module "
			"(memtrace.ko %s has no trace ring)\n", d->dev.version.module_version);
		return -1;
	}
	if ((o->by_pid || o->by_comm || o->by_cgroup) &&
	    !(d->dev.version.features & MEMTRACE_FEAT_TASK_FILTERS)) {
		fprintf(stderr, PROG ": --by-pid, --by-comm, --by-cgroup: not supported by this "
			"module (memtrace.ko %s filters no tasks)\n", d->dev.version.module_version);
		return -1;
	}
	if (o->oom_kills && (!(d->dev.version.features & MEMTRACE_FEAT_EVRING) ||
			     !(d->dev.version.features & MEMTRACE_EV_OOM))) {
		const char *kconfig = device_kconfig_reason(&d->dev.version, MEMTRACE_EV_OOM);

		fprintf(stderr, PROG ": --oom: not supported by this module on this kernel "
			"(memtrace.ko %s: %s)\n", d->dev.version.module_version,
			!(d->dev.version.features & MEMTRACE_FEAT_EVRING) ? "no event rings" :
			kconfig ? kconfig : "oom_kill_process cannot be probed");
		return -1;
	}
	s->wanted = wanted_events(o);
	features = d->dev.version.features;
	/* A module that reports no features yet attaches at start: the
	 * snapshot header's events say what it got. */
	if (features) {
		const char *kconfig = device_kconfig_reason(&d->dev.version, s->wanted & ~features);

		if (!(features & s->wanted)) {
			char have[64];

			device_events_str(features, have, sizeof(have));
			fprintf(stderr, PROG ": %s allocations cannot be traced on this kernel "
				"(%s%sthe module can trace: %s)\n",
				o->percpu ? "percpu" : s->wanted == MEMTRACE_EV_USER ? "user" :
				"the requested", kconfig ? kconfig : "", kconfig ? "; " : "", have);
			return -1;
		}
		if (s->wanted & ~features) {
			char missing[64];

			device_events_str(s->wanted & ~features, missing, sizeof(missing));
			fprintf(stderr, PROG ": note: not traced on this kernel: %s%s%s\n", missing,
				kconfig ? ": " : "", kconfig ? kconfig : "");
		}
		s->wanted &= features;
	}
	if (o->verbose) {
		char events[64], sampling[48] = "off";

		device_events_str(s->wanted, events, sizeof(events));
		if (o->sample_every)
			snprintf(sampling, sizeof(sampling), "1 in %u", o->sample_every);
		else if (o->sample_bytes)
			snprintf(sampling, sizeof(sampling), "once per %u bytes", o->sample_bytes);
		fprintf(stderr, PROG ": memtrace.ko %s (ABI %u); tracing: %s; sampling: %s\n",
			d->dev.version.module_version, d->dev.version.abi_version, events,
			sampling);
	}
	s->trace_ring = o->trace && (d->dev.version.features & MEMTRACE_FEAT_TRACE_RING);
	if (o->oom_kills) {
		s->cgroot = pressure_cgroup2_root();
		s->mono_to_real_ns = mt_realtime_offset_ns();
	}
	return 0;
}

/* The options' configuration; the rings only for -t's records and --oom's kills. */
static void leaks_configure(struct mt_driver *d, struct memtrace_config *cfg)
{
	const struct leaks *s = d->state;

	leaks_build_config(d->o, s->wanted, cfg);
	if (s->trace_ring)
		cfg->trace_flags = MEMTRACE_TRACEF_EVRING;
	/* A ring event besides the allocations: the module makes rings for it. */
	if (d->o->oom_kills)
		cfg->events |= MEMTRACE_EV_OOM;
	d->rings = s->trace_ring || d->o->oom_kills;
}

static int leaks_attach(struct mt_driver *d, struct mt_err *err)
{
	return device_set_buffer(&d->dev, DEVICE_INITIAL_BUFFER, err);
}

/*
 * User mode: the process named to the module, its allocators probed; a
 * command started and held (its signal mask ours before the driver's).
 */
static int leaks_user_attach(struct mt_driver *d, struct mt_err *err)
{
	struct leaks *s = d->state;
	int exit_code = 1, ret;

	ret = target_open(d->o, &d->dev, &s->target, &exit_code, err);
	if (ret) {
		d->fail_status = exit_code;
		return ret;
	}
	return leaks_attach(d, err);
}

static void leaks_start_failed(struct mt_driver *d, int ret, const struct mt_err *err)
{
	if (!d->configured && (ret == -EINVAL || ret == -ENOENT || ret == -EOPNOTSUPP ||
			       ret == -ESRCH || ret == -EBADF || ret == -ENOTDIR))
		explain_config_error(d->o, ret, err);
	else
		fprintf(stderr, PROG ": %s\n", err->msg);
}

/*
 * --oom: the top live stacks of what the session traces at the kill: the
 * victim's own when it is the traced process (the module keeps a traced
 * process's live allocations once it is gone: nothing frees them at a
 * SIGKILL, and its slot is never reused in the session, so the snapshot
 * holds them whether or not the victim has exited yet), else the
 * kernel's with --kernel-leaks (taken as the kill's record is read: the
 * victim's exit may free kernel objects after that, and the report says
 * how long after the kill it was taken).  A kill of another process than
 * the one traced in user mode has no stacks of ours.
 */
static bool oom_has_stacks(const struct leaks *s, uint32_t victim_pid)
{
	return !s->target || (int)victim_pid == (int)target_pid(s->target);
}

/* Printed once the victim's record is (oom_report_pending()). */
static void oom_take_stacks(struct leaks *s, struct oom_pending *k)
{
	struct mt_err err;

	k->snap_ret = -ENODATA;
	if (!oom_has_stacks(s, k->victim_pid))
		return;
	/* Every live allocation, whatever its age: what the victim held. */
	k->snap_ret = take_snapshot(s, 0, 0, &k->snap);
	if (k->snap_ret)
		return;
	if (s->target)
		target_snapshot(s->target, &k->snap.hdr.target, PROG);
	else
		ksyms_refresh(s->ksyms, &err);
}

static int oom_print_stacks(struct leaks *s, struct oom_pending *k)
{
	const struct mt_options *o = s->o;
	struct report_ctx ctx = {
		.opts = o, .ksyms = s->ksyms,
		.images = s->target ? target_images(s->target) : NULL,
	};
	char title[160], comm[MEMTRACE_COMM_LEN + 1];
	struct stack_total *totals = NULL;
	size_t nr_totals = 0;
	uint64_t after_us;
	int ret;

	fputc('\n', stdout);
	mt_comm(comm, k->comm);
	after_us = k->snap.hdr.now_ns > k->ts_ns ? (k->snap.hdr.now_ns - k->ts_ns) / 1000 : 0;
	if (s->target)
		snprintf(title, sizeof(title), "Top %u stacks of pid %u (\"%s\") at its OOM kill:",
			 o->top, k->victim_pid, comm);
	else
		snprintf(title, sizeof(title), "Top %u kernel stacks at the OOM kill of pid %u "
			 "(\"%s\"), %" PRIu64 ".%03" PRIu64 " ms after it:", o->top,
			 k->victim_pid, comm, after_us / 1000, after_us % 1000);
	ctx.title = title;
	timestamp(ctx.timestamp, sizeof(ctx.timestamp));
	ret = aggregate_by_stack(&k->snap, report_kind_mask(o), &totals, &nr_totals);
	if (!ret)
		ret = report_leaks(stdout, &k->snap, totals, nr_totals, &ctx);
	free(totals);
	if (ret)
		fprintf(stderr, PROG ": %s\n", strerror(-ret));
	return ret;
}

/* The stacks of pending kill i, which leaves the list. */
static void oom_report_pending(struct leaks *s, unsigned int i)
{
	struct oom_pending k = s->oom_pending[i];

	s->nr_oom_pending--;
	memmove(&s->oom_pending[i], &s->oom_pending[i + 1],
		(s->nr_oom_pending - i) * sizeof(k));
	/*
	 * The snapshot and its copies are taken while memory is short: if
	 * they fail, say so and go on tracing; the next kill may fare better.
	 */
	if (oom_has_stacks(s, k.victim_pid) && (k.snap_ret || oom_print_stacks(s, &k)))
		fprintf(stderr, PROG ": the stacks at the OOM kill of pid %u were not reported\n",
			k.victim_pid);
	if (!k.snap_ret)
		snapshot_free(&k.snap);
}

/*
 * How long a kill's stacks wait for its victim's record before they print.
 * The kernel writes its OOM report to the console between the two: on a
 * slow serial console that alone takes hundreds of milliseconds.
 */
#define OOM_VICTIM_WAIT_NS	(2000 * 1000 * 1000ULL)

static uint64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

/* From when the reader had the kill, not the kernel's kill: a slow snapshot waits no less. */
static bool oom_victim_overdue(const struct oom_pending *k)
{
	return monotonic_ns() > k->read_ns + OOM_VICTIM_WAIT_NS;
}

/* A record from the event rings: a -t line, or (--oom) a kill and its victim. */
static void on_ring_record(void *ctx, const struct memtrace_ev_hdr *h)
{
	struct leaks *s = ctx;
	const struct memtrace_ev_trace *ev = (const void *)h;

	switch (h->type) {
	case MEMTRACE_EVT_ALLOC_TRACE:
	case MEMTRACE_EVT_FREE_TRACE:
		if (s->o->trace && h->size >= sizeof(*ev))
			tracefmt_line(stdout, &ev->rec, s->ksyms,
				      s->target ? target_images(s->target) : NULL);
		break;
	case MEMTRACE_EVT_OOM_KILL: {
		const struct memtrace_ev_oom_kill *r = (const void *)h;
		time_t when = (time_t)(((int64_t)r->ts_ns + s->mono_to_real_ns) / 1000000000LL);
		struct oom_pending *k;
		char path[4096];
		bool named = false;

		if (h->size < sizeof(*r))
			break;
		if (r->memcg_id && s->cgroot)
			named = pressure_cgroup_path(s->cgroot, r->memcg_id, path, sizeof(path));
		pressure_print_oom_kill(stdout, r, when, named ? path : NULL, s->ksyms);
		if (s->nr_oom_pending == MT_ARRAY_SIZE(s->oom_pending))
			oom_report_pending(s, 0);
		k = &s->oom_pending[s->nr_oom_pending++];
		k->victim_pid = r->victim_pid;
		k->ts_ns = r->ts_ns;
		memcpy(k->comm, r->victim_comm, MEMTRACE_COMM_LEN);
		oom_take_stacks(s, k);
		k->read_ns = monotonic_ns();
		break;
	}
	case MEMTRACE_EVT_OOM_VICTIM: {
		const struct memtrace_ev_oom_victim *v = (const void *)h;

		if (h->size < sizeof(*v))
			break;
		pressure_print_oom_victim(stdout, v);
		for (unsigned int i = 0; i < s->nr_oom_pending; i++)
			if (s->oom_pending[i].victim_pid == v->pid) {
				oom_report_pending(s, i);
				break;
			}
		break;
	}
	default:
		break;		/* not ours */
	}
}

static void leaks_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	on_ring_record(d->state, h);
}

/*
 * After each drain of the rings (in time order: evreader_drain_ordered()):
 * a kill's stacks (taken as its record was read) follow its victim's
 * record, which may come in a later drain.  A victim not marked within
 * OOM_VICTIM_WAIT_NS, the session's end or a failed drain: the stacks all
 * the same, now.  -t from an older module without trace rings: its
 * records by read(2).
 */
static int leaks_drained(struct mt_driver *d, bool final, bool failed)
{
	struct leaks *s = d->state;
	struct images *images = s->target ? target_images(s->target) : NULL;
	struct memtrace_trace_rec recs[256];
	struct mt_err err;
	long n;

	if (!s->o->trace && !s->o->oom_kills)
		return driver_flush();
	if (d->er.map) {
		while (s->nr_oom_pending &&
		       (final || failed || oom_victim_overdue(&s->oom_pending[0])))
			oom_report_pending(s, 0);
		if (failed)
			return -1;
		if (!s->o->trace || s->trace_ring)
			return driver_flush();
	}
	do {
		n = device_read_trace(&d->dev, recs, MT_ARRAY_SIZE(recs), &err);
		for (long i = 0; i < n; i++)
			tracefmt_line(stdout, &recs[i], s->ksyms, images);
	} while (n == (long)MT_ARRAY_SIZE(recs));
	if (n < 0)
		fprintf(stderr, PROG ": %s\n", err.msg);
	return n < 0 ? -1 : driver_flush();
}

/* User mode: the target's news (images, exits, its end).  True once it ended. */
static bool leaks_watch(struct mt_driver *d)
{
	struct leaks *s = d->state;

	return target_update(s->target, PROG);
}

/*
 * What wakes the wait: a -p target's state, and trace records, every 100
 * ms; --oom: a kill's record as it is written (and within 2 ms one the
 * drain held back for ordering).  Not -t's records: every traced
 * allocation is one, the reader's own among them, and waking on each
 * would feed itself.
 */
static int leaks_setup(struct mt_driver *d)
{
	const struct leaks *s = d->state;
	const struct mt_options *o = d->o;

	d->quiet_rings = !o->oom_kills || o->trace;
	d->watch_fd = s->target ? target_fd(s->target) : -1;
	if ((s->target && d->watch_fd < 0) || o->trace || o->oom_kills)
		d->poll_ms = 100;
	return 0;
}

/* The first lines; then a held command runs. */
static void leaks_banner(struct mt_driver *d)
{
	struct leaks *s = d->state;
	const struct mt_options *o = d->o;

	if (!cli_text_report(o))
		;	/* stdout is --folded's or --json's: only theirs */
	else if (o->mode == MT_MODE_SLAB)
		slabview_preamble(stdout);
	else if (s->target)
		attaching_line(o, (int)target_pid(s->target));
	else
		printf("Attaching to kernel allocators, Ctrl+C to quit.\n");
	/* Not before its line is out (the driver says if it could not be). */
	if (s->target && fflush(stdout) == 0 && !ferror(stdout))
		target_go(s->target);
}

/* Each interval, a signal's last and the target's end: the report. */
static int leaks_interval(struct mt_driver *d, bool signalled)
{
	struct leaks *s = d->state;

	(void)signalled;
	/*
	 * The target's news came with the wait's last wake (watch()), so
	 * d->ended is up to date.  What was printed stays printed; said
	 * why it ends here.
	 */
	if (driver_drain(d, false) || report_once(s) || driver_flush())
		return -1;
	return 0;
}

/* Final once stopped: what -t printed and this add up to every call. */
static int leaks_end(struct mt_driver *d, int status)
{
	const struct leaks *s = d->state;
	int exit_code;

	if (status == 0 && d->er.map) {
		evreader_print_lost(&d->er, stdout, s->trace_ring ? "trace records" :
				    "OOM records");
		if (driver_flush())
			status = 1;
	}
	/* -c: a command that ended gives its exit status, unless we failed. */
	if (status == 0 && s->target && target_exit_code(s->target, &exit_code))
		status = exit_code;
	return status;
}

static void leaks_fini(struct mt_driver *d)
{
	struct leaks *s = d->state;

	if (!s)
		return;
	/* Kills a failed session never reported. */
	for (unsigned int i = 0; i < s->nr_oom_pending; i++) {
		if (oom_has_stacks(s, s->oom_pending[i].victim_pid))
			fprintf(stderr, PROG ": the stacks at the OOM kill of pid %u were not "
				"reported\n", s->oom_pending[i].victim_pid);
		if (!s->oom_pending[i].snap_ret)
			snapshot_free(&s->oom_pending[i].snap);
	}
	target_close(s->target, PROG);
	ksyms_free(s->ksyms);
	free(s->cgroot);
	trend_free(s->trend);
	slab_state_free(s->slab);
	free(s);
}

/* Their events follow the options: leaks_init checks them. */
#define LEAKS_ROW							\
	.reports = true, .ordered = true, .totals = true,		\
	.init = leaks_init, .configure = leaks_configure,		\
	.start_failed = leaks_start_failed, .setup = leaks_setup,	\
	.banner = leaks_banner, .record = leaks_record,			\
	.drained = leaks_drained, .interval = leaks_interval,		\
	.end = leaks_end, .fini = leaks_fini

const struct mt_mode_row leaks_kernel_row = {
	.mode = MT_MODE_KERNEL_LEAKS, .option = "--kernel-leaks", .attach = leaks_attach,
	LEAKS_ROW,
};

const struct mt_mode_row leaks_slab_row = {
	.mode = MT_MODE_SLAB, .option = "--slab", .attach = leaks_attach, LEAKS_ROW,
};

const struct mt_mode_row leaks_user_row = {
	.mode = MT_MODE_USER, .option = "-p", .attach = leaks_user_attach,
	.watch = leaks_watch, LEAKS_ROW,
};
