// SPDX-License-Identifier: GPL-2.0
/*
 * A stack's frames, symbolized and split into parts (frames.h): user
 * frames by usyms, kernel frames by ksyms through the snapshot's memo
 * (kfmemo.h); each frame's text, as the symbolizer wrote it, parsed back
 * into function, offset, module and source line.
 */
#include "frames.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfmemo.h"

#define FRAME_LINES	8	/* a frame and the functions inlined at it */
#define FRAME_LINE_LEN	600

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool hex_number(const char *s, size_t n, uint64_t *v)
{
	char buf[24];

	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	for (size_t i = 2; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtoull(buf, NULL, 16);
	return true;
}

/*
 * The formats, from the right: an optional " (inlined)", an optional
 * " FILE:LINE" (usyms, with DWARF), " [MODULE]", and on the left either
 * "FUNCTION+0xOFF", a bare "FUNCTION" (inlined), or "0xADDRESS" (no
 * function).  The module is the last " [...]" before the end or the
 * source line: function names may hold brackets (C++'s operator[]).
 */
int rmodel_parse_frame(const char *text, struct rm_frame *f)
{
	size_t len = strlen(text), end = len;
	const char *open, *p;
	uint64_t v;

	f->function = f->module = f->file = NULL;
	f->offset = 0;
	f->line = 0;
	f->inlined = false;
	if (end >= 10 && !strcmp(text + end - 10, " (inlined)")) {
		f->inlined = true;
		end -= 10;
	}
	/* " FILE:LINE" after the module's "]". */
	if (end && text[end - 1] != ']') {
		const char *sp = NULL, *colon;

		for (p = text + end; p > text; p--)
			if (p[-1] == ' ') {
				sp = p - 1;
				break;
			}
		colon = sp ? memrchr(sp, ':', (size_t)(text + end - sp)) : NULL;
		if (colon && sp > text && sp[-1] == ']' &&
		    all_digits(colon + 1, (size_t)(text + end - colon - 1))) {
			f->file = dup_n(sp + 1, (size_t)(colon - sp - 1));
			f->line = (uint32_t)strtoul(colon + 1, NULL, 10);
			if (!f->file)
				return -ENOMEM;
			end = (size_t)(sp - text);
		}
	}
	open = NULL;
	if (end && text[end - 1] == ']')
		for (p = text + end - 1; p > text; p--)
			if (p[-1] == ' ' && p[0] == '[') {
				open = p;
				break;
			}
	if (!open) {
		/* Not one of the formats: the whole text names the function. */
		f->function = dup_n(text, end);
		return f->function ? 0 : -ENOMEM;
	}
	if (strncmp(open, "[unknown]", 9) || open + 9 != text + end) {
		f->module = dup_n(open + 1, (size_t)(text + end - open - 2));
		if (!f->module)
			return -ENOMEM;
	}
	end = (size_t)(open - 1 - text);
	/* "FUNCTION+0xOFF", "FUNCTION", or "0xADDRESS". */
	if (hex_number(text, end, &v))
		return 0;
	for (p = text + end; p > text; p--)
		if (p[-1] == '+')
			break;
	if (p > text && hex_number(p, (size_t)(text + end - p), &v)) {
		f->offset = v;
		end = (size_t)(p - 1 - text);
	}
	f->function = dup_n(text, end);
	return f->function ? 0 : -ENOMEM;
}

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

static int add_frame(struct rm_frame **frames, size_t *nr, size_t *cap, uint64_t addr,
		     const char *text)
{
	struct rm_frame *f;

	if (reserve_frame(frames, nr, cap))
		return -ENOMEM;
	f = &(*frames)[*nr];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->text = strdup(text);
	(*nr)++;
	if (!f->text)
		return -ENOMEM;
	return rmodel_parse_frame(text, f);
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

int rmodel_add_frame(struct rm_frame **frames, size_t *nr, size_t *cap, uint64_t addr,
		     const char *text, struct usyms *us)
{
	int ret = add_frame(frames, nr, cap, addr, text);

	if (!ret && us)
		ret = add_mapping(&(*frames)[*nr - 1], us);
	return ret;
}

/*
 * A kernel frame: the snapshot's memo of it, or symbolized (into lines, a
 * FRAME_LINE_LEN buffer) and then kept in the memo.  Many stacks share
 * their frames: a report of 100K stacks looked up, formatted and parsed
 * the same few hundred addresses millions of times.
 */
static int add_kernel_frame(const struct mt_snapshot *snap, uint32_t epoch, uint64_t ip,
			    struct ksyms *ks, struct rm_frame **frames, size_t *nr, size_t *cap,
			    char *lines)
{
	const struct rm_frame *kept;
	int ret;

	kfmemo_symbols(snap->kfmemo, ksyms_loads(ks));
	kept = kfmemo_get(snap->kfmemo, epoch, ip);
	if (kept) {
		ret = reserve_frame(frames, nr, cap);
		if (!ret)
			(*frames)[(*nr)++] = *kept;
		return ret;
	}
	ksyms_format_frame(ks, snap, epoch, ip, lines, FRAME_LINE_LEN);
	ret = add_frame(frames, nr, cap, ip, lines);
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
	static char lines[FRAME_LINES * FRAME_LINE_LEN];
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
			size_t n = usyms_format(us, s->ips[i], lines, FRAME_LINE_LEN, FRAME_LINES);

			for (size_t l = 0; l < n && !ret; l++) {
				ret = add_frame(frames, nr, &cap, s->ips[i], lines + l * FRAME_LINE_LEN);
				if (!ret)
					ret = add_mapping(&(*frames)[*nr - 1], us);
			}
			continue;
		}
		ret = add_kernel_frame(snap, s->epoch, s->ips[i], ks, frames, nr, &cap, lines);
	}
	if (ret) {
		rmodel_free_frames(*frames, *nr);
		*frames = NULL;
		*nr = 0;
	}
	return ret;
}
