// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks, as Brendan Gregg's stackcollapse scripts write them and
 * flamegraph.pl, inferno and speedscope read them: the frames of a stack
 * root first, separated by ';', a space, and the value.  Frames are
 * function names without offsets, so that calls from one function merge
 * into one box however many call sites it has.
 */
#include "fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>


const char *fmt_frame_name(const struct rm_frame *f, char *buf, size_t len)
{
	if (f->function)
		snprintf(buf, len, "%s", f->function);
	else if (f->module)
		snprintf(buf, len, "[%s]", f->module);
	else
		snprintf(buf, len, "[unknown]");
	/* ';' separates frames and a newline ends the line: neither in a name. */
	for (char *p = buf; *p; p++)
		if (*p == ';')
			*p = ':';
		else if (*p == '\n' || *p == '\r')
			*p = ' ';
	return buf;
}

int fmt_folded(FILE *out, const struct report_model *m)
{
	char name[512];

	for (size_t i = 0; i < m->nr_stacks; i++) {
		const struct rm_stack *s = &m->stacks[i];
		const char *sep = "";

		if (s->cache) {
			fputs(fmt_frame_name(&(struct rm_frame){ .function = s->cache }, name,
					     sizeof(name)), out);
			sep = ";";
		}
		if (!s->nr_frames) {
			fprintf(out, "%s%s", sep, s->note ? s->note : "[no stack]");
		}
		for (size_t f = s->nr_frames; f-- > 0;) {
			fprintf(out, "%s%s", sep, fmt_frame_name(&s->frames[f], name, sizeof(name)));
			sep = ";";
		}
		fprintf(out, " %" PRIu64 "\n", m->sort == MT_SORT_COUNT ? s->count : s->bytes);
	}
	return ferror(out) ? -EIO : 0;
}

int fmt_folded_file(FILE *out, const struct report_model *m, struct mt_err *err)
{
	int ret = fmt_folded(out, m);

	return ret ? mt_errf(err, -ret, "cannot write the folded stacks") : 0;
}
