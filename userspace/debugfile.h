/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An object's separate debug file (its symbols, DWARF and .debug_frame
 * once the object itself is stripped), looked for where gdb looks: by
 * build-id under /usr/lib/debug/.build-id, then by .gnu_debuglink next to
 * the object, in .debug/ there, and under /usr/lib/debug.  One home for
 * that search: the symbols' (usymproc.c, through libdwfl's callback) and the
 * unwind tables' (unwtab.c).
 */
#ifndef MEMTRACE_READ_DEBUGFILE_H
#define MEMTRACE_READ_DEBUGFILE_H

/*
 * root: "" (our file tree), or a directory (a /proc/self/fd/N of the
 * process's root) whose tree is searched first, then ours, where a file
 * is taken only if it has the object's build-id.  file_name: the object's
 * path; id, len: its build-id (len <= 0: none, any file found will do);
 * debuglink: its .gnu_debuglink name, or NULL.  Returns the debug file
 * open for reading, its path in *found (malloc()ed), or -1.
 */
int debugfile_find(const char *root, const char *file_name, const unsigned char *id, int len,
		   const char *debuglink, char **found);

#endif
