/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables for the module (MEMTRACE_IOC_UNWIND_TABLE): one ELF
 * object's call-frame information (.eh_frame, and .debug_frame where the
 * file has one), as libdw reads it, turned into rows sorted by file
 * offset, each saying how to find the caller's frame there (struct
 * memtrace_unwind_row).  x86-64 only, as the module's user mode.
 */
#ifndef MEMTRACE_READ_UNWTAB_H
#define MEMTRACE_READ_UNWTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/memtrace.h>

#include "util.h"

struct unwtab {
	struct memtrace_unwind_row *rows;
	size_t nr, cap;
	uint8_t build_id[20];
	uint32_t build_id_len;
	/* Code bytes whose frame is found from rbp, and from rsp past a function's entry. */
	uint64_t bytes_rbp, bytes_rsp;
};

/* Builds path's table into t (zeroed first).  0, or -errno with the reason in err. */
int unwtab_build(const char *path, struct unwtab *t, struct mt_err *err);
/* The build id of path's ELF, 0 bytes if none.  Returns its length. */
uint32_t unwtab_build_id(const char *path, uint8_t id[20]);
/*
 * Whether the object's code keeps frame pointers: its functions' bodies
 * find their frame from rbp (the CFA register), for most of the code.
 */
bool unwtab_has_frame_pointers(const struct unwtab *t);
/* The row covering file offset off, or NULL. */
const struct memtrace_unwind_row *unwtab_find(const struct unwtab *t, uint64_t off);
void unwtab_free(struct unwtab *t);

#endif
