// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks for the allocation hooks, and their memo; a kprobe's stack
 * from its registers; see kstack.h.
 */
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/memtrace.h>

#include "unwind/kstack.h"

#ifdef MT_HAVE_REGS_UNWIND
#include <asm/unwind.h>
#endif

/*
 * The tracepoint machinery between a probe and the code that traced: a
 * tracepoint with more than one probe calls them through
 * __traceiter_<event>(), and where the compiler does not inline them (7.x
 * built for size) the static inline trace_<event>() and, on 7.x, its
 * __do_trace_<event>() are out-of-line copies in the traced file (many
 * copies of one name: known by name only).  Only frames right above this
 * module's are tested, so a trace_ prefix there is the wrapper, not code
 * that allocates.  Each CPU remembers the last functions it looked up,
 * tracing or not, so kallsyms is asked only on a stack the memo did not
 * know, and rarely then.
 */
#define MT_KSTACK_TFN_SLOTS	8

struct mt_kstack_tfn_cache {
	struct {
		unsigned long start, end;	/* [start, end); end 0: unused */
		bool tracing;
	} fn[MT_KSTACK_TFN_SLOTS];
	unsigned int next;		/* the slot to replace next */
	int generation;			/* ks->generation the slots hold for */
	char sym[KSYM_SYMBOL_LEN];
};

static int mt_kstack_tfn_init(struct mt_kstack *ks)
{
	if (!ks->self)
		return 0;
	ks->tfn = alloc_percpu(struct mt_kstack_tfn_cache);
	return ks->tfn ? 0 : -ENOMEM;
}

static void mt_kstack_tfn_destroy(struct mt_kstack *ks)
{
	free_percpu(ks->tfn);
	ks->tfn = NULL;
}

/* Is the function at return address ip a tracing frame?  Interrupts off. */
static bool mt_kstack_tracing_frame(const struct mt_kstack *ks, unsigned long ip)
{
	struct mt_kstack_tfn_cache *tc = this_cpu_ptr(ks->tfn);
	int generation = atomic_read(&ks->generation);
	unsigned long off, size;
	const char *plus, *slash;
	unsigned int i;
	bool tracing;

	/* A module's functions may be another's after it unloads. */
	if (tc->generation != generation) {
		memset(tc->fn, 0, sizeof(tc->fn));
		tc->generation = generation;
	}
	for (i = 0; i < MT_KSTACK_TFN_SLOTS; i++) {
		if (ip - 1 - tc->fn[i].start < tc->fn[i].end - tc->fn[i].start)
			return tc->fn[i].tracing;
	}
	/* "name+0xoff/0xsize [module]" of the call (ip is its return address). */
	sprint_symbol(tc->sym, ip - 1);
	plus = strrchr(tc->sym, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!slash || sscanf(plus + 1, "%lx", &off) != 1 ||
	    sscanf(slash + 1, "%lx", &size) != 1 || !size)
		return false;
	tracing = str_has_prefix(tc->sym, "__do_trace_") ||
		  str_has_prefix(tc->sym, "__traceiter_") ||
		  str_has_prefix(tc->sym, "trace_");
	i = tc->next++ % MT_KSTACK_TFN_SLOTS;
	tc->fn[i].start = ip - 1 - off;
	tc->fn[i].end = tc->fn[i].start + size;
	tc->fn[i].tracing = tracing;
	return tracing;
}

/*
 * Drop the frames of the tracing machinery: start at the allocation's call
 * site when the stack has it, else after the frames of ks->self and the
 * tracepoint's own (mt_kstack_tracing_frame()).
 */
static unsigned int mt_kstack_trim(const struct mt_kstack *ks, unsigned long *ip,
				   unsigned int nr, unsigned long call_site,
				   unsigned int depth)
{
	unsigned int i, first = 0;

	for (i = 0; call_site && i < nr; i++) {
		if (ip[i] == call_site) {
			first = i;
			goto found;
		}
	}
	if (ks->self) {
		first = nr;
		for (i = 0; i < nr; i++) {
			if (!within_module(ip[i], (struct module *)ks->self)) {
				first = i;
				break;
			}
		}
		while (first < nr && ks->tfn && mt_kstack_tracing_frame(ks, ip[first]))
			first++;
	}
found:
	nr = min(nr - first, depth);
	if (first && nr)
		memmove(ip, ip + first, nr * sizeof(*ip));
	return nr;
}

#ifdef MT_HAVE_KSTACK_MEMO
#include <asm/unwind.h>

struct mt_kstack_memo_slot {
	unsigned long key;	/* the call site, else the depth: see mt_kstack_id() */
	u32 stack_id;
	u32 generation;		/* ks->generation when made */
	u16 depth;		/* the depth the id was trimmed to */
	u16 nr;			/* frames unwound; 0: an empty slot */
	/*
	 * Frames from bp_frame on (0: none) were found from the frame pointer
	 * of the one before it, a function whose frame size varies (the system
	 * call entry's random stack offset).  Their offsets are from that
	 * frame pointer, whose value the stack holds at bp_slot (from top).
	 */
	u16 bp_frame;
	u16 user_regs;		/* the user-mode registers the walk ended at; 0: none */
	s32 bp_slot;
	u16 off[MT_KSTACK_MEMO_FRAMES];	/* where each return address was read */
	unsigned long ip[MT_KSTACK_MEMO_FRAMES];
};

int mt_kstack_init(struct mt_kstack *ks, struct mt_stacktab *stacks,
		   const struct module *self, u32 memo_slots)
{
	int ret;

	memset(ks, 0, sizeof(*ks));
	ks->stacks = stacks;
	ks->self = self;
	ret = mt_kstack_tfn_init(ks);
	if (ret || !memo_slots)
		return ret;
	/* Two-way: slots come in pairs. */
	memo_slots = roundup_pow_of_two(max(memo_slots, 2U));
	ks->memo = kvcalloc(array_size(nr_cpu_ids, memo_slots + 1), sizeof(*ks->memo),
			    GFP_KERNEL);
	if (!ks->memo) {
		mt_kstack_tfn_destroy(ks);
		return -ENOMEM;
	}
	ks->memo_mask = memo_slots - 1;
	return 0;
}

void mt_kstack_destroy(struct mt_kstack *ks)
{
	kvfree(ks->memo);
	ks->memo = NULL;
	mt_kstack_tfn_destroy(ks);
}

void mt_kstack_clear(struct mt_kstack *ks)
{
	if (ks->memo)
		memset(ks->memo, 0, array_size(nr_cpu_ids, ks->memo_mask + 2) *
		       sizeof(*ks->memo));
}

/* Is [addr, addr + len) inside the task stack at base? */
static bool mt_in_stack(unsigned long base, unsigned long addr, size_t len)
{
	return addr - base <= THREAD_SIZE - len;
}

static bool mt_on_task_stack(unsigned long addr, size_t len)
{
	return mt_in_stack((unsigned long)task_stack_page(current), addr, len);
}

/*
 * What one step of the unwinder used, found by taking it again with the
 * frame pointer nudged and comparing with where it went.
 */
#define MT_BP_NUDGE	(2 * sizeof(long))

enum mt_step_kind {
	MT_STEP_SP,	/* the frame's place follows from the return address alone */
	MT_STEP_BP,	/* the frame is at the frame pointer plus a constant */
	MT_STEP_OTHER,
};

/* Where the frame pointer the unwinder carries came from. */
enum mt_bp_source {
	MT_BP_CARRIED,	/* unchanged by the step */
	MT_BP_LOADED,	/* read from the popped frame, at a place the step fixes */
	MT_BP_UNKNOWN,
};

static enum mt_step_kind mt_step_kind(const struct unwind_state *before,
				      struct unwind_state *after,
				      enum mt_bp_source *bp_source)
{
	struct unwind_state again = *before;

	again.bp += MT_BP_NUDGE;
	unwind_next_frame(&again);
	if (again.bp == before->bp + MT_BP_NUDGE && after->bp == before->bp)
		*bp_source = MT_BP_CARRIED;
	else if (again.bp == after->bp)
		*bp_source = MT_BP_LOADED;
	else
		*bp_source = MT_BP_UNKNOWN;
	if (unwind_error(&again) != unwind_error(after) ||
	    unwind_done(&again) != unwind_done(after))
		return MT_STEP_OTHER;
	if (again.sp == after->sp && again.ip == after->ip && again.regs == after->regs)
		return MT_STEP_SP;
	if (again.sp == after->sp + MT_BP_NUDGE && !after->regs && !again.regs)
		return MT_STEP_BP;
	return MT_STEP_OTHER;
}

/*
 * The offset from top of the one stack word, in the frames popped so far
 * (from the frame pointer mt_kstack_id() saved, below top, up to sp), that
 * holds bp.  A frame pointer the unwinder loaded came from one of those
 * words; if two hold it, which one is not known.
 */
static bool mt_find_bp_slot(const unsigned long *top, unsigned long sp,
			    unsigned long bp, s32 *slot)
{
	const unsigned long *p, *found = NULL;

	for (p = top - 1; (unsigned long)p < sp; p++) {
		if (READ_ONCE_NOCHECK(*p) != bp)
			continue;
		if (found)
			return false;
		found = p;
	}
	if (!found)
		return false;
	*slot = (long)((unsigned long)found - (unsigned long)top);
	return true;
}

/*
 * Record frame nr's return address slot, from base, in the memo.  Along a
 * walk, from one base, the slots rise: mt_kstack_memo_holds() bounds a
 * run of them by its first and last.
 */
static bool mt_memo_frame(struct mt_kstack_memo_slot *slot, unsigned int nr,
			  unsigned long base, const unsigned long *ret,
			  unsigned long ip)
{
	unsigned long off = (unsigned long)ret - base;

	if (nr >= MT_KSTACK_MEMO_FRAMES || off > U16_MAX ||
	    (nr && nr != slot->bp_frame && off <= slot->off[nr - 1]) ||
	    !mt_on_task_stack((unsigned long)ret, sizeof(*ret)) ||
	    READ_ONCE_NOCHECK(*ret) != ip)
		return false;
	slot->off[nr] = off;
	slot->ip[nr] = ip;
	return true;
}

/*
 * Unwind from the return address at top into frames[0..max); if slot is
 * not NULL, fill it in as a memo of this walk and say whether it is one
 * (see kstack.h for the walks that may not be).
 */
static unsigned int mt_kstack_unwind(unsigned long *top, unsigned long *frames,
				     unsigned int max,
				     struct mt_kstack_memo_slot *slot, bool *memo_ok)
{
	struct unwind_state st, before;
	enum mt_bp_source bp_source;
	/* The frame pointer at the first frame is the one saved below top. */
	bool ok = slot, bp_traceable = true;
	unsigned long base = (unsigned long)top;
	unsigned int nr = 0;

	if (slot)
		slot->bp_frame = 0;
	for (unwind_start(&st, current, NULL, top); !unwind_done(&st);) {
		unsigned long ip = unwind_get_return_address(&st);

		if (!ip)
			break;
		/* Where the kernel does not, put back what a kretprobe replaced. */
		ip = mt_krp_unwind_fix(&st, ip);
		frames[nr] = ip;
		if (ok && (st.regs || st.stack_info.type != STACK_TYPE_TASK ||
			   !mt_memo_frame(slot, nr, base, (unsigned long *)st.sp - 1, ip)))
			ok = false;
		if (++nr == max)
			break;
		if (ok)
			before = st;
		unwind_next_frame(&st);
		if (!ok)
			continue;
		if (unwind_error(&st)) {
			ok = false;
			continue;
		}
		switch (mt_step_kind(&before, &st, &bp_source)) {
		case MT_STEP_SP:
			if (bp_source == MT_BP_LOADED)
				bp_traceable = true;
			else if (bp_source == MT_BP_UNKNOWN)
				bp_traceable = false;
			break;
		case MT_STEP_BP:
			/* Once, and from a frame pointer the stack holds. */
			ok = !slot->bp_frame && bp_traceable &&
			     mt_on_task_stack(before.bp, sizeof(long)) &&
			     mt_find_bp_slot(top, before.sp, before.bp, &slot->bp_slot);
			slot->bp_frame = nr;
			base = before.bp;
			break;
		default:
			ok = false;
		}
	}
	if (ok) {
		unsigned long regs_off = (unsigned long)st.regs - base;

		slot->nr = nr;
		slot->user_regs = 0;
		if (nr == max || (unwind_done(&st) && !unwind_error(&st))) {
			/* Ended by the count, or by the ORC data of the last frame. */
		} else if (st.regs && user_mode(st.regs) && (long)st.ip >= 0 &&
			   mt_on_task_stack((unsigned long)st.regs, sizeof(*st.regs)) &&
			   regs_off && regs_off <= U16_MAX) {
			/* Ended at the registers of the user-mode caller. */
			slot->user_regs = regs_off;
		} else {
			ok = false;
		}
	}
	*memo_ok = ok;
	return nr;
}

/* The stack word at base + off, as the memo compares it with a return address. */
static __always_inline unsigned long mt_memo_word(unsigned long base, const u16 *off)
{
	return READ_ONCE_NOCHECK(*(const unsigned long *)(base + *off));
}

/*
 * Do the stack words at base + off[first..end) still hold the memo's
 * return addresses?  The offsets rise (mt_memo_frame()): when the first
 * and the last word are in the stack, all are.  Four words a step, their
 * differences or'ed: the loop is most of a memo hit's cost.
 */
static __always_inline bool mt_kstack_memo_run_holds(const struct mt_kstack_memo_slot *slot,
						     unsigned long base, unsigned long stack,
						     unsigned int first, unsigned int end)
{
	const u16 *off = &slot->off[first], *off_end = &slot->off[end];
	const unsigned long *ip = &slot->ip[first];

	if (first >= end)
		return true;
	if (!mt_in_stack(stack, base + off[0], sizeof(long)) ||
	    !mt_in_stack(stack, base + off_end[-1], sizeof(long)))
		return false;
	for (; off_end - off >= 4; off += 4, ip += 4)
		if ((mt_memo_word(base, off) ^ ip[0]) |
		    (mt_memo_word(base, off + 1) ^ ip[1]) |
		    (mt_memo_word(base, off + 2) ^ ip[2]) |
		    (mt_memo_word(base, off + 3) ^ ip[3]))
			return false;
	for (; off < off_end; off++, ip++)
		if (mt_memo_word(base, off) != *ip)
			return false;
	return true;
}

/*
 * Does the stack (the task's, at stack) still hold the memo's return
 * addresses where it had them?  Out of line: its loops keep their
 * pointers in registers, which mt_kstack_id() has none left for.
 */
static noinline bool mt_kstack_memo_holds(const struct mt_kstack_memo_slot *slot,
					  const unsigned long *top, unsigned long stack)
{
	unsigned long base = (unsigned long)top;
	unsigned int split = slot->bp_frame ?: slot->nr;

	if (!mt_kstack_memo_run_holds(slot, base, stack, 0, split))
		return false;
	if (slot->bp_frame) {
		base = READ_ONCE_NOCHECK(*(const unsigned long *)
					 ((unsigned long)top + slot->bp_slot));
		if (!mt_kstack_memo_run_holds(slot, base, stack, split, slot->nr))
			return false;
	}
	if (slot->user_regs) {
		struct pt_regs *regs = (void *)(base + slot->user_regs);

		/* As at the memo: user mode, and no kernel text to go on to. */
		return mt_in_stack(stack, (unsigned long)regs, sizeof(*regs)) &&
		       user_mode(regs) && (long)READ_ONCE_NOCHECK(regs->ip) >= 0;
	}
	return true;
}

/*
 * mt_kstack_id() when no memo answered: unwind from top (the return
 * address slot of mt_kstack_id(), still on the stack below this call),
 * intern, and memoize the walk in pair if it can be one.  Out of line:
 * its locals (a canary, and the zeroing of each) are no memo hit's cost.
 */
static noinline u32 mt_kstack_walk(struct mt_kstack *ks, unsigned long *frames,
				   unsigned long call_site, unsigned int depth,
				   unsigned long *top, struct mt_kstack_memo_slot *pair,
				   struct mt_kstack_memo_slot *scratch, unsigned long key,
				   u32 generation)
{
	struct mt_kstack_memo_slot *slot;
	unsigned int nr;
	bool memo_ok;
	u32 id;

	nr = mt_kstack_unwind(top, frames, depth + MT_KSTACK_SLACK, scratch, &memo_ok);
	nr = mt_kstack_trim(ks, frames, nr, call_site, depth);
	id = mt_stacktab_intern(ks->stacks, frames, nr);
	if (scratch && memo_ok && id != MEMTRACE_STACK_NONE) {
		/*
		 * Into an empty slot, else one chosen by the stack depth; a walk
		 * that cannot be a memo leaves both as they were.
		 */
		slot = !pair[0].nr ? &pair[0] : !pair[1].nr ? &pair[1] :
		       &pair[((unsigned long)top >> 4) & 1];
		scratch->depth = depth;
		scratch->stack_id = id;
		scratch->generation = generation;
		scratch->key = key;
		*slot = *scratch;
	}
	return id;
}

/*
 * Not inlined: the memo's offsets are from this function's own return
 * address slot, which its frame address finds on every path.
 */
noinline u32 mt_kstack_id(struct mt_kstack *ks, unsigned long *frames,
			  unsigned long call_site, unsigned int depth,
			  bool *memo_hit)
{
	unsigned long *top = (unsigned long *)__builtin_frame_address(0) + 1;
	unsigned long stack = (unsigned long)task_stack_page(current);
	struct mt_kstack_memo_slot *pair = NULL, *slot, *scratch = NULL;
	unsigned int way;
	u32 generation = atomic_read(&ks->generation);
	/*
	 * Memos are found by call site; page allocations name none, and are
	 * told apart by stack depth instead (an offset in the stack, which no
	 * call site equals).
	 */
	unsigned long key = call_site ?: (unsigned long)top - stack;

	if (memo_hit)
		*memo_hit = false;
	if (ks->memo && in_task() && mt_in_stack(stack, (unsigned long)top, sizeof(*top))) {
		/* A CPU's slots, then the one a walk is recorded in. */
		slot = &ks->memo[smp_processor_id() * (ks->memo_mask + 2)];
		scratch = &slot[ks->memo_mask + 1];
		pair = &slot[hash_long(key, 32) & ks->memo_mask & ~1U];
		for (way = 0; way < 2; way++) {
			slot = &pair[way];
			if (slot->nr && slot->key == key && slot->depth == depth &&
			    slot->generation == generation &&
			    mt_kstack_memo_holds(slot, top, stack)) {
				if (memo_hit)
					*memo_hit = true;
				return slot->stack_id;
			}
		}
	}
	return mt_kstack_walk(ks, frames, call_site, depth, top, pair, scratch, key,
			      generation);
}

#else /* !MT_HAVE_KSTACK_MEMO */

int mt_kstack_init(struct mt_kstack *ks, struct mt_stacktab *stacks,
		   const struct module *self, u32 memo_slots)
{
	memset(ks, 0, sizeof(*ks));
	ks->stacks = stacks;
	ks->self = self;
	return mt_kstack_tfn_init(ks);
}

void mt_kstack_destroy(struct mt_kstack *ks)
{
	mt_kstack_tfn_destroy(ks);
}

void mt_kstack_clear(struct mt_kstack *ks)
{
}

u32 mt_kstack_id(struct mt_kstack *ks, unsigned long *frames,
		 unsigned long call_site, unsigned int depth, bool *memo_hit)
{
	unsigned int nr = stack_trace_save(frames, depth + MT_KSTACK_SLACK, 0);

	if (memo_hit)
		*memo_hit = false;
	nr = mt_kstack_trim(ks, frames, nr, call_site, depth);
	return mt_stacktab_intern(ks->stacks, frames, nr);
}

#endif /* MT_HAVE_KSTACK_MEMO */

unsigned int mt_kstack_kprobe(struct pt_regs *regs, unsigned long fn, unsigned long fn_size,
			      u64 *frames, unsigned int max)
{
#ifdef MT_HAVE_REGS_UNWIND
	struct unwind_state st;
	unsigned int n = 0;

	max = min_t(unsigned int, max, MT_KSTACK_KPROBE_MAX);
	if (!max)
		return 0;
	/* The probed function: unwind_start() from regs skips its frame. */
	frames[n++] = instruction_pointer(regs);
	for (unwind_start(&st, current, regs, NULL); !unwind_done(&st) && n < max;
	     unwind_next_frame(&st)) {
		unsigned long ip = unwind_get_return_address(&st);

		if (!ip)
			break;
		/* An OOM under a kretprobed allocator (mempool_alloc()...). */
		frames[n++] = mt_krp_unwind_fix(&st, ip);
	}
	return n;
#else
	unsigned long buf[MT_KSTACK_KPROBE_MAX + 8];
	unsigned int n, i, from = 0;

	max = min_t(unsigned int, max, MT_KSTACK_KPROBE_MAX);
	n = stack_trace_save(buf, ARRAY_SIZE(buf), 0);
	/* Start at the probed function: the kprobe's own frames are noise. */
	for (i = 0; i < n; i++) {
		if (buf[i] - fn < fn_size) {
			from = i;
			break;
		}
	}
	n = min_t(unsigned int, n - from, max);
	for (i = 0; i < n; i++)
		frames[i] = buf[from + i];
	return n;
#endif
}
