/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -t: one line per allocation or free, as the module's trace ring hands
 * them over, with the allocation's innermost frame symbolized.
 */
#ifndef MEMTRACE_READ_TRACEFMT_H
#define MEMTRACE_READ_TRACEFMT_H

#include <stdio.h>

#include <linux/memtrace.h>

#include "images.h"
#include "ksyms.h"

/* "kmalloc", "cache", "page", "percpu", "malloc", "mmap", or "?". */
const char *tracefmt_kind(uint8_t kind);

/*
 * "[SECONDS] alloc kind=malloc size=100 addr=0x... pid=N comm=NAME from FRAME"
 * (free: the same, for the block freed, with the freeing task).  Frames of
 * user kinds are symbolized with their image's symbols (images), others
 * by ks.
 */
void tracefmt_line(FILE *out, const struct memtrace_trace_rec *r, struct ksyms *ks,
		   const struct images *images);

#endif
