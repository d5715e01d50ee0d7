/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memleak-style report of outstanding kernel allocations, and the
 * parts every report shares: stack printing and the loss/activity footer.
 */
#ifndef MEMTRACE_READ_REPORT_H
#define MEMTRACE_READ_REPORT_H

#include <stdio.h>

#include "aggregate.h"
#include "cli.h"
#include "ksyms.h"
#include "snapshot.h"
#include "images.h"
#include "trend.h"
#include "usyms.h"

struct report_ctx {
	const struct mt_options *opts;
	struct ksyms *ksyms;
	const struct images *images;		/* user mode: frames are its images' */
	const char *title;			/* NULL: "Top N stacks with outstanding allocations:" */
	const struct trend_table *trend;	/* NULL: no [growing]/[stable] tags */
	char timestamp[16];			/* "HH:MM:SS" */
	bool final;				/* user mode: the target ended */
	/*
	 * report_rank's result for these totals and options, made once for
	 * the report, its summary and its formats (NULL: each ranks them).
	 */
	const struct stack_total *const *ranked;
	size_t nr_ranked;
};

/* An allocation's address as its process sees it (see MEMTRACE_USER_ADDR). */
static inline uint64_t report_addr(uint64_t addr, uint8_t kind)
{
	return kind == MEMTRACE_KIND_USER || kind == MEMTRACE_KIND_USER_MMAP ?
	       MEMTRACE_USER_ADDR(addr) : addr;
}

/* Kinds of allocation the leak report covers for these options. */
unsigned int report_kind_mask(const struct mt_options *opts);

/*
 * One report: "[HH:MM:SS] Top N stacks with outstanding allocations:", the
 * top stacks (largest last, as memleak prints them), the footer, a blank
 * line.  totals come from aggregate_by_stack(snap, report_kind_mask()).
 */
int report_leaks(FILE *out, const struct mt_snapshot *snap,
		 const struct stack_total *totals, size_t nr_totals,
		 const struct report_ctx *ctx);

/*
 * The stacks of the leak report, biggest first (by --sort), as
 * report_leaks() shows the first -T of them: those with outstanding
 * allocations (through --module's code, with --module).  *out is an array
 * of pointers into totals (free() it).  0 or -ENOMEM.
 */
int report_rank(const struct mt_snapshot *snap, const struct stack_total *totals,
		size_t nr_totals, const struct report_ctx *ctx,
		const struct stack_total ***out, size_t *nr_out);

/* Whether a kernel stack has a frame in module's code (as it was then). */
bool report_stack_through(const struct mt_snapshot *snap, uint32_t stack_id,
			  struct ksyms *ks, const char *module);

/*
 * The module-leak check: for each module unloaded (its code freed) since
 * code epoch *seen_epoch, "[HH:MM:SS] Module M unloaded: ..." and the
 * stacks through its code, made before it went, still live; *seen_epoch
 * moves to the snapshot's.  With --module, that module only.
 */
int report_module_unloads(FILE *out, const struct mt_snapshot *snap,
			  const struct stack_total *totals, size_t nr_totals,
			  const struct report_ctx *ctx, uint32_t *seen_epoch);

/*
 * The frames of a stack, one per line, each line prefixed by indent:
 * symbolized by us (user mode) if given, else by ks.  o (may be NULL)
 * chooses memleak's forms: --memleak-format (one line per address,
 * "function+0xoff [module]", "[unknown]"), --frame-addresses (BCC's
 * "0x%016x\t" first).
 */
void report_stack(FILE *out, const struct mt_snapshot *snap, uint32_t stack_id,
		  struct ksyms *ks, struct usyms *us, const char *indent,
		  const struct mt_options *o);

/* "Lost: ..." and "Activity: ..." lines, plus sampling and symbol notes. */
void report_footer(FILE *out, const struct mt_snapshot *snap, const struct ksyms *ks);
/* The "Unwind:" line: how user stacks were walked, why those that ended early ended. */
void report_unwind(FILE *out, const struct memtrace_unwind_stats *u);
/* What MEMTRACE_BLIND_* bits leave unseen, in words. */
void report_blind_str(uint32_t blind, char *buf, size_t len);

#endif
