/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One process's code as libdwfl sees it: its mappings of code, read from
 * /proc/PID/maps, reported to a Dwfl of its own, and the files behind
 * them opened the moment they are reported (through /proc/PID/map_files
 * or the process's root directory, held open), so that they still
 * resolve once the process has exited or replaced them.  Debug files are
 * found where gdb looks, in the process's own tree (debugfile.h).
 *
 * Below usyms.c, which symbolizes with the Dwfl; calls procfs, procmaps,
 * debugfile, usymtab (a module's data lives in its userdata) and libdwfl.
 * Errors come back as -errno + mt_err.
 */
#ifndef MEMTRACE_READ_USYMPROC_H
#define MEMTRACE_READ_USYMPROC_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct usymproc {
	int pid;
	int root_fd;			/* its root directory, also once it has exited */
	bool gone;			/* exited (or zombie): stop reading /proc */
	unsigned long long start_time;	/* tells a reused pid from ours */
	Dwfl *dwfl;
	char *maps;			/* the filtered maps last reported */
	size_t maps_len;
	unsigned int reports;		/* how many times the mappings were reported */
};

/* See usyms_new() (usyms.h): its errors are these.  p is zeroed first. */
int usymproc_open(struct usymproc *p, int pid, struct mt_err *err);

/*
 * See usyms_refresh(); *changed: the modules were reported again (an
 * address may now be in another module, or in none).
 */
int usymproc_refresh(struct usymproc *p, bool *changed, struct mt_err *err);
void usymproc_close(struct usymproc *p);

/* See usyms_allow_debuginfod(). */
void usymproc_allow_debuginfod(bool allow);

/* Whether a mapped path ends with " (deleted)"; *len: its length without it. */
bool usymproc_is_deleted(const char *name, size_t *len);

#endif
