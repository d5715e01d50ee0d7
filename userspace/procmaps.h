/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files a process maps (/proc/PID/maps), and which of them holds the
 * allocator to probe: user mode (-p PID / -c CMD) places its uprobes on
 * the very file the target runs, opened through /proc so that a target in
 * another mount namespace or chroot, or one still running a file that has
 * since been deleted or replaced (a libc upgrade), gets the right inode.
 */
#ifndef MEMTRACE_READ_PROCMAPS_H
#define MEMTRACE_READ_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

struct mapped_object {
	/* As /proc/PID/maps names it, e.g. /usr/lib/x86_64-linux-gnu/libc.so.6,
	 * without the " (deleted)" the kernel appends to an unlinked file. */
	char path[4096];
	/*
	 * How to open it from here: /proc/PID/root + path, which works across
	 * mount namespaces; where that is not the file mapped (a deleted
	 * file, whose path now names nothing or a newer file; a chroot's file,
	 * whose path maps show from our root, not the process's),
	 * /proc/PID/map_files/START-END of its first mapping, which is the
	 * mapped inode itself (needs root).
	 */
	char open_path[4096];
	uint64_t start, end;	/* lowest and highest address mapped from it */
	uint64_t first_end;	/* end of its first mapping (start-first_end: map_files) */
	uint64_t inode;		/* the file mapped, as maps says */
	unsigned int major, minor;
	bool executable;	/* one of its mappings is executable */
	bool deleted;		/* the kernel marked it " (deleted)" */
};

/* One line of /proc/PID/maps, as the kernel writes it. */
struct maps_line {
	uint64_t start, end, offset, inode;
	unsigned int major, minor;
	bool readable, exec;
	const char *name;	/* into the line: a path, "[vdso]", ... or "" */
	size_t name_len;	/* up to the end of the line (the newline) */
};

/* Parses one line of /proc/PID/maps; false if it is not in that format. */
bool procmaps_parse_line(const char *line, struct maps_line *m);

/*
 * The text of process pid's maps, read through a thread that has not
 * exited (see procfs.h), NUL-terminated.  -ESRCH once it has exited.
 */
int procmaps_read_text(int pid, char **text, size_t *len);

/*
 * Reads /proc/PID/maps: file-backed objects in address order, deduplicated
 * by path.  Errors: -ESRCH "pid N: no such process" (also for a zombie),
 * -EINVAL for a kernel thread ("pid N is a kernel thread: ..."), -EACCES
 * when this process may not read the target's maps.  Caller frees *out.
 */
int procmaps_read(int pid, struct mapped_object **out, size_t *nr, struct mt_err *err);

/*
 * The parser behind procmaps_read, for text in the /proc/PID/maps format;
 * pid only makes the open paths.  Anonymous and pseudo mappings ([heap],
 * [vdso], [anon:...], anon_inode:...) are skipped; "\012" in a path (how
 * the kernel escapes a newline) is decoded; an object whose open path
 * would not fit in open_path is skipped.  *lines (if non-NULL) is set to
 * the number of lines read, so an empty maps file can be told from one
 * that maps no files.  -EINVAL on a line that is not in the maps format.
 */
int procmaps_parse(FILE *f, int pid, struct mapped_object **out, size_t *nr, size_t *lines,
		   struct mt_err *err);

/* Whether path names a glibc libc: basename "libc.so*" or "libc-<digit>*"
 * (old glibc's libc-2.31.so, and not e.g. libc-client.so). */
bool procmaps_is_libc(const char *path);

/*
 * The object whose allocators to probe by default: the executable mapped
 * libc, else the main executable (/proc/PID/exe) if it defines malloc (a
 * static binary), else -ENOENT with a message naming the pid and
 * suggesting -O.
 */
int procmaps_find_libc(int pid, const struct mapped_object *objs, size_t nr,
		       const struct mapped_object **libc, struct mt_err *err);

#endif
