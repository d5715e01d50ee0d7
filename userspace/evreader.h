/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader of the module's per-CPU event rings (MEMTRACE_FEAT_EVRING): the
 * records every CPU published since the last drain, copied out of the
 * read-only mapping, checked, and handed on in time order across CPUs;
 * then their space is given back.  Dropped records are counted by the
 * module per CPU (memtrace_evring_meta.lost) and summed here.
 */
#ifndef MEMTRACE_READ_EVREADER_H
#define MEMTRACE_READ_EVREADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <linux/memtrace.h>

#include "device.h"
#include "util.h"

/* A record, with its header; valid during the callback only. */
typedef void (*evreader_fn)(void *ctx, const struct memtrace_ev_hdr *rec);

/*
 * Walks the records of one ring's data between positions from and to
 * (pads skipped), appending a copy of each to *buf (grown with realloc;
 * *len bytes used).  Returns 0 or -EPROTO with err set if a record is
 * malformed (size not a multiple of 8, past to, or across the end).
 */
int evring_collect(const uint8_t *data, uint64_t data_size, uint64_t from, uint64_t to,
		   uint8_t **buf, size_t *len, size_t *cap, struct mt_err *err);

/*
 * Orders the records in buf (as evring_collect() left them) by their
 * time (the __u64 after every header) and calls fn for each.  Returns
 * the number of records.
 */
size_t evring_dispatch(uint8_t *buf, size_t len, evreader_fn fn, void *ctx);

/*
 * As evring_dispatch(), but only the records stamped before before_ns; the
 * others (in buf's first *held bytes on return) wait for the next call,
 * which appends newer records behind them.  Returns the records handed on.
 */
size_t evring_dispatch_before(uint8_t *buf, size_t len, uint64_t before_ns, evreader_fn fn,
			      void *ctx, size_t *held);

struct evreader {
	struct mt_device *dev;
	struct memtrace_evring_info info;
	const uint8_t *map;
	uint64_t *upto;		/* per CPU: where this drain reads to */
	uint8_t *buf;
	size_t cap;
	size_t held;		/* evreader_drain_ordered(): bytes of records kept back in buf */
};

/* Maps the session's rings (after the session started with pressure events). */
int evreader_open(struct evreader *r, struct mt_device *dev, struct mt_err *err);
/* Hands every record published so far to fn, in time order; then consumes them. */
int evreader_drain(struct evreader *r, evreader_fn fn, void *ctx, struct mt_err *err);
/*
 * evreader_drain() for a reader that prints every record in time order
 * across drains (-t).  A record stamped before the drain began, whose
 * causes were all published before it was stamped, is handed on; one
 * stamped later may have a cause on another CPU not yet published when
 * that CPU's ring was looked at, so it is kept back (its ring space given
 * back all the same) until the next drain.  final: the producers have
 * stopped; everything is handed on.
 */
int evreader_drain_ordered(struct evreader *r, bool final, evreader_fn fn, void *ctx,
			   struct mt_err *err);
/*
 * Data pages for each CPU's event ring (struct memtrace_config's
 * evring_pages), for a mode whose events come in bursts faster than a
 * reader woken for them can drain: the largest power of two, from
 * min_pages up, whose rings (one for each of the machine's CPUs) fit in
 * EVREADER_RING_BUDGET together; min_pages when even those do not.
 */
#define EVREADER_RING_BUDGET	(16U << 20)
uint32_t evreader_ring_pages(uint32_t min_pages);
/* The same for cpus CPUs of page_size bytes' pages (tests). */
uint32_t evreader_ring_pages_for(long cpus, long page_size, uint32_t min_pages);

/* Records the module dropped, over all CPUs, and the CPUs that dropped any. */
uint64_t evreader_lost(const struct evreader *r, unsigned int *cpus);
/*
 * The text's "Lost: N <what> (ring full, or nested in another on its CPU)"
 * line, with each CPU's count when there are some.
 */
void evreader_print_lost(const struct evreader *r, FILE *out, const char *what);
void evreader_close(struct evreader *r);

#endif
