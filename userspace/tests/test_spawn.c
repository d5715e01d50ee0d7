// SPDX-License-Identifier: GPL-2.0
/*
 * spawn: real commands under the tracer thread, on the host (no module
 * needed).  A program built from fixtures/spawn-ctor.c is held after its
 * loader mapped libc and before its constructor ran; execs are followed
 * (sh -c 'exec ...'); a child is followed with follow_forks; the exit
 * status comes through (3, and 128 + SIGKILL); a stop signal leaves the
 * command stopped until SIGCONT, which resumes it (the PTRACE_TRACEME
 * tracer left it in 't' for good); a missing command is an error.  A
 * dlopen() of the traced thread holds the command with the library
 * mapped (/proc/PID/maps, the oracle), once; one from another thread is
 * not seen and does not kill it (fixtures/spawn-dlopen.c).  A command
 * spawned after the reader blocked its stop signals does not inherit them
 * blocked.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "procfs.h"
#include "procmaps.h"
#include "spawn.h"
#include "util.h"

static char tmpdir[64];

/* The next event within secs seconds; false if none came. */
static bool next_event(struct spawn *s, struct spawn_event *ev, int secs)
{
	struct pollfd p = { spawn_event_fd(s), POLLIN, 0 };

	for (int waited = 0; waited < secs * 10; waited++) {
		if (spawn_next(s, ev))
			return true;
		poll(&p, 1, 100);
	}
	return spawn_next(s, ev);
}

/*
 * Runs the command to its end, releasing every hold; counts images per
 * pid and returns the exit status (-1 if it did not end in 20 s).
 */
static int run_to_end(struct spawn *s, unsigned int *images, unsigned int *exits,
		      pid_t *pids, size_t max_pids)
{
	struct spawn_event ev;
	size_t np = 0;

	*images = *exits = 0;
	while (next_event(s, &ev, 20)) {
		if (ev.kind == SPAWN_EV_ENDED)
			return spawn_exit_code(ev.status);
		if (ev.kind == SPAWN_EV_IMAGE) {
			(*images)++;
			if (np < max_pids)
				pids[np++] = ev.pid;
		} else if (ev.kind == SPAWN_EV_MAPPED) {
			/* a dlopen() of the program's own (test_dlopen_held counts them) */
		} else {
			(*exits)++;
		}
		spawn_release(s, ev.pid);
	}
	return -1;
}

static char state_of(pid_t pid)
{
	struct proc_stat st;

	return procfs_stat(pid, 0, &st) ? '?' : st.state;
}

static bool wait_state(pid_t pid, const char *states, int tenths)
{
	while (tenths-- > 0) {
		if (strchr(states, state_of(pid)))
			return true;
		usleep(100000);
	}
	return strchr(states, state_of(pid));
}

/*
 * via_loader: run as "ld.so PROG 3", where the process execs the loader
 * itself (no PT_INTERP), which then maps the program and its libraries:
 * held after that too, not at the loader's first instruction.
 */
static void test_held_before_ctor(const char *prog, const char *mark, bool via_loader)
{
	char *direct[] = { (char *)prog, "3", NULL };
	char *loader[] = { "/lib64/ld-linux-x86-64.so.2", (char *)prog, "3", NULL };
	char **argv = via_loader ? loader : direct;
	const struct mapped_object *libc;
	struct mapped_object *maps = NULL;
	struct spawn_event ev;
	unsigned int images, exits;
	struct spawn *s = NULL;
	struct mt_err err;
	size_t nr = 0;
	pid_t pids[4];

	setenv("SPAWN_CTOR_MARK", mark, 1);
	if (!check(spawn_start(argv, false, &s, &err) == 0, "spawn starts %s%s",
		   via_loader ? "ld.so " : "", prog)) {
		diag("%s", err.msg);
		return;
	}
	check(spawn_exec(s, &err) == 0, "and it execs");
	if (!check(next_event(s, &ev, 20) && ev.kind == SPAWN_EV_IMAGE && ev.loaded &&
		   ev.pid == spawn_pid(s), "it is held once its loader mapped its libraries")) {
		spawn_finish(s);
		return;
	}
	check(procmaps_read(ev.pid, &maps, &nr, &err) == 0 &&
	      procmaps_find_libc(ev.pid, maps, nr, &libc, &err) == 0,
	      "libc is mapped then: %s", nr ? err.msg : "");
	check(access(mark, F_OK) != 0, "and no constructor has run");
	free(maps);
	spawn_release(s, ev.pid);
	check(run_to_end(s, &images, &exits, pids, 4) == 3 && exits == 1,
	      "it runs on, exits through its exit stop, with its status 3");
	check(access(mark, F_OK) == 0, "its constructor ran after the hold");
	spawn_finish(s);
	unsetenv("SPAWN_CTOR_MARK");
}

/* sh -c CMD traced to its end: its exit status, or -1 (and a failed check). */
static int run_sh(const char *cmd, bool follow_forks, unsigned int *images,
		  unsigned int *exits, pid_t pids[4], pid_t *leader)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct spawn *s = NULL;
	struct mt_err err;
	int code;

	if (spawn_start(argv, follow_forks, &s, &err) || spawn_exec(s, &err)) {
		check(false, "spawn sh -c '%s': %s", cmd, err.msg);
		spawn_finish(s);
		return -1;
	}
	*leader = spawn_pid(s);
	code = run_to_end(s, images, exits, pids, 4);
	spawn_finish(s);
	return code;
}

static void test_exec_followed(const char *prog)
{
	unsigned int images, exits;
	pid_t pids[4] = { 0 }, leader;
	char cmd[256];
	int code;

	snprintf(cmd, sizeof(cmd), "exec %s 7", prog);
	code = run_sh(cmd, false, &images, &exits, pids, &leader);
	check(code == 7 && images == 2 && pids[0] == pids[1] && pids[0] == leader,
	      "sh -c 'exec prog 7': two images of one pid, the program's status 7 (%d, %u)",
	      code, images);
}

static void test_fork_followed(const char *prog)
{
	unsigned int images, exits;
	pid_t pids[4] = { 0 }, leader;
	char cmd[256];
	int code;

	snprintf(cmd, sizeof(cmd), "%s 0; exit 5", prog);
	code = run_sh(cmd, true, &images, &exits, pids, &leader);
	check(code == 5 && images == 2 && pids[1] != pids[0] && exits == 2,
	      "follow_forks: sh's child and its exec are followed (%u images, %u exits)",
	      images, exits);
}

static void job_control(void);

/*
 * In a child of its own process group: the kernel discards SIGTSTP sent to
 * an orphaned group, which ours may be (run from CI, from init).
 */
static void test_job_control(void)
{
	unsigned int counts[2] = { 0, 0 }, p0, f0, p1, f1;
	int status, fds[2];
	pid_t pid;

	if (pipe(fds)) {
		check(false, "a pipe for the job-control test");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		check_counts(&p0, &f0);
		job_control();
		check_counts(&p1, &f1);
		counts[0] = p1 - p0;
		counts[1] = f1 - f0;
		fflush(stdout);
		_exit(write(fds[1], counts, sizeof(counts)) == sizeof(counts) ? 0 : 1);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], counts, sizeof(counts)) != sizeof(counts) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		check(false, "the job-control test's process reports its results");
	check_add(counts[0], counts[1]);
	close(fds[0]);
}

static void job_control(void)
{
	char *argv[] = { "sleep", "1", NULL };
	unsigned int images, exits;
	struct spawn *s = NULL;
	struct mt_err err;
	pid_t pid, pids[2];
	struct timespec t0, t1;
	struct spawn_event ev;
	bool resumed;
	double secs;
	char state;

	if (spawn_start(argv, false, &s, &err) || spawn_exec(s, &err)) {
		check(false, "spawn sleep 1: %s", err.msg);
		spawn_finish(s);
		return;
	}
	pid = spawn_pid(s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Held at its image: let it go, then stop it as Ctrl+Z would. */
	if (next_event(s, &ev, 20))
		spawn_release(s, ev.pid);
	kill(pid, SIGTSTP);
	check(wait_state(pid, "tT", 50), "SIGTSTP stops the command (state %c)", state_of(pid));
	usleep(1500000);
	check(strchr("tT", state_of(pid)), "it stays stopped, past its 1 s of sleep");
	/*
	 * Until the tracer thread has handed the SIGTSTP on (its
	 * signal-delivery stop is state t too), a SIGCONT finds no group-stop
	 * to end and the stop that follows keeps it: on a loaded machine that
	 * thread may not have run yet.  `fg` again is what a user would do.
	 * Resumed is sleeping again (S; an R may be only the moment between
	 * two ptrace stops), or held at its exit: a SIGTSTP that came once
	 * sleep was in its nanosleep leaves it a deadline the stop outlasted.
	 */
	for (int tries = 0; tries < 5; tries++) {
		kill(pid, SIGCONT);
		if (wait_state(pid, "S", 10))
			break;
	}
	state = state_of(pid);
	resumed = state == 'S';
	if (!resumed && next_event(s, &ev, 1)) {
		resumed = ev.kind == SPAWN_EV_EXITING;
		spawn_release(s, ev.pid);
	}
	check(resumed, "SIGCONT resumes it (state %c%s)", state,
	      resumed && state != 'S' ? ", held at its exit" : "");
	check(run_to_end(s, &images, &exits, pids, 2) == 0, "and it ends normally");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	check(secs >= 1.4, "after its stop (%.1f s in all)", secs);
	spawn_finish(s);
}

static void test_killed(void)
{
	char *argv[] = { "sleep", "30", NULL };
	unsigned int images, exits;
	struct spawn *s = NULL;
	struct spawn_event ev;
	struct mt_err err;
	pid_t pids[2];

	if (spawn_start(argv, false, &s, &err) || spawn_exec(s, &err)) {
		check(false, "spawn sleep 30: %s", err.msg);
		spawn_finish(s);
		return;
	}
	if (next_event(s, &ev, 20))
		spawn_release(s, ev.pid);
	kill(spawn_pid(s), SIGKILL);
	check(run_to_end(s, &images, &exits, pids, 2) == 128 + SIGKILL,
	      "a command killed by SIGKILL: status 137, as a shell says");
	spawn_finish(s);
}

static void test_missing(void)
{
	char *argv[] = { "/nonexistent/prog", NULL };
	struct spawn *s = NULL;
	struct mt_err err;

	if (spawn_start(argv, false, &s, &err)) {
		check(false, "spawn_start: %s", err.msg);
		return;
	}
	check(spawn_exec(s, &err) == -ENOENT && strstr(err.msg, "cannot run '/nonexistent/prog'"),
	      "a missing command: %s", err.msg);
	spawn_finish(s);
}

/* A detached command runs on, stopped or not, after spawn_finish(). */
static void test_finish_detaches(void)
{
	char *argv[] = { "sleep", "30", NULL };
	struct spawn *s = NULL;
	struct spawn_event ev;
	struct mt_err err;
	bool running;
	pid_t pid;
	int status;

	if (spawn_start(argv, false, &s, &err) || spawn_exec(s, &err)) {
		check(false, "spawn sleep 30: %s", err.msg);
		spawn_finish(s);
		return;
	}
	pid = spawn_pid(s);
	if (next_event(s, &ev, 20))
		spawn_release(s, ev.pid);
	spawn_finish(s);
	running = wait_state(pid, "SR", 50);
	check(running, "after spawn_finish the command runs on, untraced (%c)", state_of(pid));
	if (!running) {
		/* Seen once in a while under load: what the process was left in. */
		char path[64], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "State:", 6) || !strncmp(line, "TracerPid:", 10) ||
			    !strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7))
				diag("%s", line);
		if (f)
			fclose(f);
	}
	kill(pid, SIGTERM);
	check(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM, "and takes its signals as usual");
}

/* Whether pid maps a file whose name ends in name. */
static bool maps_file(pid_t pid, const char *name)
{
	struct mapped_object *maps = NULL;
	struct mt_err err;
	size_t nr = 0;
	bool found = false;

	if (procmaps_read(pid, &maps, &nr, &err))
		return false;
	for (size_t i = 0; i < nr && !found; i++) {
		size_t l = strlen(maps[i].path), n = strlen(name);

		found = l >= n && !strcmp(maps[i].path + l - n, name);
	}
	free(maps);
	return found;
}

static void test_dlopen_held(void)
{
	char src[4096], prog[128], cmd[8192];
	char *argv[] = { prog, "libz.so.1", "libelf.so.1", NULL };
	unsigned int mapped = 0, images = 0;
	bool held_mapped = false, other_unmapped = false;
	struct spawn_event ev;
	struct spawn *s = NULL;
	struct mt_err err;
	int code = -1;

	snprintf(src, sizeof(src), "%s", fixture_path("spawn-dlopen.c"));
	snprintf(prog, sizeof(prog), "%s/spawn-dlopen", tmpdir);
	snprintf(cmd, sizeof(cmd), "cc -O1 -pthread -o '%s' '%s' -ldl >/dev/null 2>&1", prog, src);
	if (!check(system(cmd) == 0, "the dlopen fixture builds"))
		return;
	if (!check(spawn_start(argv, false, &s, &err) == 0 && spawn_exec(s, &err) == 0,
		   "spawn starts spawn-dlopen")) {
		diag("%s", err.msg);
		spawn_finish(s);
		return;
	}
	while (next_event(s, &ev, 20)) {
		if (ev.kind == SPAWN_EV_ENDED) {
			code = spawn_exit_code(ev.status);
			break;
		}
		if (ev.kind == SPAWN_EV_IMAGE)
			images++;
		if (ev.kind == SPAWN_EV_MAPPED) {
			mapped++;
			held_mapped |= maps_file(ev.pid, "/libz.so.1") ||
				       maps_file(ev.pid, "/libz.so.1.2.13");
			other_unmapped |= !maps_file(ev.pid, "libelf.so.1") &&
					  !maps_file(ev.pid, "libelf-0.188.so");
		}
		spawn_release(s, ev.pid);
	}
	spawn_finish(s);
	check(code == 0, "a thread's dlopen() does not kill the traced command (exit %d)", code);
	if (!spawn_loader_watch_works()) {
		/* The reader says so (-v); -p's way finds the library then. */
		check(images == 1 && mapped == 0,
		      "the main thread's dlopen() holds it ... # SKIP hardware breakpoints do not "
		      "trap on this machine: no holds (%u images, %u holds)", images, mapped);
		return;
	}
	check(images == 1 && mapped >= 1 && held_mapped && other_unmapped,
	      "the main thread's dlopen() holds it with the library mapped, before the "
	      "thread's (%u images, %u holds)", images, mapped);
}

/*
 * A command spawned after the reader blocked SIGINT and SIGTERM for its
 * signalfd (user mode spawns its target after that) gets the mask the
 * reader was started with: its own kill -INT, or -TERM, ends it as it
 * would a command started from a shell, not left pending (exit 7).
 */
static void test_stop_signals_not_inherited(void)
{
	unsigned int images, exits;
	pid_t pids[4], leader;
	sigset_t before;
	int fd, code;

	sigprocmask(SIG_SETMASK, NULL, &before);
	fd = stop_signals_fd();
	if (!check(fd >= 0, "stop_signals_fd(): %s", fd < 0 ? strerror(errno) : "ok"))
		return;
	code = run_sh("kill -INT $$; exit 7", false, &images, &exits, pids, &leader);
	check(code == 128 + SIGINT, "a command spawned with the reader's SIGINT blocked: "
	      "its own kill -INT ends it (status %d, 130 expected)", code);
	code = run_sh("kill -TERM $$; exit 7", false, &images, &exits, pids, &leader);
	check(code == 128 + SIGTERM, "... and its own kill -TERM (status %d, 143 expected)",
	      code);
	close(fd);
	sigprocmask(SIG_SETMASK, &before, NULL);
}

void spawn_tests(void)
{
	char src[4096], prog[128], mark[128], cmd[8192];

	if (!make_tmpdir(tmpdir, sizeof(tmpdir), "spawn")) {
		check(false, "a temporary directory for the spawn tests");
		return;
	}
	snprintf(src, sizeof(src), "%s", fixture_path("spawn-ctor.c"));
	snprintf(prog, sizeof(prog), "%s/spawn-ctor", tmpdir);
	snprintf(mark, sizeof(mark), "%s/ctor-ran", tmpdir);
	snprintf(cmd, sizeof(cmd), "cc -O1 -o '%s' '%s' >/dev/null 2>&1", prog, src);
	if (check(system(cmd) == 0, "the spawn fixture builds")) {
		test_held_before_ctor(prog, mark, false);
		unlink(mark);
		test_held_before_ctor(prog, mark, true);
		test_exec_followed(prog);
		test_fork_followed(prog);
	}
	test_dlopen_held();
	test_job_control();
	test_killed();
	test_stop_signals_not_inherited();
	test_missing();
	test_finish_detaches();
	remove_tree(tmpdir);
}
