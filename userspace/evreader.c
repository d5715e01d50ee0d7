// SPDX-License-Identifier: GPL-2.0
#include "evreader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Every record type has its CLOCK_MONOTONIC time right after the header. */
#define EV_MIN_TIMED	(sizeof(struct memtrace_ev_hdr) + sizeof(uint64_t))

int evring_collect(const uint8_t *data, uint64_t data_size, uint64_t from, uint64_t to,
		   uint8_t **buf, size_t *len, size_t *cap, struct mt_err *err)
{
	uint64_t pos = from;

	while (pos < to) {
		uint64_t off = pos & (data_size - 1);
		struct memtrace_ev_hdr h;

		if (data_size - off < sizeof(h))
			return mt_errf(err, EPROTO, "event ring: header across the end at %llu",
				       (unsigned long long)pos);
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > data_size - off ||
		    h.size > to - pos)
			return mt_errf(err, EPROTO, "event ring: bad record size %u at %llu",
				       h.size, (unsigned long long)pos);
		if (h.type != MEMTRACE_EVT_PAD && h.size >= EV_MIN_TIMED) {
			if (*len + h.size > *cap) {
				size_t ncap = *cap ? *cap * 2 : 65536;
				uint8_t *n;

				while (ncap < *len + h.size)
					ncap *= 2;
				n = realloc(*buf, ncap);
				if (!n)
					return mt_errf(err, ENOMEM, "out of memory reading events");
				*buf = n;
				*cap = ncap;
			}
			memcpy(*buf + *len, data + off, h.size);
			/* The header checked, not a second read of the shared page. */
			memcpy(*buf + *len, &h, sizeof(h));
			*len += h.size;
		}
		pos += h.size;
	}
	return 0;
}

struct ev_ref {
	uint64_t ts;
	size_t off;
};

static int ev_ref_cmp(const void *a, const void *b)
{
	const struct ev_ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* Same time: as collected (one CPU's records keep their order). */
	return x->off < y->off ? -1 : x->off > y->off;
}

size_t evring_dispatch(uint8_t *buf, size_t len, evreader_fn fn, void *ctx)
{
	struct ev_ref *refs;
	size_t n = 0, off, i;

	for (off = 0; off < len; off += ((struct memtrace_ev_hdr *)(buf + off))->size)
		n++;
	refs = calloc(n ? n : 1, sizeof(*refs));
	if (!refs) {
		/* No memory to sort: in collection order, still every record. */
		for (off = 0; off < len; off += ((struct memtrace_ev_hdr *)(buf + off))->size)
			fn(ctx, (const struct memtrace_ev_hdr *)(buf + off));
		return n;
	}
	for (off = 0, i = 0; off < len; off += ((struct memtrace_ev_hdr *)(buf + off))->size, i++) {
		memcpy(&refs[i].ts, buf + off + sizeof(struct memtrace_ev_hdr), sizeof(uint64_t));
		refs[i].off = off;
	}
	qsort(refs, n, sizeof(*refs), ev_ref_cmp);
	for (i = 0; i < n; i++)
		fn(ctx, (const struct memtrace_ev_hdr *)(buf + refs[i].off));
	free(refs);
	return n;
}

size_t evring_dispatch_before(uint8_t *buf, size_t len, uint64_t before_ns, evreader_fn fn,
			      void *ctx, size_t *held)
{
	struct ev_ref *refs;
	uint8_t *keep;
	size_t n = 0, off, i, done = 0, kept = 0;

	*held = 0;
	for (off = 0; off < len; off += ((struct memtrace_ev_hdr *)(buf + off))->size)
		n++;
	refs = calloc(n ? n : 1, sizeof(*refs));
	keep = malloc(len ? len : 1);
	if (!refs || !keep) {
		/* No memory to sort or keep back: everything now, in time order if it can. */
		free(refs);
		free(keep);
		return evring_dispatch(buf, len, fn, ctx);
	}
	for (off = 0, i = 0; off < len; off += ((struct memtrace_ev_hdr *)(buf + off))->size, i++) {
		memcpy(&refs[i].ts, buf + off + sizeof(struct memtrace_ev_hdr), sizeof(uint64_t));
		refs[i].off = off;
	}
	qsort(refs, n, sizeof(*refs), ev_ref_cmp);
	for (i = 0; i < n && refs[i].ts < before_ns; i++, done++)
		fn(ctx, (const struct memtrace_ev_hdr *)(buf + refs[i].off));
	/* The rest, in time order, to the front: the next drain appends behind them. */
	for (; i < n; i++) {
		const struct memtrace_ev_hdr *h = (const void *)(buf + refs[i].off);

		memcpy(keep + kept, h, h->size);
		kept += h->size;
	}
	memcpy(buf, keep, kept);
	*held = kept;
	free(keep);
	free(refs);
	return done;
}

int evreader_open(struct evreader *r, struct mt_device *dev, struct mt_err *err)
{
	const void *map;
	int ret;

	memset(r, 0, sizeof(*r));
	r->dev = dev;
	ret = device_evring_map(dev, &r->info, &map, err);
	if (ret)
		return ret;
	r->map = map;
	r->upto = calloc(r->info.nr_cpus, sizeof(*r->upto));
	if (!r->upto) {
		evreader_close(r);
		return mt_errf(err, ENOMEM, "event rings: out of memory");
	}
	return 0;
}

static const struct memtrace_evring_meta *ev_meta(const struct evreader *r, uint32_t cpu)
{
	return (const struct memtrace_evring_meta *)(r->map + cpu * r->info.cpu_stride);
}

/*
 * Copies out every CPU's published records behind the first *len bytes of
 * r->buf (*len grows by what was copied).  Every CPU's producer position
 * is read first, in one quick pass, and only then are records copied
 * out: a task whose begin record went to one CPU and its end to another
 * can have its end in this drain without its begin only if both were
 * committed within that pass (not within the copies, as before); the
 * pairing tolerates it.
 */
static int evreader_collect_all(struct evreader *r, size_t *len, struct mt_err *err)
{
	uint32_t cpu;
	int ret;

	for (cpu = 0; cpu < r->info.nr_cpus; cpu++)
		/* Pairs with the module's release: records below it are whole. */
		r->upto[cpu] = __atomic_load_n(&ev_meta(r, cpu)->producer_pos, __ATOMIC_ACQUIRE);
	for (cpu = 0; cpu < r->info.nr_cpus; cpu++) {
		uint64_t from = __atomic_load_n(&ev_meta(r, cpu)->consumer_pos, __ATOMIC_RELAXED);
		uint64_t to = r->upto[cpu];

		if (to == from)
			continue;
		if (to < from || to - from > r->info.data_size)
			return mt_errf(err, EPROTO, "event ring of CPU %u: positions %llu..%llu",
				       cpu, (unsigned long long)from, (unsigned long long)to);
		ret = evring_collect(r->map + cpu * r->info.cpu_stride + r->info.data_offset,
				     r->info.data_size, from, to, &r->buf, len, &r->cap, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* Gives back what evreader_collect_all() copied out. */
static int evreader_consume_all(struct evreader *r, struct mt_err *err)
{
	uint32_t cpu;
	int ret;

	for (cpu = 0; cpu < r->info.nr_cpus; cpu++) {
		if (r->upto[cpu] == __atomic_load_n(&ev_meta(r, cpu)->consumer_pos,
						     __ATOMIC_RELAXED))
			continue;
		/* Copied out and handed on: the module may reuse the space. */
		ret = device_evring_consume(r->dev, cpu, r->upto[cpu], err);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The space is given back only once every CPU's records are handed on:
 * an error leaves them all for the next drain.
 */
int evreader_drain(struct evreader *r, evreader_fn fn, void *ctx, struct mt_err *err)
{
	size_t len = 0;
	int ret;

	ret = evreader_collect_all(r, &len, err);
	if (ret)
		return ret;
	if (len)
		evring_dispatch(r->buf, len, fn, ctx);
	return evreader_consume_all(r, err);
}

/*
 * Why a record stamped before the pass over the producer positions can be
 * handed on: whatever caused it (an allocation, for its free) was
 * published before it was stamped, so before the pass, and the pass sees
 * it.  A record published late (its producer delayed between stamping
 * and publishing it, a preempted virtual CPU) may still come after lines
 * stamped later on other CPUs, never after one it caused.  The kernel's
 * clock (ktime_get_mono_fast_ns()) and ours are both CLOCK_MONOTONIC; the
 * margin covers the fast clock reading a little behind.
 */
#define EV_ORDER_MARGIN_NS	1000000ULL

int evreader_drain_ordered(struct evreader *r, bool final, evreader_fn fn, void *ctx,
			   struct mt_err *err)
{
	uint64_t before = UINT64_MAX;
	size_t len = r->held;
	struct timespec now;
	int ret;

	if (!final) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		before = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
		before = before > EV_ORDER_MARGIN_NS ? before - EV_ORDER_MARGIN_NS : 0;
	}
	ret = evreader_collect_all(r, &len, err);
	if (ret)
		goto hand_on_held;
	r->held = 0;
	if (len)
		evring_dispatch_before(r->buf, len, before, fn, ctx, &r->held);
	ret = evreader_consume_all(r, err);
	if (!ret)
		return 0;
hand_on_held:
	/*
	 * The caller stops at an error: what this reader already took out
	 * of the rings and kept back for ordering is handed on now, not lost.
	 */
	if (r->held)
		evring_dispatch(r->buf, r->held, fn, ctx);
	r->held = 0;
	return ret;
}

uint64_t evreader_lost(const struct evreader *r, unsigned int *cpus)
{
	uint64_t sum = 0, l;
	uint32_t cpu;

	*cpus = 0;
	for (cpu = 0; r->map && cpu < r->info.nr_cpus; cpu++) {
		l = __atomic_load_n(&ev_meta(r, cpu)->lost, __ATOMIC_RELAXED);
		sum += l;
		*cpus += l != 0;
	}
	return sum;
}

void evreader_print_lost(const struct evreader *r, FILE *out, const char *what)
{
	unsigned int cpus;
	uint64_t lost = evreader_lost(r, &cpus);

	fprintf(out, "Lost: %" PRIu64 " %s (ring full, or nested in another on its CPU)", lost,
		what);
	if (lost) {
		fprintf(out, ":");
		for (uint32_t c = 0; c < r->info.nr_cpus; c++) {
			uint64_t l = __atomic_load_n(&ev_meta(r, c)->lost, __ATOMIC_RELAXED);

			if (l)
				fprintf(out, " cpu%u %" PRIu64, c, l);
		}
	}
	fprintf(out, "\n");
}

uint32_t evreader_ring_pages_for(long cpus, long page_size, uint32_t min_pages)
{
	uint32_t pages = min_pages;

	if (cpus <= 0 || page_size <= 0)
		return min_pages;
	/* The module takes at most 4096 pages a CPU. */
	while (pages < 4096 && (uint64_t)pages * 2 * page_size * cpus <= EVREADER_RING_BUDGET)
		pages *= 2;
	return pages;
}

uint32_t evreader_ring_pages(uint32_t min_pages)
{
	return evreader_ring_pages_for(sysconf(_SC_NPROCESSORS_CONF), sysconf(_SC_PAGESIZE),
				       min_pages);
}

void evreader_close(struct evreader *r)
{
	if (r->map)
		munmap((void *)r->map, r->info.mmap_size);
	free(r->upto);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
