/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report model: what one report says, once, for every output format to
 * render.  The stacks the text report shows, in its order, with their
 * numbers and their frames already symbolized into parts (function,
 * offset, module, source line) as well as the text the report prints.
 * fmt_folded.c, fmt_json.c and fmt_pprof.c each render a model; none of
 * them looks at a snapshot or a symbolizer.  A frame (struct rm_frame,
 * rmframe.h) and the symbolizing of a stack's frames (frames.h) are below
 * both the model and the text report, which prints the same frames.
 */
#ifndef MEMTRACE_READ_RMODEL_H
#define MEMTRACE_READ_RMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"
#include "frames.h"
#include "report.h"

struct rm_stack {
	uint32_t stack_id;
	uint32_t image;		/* user mode: the process slot */
	char *cache;		/* --slab: the cache's name; NULL otherwise */
	char *note;		/* no frames: why ("[stack not recorded: stack table full]") */
	uint64_t bytes, count;	/* what the report shows: outstanding (leaks), live (--slab) */
	uint64_t total_allocs, total_bytes, frees;
	struct rm_frame *frames;	/* innermost first */
	size_t nr_frames;
	/* RM_GROWTH: the process that made the calls (comm NULL: --ffaults' files). */
	char *comm;
	uint32_t pid;
	uint64_t major;		/* --faults, --ffaults: of count, the major faults */
};

/* A slab cache's objects in the snapshot (kernel modes), grouped by name. */
struct rm_cache {
	char *name;
	uint64_t bytes, count;	/* outstanding (leaks: older than -o), live (--slab) */
};

enum rm_mode {
	RM_KERNEL_LEAKS,
	RM_USER_LEAKS,
	RM_SLAB,
	RM_GROWTH,	/* --brk, --mmap/--shm --stacks, --faults, --ffaults, --usdt */
};

/*
 * What a growth mode's stacks count, in rm_stack's fields: bytes and calls
 * (count) for --brk and --mmap --stacks, calls for --shm --stacks, faults
 * (count, of them major) for --faults and --ffaults, hits for --usdt.
 */
enum rm_counts {
	RM_COUNTS_HEAP,		/* the leak reports' bytes and allocations */
	RM_COUNTS_BYTES_CALLS,
	RM_COUNTS_CALLS,
	RM_COUNTS_FAULTS,
	RM_COUNTS_HITS,
};

struct report_model {
	enum rm_mode mode;
	char timestamp[16];		/* "HH:MM:SS", as the text report's header */
	uint64_t now_ns;		/* the snapshot's clock (CLOCK_MONOTONIC) */
	uint64_t min_age_ns;		/* allocations younger were left out */
	enum mt_sort sort;
	unsigned int top;
	bool sampled;
	uint32_t sample_every, sample_bytes;
	int pid;			/* user mode: the target; 0 otherwise */
	bool final;			/* user mode: the target ended (allocations in use at exit) */
	struct rm_stack *stacks;	/* as the text report ranks them, biggest first */
	size_t nr_stacks;
	uint64_t bytes, count;		/* sums over stacks */
	struct rm_cache *caches;	/* kernel modes: every cache, by name */
	size_t nr_caches;
	struct memtrace_loss loss;
	struct memtrace_activity activity;
	/*
	 * RM_GROWTH: the mode as --json names it ("brk", "faults"...), what
	 * its stacks count, a title for the flame graph, and the session's
	 * numbers so far (every stack's, not only the -T shown; the text's
	 * Lost: line and the calls not counted for want of memory).
	 */
	const char *growth_mode;
	enum rm_counts counts;
	const char *title;
	uint64_t total_count, total_bytes, total_major;
	uint64_t lost_events, probe_missed, untracked;
};

/* The mode's name in every format: rmodel_mode_name(), or a growth mode's own. */
const char *rmodel_name(const struct report_model *m);

/*
 * Adds a copy of a frame of a process's stack to st (as usyms_frames()
 * filled it), with its text and its mapping from us (NULL: none known).
 * *cap is st->frames' room (0 at first).  Returns 0 or -ENOMEM.
 */
int rmodel_add_user_frame(struct rm_stack *st, size_t *cap, const struct rm_frame *f,
			  struct usyms *us);

/*
 * The leak report's model: the stacks report_leaks() prints (the same
 * ranking, the same -T), from the same totals.
 */
int rmodel_build_leaks(struct report_model *m, const struct mt_snapshot *snap,
		       const struct stack_total *totals, size_t nr_totals,
		       const struct report_ctx *ctx);

/*
 * rmodel_build_leaks without the stacks' frames (nor notes) nor the
 * caches (fmt_memcheck shows neither; the caches take a sort): a caller
 * that prints stack by stack gives each its frames with
 * rmodel_stack_frames and takes them back with rmodel_stack_drop_frames,
 * so that a report of 100K stacks never holds all their frames at once.
 */
int rmodel_build_leaks_frameless(struct report_model *m, const struct mt_snapshot *snap,
				 const struct stack_total *totals, size_t nr_totals,
				 const struct report_ctx *ctx);
int rmodel_stack_frames(struct rm_stack *st, const struct mt_snapshot *snap,
			const struct report_ctx *ctx);
void rmodel_stack_drop_frames(struct rm_stack *st);

/*
 * --slab's model: per (cache, stack), the live objects and bytes of the
 * -T caches the text report shows, biggest cache first.
 */
int rmodel_build_slab(struct report_model *m, const struct mt_snapshot *snap,
		      const struct report_ctx *ctx);

void rmodel_free(struct report_model *m);

/* "kernel-leaks", "user-leaks", "slab": as the JSON schema names modes. */
const char *rmodel_mode_name(enum rm_mode mode);

#endif
