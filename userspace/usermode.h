/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User mode's setup: which objects of a traced image hold its allocator
 * functions, and handing each function to the module as a uprobe.
 */
#ifndef MEMTRACE_READ_USERMODE_H
#define MEMTRACE_READ_USERMODE_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "util.h"

struct usermode;

/* objs: the -O names (kept, not copied). */
struct usermode *usermode_new(const char *const *objs, size_t nr_objs);
void usermode_free(struct usermode *um);
/*
 * -S: the allocator's C functions in the -O objects and the executable are
 * named with this prefix ("je_malloc"); libc and libstdc++ keep theirs.
 * Kept, not copied.
 */
void usermode_set_symbols_prefix(struct usermode *um, const char *prefix);

/*
 * Probes the allocators of process pid's current image, through the files
 * it maps (opened through /proc/PID/root or /proc/PID/map_files, so a
 * chroot's or a container's own libc is the one probed): each allocator
 * entry point (malloc, ..., mmap, operator new and delete) where ld.so
 * binds it, the first definition in the process's lookup order (the
 * executable, LD_PRELOAD, DT_NEEDED breadth-first: linkmap.h, binding.h),
 * so jemalloc's malloc if it precedes libc's, an allocator linked into
 * the executable if it has one; and every function of each -O object (a
 * path, or the name of an object it maps: "c", "jemalloc",
 * "libtcmalloc.so.4").  An object probed for an earlier image is not
 * handed over again, but for the executable, which was mapped before the
 * image was traced.
 *
 * Returns the number of functions handed over (0: nothing to probe, e.g. a
 * static, stripped program), or -errno with the reason in err
 * (-EOPNOTSUPP: a 32-bit program, whose allocators are not probed).  With
 * strict (-p: the image is the whole target), an -O object pid does not
 * map, or no allocator at all, is an error; else it is left for a later
 * image (usermode_unmapped() tells what never was).
 */
int usermode_probe_image(struct usermode *um, struct mt_device *d, int pid, bool strict,
			 struct mt_err *err);

/*
 * The objects pid mapped since its image was probed (a dlopen): the entry
 * points bound in them now (the same lookup order, the new objects after
 * the others) and the -O objects get their probes, each function once, and
 * the new objects unwind tables.
 * Returns the functions probed (>= 0), or -errno with err set.
 */
int usermode_probe_mapped(struct usermode *um, struct mt_device *d, int pid, struct mt_err *err);

/*
 * How stacks are walked (MT_UNWIND_*): with auto or cfi, each image's
 * objects get unwind tables (auto: those built without frame pointers)
 * as its allocators are probed.  -EOPNOTSUPP for cfi if the module has
 * no tables (auto then walks by frame pointers).
 */
int usermode_set_unwind(struct usermode *um, int mode, const struct mt_device *d,
			struct mt_err *err);

/*
 * The unwind tables of the code pid maps now, none probed (the growth
 * modes, whose stacks the module walks at system calls and faults):
 * objects given a table before are not handed over again.  Returns 0, or
 * -errno with err set if pid's mappings cannot be read; a table the
 * module refuses is said once on stderr, not an error.
 */
int usermode_unwind_process(struct usermode *um, struct mt_device *d, int pid,
			    struct mt_err *err);

/*
 * How allocators' returns are seen (MT_RETURNS_*): by probes on their ret
 * instructions where the module has them and disassembly allows, else
 * return probes; verbose says on stderr which each function got.
 */
void usermode_set_returns(struct usermode *um, int mode, bool verbose,
			  const struct mt_device *d);

/*
 * Each image's allocator is said on stderr as it is probed ("memtrace-read:
 * pid 114 allocator: malloc: libjemalloc.so.2, ..."), and with -v every
 * entry point and where it resolved; quiet (--memleak-format) says neither.
 */
void usermode_set_quiet(struct usermode *um, bool quiet);

/* The first -O name no image has mapped yet, or NULL. */
const char *usermode_unmapped(const struct usermode *um);

#endif
