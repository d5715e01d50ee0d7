/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The order in which ld.so looks a symbol up in a process: its global
 * scope, the executable first, then the LD_PRELOADed objects, then the
 * DT_NEEDED libraries breadth-first (objects dlopen()ed later come after
 * them).  Which malloc a process calls is the first definition in that
 * order, not the one in libc: redis links libjemalloc.so.2, which defines
 * malloc and comes before libc.
 */
#ifndef MEMTRACE_READ_LINKMAP_H
#define MEMTRACE_READ_LINKMAP_H

#include <stddef.h>

#include "procmaps.h"
#include "util.h"

/*
 * Process pid's objects in lookup order, as indices into objs[] (its
 * procmaps_read()), at most nr of them, in order[]; *how says where the
 * order came from ("the loader's link map", "DT_NEEDED").
 *
 * The loader's own list is read from the process (/proc/PID/mem): the
 * r_debug.r_map chain of its ld.so's _r_debug (the SVR4 protocol gdb
 * uses), each entry matched to the mapped object that holds its dynamic
 * section (l_ld), so a path spelt otherwise (/lib vs /usr/lib) or
 * a vDSO does not matter.  A process without that list (a static
 * program, musl's loader, a loader not done yet) is ordered from the
 * files: the executable, then its DT_NEEDED breadth-first, matched by
 * DT_SONAME or file name.  Objects mapped that neither reaches come last,
 * in address order.  Returns how many indices (all of objs, each once),
 * or -errno with err set.
 */
int linkmap_order(int pid, const struct mapped_object *objs, size_t nr, size_t *order,
		  const char **how, struct mt_err *err);

/* The same from the files alone (DT_NEEDED), exe_index the executable's (or nr: none). */
size_t linkmap_order_needed(const struct mapped_object *objs, size_t nr, size_t exe_index,
			    size_t *order);

/* The index in objs[] of pid's executable (/proc/PID/exe), or nr. */
size_t linkmap_exe_index(int pid, const struct mapped_object *objs, size_t nr);

#endif
