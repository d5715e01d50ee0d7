/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack's frames, symbolized and split into parts (struct rm_frame):
 * the one way the text report (report_stack) and the report model
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
 * Splits a frame's text, as ksyms_format_frame() and usyms_format() write
 * it, into f's parts (f->text and f->addr are left alone).  Returns 0 or
 * -ENOMEM.
 */
int rmodel_parse_frame(const char *text, struct rm_frame *f);

/*
 * Adds a frame to *frames (*nr of them, room for *cap; 0 at first): its
 * text as a symbolizer wrote it, split into parts, with its mapping from
 * us (NULL: none known).  Returns 0 or -ENOMEM.
 */
int rmodel_add_frame(struct rm_frame **frames, size_t *nr, size_t *cap, uint64_t addr,
		     const char *text, struct usyms *us);

#endif
