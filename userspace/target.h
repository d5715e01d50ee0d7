/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-mode session's target: a running process (-p) or a command run
 * under ptrace (-c, --: spawn.h), the module told about it, the allocators
 * of each of its images probed (usermode.h) and their symbols kept
 * (images.h), and its end noticed: the command's exit status, or the
 * process gone (a process whose main thread left with pthread_exit() runs
 * on while one of its threads does).
 */
#ifndef MEMTRACE_READ_TARGET_H
#define MEMTRACE_READ_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include <linux/memtrace.h>

#include "cli.h"
#include "device.h"
#include "images.h"
#include "util.h"

struct target;

/*
 * Names the target to the module and probes its allocators: -p PID's, or
 * the command's, which is started and held after its loader mapped its
 * libraries (before any of its code ran).  A command that cannot be run
 * sets *exit_code to 127 (not found) or 126, as a shell would.
 */
int target_open(const struct mt_options *o, struct mt_device *dev, struct target **out,
		int *exit_code, struct mt_err *err);

/* The process traced (the command's). */
pid_t target_pid(const struct target *t);

/* Lets a held command run, once tracing has started. */
void target_go(struct target *t);

/* A descriptor to poll() for the target's news (-1 for -p: poll every 100 ms). */
int target_fd(const struct target *t);

/*
 * Handles what happened to the target since the last call: a new image
 * probed and its symbols read, an exiting process's mappings read.
 * Returns true once the target has ended.  Errors are printed (prog:).
 */
bool target_update(struct target *t, const char *prog);

/*
 * After a snapshot: pairs its slots with the images, (-p, which sees no
 * exec happen) probes an image exec'd since, and says once of each
 * process that it exec'd a program the module would not follow (prog:).
 */
void target_snapshot(struct target *t, const struct memtrace_target_state *ts,
		     const char *prog);

struct images *target_images(const struct target *t);

/* The command ended: *code is the exit status a shell would give it. */
bool target_exit_code(const struct target *t, int *code);

/*
 * Ends the target's tracing: a command still running goes on untraced (or
 * is killed if it never ran).  Prints a note for an -O object no image
 * mapped.  Frees t.
 */
void target_close(struct target *t, const char *prog);

#endif
