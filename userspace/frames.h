/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack's frames, symbolized into parts (struct rm_frame) with their
 * text: the one way the text report (report_stack) and the report model
 * (rmodel.h) both name frames, so that every format shows the text's
 * frames.  Kernel frames are kept in the snapshot's memo (kfmemo.h) the
 * first time they are named.  The functions are rmodel_*: the report
 * model's frames.
 */
#ifndef MEMTRACE_READ_FRAMES_H
#define MEMTRACE_READ_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "ksyms.h"
#include "rmframe.h"
#include "snapshot.h"
#include "usyms.h"

/*
 * The frames of one stack, symbolized as report_stack() prints them
 * (user frames by us, kernel ones by ks); inlined calls are frames of
 * their own.  *nr 0 and *note set (static text) where the stack has no
 * frames to show.  Returns 0 or -ENOMEM.
 */
int rmodel_frames(const struct mt_snapshot *snap, uint32_t stack_id, struct ksyms *ks,
		  struct usyms *us, struct rm_frame **frames, size_t *nr, const char **note);
void rmodel_free_frames(struct rm_frame *frames, size_t nr);

/*
 * Adds a copy of f to *frames (*nr of them, room for *cap; 0 at first):
 * its strings its own, its text rm_frame_text()'s where f has none, with
 * its mapping from us (NULL: none known).  Returns 0 or -ENOMEM.
 */
int rmodel_add_frame(struct rm_frame **frames, size_t *nr, size_t *cap,
		     const struct rm_frame *f, struct usyms *us);

#endif
