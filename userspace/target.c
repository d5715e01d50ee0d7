// SPDX-License-Identifier: GPL-2.0
/*
 * A user-mode session's target; see target.h.
 */
#include "target.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "spawn.h"
#include "usermode.h"
#include "usyms.h"

struct target {
	const struct mt_options *o;
	struct mt_device *dev;
	struct spawn *spawn;		/* -c, -- */
	struct usermode *um;
	struct images *images;
	pid_t pid;
	bool ended;
	bool have_status;
	int status;			/* the command's wait status */
	unsigned int slots_seen;	/* -p: slots looked at for an exec */
	uint64_t refusals_told;		/* slots whose refused exec was told */
	char rescan_told[sizeof(((struct mt_err *)0)->msg)];		/* -p: the last failure of a look again, told */
};

/*
 * -p looks again at each report; a failure there (the module's uprobe
 * table full, say) leaves allocations untraced, so it is said, but once
 * per message, not at every report.
 */
static void tell_rescan(struct target *t, const char *prog, pid_t pid, const char *what,
			int ret, const struct mt_err *err)
{
	if (ret >= 0 || !strcmp(t->rescan_told, err->msg))
		return;
	snprintf(t->rescan_told, sizeof(t->rescan_told), "%s", err->msg);
	fprintf(stderr, "%s: pid %d %s: %s\n", prog, (int)pid, what, err->msg);
}

static void note_unprobed(const char *prog, pid_t pid)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	fprintf(stderr, "%s: note: pid %d (%s) has no allocator to probe (static and "
		"stripped?): its allocations are not traced; an image it execs will be\n",
		prog, (int)pid, path);
}

/* A new image of pid, held after its loader's work: probe it, read its symbols. */
static int new_image(struct target *t, pid_t pid, bool first, const char *prog,
		     struct mt_err *err)
{
	/* -p names the whole target: nothing to probe there is an error. */
	bool strict = !t->spawn;
	int ret;

	ret = usermode_probe_image(t->um, t->dev, pid, strict, err);
	if (ret == 0 && first)
		note_unprobed(prog, pid);
	/* -c: a 32-bit image is traced but for its allocator calls (faults, growth). */
	if (ret == -EOPNOTSUPP && !strict) {
		fprintf(stderr, "%s: note: %s\n", prog, err->msg);
		ret = 0;
	}
	if (ret < 0)
		return ret;
	return images_add(t->images, pid, err);
}

/* -c: the command's first image, held; the module is told of it then. */
static int first_image(struct target *t, const char *prog, struct mt_err *err)
{
	struct pollfd p = { spawn_event_fd(t->spawn), POLLIN, 0 };
	struct spawn_event ev;
	int ret;

	for (;;) {
		if (!spawn_next(t->spawn, &ev)) {
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return mt_errf(err, errno, "poll: %s", strerror(errno));
			continue;
		}
		if (ev.kind == SPAWN_EV_ENDED) {
			t->ended = t->have_status = true;
			t->status = ev.status;
			return mt_errf(err, ECHILD, "'%s' ended before its program ran (exit "
				       "status %d)", t->o->cmd_argv[0], spawn_exit_code(ev.status));
		}
		if (ev.kind == SPAWN_EV_IMAGE && ev.pid == t->pid)
			break;
		spawn_release(t->spawn, ev.pid);
	}
	ret = device_set_target(t->dev, t->pid, t->o->follow_forks, err);
	if (!ret)
		ret = new_image(t, t->pid, true, prog, err);
	return ret;
}

#define PROG "memtrace-read"

int target_open(const struct mt_options *o, struct mt_device *dev, struct target **out,
		int *exit_code, struct mt_err *err)
{
	struct target *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return mt_errf(err, ENOMEM, "out of memory");
	t->o = o;
	t->dev = dev;
	usyms_allow_debuginfod(o->debuginfod);
	t->um = usermode_new((const char *const *)o->objs, o->nr_objs);
	if (t->um) {
		usermode_set_symbols_prefix(t->um, o->symbols_prefix);
		usermode_set_returns(t->um, o->returns, o->verbose, dev);
		usermode_set_quiet(t->um, o->memleak_format);
	}
	t->images = images_new();
	if (!t->um || !t->images) {
		ret = mt_errf(err, ENOMEM, "out of memory");
	} else if ((ret = usermode_set_unwind(t->um, o->unwind, dev, err))) {
		/* cfi asked of a module without unwind tables */
	} else if (o->cmd_argv) {
		ret = spawn_start(o->cmd_argv, o->follow_forks, &t->spawn, err);
		if (!ret && !spawn_loader_watch_works())
			fprintf(stderr, PROG ": note: hardware breakpoints do not trap on this "
				"machine: a library the command dlopen()s is probed at the next "
				"report, as with -p, not before its constructors run\n");
		if (!ret) {
			t->pid = spawn_pid(t->spawn);
			ret = spawn_exec(t->spawn, err);
			if (ret)
				*exit_code = ret == -ENOENT ? 127 : 126;
		}
		if (!ret)
			ret = first_image(t, PROG, err);
	} else {
		t->pid = o->pid;
		ret = device_set_target(dev, t->pid, o->follow_forks, err);
		if (!ret)
			ret = new_image(t, t->pid, true, PROG, err);
	}
	if (ret) {
		target_close(t, NULL);
		return ret;
	}
	*out = t;
	return 0;
}

pid_t target_pid(const struct target *t)
{
	return t->pid;
}

void target_go(struct target *t)
{
	if (t->spawn)
		spawn_release(t->spawn, t->pid);
}

int target_fd(const struct target *t)
{
	return t->spawn ? spawn_event_fd(t->spawn) : -1;
}

bool target_update(struct target *t, const char *prog)
{
	struct spawn_event ev;
	struct mt_err err;

	if (!t->spawn) {
		if (!t->ended && !procfs_alive(t->pid))
			t->ended = true;
		return t->ended;
	}
	while (spawn_next(t->spawn, &ev)) {
		switch (ev.kind) {
		case SPAWN_EV_IMAGE:
			if (new_image(t, ev.pid, false, prog, &err) < 0)
				fprintf(stderr, "%s: pid %d exec'd: %s\n", prog, (int)ev.pid,
					err.msg);
			spawn_release(t->spawn, ev.pid);
			break;
		case SPAWN_EV_MAPPED:
			/*
			 * A dlopen(): the new objects' allocators and unwind
			 * tables before any of their code runs, and their symbols.
			 */
			if (usermode_probe_mapped(t->um, t->dev, ev.pid, &err) < 0)
				fprintf(stderr, "%s: pid %d mapped objects: %s\n", prog, (int)ev.pid,
					err.msg);
			images_refresh(t->images, ev.pid);
			spawn_release(t->spawn, ev.pid);
			break;
		case SPAWN_EV_EXITING:
			/* Its mappings, for the stacks it leaves, while they are there. */
			images_refresh(t->images, ev.pid);
			spawn_release(t->spawn, ev.pid);
			break;
		case SPAWN_EV_ENDED:
			t->ended = t->have_status = true;
			t->status = ev.status;
			break;
		}
	}
	return t->ended;
}

/* No later slot holds another image of the same process. */
static bool is_current(const struct memtrace_target_state *ts, unsigned int slot)
{
	for (unsigned int i = slot + 1; i < ts->nr_processes; i++)
		if (ts->procs[i].pid == ts->procs[slot].pid)
			return false;
	return true;
}

/*
 * The module did not follow an exec that would have let the reader see
 * into a more privileged program: say so once, or the report would just
 * go quiet.
 */
static void tell_refused_execs(struct target *t, const struct memtrace_target_state *ts,
			       unsigned int n, const char *prog)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t bit = UINT64_C(1) << i;

		if (!(ts->procs[i].flags & MEMTRACE_PROCF_EXEC_REFUSED) ||
		    (t->refusals_told & bit))
			continue;
		t->refusals_told |= bit;
		fprintf(stderr, "%s: pid %d exec'd a program that runs with privileges or ids "
			"the reader does not have (setuid, setgid, file capabilities): not "
			"traced from there on, as ptrace(2) could not attach to it either\n",
			prog, (int)ts->procs[i].pid);
	}
}

void target_snapshot(struct target *t, const struct memtrace_target_state *ts,
		     const char *prog)
{
	unsigned int n = ts->nr_processes < MEMTRACE_MAX_PROCS ? ts->nr_processes :
			 MEMTRACE_MAX_PROCS;

	_Static_assert(MEMTRACE_MAX_PROCS <= 64, "refusals_told has a bit per slot");
	tell_refused_execs(t, ts, n, prog);

	/*
	 * -p does not see an exec happen: an image exec'd since the last
	 * snapshot is probed now (the libraries it shares with the old one
	 * are armed already), if it is still the one its process runs.
	 */
	for (unsigned int i = t->slots_seen; !t->spawn && i < n; i++) {
		struct mt_err err;

		if (ts->procs[i].how == MEMTRACE_PROC_EXEC && is_current(ts, i) &&
		    !(ts->procs[i].flags & MEMTRACE_PROCF_EXEC_REFUSED) &&
		    procfs_alive(ts->procs[i].pid))
			tell_rescan(t, prog, ts->procs[i].pid, "exec'd",
				    usermode_probe_image(t->um, t->dev, ts->procs[i].pid, false,
							 &err), &err);
	}
	t->slots_seen = n;
	/*
	 * -p sees no dlopen() happen either: objects mapped since get their
	 * tables (and probes) and symbols now; their allocations before this
	 * had their stacks walked without them.
	 */
	if (!t->spawn && procfs_alive(t->pid)) {
		struct mt_err err;

		tell_rescan(t, prog, t->pid, "mapped objects",
			    usermode_probe_mapped(t->um, t->dev, t->pid, &err), &err);
		images_refresh(t->images, t->pid);
	}
	images_sync(t->images, ts, !t->spawn);
}

struct images *target_images(const struct target *t)
{
	return t->images;
}

bool target_exit_code(const struct target *t, int *code)
{
	if (!t->have_status)
		return false;
	*code = spawn_exit_code(t->status);
	return true;
}

void target_close(struct target *t, const char *prog)
{
	const char *unmapped;

	if (!t)
		return;
	spawn_finish(t->spawn);
	if (prog && t->um && (unmapped = usermode_unmapped(t->um)))
		fprintf(stderr, "%s: note: -O %s: no image of the command mapped it\n", prog,
			unmapped);
	usermode_free(t->um);
	images_free(t->images);
	free(t);
}
