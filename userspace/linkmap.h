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

#include <stdbool.h>
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
 * program, musl's loader, a loader not done yet, or one whose r_state is
 * not RT_CONSISTENT: a dlopen() linking objects in) is ordered from the
 * files: the executable, its preloaded objects (linkmap_preload()), then
 * the DT_NEEDED breadth-first, matched by DT_SONAME or file name.  Objects mapped that neither reaches come last,
 * in address order.  Returns how many indices (all of objs, each once),
 * or -errno with err set.
 */
int linkmap_order(int pid, const struct mapped_object *objs, size_t nr, size_t *order,
		  const char **how, struct mt_err *err);

/*
 * The same from the files alone (DT_NEEDED), exe_index the executable's
 * (or nr: none), the objects preload names (linkmap_preload(); or NULL)
 * right after it.
 */
size_t linkmap_order_needed(const struct mapped_object *objs, size_t nr, size_t exe_index,
			    const char *preload, size_t *order);

/*
 * What ld.so preloaded in pid: its starting environment's LD_PRELOAD,
 * then its /etc/ld.so.preload, into buf (NUL-terminated, separated as
 * there).  Returns the length ("" if none or unreadable).
 */
size_t linkmap_preload(int pid, char *buf, size_t len);

/*
 * Whether the ELF file at path is a program (ET_EXEC, or a PIE: DF_1_PIE)
 * rather than a shared object (ld.so is one, even when it is what the
 * process exec'd: "ld.so ./prog").
 */
bool linkmap_is_program(const char *path);

/*
 * The index in objs[] of pid's program: its executable (/proc/PID/exe),
 * or, when that is ld.so run as a command ("ld.so ./prog"), the program
 * ld.so loaded; nr if none.
 */
size_t linkmap_exe_index(int pid, const struct mapped_object *objs, size_t nr);

#endif
