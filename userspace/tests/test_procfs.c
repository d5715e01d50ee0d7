// SPDX-License-Identifier: GPL-2.0
/*
 * procfs: stat lines whose command names hold ')' and spaces (text, and a
 * real process renamed so), and a process whose main thread left with
 * pthread_exit() while another thread runs: alive, its maps readable
 * through that thread; then, once every thread is gone, a zombie.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "procfs.h"
#include "procmaps.h"
#include "usyms.h"

static void test_parse(void)
{
	struct proc_stat st;
	const char *odd = "4242 (a) R (b) ) S 1 2 3 4 5 4194560 7 8 9 10 11 12 13 14 15 16 "
			  "17 18 123456 19\n";

	check(procfs_parse_stat("1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 "
				"17 1000 20\n", &st) == 0 && st.state == 'S' && st.ppid == 0 &&
	      st.flags == 4194560 && st.start_time == 17,
	      "procfs parses a stat line: state S, ppid 0, flags, start time 17");
	/* One parser read "R" here: a ')' in the name is not the end of it. */
	check(procfs_parse_stat(odd, &st) == 0 && st.state == 'S' && st.ppid == 1 &&
	      st.start_time == 123456,
	      "a command name '(a) R (b) )': fields are counted from the last ')'");
	check(procfs_parse_stat("12 (x) R 1", &st) == -EPROTO,
	      "a cut-short stat line is refused");
	check(procfs_parse_stat("no parenthesis at all", &st) == -EPROTO,
	      "a stat line without ')' is refused");
}

static int sync_pipe[2];

static void *worker(void *arg)
{
	char c = 0;

	(void)arg;
	/* Tell the parent the main thread has gone, then wait for its word. */
	usleep(100000);
	if (write(sync_pipe[1], "g", 1) != 1 || read(sync_pipe[0], &c, 1) != 1)
		_exit(3);
	_exit(0);
}

static void test_pthread_exit(void)
{
	int to_child[2], from_child[2], status, tid;
	const struct mapped_object *libc;
	struct mapped_object *objs = NULL;
	struct usyms *u = NULL;
	struct proc_stat st;
	struct mt_err err;
	char c, *maps;
	size_t len, nr = 0;
	pid_t pid;

	if (pipe(to_child) || pipe(from_child)) {
		check(false, "pipes for the pthread_exit child");
		return;
	}
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		/* The name a stat parser choked on, as the issue tells. */
		prctl(PR_SET_NAME, "x) Z (y", 0, 0, 0);
		sync_pipe[0] = to_child[0];
		sync_pipe[1] = from_child[1];
		if (pthread_create(&t, NULL, worker, NULL))
			_exit(2);
		pthread_exit(NULL);
	}
	if (read(from_child[0], &c, 1) != 1) {
		check(false, "the pthread_exit child's worker runs");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	st.state = '?';
	procfs_stat(pid, 0, &st);
	check(st.state == 'Z', "after pthread_exit() in main, the leader is a zombie (state %c)",
	      st.state);
	check(procfs_alive(pid), "the process is alive: a thread runs");
	tid = procfs_live_thread(pid);
	check(tid > 0 && tid != pid, "its maps are read through that thread (%d, not %d)", tid,
	      (int)pid);
	check(procmaps_read_text(pid, &maps, &len) == 0 && len > 0 && strstr(maps, "libc"),
	      "and they show its libc");
	if (len)
		free(maps);
	if (procmaps_read(pid, &objs, &nr, &err) == 0 &&
	    procmaps_find_libc(pid, objs, nr, &libc, &err) == 0)
		check(access(libc->open_path, R_OK) == 0,
		      "its libc opens through a live thread: %s", libc->open_path);
	else
		check(false, "procmaps reads a process whose main thread left: %s", err.msg);
	free(objs);
	if (usyms_new(pid, &u, &err) == 0)
		check(true, "usyms starts on it");
	else
		check(false, "usyms starts on it: %s", err.msg);
	usyms_free(u);
	if (write(to_child[1], "x", 1) != 1)
		diag("cannot release the worker");
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the worker ends the process");
	check(!procfs_alive(pid) && procfs_live_thread(pid) == 0,
	      "once reaped, the process is gone");
	close(to_child[0]);
	close(to_child[1]);
	close(from_child[0]);
	close(from_child[1]);
}

void procfs_tests(void)
{
	test_parse();
	test_pthread_exit();
}
