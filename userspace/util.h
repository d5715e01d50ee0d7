/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by every module of memtrace-read: an error message
 * carrier (so library-style code can explain a failure without printing,
 * which keeps it testable), checked integer arithmetic for validating
 * sizes that come from the kernel, output buffering, the stop signals, and
 * the two fields every event record has: a task name and a time.
 */
#ifndef MEMTRACE_READ_UTIL_H
#define MEMTRACE_READ_UTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct mt_err {
	char msg[512];
};

/* Sets err->msg (if err is non-NULL) printf-style; always returns -code
 * so callers can write "return mt_errf(err, EINVAL, ...)". */
int mt_errf(struct mt_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* a + b and a * b without wrapping; false on overflow. */
static inline bool mt_add_ok(uint64_t a, uint64_t b, uint64_t *sum)
{
	return !__builtin_add_overflow(a, b, sum);
}

static inline bool mt_mul_ok(uint64_t a, uint64_t b, uint64_t *prod)
{
	return !__builtin_mul_overflow(a, b, prod);
}

static inline uint64_t mt_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) / align * align;
}

/* v with thousands separated by commas ("66,824"), as Memcheck prints them. */
void mt_group_thousands(uint64_t v, char *buf, size_t len);

/*
 * Text gathered for one write to a stdio stream: a report of 100K stacks
 * is millions of short lines, and each stdio call costs more than the
 * bytes it copies.  mt_outbuf_put copies into b (writing it out first
 * when full; longer strings go straight through), mt_outbuf_flush writes
 * what is left: call it before anything else writes to the stream.
 */
struct mt_outbuf {
	FILE *out;
	size_t n;
	char b[8192];
};

/* Not an initializer: that would zero the 8 KiB buffer at every use. */
static inline void mt_outbuf_init(struct mt_outbuf *ob, FILE *out)
{
	ob->out = out;
	ob->n = 0;
}
void mt_outbuf_flush(struct mt_outbuf *ob);
/* mt_outbuf_put where s does not fit what is left of b */
void mt_outbuf_put_full(struct mt_outbuf *ob, const char *s, size_t len);
/* Inline: a few calls a line, millions of lines. */
static inline void mt_outbuf_put(struct mt_outbuf *ob, const char *s, size_t len)
{
	if (ob->n + len > sizeof(ob->b)) {
		mt_outbuf_put_full(ob, s, len);
		return;
	}
	memcpy(ob->b + ob->n, s, len);
	ob->n += len;
}
static inline void mt_outbuf_puts(struct mt_outbuf *ob, const char *s)
{
	mt_outbuf_put(ob, s, strlen(s));
}

#define MT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * SIGINT and SIGTERM blocked and taken through the descriptor returned
 * (close-on-exec), between reports, so that none is cut half printed;
 * -1 with errno set if not.  A command spawned later gets the mask the
 * reader was started with (spawn.c: stop_signals_unblocked()).
 */
int stop_signals_fd(void);
/* Takes out of mask what stop_signals_fd() blocked that was not blocked before it. */
void stop_signals_unblocked(sigset_t *mask);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: the wall clock of a record's monotonic time. */
int64_t mt_realtime_offset_ns(void);

/* A task name from a record (MEMTRACE_COMM_LEN bytes, maybe unterminated) into dst[MEMTRACE_COMM_LEN + 1]. */
void mt_comm(char *dst, const char *src);
/* A record's wall clock time as HH:MM:SS, local time. */
void mt_hms(time_t when, char *buf, size_t len);

#endif
