/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space symbolization of one process's return addresses with libdwfl
 * (elfutils), the user-mode counterpart of ksyms.
 *
 * Why libdwfl: it maps an address to its module, finds the module's ELF and
 * debug files (next to it, in /usr/lib/debug, by build-id) and reads their
 * line tables and DWARF; what it does slowly (symbol and scope lookups) is
 * done here with per-module tables.  Results are also cached per address:
 * a report symbolizes the same frames again and again.
 *
 * Library code: nothing is printed, errors come back as -errno + mt_err.
 */
#ifndef MEMTRACE_READ_USYMS_H
#define MEMTRACE_READ_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rmframe.h"
#include "util.h"

struct usyms;

/*
 * Reads the mappings of process pid and opens the files of its code
 * right away, while the process maps them: through /proc/PID/map_files
 * (root), so a library deleted or replaced on disk since it was mapped
 * still resolves, else through /proc/PID/root (another mount namespace,
 * a chroot; kept open, so that it still resolves once the process is
 * gone).  Debug files are read on the first lookup that needs them, from
 * the process's tree: by build-id (/usr/lib/debug/.build-id/xx/yyyy.debug,
 * ours too: a build-id names one file) and by .gnu_debuglink (next to the
 * object, in .debug/, under /usr/lib/debug); from debuginfod servers only
 * if usyms_allow_debuginfod() said so.
 *
 * Returns 0 and sets *out, or -errno with a message and *out NULL:
 * -ESRCH "pid N: no such process" (also for a zombie, which has no
 * mappings left), -EINVAL for a kernel thread or pid <= 0, else what
 * reading /proc/PID/maps failed with (-EACCES...).
 */
int usyms_new(int pid, struct usyms **out, struct mt_err *err);

/*
 * Let debug files that cannot be found locally come from the debuginfod
 * servers of $DEBUGINFOD_URLS (--debuginfod).  Off by default: a report
 * never downloads unasked.
 */
void usyms_allow_debuginfod(bool allow);
void usyms_free(struct usyms *u);

/*
 * Re-reads the mappings; if the process mapped or unmapped code since the
 * last read (a dlopen, an exec), reports them to libdwfl again, so that
 * code resolves, and empties the cache of symbolized addresses (the
 * strings of frames usyms_frames() gave out go with it).  Only
 * mappings of files with code count: malloc's anonymous mappings come and
 * go all the time in a leaking process and must not empty the cache.
 * Libraries still mapped keep their open files and tables.
 *
 * Once the process is gone (exited, zombie, or its pid reused), returns
 * -ESRCH every time and keeps the last mappings: the last stacks of an
 * exited process still symbolize.  Other errors (-errno with a message)
 * keep the previous mappings too.
 */
int usyms_refresh(struct usyms *u, struct mt_err *err);

/*
 * Symbolizes one return address (the instruction after a call) into
 * frames, innermost first.  The function, line and inline chain are those
 * of addr - 1, the call itself; the offset is that of addr, as memleak
 * prints it.  rm_frame_text() prints a frame as the text report does:
 *
 *	"fibonacci+0x23 [leak] leak.c:12"
 *
 * with file and line (the file's basename) only where there is DWARF,
 * and module the basename of the mapped file ("libc.so.6"; "vdso" for the
 * vDSO).  A function inlined at the call comes first, as a frame of its
 * own (inlined, no offset) with the line in it; the line of the function
 * it was inlined in is that of the call:
 *
 *	"grow [leak] leak.c:5 (inlined)"
 *	"fibonacci+0x23 [leak] leak.c:12"	(12: where grow was inlined)
 *
 * The function name is that of the ELF symbol (of aliases, the plainest:
 * "malloc", not "__libc_malloc"; C++ names demangled by libstdc++'s
 * __cxa_demangle: "operator new(unsigned long)"); inlined ones are DWARF
 * names.  Names are cut to their first 256 bytes (a demangled one: 400),
 * modules and files to 64.  An address in a module without a symbol for
 * it has no function, and offset the address in the file
 * ("0x<offset> [libc.so.6]", what objdump and addr2line -e take); one
 * outside every module has neither function nor module
 * ("0x<16 hex digits> [unknown]"), as has every address once memory ran
 * out.
 *
 * At most max frames: past that, the innermost inlined frames are kept
 * and the function's frame replaces the last of them.  The frames'
 * strings are u's: valid until usyms_refresh() or usyms_free(); their
 * text and mapping (map_path...) are not set.  Returns the number of
 * frames written, >= 1, or 0 only for max 0.
 */
size_t usyms_frames(struct usyms *u, uint64_t addr, struct rm_frame *frames, size_t max);

/*
 * The object mapped at a return address, as a profile's mapping names it
 * (pprof): the file's path as the process maps it, its GNU build-id in
 * hex ("" if it has none), and the range of the process's addresses it
 * covers with the file offset of its start.  False where no object is
 * mapped (the address is [unknown]).
 */
struct usyms_mapping {
	char path[4096];
	char build_id[2 * 64 + 1];
	uint64_t start, limit, offset;
};

bool usyms_mapping(struct usyms *u, uint64_t addr, struct usyms_mapping *out);

/* For tests: how many times the mappings were reported, addresses cached. */
unsigned int usyms_reports(const struct usyms *u);
size_t usyms_cached(const struct usyms *u);

#endif
