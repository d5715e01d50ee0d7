/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User mode's setup: which objects of the target hold its allocator
 * functions, and handing each function to the module as a uprobe.
 */
#ifndef MEMTRACE_READ_USERMODE_H
#define MEMTRACE_READ_USERMODE_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "util.h"

/*
 * Probes the allocators of process pid: its libc (for a command stopped
 * at its exec, which has not mapped it yet, the libc memtrace-read runs
 * with: same root, same loader), its executable if that defines malloc
 * (static or interposing), and every -O object (a path, or the name of
 * an object it maps: "c", "jemalloc", "libtcmalloc.so.4").  Returns the
 * number of functions probed, or -errno with the reason in err.
 */
int usermode_add_probes(struct mt_device *d, int pid, bool at_exec,
			const char *const *objs, size_t nr_objs, struct mt_err *err);

#endif
