/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -c COMMAND: run the command as a ptrace child, so that it can be held
 * stopped right after its exec (before its first instruction: tracing
 * starts before any allocation) and again at its exit (its mappings still
 * there to symbolize the allocations it leaves).  Signals it receives are
 * passed on to it unchanged; its own children are not traced.
 */
#ifndef MEMTRACE_READ_SPAWN_H
#define MEMTRACE_READ_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

/*
 * Splits command on blanks (no shell), forks, and execs it under ptrace.
 * On success the child is stopped after its exec: *pid is its pid.
 * A command that cannot be executed is an error naming it.
 */
int spawn_stopped(const char *command, pid_t *pid, struct mt_err *err);

/* Lets a stopped child go on (after an exec or exit stop). */
int spawn_resume(pid_t pid, struct mt_err *err);

enum spawn_event {
	SPAWN_NOTHING,		/* no state change (yet) */
	SPAWN_EXITING,		/* stopped in exit: mappings intact; resume it */
	SPAWN_GONE,		/* exited or killed; reaped */
};

/*
 * Reaps state changes of the child without blocking: signal stops are
 * passed on and resumed here; reports the exit stop and the end.
 * *status is the wait status once SPAWN_GONE.
 */
enum spawn_event spawn_poll(pid_t pid, int *status);

/* Kills and reaps the child (an error before it ran). */
void spawn_kill(pid_t pid);

#endif
