/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An allocator function's return instructions, found by disassembling it
 * (capstone), for MEMTRACE_UPROBE_RETURN_SITE probes: a probe on each ret
 * sees every return, so the function needs no return probe (uretprobe)
 * and its return costs one trap.
 *
 * Only a function whose every way out is one of its ret instructions
 * qualifies: one that jumps out of itself (a tail call, a jump to a cold
 * part kept elsewhere), jumps through a register or memory (a jump table:
 * its targets are not known), returns with ret imm16, or whose bytes do not
 * all decode, keeps the return probe, and why is said.
 */
#ifndef MEMTRACE_RETSITES_H
#define MEMTRACE_RETSITES_H

#include <stddef.h>
#include <stdint.h>

/* Return instructions of one function, at most (glibc's malloc has 3). */
#define RETSITES_MAX 16

struct retsites {
	size_t nr;
	uint64_t at[RETSITES_MAX];	/* byte offsets from the function's start */
	char why[128];			/* when none are usable: why not */
};

/*
 * Finds the ret instructions of the function whose size bytes are code,
 * x86-64.  Returns the number found (>= 1), or 0 with rs->why saying why
 * the function's returns cannot all be seen there.
 */
size_t retsites_find(const uint8_t *code, size_t size, struct retsites *rs);

/*
 * Where a probe on the function's entry costs one trap: the offset of the
 * first instruction that x86 uprobes performs itself (a jcc, jmp, call,
 * push or nop) when only instructions that change flags alone (test, cmp,
 * endbr64) come before it and nothing jumps to it or them; else 0, the
 * entry, whose instruction uprobes steps out of line (a second trap).  At
 * that offset the arguments and the stack are still the entry's.  Needs a
 * function retsites_find() accepts (every jump's target known).
 */
uint64_t retsites_entry(const uint8_t *code, size_t size);

#endif
