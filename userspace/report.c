// SPDX-License-Identifier: GPL-2.0
/*
 * Output follows memleak(8): a header per interval, then per stack
 * "\tB bytes in N allocations from stack" and its frames, one per line
 * after two tabs.  memtrace adds the growth tag, a loss/activity footer
 * (a report never hides what the module could not record) and, with -a,
 * the allocating task and the age of each allocation.
 */
#include "report.h"
#include "frames.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

unsigned int report_kind_mask(const struct mt_options *opts)
{
	/*
	 * Pages backing a slab are the allocator's growth; the objects in them
	 * are reported with their own stacks (and --slab shows the caches).
	 * The pages of a vmalloc area, of a percpu chunk and of a large
	 * kmalloc likewise back allocations reported on their own.
	 */
	return opts->percpu ? KIND_BIT(MEMTRACE_KIND_PERCPU)
			    : KIND_MASK_ALL & ~KIND_MASK_BACKING;
}

/* A frame as -M (memleak's format) prints it: "function+0xoff [module]" */
static void memleak_frame(struct mt_outbuf *ob, const struct rm_frame *f)
{
	char off[24];

	if (f->function) {
		mt_outbuf_puts(ob, f->function);
		mt_outbuf_put(ob, off, (size_t)snprintf(off, sizeof(off), "+0x%" PRIx64, f->offset));
	} else {
		mt_outbuf_puts(ob, "[unknown]");
	}
	if (f->module) {
		mt_outbuf_put(ob, " [", 2);
		mt_outbuf_puts(ob, f->module);
		mt_outbuf_put(ob, "]", 1);
	}
}

void report_stack(FILE *out, const struct mt_snapshot *snap, uint32_t stack_id,
		  struct ksyms *ks, struct usyms *us, const char *indent,
		  const struct mt_options *o)
{
	bool memleak = o && o->memleak_format, addresses = o && o->frame_addresses;
	size_t indent_len = strlen(indent);
	struct mt_outbuf ob;
	struct rm_frame *frames;
	const char *note;
	size_t nr;

	if (rmodel_frames(snap, stack_id, ks, us, &frames, &nr, &note)) {
		fprintf(out, "%s[stack not shown: out of memory]\n", indent);
		return;
	}
	if (note)
		fprintf(out, "%s%s\n", indent, note);
	/* The stack's lines in one write: millions of lines in a big report. */
	mt_outbuf_init(&ob, out);
	for (size_t i = 0; i < nr; i++) {
		const struct rm_frame *f = &frames[i];

		/* memleak prints one line per address, without source lines. */
		if (memleak && f->inlined)
			continue;
		mt_outbuf_put(&ob, indent, indent_len);
		if (addresses) {
			char a[24];

			mt_outbuf_put(&ob, a, (size_t)snprintf(a, sizeof(a), "0x%016" PRIx64 "\t",
							       f->addr));
		}
		if (memleak)
			memleak_frame(&ob, f);
		else
			mt_outbuf_puts(&ob, f->text);
		mt_outbuf_put(&ob, "\n", 1);
	}
	mt_outbuf_flush(&ob);
	rmodel_free_frames(frames, nr);
}

void report_blind_str(uint32_t blind, char *buf, size_t len)
{
	static const char *const what[] = {
		"frees by kmem_cache_free_bulk/kfree_bulk (kfree_rcu batches): "
		"their allocations may show as leaks",
		"allocations by kmem_cache_alloc_bulk",
		"vmalloc and vfree",
		"krealloc resizing in place (requested sizes stay the old ones)",
		"mempool reserve elements (may show as leaks of their last user)",
		"percpu chunk pages (counted as pages besides the percpu allocations)",
		"slab caches destroyed (a cache created at a destroyed one's address "
		"may show its name)",
		"split_page (pages of a split block are counted as the block until freed)",
	};
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < MT_ARRAY_SIZE(what); i++) {
		if (!(blind & (1U << i)))
			continue;
		pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0, "%s%s",
					pos ? "; " : "", what[i]);
		if (pos >= len)
			break;
	}
}

void report_unwind(FILE *out, const struct memtrace_unwind_stats *u)
{
	fprintf(out, "Unwind: %u tables (%llu KiB) for %u files; frames %llu by table, "
		"%llu by frame pointer, %llu signal; stacks ended: %llu outermost, "
		"%llu no table, %llu unmapped PC, %llu bad rule, %llu not upward, "
		"%llu fault, %llu address space busy\n",
		u->nr_tables, (unsigned long long)(u->table_bytes >> 10), u->nr_files,
		(unsigned long long)u->frames_cfi, (unsigned long long)u->frames_fp,
		(unsigned long long)u->frames_signal, (unsigned long long)u->end_outermost,
		(unsigned long long)u->end_no_table, (unsigned long long)u->end_unmapped,
		(unsigned long long)u->end_bad_rule, (unsigned long long)u->end_not_up,
		(unsigned long long)u->end_fault, (unsigned long long)u->mm_busy);
}

void report_footer(FILE *out, const struct mt_snapshot *snap, const struct ksyms *ks)
{
	const struct memtrace_loss *l = &snap->hdr.loss;
	const struct memtrace_activity *a = &snap->hdr.activity;

	fprintf(out, "Lost: %llu recursion, %llu nmi, %llu index full, %llu stack table full, "
		"%llu counter table full, %llu cache table full, %llu task name table full, "
		"%llu frees of untracked addresses, %llu frees never seen (address reused), "
		"%llu probe hits missed\n",
		(unsigned long long)l->recursion, (unsigned long long)l->nmi,
		(unsigned long long)l->live_full, (unsigned long long)l->stack_full,
		(unsigned long long)l->stat_full, (unsigned long long)l->cache_full,
		(unsigned long long)l->comm_full, (unsigned long long)l->free_untracked,
		(unsigned long long)l->missed_free, (unsigned long long)l->probe_missed);
	if (snap->hdr.blind) {
		char blind[256];

		report_blind_str(snap->hdr.blind, blind, sizeof(blind));
		fprintf(out, "Not seen on this kernel (no function to probe): %s\n", blind);
	}
	if (snap->hdr.ksyms_dropped)
		fprintf(out, "Names: %u functions of module code freed while tracing were not "
			"kept (store full): their frames show as [unknown]\n",
			snap->hdr.ksyms_dropped);
	fprintf(out, "Activity: %llu allocs seen, %llu frees seen, %llu recorded, "
		"%llu frees matched, %llu filtered, %llu sampled out, "
		"%llu live (index capacity %llu)\n",
		(unsigned long long)a->allocs_seen, (unsigned long long)a->frees_seen,
		(unsigned long long)a->allocs_recorded, (unsigned long long)a->frees_matched,
		(unsigned long long)a->filtered, (unsigned long long)a->sampled_out,
		(unsigned long long)a->live_entries, (unsigned long long)a->live_capacity);
	if (snap->hdr.events & MEMTRACE_EV_USER) {
		const struct memtrace_target_state *t = &snap->hdr.target;

		fprintf(out, "User: pid %d, %u uprobes, %llu nested calls counted once, "
			"%llu stacks cut short, %llu calls not recorded (call table full)\n",
			t->pid, t->nr_uprobes, (unsigned long long)t->nested,
			(unsigned long long)t->stack_faults, (unsigned long long)l->calls_full);
		report_unwind(out, &snap->hdr.unwind);
		if (t->nr_processes > 1 || t->forks_full)
			fprintf(out, "Forks: %u processes traced, %llu children not followed "
				"(too many processes)\n", t->nr_processes,
				(unsigned long long)t->forks_full);
	}
	if (l->trace_full)
		fprintf(out, "Trace: %llu records dropped (ring full: the reader fell behind)\n",
			(unsigned long long)l->trace_full);
	if (snap->hdr.sample_every > 1)
		fprintf(out, "Sampling 1 in %u allocations: counts are estimates.\n",
			snap->hdr.sample_every);
	else if (snap->hdr.sample_bytes > 0)
		fprintf(out, "Sampling about once per %u bytes allocated: counts are estimates.\n",
			snap->hdr.sample_bytes);
	if (ks && ksyms_restricted(ks))
		fprintf(out, "Note: %s shows no kernel addresses (kptr_restrict, or not root): "
			"frames are not symbolized.\n", ksyms_path(ks));
	if (snap->hdr.state != MEMTRACE_STATE_TRACING)
		fprintf(out, "Note: the module reports that tracing is stopped.\n");
}

/* qsort has no argument for the comparison: the ranking sets it. */
static _Thread_local enum mt_sort rank_sort;

static int rank_cmp(const void *a, const void *b)
{
	const struct stack_total *x = *(const struct stack_total * const *)a;
	const struct stack_total *y = *(const struct stack_total * const *)b;
	enum mt_sort sort = rank_sort;
	uint64_t xk1 = sort == MT_SORT_SIZE ? x->old_bytes : x->old_count;
	uint64_t yk1 = sort == MT_SORT_SIZE ? y->old_bytes : y->old_count;
	uint64_t xk2 = sort == MT_SORT_SIZE ? x->old_count : x->old_bytes;
	uint64_t yk2 = sort == MT_SORT_SIZE ? y->old_count : y->old_bytes;

	/* Biggest first; the stack id keeps equal ones in a stable order. */
	if (xk1 != yk1)
		return xk1 > yk1 ? -1 : 1;
	if (xk2 != yk2)
		return xk2 > yk2 ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

int report_rank(const struct mt_snapshot *snap, const struct stack_total *totals,
		size_t nr_totals, const struct report_ctx *ctx,
		const struct stack_total ***out, size_t *nr_out)
{
	const struct mt_options *o = ctx->opts;
	const struct stack_total **ranked;
	size_t nr = 0;

	ranked = calloc(nr_totals ? nr_totals : 1, sizeof(*ranked));
	if (!ranked)
		return -ENOMEM;
	if (ctx->ranked) {
		/* Ranked already: 100K stacks took a sort each time. */
		memcpy(ranked, ctx->ranked, ctx->nr_ranked * sizeof(*ranked));
		*out = ranked;
		*nr_out = ctx->nr_ranked;
		return 0;
	}
	for (size_t i = 0; i < nr_totals; i++) {
		if (totals[i].old_count == 0)
			continue;	/* nothing outstanding from this stack */
		if (o->module && ctx->ksyms &&
		    !report_stack_through(snap, totals[i].stack_id, ctx->ksyms, o->module))
			continue;
		ranked[nr++] = &totals[i];
	}
	rank_sort = o->sort;
	qsort(ranked, nr, sizeof(*ranked), rank_cmp);
	*out = ranked;
	*nr_out = nr;
	return 0;
}

static int alloc_cmp(const void *a, const void *b)
{
	const struct memtrace_alloc_rec *x = *(const struct memtrace_alloc_rec * const *)a;
	const struct memtrace_alloc_rec *y = *(const struct memtrace_alloc_rec * const *)b;

	if (x->stack_id != y->stack_id)
		return x->stack_id < y->stack_id ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * -a: memleak's "addr = %x size = %u" per outstanding allocation of the
 * stack, oldest first, with the allocating task and the age.  For page
 * allocations addr is the PFN, as in memleak.
 */
static void print_allocs(FILE *out, const struct mt_snapshot *snap,
			 const struct memtrace_alloc_rec **sorted, size_t nr,
			 uint32_t stack_id, unsigned int kind_mask, bool memleak)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid]->stack_id < stack_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < nr && sorted[i]->stack_id == stack_id; i++) {
		const struct memtrace_alloc_rec *r = sorted[i];
		uint64_t age = snap->hdr.now_ns > r->ts_ns ? snap->hdr.now_ns - r->ts_ns : 0;
		char comm[MEMTRACE_COMM_LEN + 1];

		if (r->kind >= 32 || !(kind_mask & KIND_BIT(r->kind)) || age < snap->hdr.min_age_ns)
			continue;
		if (memleak) {
			fprintf(out, "\taddr = %llx size = %u\n",
				(unsigned long long)report_addr(r->addr, r->kind), r->bytes_alloc);
			continue;
		}
		memcpy(comm, r->comm, MEMTRACE_COMM_LEN);
		comm[MEMTRACE_COMM_LEN] = '\0';
		fprintf(out, "\taddr = %llx size = %u requested = %u pid = %u comm = %s "
			"age = %llu.%03llus\n",
			(unsigned long long)report_addr(r->addr, r->kind), r->bytes_alloc,
			r->bytes_req, r->pid, comm,
			(unsigned long long)(age / 1000000000ULL),
			(unsigned long long)(age / 1000000ULL % 1000ULL));
	}
}

/*
 * " [growing: +B/interval]" or " [stable]".  The trend follows the recorded
 * live bytes; under sampling the growth is scaled like the stack's
 * estimates and marked "~" as one.
 */
static void trend_tag(const struct report_ctx *ctx, const struct mt_snapshot *snap,
		      const struct stack_total *t, char *buf, size_t len)
{
	uint64_t per = 0;

	buf[0] = '\0';
	if (!ctx->trend)
		return;
	switch (trend_classify(ctx->trend, stack_total_key(t), &per)) {
	case TREND_GROWING:
		if (snapshot_sampled(snap)) {
			double scale = t->old_bytes_recorded ?
				(double)t->old_bytes / (double)t->old_bytes_recorded :
				snap->hdr.sample_every > 1 ? snap->hdr.sample_every : 1;

			snprintf(buf, len, " [growing: ~+%llu/interval]",
				 (unsigned long long)((double)per * scale));
		} else {
			snprintf(buf, len, " [growing: +%llu/interval]", (unsigned long long)per);
		}
		break;
	case TREND_STABLE:
		snprintf(buf, len, " [stable]");
		break;
	case TREND_NONE:
		break;
	}
}

bool report_stack_through(const struct mt_snapshot *snap, uint32_t stack_id,
			  struct ksyms *ks, const char *module)
{
	const struct mt_stack *s = snapshot_stack(snap, stack_id);

	for (uint32_t i = 0; s && i < s->nr_frames; i++)
		if (ksyms_frame_in_module(ks, snap, s->epoch, s->ips[i], module))
			return true;
	return false;
}

struct unload_stack {
	const struct stack_total *t;
};

static int unload_cmp(const void *a, const void *b)
{
	const struct stack_total *x = ((const struct unload_stack *)a)->t;
	const struct stack_total *y = ((const struct unload_stack *)b)->t;

	if (x->old_bytes != y->old_bytes)
		return x->old_bytes < y->old_bytes ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* One unloaded module: what its code allocated and nothing freed. */
static int report_one_unload(FILE *out, const struct mt_snapshot *snap,
			     const struct stack_total *totals, size_t nr_totals,
			     const struct report_ctx *ctx, const struct mt_freed_sym *range)
{
	struct unload_stack *left = calloc(nr_totals ? nr_totals : 1, sizeof(*left));
	uint64_t bytes = 0, count = 0;
	size_t n = 0;

	if (!left)
		return -ENOMEM;
	for (size_t i = 0; i < nr_totals; i++) {
		const struct mt_stack *s = snapshot_stack(snap, totals[i].stack_id);

		/*
		 * Stacks made while the module was there, through its code (the
		 * outstanding counts: -o applies, backing pages are not twice).
		 */
		if (!totals[i].old_count || !s || s->epoch >= range->freed_epoch ||
		    !report_stack_through(snap, totals[i].stack_id, ctx->ksyms, range->module))
			continue;
		left[n++].t = &totals[i];
		bytes += totals[i].old_bytes;
		count += totals[i].old_count;
	}
	if (!n) {
		fprintf(out, "[%s] Module %s unloaded: nothing allocated through its code is "
			"still live.\n\n", ctx->timestamp, range->module);
		free(left);
		return 0;
	}
	qsort(left, n, sizeof(*left), unload_cmp);
	fprintf(out, "[%s] Module %s unloaded: %llu bytes in %llu allocations made through "
		"its code are still live:\n", ctx->timestamp, range->module,
		(unsigned long long)bytes, (unsigned long long)count);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "\t%llu bytes in %llu allocations from stack\n",
			(unsigned long long)left[i].t->old_bytes,
			(unsigned long long)left[i].t->old_count);
		report_stack(out, snap, left[i].t->stack_id, ctx->ksyms, NULL, "\t\t", ctx->opts);
	}
	fputc('\n', out);
	free(left);
	return 0;
}

int report_module_unloads(FILE *out, const struct mt_snapshot *snap,
			  const struct stack_total *totals, size_t nr_totals,
			  const struct report_ctx *ctx, uint32_t *seen_epoch)
{
	uint32_t newest = *seen_epoch;
	int ret = 0;

	/* In the order the modules went. */
	for (uint32_t epoch = *seen_epoch + 1; epoch <= snap->hdr.code_epoch && !ret; epoch++) {
		for (size_t i = 0; i < snap->nr_freed_syms && !ret; i++) {
			const struct mt_freed_sym *f = &snap->freed_syms[i];

			if (f->freed_epoch != epoch || !(f->flags & MEMTRACE_KSYM_RANGE) ||
			    (f->flags & MEMTRACE_KSYM_INIT))
				continue;
			if (!ctx->opts->module || !strcmp(ctx->opts->module, f->module))
				ret = report_one_unload(out, snap, totals, nr_totals, ctx, f);
		}
		newest = epoch;
	}
	*seen_epoch = newest;
	return ret;
}

/*
 * " [pid N /path]": which image a user stack belongs to, once the target
 * is more than one (it exec'd, or forked with --follow-forks).
 */
static const char *image_tag(const struct report_ctx *ctx, const struct mt_snapshot *snap,
			     const struct stack_total *t, char *buf, size_t len)
{
	char name[PATH_MAX + 32];

	if (!ctx->images || snap->hdr.target.nr_processes < 2)
		return "";
	snprintf(buf, len, " [%s]", images_name(ctx->images, t->image, name, sizeof(name)));
	return buf;
}

int report_leaks(FILE *out, const struct mt_snapshot *snap,
		 const struct stack_total *totals, size_t nr_totals,
		 const struct report_ctx *ctx)
{
	const struct mt_options *o = ctx->opts;
	unsigned int kind_mask = report_kind_mask(o);
	const struct memtrace_alloc_rec **allocs = NULL;
	const struct stack_total **ranked;
	size_t nr = 0, shown;

	int ret = report_rank(snap, totals, nr_totals, ctx, &ranked, &nr);

	if (ret)
		return ret;
	shown = nr < o->top ? nr : o->top;

	if (o->show_allocs && snap->nr_allocs) {
		allocs = calloc(snap->nr_allocs, sizeof(*allocs));
		if (!allocs) {
			free(ranked);
			return -ENOMEM;
		}
		for (size_t i = 0; i < snap->nr_allocs; i++)
			allocs[i] = &snap->allocs[i];
		qsort(allocs, snap->nr_allocs, sizeof(*allocs), alloc_cmp);
	}

	if (ctx->title && !o->memleak_format)
		fprintf(out, "[%s] %s\n", ctx->timestamp, ctx->title);
	else
		fprintf(out, "[%s] Top %u stacks with outstanding allocations:\n",
			ctx->timestamp, o->top);
	/* memleak prints the largest last, next to the prompt. */
	for (size_t i = shown; i-- > 0;) {
		const struct stack_total *t = ranked[i];
		char tag[64], whose[PATH_MAX + 64];

		if (allocs)
			print_allocs(out, snap, allocs, snap->nr_allocs, t->stack_id, kind_mask,
				     o->memleak_format);
		trend_tag(ctx, snap, t, tag, sizeof(tag));
		/* memleak's line and nothing after it. */
		fprintf(out, "\t%llu bytes in %llu allocations from stack%s%s\n",
			(unsigned long long)t->old_bytes, (unsigned long long)t->old_count,
			o->memleak_format ? "" : tag,
			o->memleak_format ? "" : image_tag(ctx, snap, t, whose, sizeof(whose)));
		if (o->combined_only && !o->memleak_format)
			fprintf(out, "\t(total: %llu allocs, %llu bytes; %llu frees)\n",
				(unsigned long long)t->total_allocs,
				(unsigned long long)t->total_bytes,
				(unsigned long long)t->frees);
		report_stack(out, snap, t->stack_id, ctx->ksyms,
			     ctx->images ? images_usyms(ctx->images, t->image) : NULL, "\t\t", o);
	}
	if (!o->memleak_format)
		report_footer(out, snap, ctx->ksyms);
	fputc('\n', out);
	free(allocs);
	free(ranked);
	return 0;
}
