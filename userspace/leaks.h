/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The leak modes' rows (--kernel-leaks, --slab, user mode: -p, -c, --),
 * which the session driver runs: a report of the module's live
 * allocations by stack at every interval.
 */
#ifndef MEMTRACE_READ_LEAKS_H
#define MEMTRACE_READ_LEAKS_H


#include "cli.h"
#include "mode.h"

/* Translates the options into the module's configuration. */
void leaks_build_config(const struct mt_options *o, uint32_t events,
			struct memtrace_config *cfg);

extern const struct mt_mode_row leaks_kernel_row, leaks_slab_row, leaks_user_row;


#endif
