/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dynamic loader's debugger interface (<link.h>, the SVR4 "r_debug"
 * protocol gdb uses): the loader calls _dl_debug_state() (r_brk) each time
 * its list of loaded objects changes, with _r_debug.r_state saying
 * RT_CONSISTENT once the change is complete.  glibc's ld.so makes that call
 * after it has mapped and relocated the program's libraries and before it
 * runs any of their constructors: the moment to probe the allocators of a
 * freshly exec'd program, in the libraries it really maps.
 */
#ifndef MEMTRACE_READ_LOADER_H
#define MEMTRACE_READ_LOADER_H

#include <stdint.h>

#include "util.h"

struct loader_hook {
	uint64_t brk;		/* address of _dl_debug_state in the process */
	uint64_t r_state;	/* address of _r_debug.r_state, or 0 if unknown */
};

/*
 * Where process pid, stopped right after an exec, will report that its
 * libraries are loaded: found in the objects it maps (its loader) through
 * /proc/PID/root.  -ENOENT if it maps no object with _dl_debug_state (a
 * static program: it has nothing to load), else -errno; with a message.
 */
int loader_find(int pid, struct loader_hook *hook, struct mt_err *err);

#endif
