/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -c / -- COMMAND: the command runs under ptrace, as strace, gdb and
 * Valgrind run theirs, traced by a thread of its own (the tracer), so that
 * its signals and stops are handled at once whatever the rest of
 * memtrace-read is doing (a report may take seconds):
 *
 *  - PTRACE_SEIZE, so that a stop signal (Ctrl+Z, SIGSTOP) stops it as if
 *    untraced: the group-stop is left in place with PTRACE_LISTEN and
 *    SIGCONT resumes it; every other signal is passed on unchanged;
 *  - each exec (PTRACE_O_TRACEEXEC) is followed to the point where its
 *    loader has mapped the libraries and before any constructor runs (a
 *    breakpoint on the loader's _dl_debug_state, see loader.h): the
 *    process is held there (SPAWN_EV_IMAGE) for its allocators to be
 *    probed, in the libraries it really maps;
 *  - each dlopen() and dlclose() of its traced thread holds it once the
 *    loader is done (SPAWN_EV_MAPPED): new objects are mapped, none of
 *    their code has run (a hardware breakpoint on _dl_debug_state, on
 *    machines where one traps: spawn_loader_watch_works());
 *  - its exit (PTRACE_O_TRACEEXIT) holds it too (SPAWN_EV_EXITING), while
 *    its mappings can still be read;
 *  - with follow_forks its children are traced the same way
 *    (PTRACE_O_TRACEFORK, TRACEVFORK); its threads are not.
 *
 * Events are queued for the caller, who polls spawn_event_fd() and lets a
 * held process go on with spawn_release().
 */
#ifndef MEMTRACE_READ_SPAWN_H
#define MEMTRACE_READ_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

struct spawn;

enum spawn_event_kind {
	SPAWN_EV_IMAGE,		/* pid exec'd and its libraries are mapped; held */
	SPAWN_EV_EXITING,	/* pid is exiting, its mappings intact; held */
	SPAWN_EV_ENDED,		/* the command (its first process) ended: status */
	/* pid's loader mapped or unmapped objects (a dlopen, a dlclose of its traced thread); held */
	SPAWN_EV_MAPPED,
};

struct spawn_event {
	enum spawn_event_kind kind;
	pid_t pid;
	int status;		/* SPAWN_EV_ENDED: as waitpid() gives it */
	bool loaded;		/* SPAWN_EV_IMAGE: seen its loader finish (false: static) */
};

/*
 * Forks the command (argv[0] looked up in PATH), held before its exec,
 * under a tracer thread.  SIGCHLD is blocked in the calling thread (the
 * tracer takes it).  Returns 0 with *out set, or -errno and a message.
 */
int spawn_start(char *const argv[], bool follow_forks, struct spawn **out,
		struct mt_err *err);

/* The command's pid. */
pid_t spawn_pid(const struct spawn *s);

/*
 * Lets the command exec.  0 once it did (its SPAWN_EV_IMAGE follows), or
 * -ENOENT / -EACCES ... with "cannot run 'X': ..." if the exec failed.
 */
int spawn_exec(struct spawn *s, struct mt_err *err);

/* Readable (poll) when an event waits. */
int spawn_event_fd(const struct spawn *s);

/* Takes the next event: false if none waits. */
bool spawn_next(struct spawn *s, struct spawn_event *ev);

/* A process held by an IMAGE or EXITING event goes on. */
void spawn_release(struct spawn *s, pid_t pid);

/*
 * Ends the tracing: every process still traced is let go, untraced (one
 * stopped by a stop signal stays stopped); a command that never exec'd is
 * killed.  Waits for the tracer thread and frees s.
 */
void spawn_finish(struct spawn *s);

/*
 * Whether this machine's hardware breakpoints trap (tried once, on a child
 * of its own): if not (some virtual machines), SPAWN_EV_MAPPED never
 * comes, and objects a dlopen() maps are found as -p finds them, at the
 * next report, after their constructors ran.
 */
bool spawn_loader_watch_works(void);

/*
 * The exit status a shell would give for a wait status: the code it
 * exited with, or 128 + the signal that killed it.
 */
int spawn_exit_code(int status);

#endif
