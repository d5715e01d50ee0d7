/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User mode: the allocator calls in flight, per thread.
 *
 * An allocation is known in two halves: the arguments (size, the pointer
 * realloc is given) at the function's entry uprobe, the result at its
 * return uprobe.  Before 6.13 a uprobe has no per-call storage, so the
 * entry half waits here, in a slot of the calling thread, until the
 * return.  A call is matched to its return by the user stack pointer: at
 * the entry it points at the return address, at the return one word
 * above it; calls abandoned by longjmp() or a lost return are dropped when
 * a return further up the stack is matched.  A call that jumps to another
 * (a tail call) leaves both at one stack pointer: the second is nested in
 * the first, and their returns, at one stack pointer too, come innermost
 * first.
 *
 * A thread holds a slot only while it has a call in flight, so the table
 * is sized by concurrent calls, not by threads.  Slots are claimed with a
 * cmpxchg on the thread id and afterwards touched only by their thread
 * (uprobe handlers run in that thread's context), so no lock is needed.
 */
#ifndef MEMTRACE_CALLTAB_H
#define MEMTRACE_CALLTAB_H

#include <linux/types.h>

/* Nested allocator calls kept per thread (realloc -> malloc -> mmap is 3). */
#define MT_CALL_DEPTH		4
/* Slots a thread id may take, from its hash on. */
#define MT_CALL_PROBES		32

struct mt_call {
	unsigned long sp;	/* user stack pointer at entry */
	unsigned long ptr;	/* realloc/mremap: the old block; posix_memalign: &result */
	u64 size;		/* bytes asked for */
	u32 stack_id;
	u8 func;		/* MEMTRACE_UFN_* */
	u8 flags;		/* MT_CALL_* */
	u8 slot;		/* the caller's address space, 1 + its slot (uprobes.c) */
	u8 __pad;
};

/* The outermost allocator call of its thread: nested ones are its own work. */
#define MT_CALL_OUTER	(1U << 0)
/* Passed the filters and sampling: its allocation is recorded. */
#define MT_CALL_RECORD	(1U << 1)

struct mt_thread_calls {
	u32 tid;		/* 0: free */
	u32 depth;
	struct mt_call call[MT_CALL_DEPTH];
};

struct mt_calltab {
	struct mt_thread_calls *slots;
	u32 mask;
};

int mt_calltab_init(struct mt_calltab *t, u32 slots);
void mt_calltab_destroy(struct mt_calltab *t);
/* Only while no handler can run. */
void mt_calltab_clear(struct mt_calltab *t);

/* The thread's slot, claimed if it has none; NULL when the table is full. */
struct mt_thread_calls *mt_calltab_get(struct mt_calltab *t, u32 tid);
/* The thread's slot, or NULL if it has no call in flight. */
struct mt_thread_calls *mt_calltab_find(struct mt_calltab *t, u32 tid);

/* A new call on top of tc's; NULL when MT_CALL_DEPTH calls are in flight. */
struct mt_call *mt_calltab_push(struct mt_thread_calls *tc, unsigned long sp);
/*
 * Whether a call made at user stack pointer sp runs inside a call still in
 * flight (below it on the stack), dropping the calls it shows returned
 * unseen; the slot is given up if none is left.
 */
bool mt_calltab_inside(struct mt_thread_calls *tc, unsigned long sp);
/*
 * The call a return at user stack pointer ret_sp completes, removed with
 * every call above it (abandoned ones), into *out.  Returns false if no
 * call in flight matches.  The slot is given up when its last call ends.
 */
bool mt_calltab_pop(struct mt_thread_calls *tc, unsigned long ret_sp,
		    struct mt_call *out);

#endif
