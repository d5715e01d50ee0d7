/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mode table: every mode of memtrace-read, one row each (mode.h),
 * which main() dispatches through.  A new mode is a file with its row and
 * one line in modes.c.
 */
#ifndef MEMTRACE_READ_MODES_H
#define MEMTRACE_READ_MODES_H

#include "mode.h"
#include "options.h"

/* The row of mode m; NULL for a mode without one (a bug: each has one). */
const struct mt_mode_row *mode_row(enum mt_mode m);

/* Runs the mode the options name; returns the process exit status. */
int mode_run(const struct mt_options *o);

#endif
