// SPDX-License-Identifier: GPL-2.0
/*
 * The closing summary of a traced command (-c, -p) in Valgrind Memcheck's
 * words, after its HEAP SUMMARY: a LEAK SUMMARY line, then one record per
 * stack still in use at exit, smallest first and the largest last (next
 * to the prompt, as Memcheck orders its loss records), each frame as
 * Memcheck writes it: "at 0xADDR: function (file.c:LINE)" with debug
 * information, "(in /path/object)" without.
 *
 * memtrace follows no pointers: it cannot tell "definitely lost" from
 * "still reachable", and says so rather than guess.
 */
#include "fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/*
 * "   at 0x<v>: " (or "by"), v as printf's "%" PRIX64 writes it, into buf
 * (32 bytes at least); returns its length.
 */
static size_t addr_prefix(char *buf, uint64_t v, bool first)
{
	char hex[16];
	size_t n = 0, len;

	do {
		hex[n++] = "0123456789ABCDEF"[v & 0xf];
		v >>= 4;
	} while (v);
	memcpy(buf, first ? "   at 0x" : "   by 0x", 8);
	for (len = 8; n;)
		buf[len++] = hex[--n];
	buf[len++] = ':';
	buf[len++] = ' ';
	return len;
}

/*
 * A summary of 100K stacks is millions of these lines: put together
 * without printf's format parsing, in few calls.
 */
static void frame_line(struct mt_outbuf *ob, const struct rm_frame *f, bool first)
{
	char buf[32];

	mt_outbuf_put(ob, buf, addr_prefix(buf, f->addr, first));
	mt_outbuf_puts(ob, f->function ? f->function : "???");
	if (f->file) {
		mt_outbuf_put(ob, " (", 2);
		mt_outbuf_puts(ob, f->file);
		mt_outbuf_put(ob, buf, (size_t)snprintf(buf, sizeof(buf), ":%u)", f->line));
	} else if (f->map_path || f->module) {
		mt_outbuf_put(ob, " (in ", 5);
		mt_outbuf_puts(ob, f->map_path ? f->map_path : f->module);
		mt_outbuf_put(ob, ")", 1);
	}
	mt_outbuf_put(ob, "\n", 1);
}

void fmt_memcheck_head(FILE *out, const struct report_model *m)
{
	char b[2][40];

	mt_group_thousands(m->bytes, b[0], sizeof(b[0]));
	mt_group_thousands(m->count, b[1], sizeof(b[1]));
	fprintf(out, "LEAK SUMMARY:\n");
	fprintf(out, "   still in use: %s bytes in %s blocks, in %zu records\n", b[0], b[1],
		m->nr_stacks);
	fprintf(out, "   (memtrace follows no pointers: each may be lost or still reachable)\n");
	if (m->sampled)
		fprintf(out, "   (sampling: bytes and blocks are estimates)\n");
}

void fmt_memcheck_record(FILE *out, const struct report_model *m, size_t i)
{
	const struct rm_stack *s = &m->stacks[i];
	struct mt_outbuf ob;
	bool first = true;
	char b[2][40];

	mt_group_thousands(s->bytes, b[0], sizeof(b[0]));
	mt_group_thousands(s->count, b[1], sizeof(b[1]));
	fprintf(out, "\n%s bytes in %s blocks are still in use in record %zu of %zu\n",
		b[0], b[1], m->nr_stacks - i, m->nr_stacks);
	if (!s->nr_frames)
		fprintf(out, "   %s\n", s->note ? s->note : "[no stack]");
	mt_outbuf_init(&ob, out);
	for (size_t f = 0; f < s->nr_frames; f++) {
		/* Memcheck gives an inlined call the address of its caller's frame too. */
		frame_line(&ob, &s->frames[f], first);
		first = false;
	}
	mt_outbuf_flush(&ob);
}

int fmt_memcheck_tail(FILE *out)
{
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int fmt_memcheck(FILE *out, const struct report_model *m)
{
	fmt_memcheck_head(out, m);
	for (size_t i = m->nr_stacks; i-- > 0;)
		fmt_memcheck_record(out, m, i);
	return fmt_memcheck_tail(out);
}
