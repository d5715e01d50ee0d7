/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process as /proc shows it: its stat line, whether it still runs, and
 * which of its threads to read its mappings through.  One home for these,
 * so that every caller parses /proc/PID/stat the same (right) way.
 *
 * A process lives as long as one of its threads does: a leader that left
 * with pthread_exit() is a zombie while its other threads run, and its own
 * /proc/PID/maps is empty then (the mm is read through the leader); the
 * other threads' /proc/PID/task/TID/maps still show it.
 */
#ifndef MEMTRACE_READ_PROCFS_H
#define MEMTRACE_READ_PROCFS_H

#include <stdbool.h>
#include <stddef.h>

/* include/linux/sched.h: the task is a kernel thread. */
#define PROCFS_PF_KTHREAD	0x00200000u

struct proc_stat {
	char state;			/* R, S, D, T, t, Z, X, ... */
	int ppid;
	unsigned int flags;		/* PF_* */
	unsigned long long start_time;	/* clock ticks after boot: tells a reused pid */
};

/*
 * Parses the text of a /proc/PID/stat: "PID (COMM) STATE PPID ...", COMM
 * being free text (')' and spaces included), so fields are counted from
 * the last ')'.  0, or -EPROTO if the text is not in that format.
 */
int procfs_parse_stat(const char *text, struct proc_stat *st);

/*
 * The stat of process pid (tid 0), or of its thread tid.  -ESRCH if there
 * is no such process (or thread), else -errno.
 */
int procfs_stat(int pid, int tid, struct proc_stat *st);

/*
 * All of /proc/PID/<what> (a file that reports no size), NUL-terminated;
 * *len without the NUL.  -ESRCH if there is no such process.
 */
int procfs_read(int pid, const char *what, char **out, size_t *len);

/*
 * A thread of pid that has not exited (the leader first), whose
 * /proc/PID/task/TID/ files show the process's memory; 0 if none is left
 * (the process has exited, or is a zombie), -errno if /proc cannot say.
 */
int procfs_live_thread(int pid);

/* Whether process pid has a thread that has not exited. */
bool procfs_alive(int pid);

/*
 * "/proc/PID/<what>" in buf, or, if its main thread has exited while
 * others run (a zombie leader has no root, exe, mm of its own),
 * "/proc/PID/task/TID/<what>" of one of them.  For "root", "exe", "maps".
 */
const char *procfs_path(int pid, const char *what, char *buf, size_t len);

#endif
