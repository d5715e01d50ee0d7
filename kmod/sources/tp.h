/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints found by name.  Only four kmem tracepoints are exported to
 * modules; the rest (pages, percpu, vmscan, ...) are reached the way
 * lttng-modules does: walk the kernel's tracepoints once at load with
 * for_each_kernel_tracepoint() and keep the ones we probe.
 */
#ifndef MEMTRACE_TP_H
#define MEMTRACE_TP_H

#include <linux/tracepoint.h>

struct mt_tp {
	const char *name;
	void *probe;		/* void probe(void *data, TP_PROTO args) */
	u32 event;		/* MEMTRACE_EV_* it belongs to */
	bool frees;		/* a free (or other end of an allocation's life) */
	/* missing costs its event nothing (memcg reclaim without CONFIG_MEMCG) */
	bool optional;
	struct tracepoint *tp;	/* NULL: not in this kernel */
	bool registered;
};

/*
 * The compiler checks a probe against the prototype the kernel's own trace
 * header declares, so a tracepoint whose arguments change in some kernel
 * fails the build instead of corrupting a probe's arguments.
 */
#define MT_CHECK_PROBE(event, fn)					\
	static inline void __maybe_unused mt_check_##event(void)	\
	{								\
		if (0)							\
			register_trace_##event(fn, NULL);		\
	}

/* Resolve tp for each entry; returns the events all of whose tracepoints exist. */
u32 mt_tp_lookup(struct mt_tp *tps, size_t n);
/*
 * Register the entries of 'events' whose .frees is 'frees'; all or none of
 * them.  Frees are attached before allocations (and detached after them):
 * an allocation recorded while its free could go unseen would be a false
 * leak.
 */
int mt_tp_register(struct mt_tp *tps, size_t n, u32 events, bool frees);
/*
 * Unregister the entries whose .frees is 'frees'; with 'sync', wait until
 * no probe of any entry runs any more.
 */
void mt_tp_unregister(struct mt_tp *tps, size_t n, bool frees, bool sync);

#endif
