// SPDX-License-Identifier: GPL-2.0
/*
 * A stack's frames, symbolized into parts (frames.h): user frames by
 * usyms, kernel frames by ksyms through the snapshot's memo (kfmemo.h);
 * each frame's text made once, by rm_frame_text(), when it is kept.
 */
#include "frames.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfmemo.h"

#define FRAME_LINES	8	/* a frame and the functions inlined at it */
#define FRAME_TEXT_LEN	600	/* room for any frame's text: names are cut before */

static void free_frame(struct rm_frame *f)
{
	if (!f->shared) {
		free(f->text);
		free(f->function);
		free(f->module);
		free(f->file);
	}
	free(f->map_path);
	free(f->build_id);
}

void rmodel_free_frames(struct rm_frame *frames, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free_frame(&frames[i]);
	free(frames);
}

/* Room for one more frame in *frames. */
static int reserve_frame(struct rm_frame **frames, size_t *nr, size_t *cap)
{
	if (*nr == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct rm_frame *grown = realloc(*frames, n * sizeof(**frames));

		if (!grown)
			return -ENOMEM;
		*frames = grown;
		*cap = n;
	}
	return 0;
}

/* A copy of s, or NULL for NULL; *failed set where memory ran out. */
static char *dup_or_null(const char *s, bool *failed)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*failed = true;
	return d;
}

/* Adds a copy of src, strings and all, with its text. */
static int add_frame(struct rm_frame **frames, size_t *nr, size_t *cap,
		     const struct rm_frame *src)
{
	char text[FRAME_TEXT_LEN];
	bool failed = false;
	struct rm_frame *f;

	if (reserve_frame(frames, nr, cap))
		return -ENOMEM;
	f = &(*frames)[(*nr)++];
	*f = (struct rm_frame){
		.addr = src->addr, .offset = src->offset, .line = src->line,
		.inlined = src->inlined,
	};
	f->text = dup_or_null(src->text ? src->text : rm_frame_text(src, text, sizeof(text)),
			      &failed);
	f->function = dup_or_null(src->function, &failed);
	f->module = dup_or_null(src->module, &failed);
	f->file = dup_or_null(src->file, &failed);
	return failed ? -ENOMEM : 0;
}

static int add_mapping(struct rm_frame *f, struct usyms *us)
{
	struct usyms_mapping *m = malloc(sizeof(*m));
	int ret = 0;

	if (!m)
		return -ENOMEM;
	if (usyms_mapping(us, f->addr, m)) {
		f->map_path = strdup(m->path);
		f->build_id = strdup(m->build_id);
		f->map_start = m->start;
		f->map_limit = m->limit;
		f->map_offset = m->offset;
		if (!f->map_path || !f->build_id)
			ret = -ENOMEM;
	}
	free(m);
	return ret;
}

int rmodel_add_frame(struct rm_frame **frames, size_t *nr, size_t *cap,
		     const struct rm_frame *f, struct usyms *us)
{
	int ret = add_frame(frames, nr, cap, f);

	if (!ret && us)
		ret = add_mapping(&(*frames)[*nr - 1], us);
	return ret;
}

/*
 * A kernel frame: the snapshot's memo of it, or symbolized and then kept
 * in the memo.  Many stacks share their frames: a report of 100K stacks
 * looked up and formatted the same few hundred addresses millions of
 * times.
 */
static int add_kernel_frame(const struct mt_snapshot *snap, uint32_t epoch, uint64_t ip,
			    struct ksyms *ks, struct rm_frame **frames, size_t *nr, size_t *cap)
{
	const struct rm_frame *kept;
	struct rm_frame f;
	int ret;

	kfmemo_symbols(snap->kfmemo, ksyms_loads(ks));
	kept = kfmemo_get(snap->kfmemo, epoch, ip);
	if (kept) {
		ret = reserve_frame(frames, nr, cap);
		if (!ret)
			(*frames)[(*nr)++] = *kept;
		return ret;
	}
	ksyms_frame(ks, snap, epoch, ip, &f);
	ret = add_frame(frames, nr, cap, &f);
	/* The lookup may have loaded the symbols again (the memo retires). */
	kfmemo_symbols(snap->kfmemo, ksyms_loads(ks));
	/* Without room in the memo the frame stays its own. */
	if (!ret && snap->kfmemo)
		kfmemo_put(snap->kfmemo, epoch, ip, &(*frames)[*nr - 1]);
	return ret;
}

int rmodel_frames(const struct mt_snapshot *snap, uint32_t stack_id, struct ksyms *ks,
		  struct usyms *us, struct rm_frame **frames, size_t *nr, const char **note)
{
	struct rm_frame user[FRAME_LINES];
	const struct mt_stack *s;
	size_t cap = 0;
	int ret = 0;

	*frames = NULL;
	*nr = 0;
	*note = NULL;
	if (stack_id == MEMTRACE_STACK_NONE) {
		*note = "[stack not recorded: stack table full]";
		return 0;
	}
	s = snapshot_stack(snap, stack_id);
	if (!s) {
		*note = "[stack missing from the snapshot]";
		return 0;
	}
	if (!s->nr_frames) {
		*note = snap->hdr.flags & MEMTRACE_HDR_KADDR_HIDDEN ?
			"[kernel stack hidden: CAP_SYSLOG needed]" : "[empty stack]";
		return 0;
	}
	for (uint32_t i = 0; i < s->nr_frames && !ret; i++) {
		if (us) {
			size_t n = usyms_frames(us, s->ips[i], user, FRAME_LINES);

			for (size_t l = 0; l < n && !ret; l++)
				ret = rmodel_add_frame(frames, nr, &cap, &user[l], us);
			continue;
		}
		ret = add_kernel_frame(snap, s->epoch, s->ips[i], ks, frames, nr, &cap);
	}
	if (ret) {
		rmodel_free_frames(*frames, *nr);
		*frames = NULL;
		*nr = 0;
	}
	return ret;
}
