/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracing session with the module: configure, start, report every
 * interval until the count is reached or SIGINT/SIGTERM, stop.
 */
#ifndef MEMTRACE_READ_SESSION_H
#define MEMTRACE_READ_SESSION_H

#include <stdio.h>

#include "cli.h"

/* Translates the options into the module's configuration. */
void session_build_config(const struct mt_options *o, uint32_t events,
			  struct memtrace_config *cfg);

/* Runs --kernel-leaks or --slab; returns the process exit status. */
int session_run(const struct mt_options *o);

/* --version: the reader's version and, if the device answers, the module's. */
int session_print_version(FILE *out);

#endif
