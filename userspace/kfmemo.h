/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel frames of one snapshot, symbolized once each.  A report of
 * many stacks names the same return addresses again and again (100K
 * stacks of 17 frames may hold a few hundred distinct ones): the first
 * time a frame is looked up, symbolized into its parts and formatted; then
 * every stack through it shares that frame's strings.  A snapshot holds
 * its memo (mt_snapshot.kfmemo), as the names depend on the snapshot's
 * freed code as well as the address: it goes with the snapshot.  They
 * depend on the symbol table too, which a lookup may load again (a module
 * came or went): the memo then serves no more (kfmemo_symbols()).
 */
#ifndef MEMTRACE_READ_KFMEMO_H
#define MEMTRACE_READ_KFMEMO_H

#include <stdint.h>

#include "rmframe.h"

struct kfmemo;

struct kfmemo *kfmemo_new(void);
void kfmemo_free(struct kfmemo *memo);

/*
 * The symbol table's load count (ksyms_loads()) the frames are named
 * from: the first call sets it; another count retires the memo (its
 * frames stay valid for the stacks sharing them; nothing is kept or
 * found any more).
 */
void kfmemo_symbols(struct kfmemo *memo, unsigned int loads);

/* The frame kept for return address ip of a stack of epoch; NULL: none. */
const struct rm_frame *kfmemo_get(const struct kfmemo *memo, uint32_t epoch, uint64_t ip);

/*
 * Keeps f for (epoch, ip): its strings become the memo's, and f is marked
 * shared (rmodel_free_frames leaves them).  Returns 0, or -errno (f is
 * then left as it was, its own).
 */
int kfmemo_put(struct kfmemo *memo, uint32_t epoch, uint64_t ip, struct rm_frame *f);

#endif
