// SPDX-License-Identifier: GPL-2.0
/*
 * A frame's text (rmframe.h): the one place the parts of a frame, as the
 * symbolizers fill them, are put together the way the text report prints
 * them.  Calls only libc.
 */
#include "rmframe.h"

#include <inttypes.h>
#include <stdio.h>

char *rm_frame_text(const struct rm_frame *f, char *buf, size_t len)
{
	const char *module = f->module ? f->module : "unknown";
	char where[96] = "";

	if (!len)
		return buf;
	/* A source file's name is cut by the symbolizer (usyms), not here. */
	if (f->file)
		snprintf(where, sizeof(where), " %s:%" PRIu32, f->file, f->line);
	if (f->function && f->inlined)
		snprintf(buf, len, "%s [%s]%s (inlined)", f->function, module, where);
	else if (f->function)
		snprintf(buf, len, "%s+0x%" PRIx64 " [%s]%s", f->function, f->offset, module,
			     where);
	else if (f->module)
		snprintf(buf, len, "0x%" PRIx64 " [%s]%s", f->offset, module, where);
	else
		snprintf(buf, len, "0x%016" PRIx64 " [unknown]", f->addr);
	return buf;
}
