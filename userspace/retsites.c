// SPDX-License-Identifier: GPL-2.0
/*
 * An allocator function's return instructions, by disassembly: see
 * retsites.h.  The decoding is capstone's; this only classifies what it
 * decoded.
 */
#include <capstone/capstone.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retsites.h"

/* A function larger than this is not worth the scan (and none of the allocators is). */
#define RETSITES_MAX_CODE	(1U << 20)

__attribute__((format(printf, 2, 3)))
static size_t refuse(struct retsites *rs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rs->why, sizeof(rs->why), fmt, ap);
	va_end(ap);
	rs->nr = 0;
	return 0;
}

/* The kernel performs a ret itself: c3, or c3 after a rep or bnd prefix. */
static bool plain_ret(const cs_insn *insn)
{
	if (insn->detail->x86.op_count)
		return false;	/* ret imm16 */
	if (insn->size == 1)
		return insn->bytes[0] == 0xc3;
	return insn->size == 2 && (insn->bytes[0] == 0xf3 || insn->bytes[0] == 0xf2) &&
	       insn->bytes[1] == 0xc3;
}

/*
 * Where a jump goes, as an offset in the function; false if it jumps
 * through a register or memory (its target is not in the code).
 */
static bool jump_target(const cs_insn *insn, uint64_t *to)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*to = (uint64_t)x->operands[0].imm;
	return true;
}

static size_t scan(csh h, const uint8_t *code, size_t size, uint8_t *starts,
		   uint64_t *targets, size_t *nr_targets, struct retsites *rs)
{
	const uint8_t *p = code;
	uint64_t addr = 0;
	size_t left = size;
	cs_insn *insn = cs_malloc(h);
	size_t ret = 1;

	if (!insn)
		return refuse(rs, "out of memory");
	while (left) {
		unsigned long long at = addr;
		uint64_t to;

		if (!cs_disasm_iter(h, &p, &left, &addr, insn)) {
			ret = refuse(rs, "an instruction at +0x%llx does not decode", at);
			break;
		}
		starts[at / 8] |= 1U << (at % 8);
		if (cs_insn_group(h, insn, CS_GRP_IRET) || insn->id == X86_INS_RETF ||
		    insn->id == X86_INS_RETFQ || insn->id == X86_INS_LJMP) {
			ret = refuse(rs, "a far return or jump at +0x%llx", at);
			break;
		}
		if (cs_insn_group(h, insn, CS_GRP_RET)) {
			if (!plain_ret(insn)) {
				ret = refuse(rs, "a ret with an operand at +0x%llx", at);
				break;
			}
			if (rs->nr == RETSITES_MAX) {
				ret = refuse(rs, "more than %d ret instructions", RETSITES_MAX);
				break;
			}
			rs->at[rs->nr++] = at;
			continue;
		}
		if (!cs_insn_group(h, insn, CS_GRP_JUMP))
			continue;
		if (!jump_target(insn, &to)) {
			ret = refuse(rs, "a jump through a register or memory at +0x%llx", at);
			break;
		}
		if (to >= size) {
			ret = refuse(rs, "a jump out of the function at +0x%llx (a tail call)", at);
			break;
		}
		targets[(*nr_targets)++] = to;
	}
	cs_free(insn, 1);
	return ret;
}

size_t retsites_find(const uint8_t *code, size_t size, struct retsites *rs)
{
	uint8_t *starts = NULL;
	uint64_t *targets = NULL;
	size_t nr_targets = 0, i;
	csh h;

	memset(rs, 0, sizeof(*rs));
	if (!size)
		return refuse(rs, "its size is not known");
	if (size > RETSITES_MAX_CODE)
		return refuse(rs, "it is larger than %u bytes", RETSITES_MAX_CODE);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return refuse(rs, "capstone cannot open an x86-64 decoder");
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	starts = calloc(size / 8 + 1, 1);
	/* An instruction is at least a byte: at most size jumps. */
	targets = calloc(size, sizeof(*targets));
	if (!starts || !targets) {
		refuse(rs, "out of memory");
		goto out;
	}
	if (!scan(h, code, size, starts, targets, &nr_targets, rs))
		goto out;
	/* A jump into the middle of an instruction: code this scan did not see. */
	for (i = 0; i < nr_targets; i++) {
		if (!(starts[targets[i] / 8] & (1U << (targets[i] % 8)))) {
			refuse(rs, "a jump into an instruction at +0x%llx",
			       (unsigned long long)targets[i]);
			goto out;
		}
	}
	if (!rs->nr)
		refuse(rs, "no ret instruction");
out:
	free(starts);
	free(targets);
	cs_close(&h);
	return rs->nr;
}

/*
 * An instruction x86-64 uprobes performs itself at a breakpoint instead of
 * stepping a copy of it (a second trap): unprefixed relative jumps, jcc,
 * call, push of a register, nop (arch/x86/kernel/uprobes.c, 6.1 to 6.12).
 */
static bool emulated_by_uprobes(const cs_insn *insn)
{
	const uint8_t *b = insn->bytes;

	switch (insn->size) {
	case 1:
		return (b[0] >= 0x50 && b[0] <= 0x57) || b[0] == 0x90;
	case 2:
		return (b[0] >= 0x70 && b[0] <= 0x7f) || b[0] == 0xeb ||
		       (b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57);
	case 5:
		return b[0] == 0xe9 || b[0] == 0xe8;
	case 6:
		return b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f;
	default:
		return false;
	}
}

/* Changes nothing a probe at the entry reads (arguments, sp): flags at most. */
static bool writes_flags_only(const cs_insn *insn)
{
	return insn->id == X86_INS_TEST || insn->id == X86_INS_CMP ||
	       insn->id == X86_INS_ENDBR64 || insn->id == X86_INS_NOP;
}

/* Instructions looked at from the entry for one uprobes performs. */
#define RETSITES_ENTRY_WINDOW	4

uint64_t retsites_entry(const uint8_t *code, size_t size)
{
	const uint8_t *p = code;
	uint64_t addr = 0, found = 0, *targets = NULL;
	size_t left = size, nr_targets = 0, i;
	struct retsites rs;
	uint8_t *starts = NULL;
	cs_insn *insn = NULL;
	csh h;

	if (!size || size > RETSITES_MAX_CODE ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	starts = calloc(size / 8 + 1, 1);
	targets = calloc(size, sizeof(*targets));
	insn = cs_malloc(h);
	/* Every jump's target: the probe must lie where nothing jumps back to. */
	memset(&rs, 0, sizeof(rs));
	if (!starts || !targets || !insn || !scan(h, code, size, starts, targets, &nr_targets, &rs))
		goto out;
	for (int n = 0; n < RETSITES_ENTRY_WINDOW && left; n++) {
		uint64_t at = addr;

		if (!cs_disasm_iter(h, &p, &left, &addr, insn))
			break;
		for (i = 0; i < nr_targets && targets[i] != at; i++)
			;
		if (i < nr_targets)
			break;	/* a jump lands here: the probe would fire twice */
		if (emulated_by_uprobes(insn)) {
			found = at;
			break;
		}
		if (!writes_flags_only(insn))
			break;
	}
out:
	if (insn)
		cs_free(insn, 1);
	free(starts);
	free(targets);
	cs_close(&h);
	return found;
}
