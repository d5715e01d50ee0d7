// SPDX-License-Identifier: GPL-2.0
/*
 * The return-site finder (retsites.c) against an oracle that is not its
 * own: binutils' objdump, a second disassembler, lists the ret
 * instructions of the host libc's malloc, calloc, realloc and free (a
 * function refused must say why).  Hand-encoded functions check each
 * reason for keeping the return probe.
 */
#include <fcntl.h>
#include <linux/memtrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"
#include "harness.h"
#include "retsites.h"
#include "util.h"

/*
 * objdump's listing of [off, off + size) of path: text[i] (mnemonic and
 * operands) of the instruction at offset at[i] from off; the number listed.
 * Offsets of libc's text are its addresses too (its first PT_LOAD maps
 * offset 0 at 0).
 */
static size_t objdump_listing(const char *path, uint64_t off, uint64_t size, uint64_t *at,
			      char (*text)[64], size_t max)
{
	char cmd[4300], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn --start-address=0x%llx "
		 "--stop-address=0x%llx '%s' 2>/dev/null", (unsigned long long)off,
		 (unsigned long long)(off + size), path);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		int used = 0;

		if (sscanf(line, " %llx:%n", &a, &used) != 1 || !used ||
		    sscanf(line + used, " %63[^\n]", text[n]) != 1)
			continue;
		at[n++] = a - off;
	}
	pclose(f);
	return n;
}

/* The first word of an objdump instruction text is w. */
static bool mnemonic_is(const char *text, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(text, w, n) && (!text[n] || text[n] == ' ');
}

#define LISTING_MAX 1024
static uint64_t listing_at[LISTING_MAX];
static char listing_text[LISTING_MAX][64];

/*
 * retsites_entry() of a libc function, against objdump: only test/cmp/endbr64
 * before it, and at it an instruction uprobes performs (j*, call, push, nop),
 * or the entry itself.
 */
static void libc_entry(const char *libc, const struct ufn_probe *p, const uint8_t *code)
{
	uint64_t entry = retsites_entry(code, p->size);
	size_t n = objdump_listing(libc, p->offset, p->size, listing_at, listing_text,
				   LISTING_MAX);
	bool before_ok = true;
	const char *t;
	size_t i;

	for (i = 0; i < n && listing_at[i] < entry; i++)
		before_ok &= mnemonic_is(listing_text[i], "test") ||
			     mnemonic_is(listing_text[i], "cmp") ||
			     mnemonic_is(listing_text[i], "endbr64");
	t = i < n ? listing_text[i] : "?";
	diag("%s: %s's entry probe at +0x%llx (%s)", libc, elfsyms_ufn_name(p->func),
	     (unsigned long long)entry, t);
	check(before_ok && i < n && listing_at[i] == entry &&
	      (entry == 0 || t[0] == 'j' || mnemonic_is(t, "push") || mnemonic_is(t, "call") ||
	       mnemonic_is(t, "nop")),
	      "retsites: %s of libc: the entry probe's instruction is one uprobes performs, "
	      "after flag-setting ones only", elfsyms_ufn_name(p->func));
}

/* objdump's ret instructions of [off, off + size) of path, as offsets from off. */
static size_t objdump_rets(const char *path, uint64_t off, uint64_t size, uint64_t *at,
			   size_t max)
{
	size_t n = objdump_listing(path, off, size, listing_at, listing_text, LISTING_MAX), r = 0;

	for (size_t i = 0; i < n && r < max; i++)
		if (mnemonic_is(listing_text[i], "ret") || !strcmp(listing_text[i], "repz ret") ||
		    !strcmp(listing_text[i], "bnd ret"))
			at[r++] = listing_at[i];
	return r;
}

static void libc_function(const char *libc, const struct ufn_probe *p)
{
	const char *name = elfsyms_ufn_name(p->func);
	uint64_t want[64];
	struct retsites rs;
	uint8_t *code;
	size_t nw, nr, i, j;
	bool same;
	int fd;

	code = malloc(p->size);
	fd = open(libc, O_RDONLY | O_CLOEXEC);
	if (!code || fd < 0 || pread(fd, code, p->size, (off_t)p->offset) != (ssize_t)p->size) {
		check(false, "retsites: read %s's bytes from %s", name, libc);
		goto out;
	}
	libc_entry(libc, p, code);
	nr = retsites_find(code, p->size, &rs);
	nw = objdump_rets(libc, p->offset, p->size, want, MT_ARRAY_SIZE(want));
	if (!nr) {
		diag("%s: %s keeps its return probe: %s (objdump: %zu ret)", libc, name,
		     rs.why, nw);
		check(rs.why[0], "retsites: %s of libc: a reason for no return sites", name);
		goto out;
	}
	same = nr == nw;
	for (i = 0; same && i < nr; i++) {
		for (j = 0; j < nw && want[j] != rs.at[i]; j++)
			;
		same = j < nw;
	}
	check(same, "retsites: %s of libc: the %zu ret instructions objdump lists", name, nw);
	for (i = 0; i < nr; i++)
		if (!check(code[rs.at[i]] == 0xc3 || code[rs.at[i] + 1] == 0xc3,
			   "retsites: %s+0x%llx is a ret", name, (unsigned long long)rs.at[i]))
			break;
out:
	if (fd >= 0)
		close(fd);
	free(code);
}

struct vector {
	const char *what;
	uint8_t code[32];
	size_t size;
	size_t nr;		/* ret instructions expected; 0: refused */
	uint64_t at0;		/* the first one's offset */
};

/* Hand-encoded functions (x86-64 encodings from the SDM). */
static const struct vector vectors[] = {
	{ "push rbx; mov rbx,rdi; pop rbx; ret",
	  { 0x53, 0x48, 0x89, 0xfb, 0x5b, 0xc3 }, 6, 1, 5 },
	{ "test rdi,rdi; je +1; ret; repz ret",
	  { 0x48, 0x85, 0xff, 0x74, 0x01, 0xc3, 0xf3, 0xc3 }, 8, 2, 5 },
	{ "tail call: jmp rel32 out of the function",
	  { 0x48, 0x85, 0xff, 0xe9, 0x00, 0x10, 0x00, 0x00, 0xc3 }, 9, 0, 0 },
	{ "indirect jump: jmp rax",
	  { 0xff, 0xe0, 0xc3 }, 3, 0, 0 },
	{ "ret imm16",
	  { 0xc2, 0x08, 0x00 }, 3, 0, 0 },
	{ "jump into an instruction",
	  { 0xeb, 0x01, 0x48, 0x89, 0xfb, 0xc3 }, 6, 0, 0 },
	{ "no ret: call rel32 then ud2",
	  { 0xe8, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x0b }, 7, 0, 0 },
	{ "an undecodable byte",
	  { 0x48, 0x85, 0xff, 0x06 }, 4, 0, 0 },
};

struct entry_vector {
	const char *what;
	uint8_t code[16];
	size_t size;
	uint64_t entry;
};

static const struct entry_vector entry_vectors[] = {
	{ "test rdi,rdi; je +1; ret; ret: the je",
	  { 0x48, 0x85, 0xff, 0x74, 0x01, 0xc3, 0xc3 }, 7, 3 },
	{ "push rbx; ...: the entry (a push)",
	  { 0x53, 0x48, 0x89, 0xfb, 0x5b, 0xc3 }, 6, 0 },
	{ "mov rax,rdi; je +0; ret: the entry (mov writes a register)",
	  { 0x48, 0x89, 0xf8, 0x74, 0x00, 0xc3 }, 6, 0 },
	{ "test rdi,rdi; je +1; ret; jmp -7 (back to the je): the entry",
	  { 0x48, 0x85, 0xff, 0x74, 0x01, 0xc3, 0xeb, 0xfb, 0xc3 }, 9, 0 },
};

void retsites_tests(void)
{
	struct ufn_probe probes[ELFSYMS_MAX_PROBES];
	static const uint32_t funcs[] = {
		MEMTRACE_UFN_MALLOC, MEMTRACE_UFN_CALLOC, MEMTRACE_UFN_REALLOC, MEMTRACE_UFN_FREE,
	};
	struct retsites rs;
	char libc[4096];
	struct mt_err err;
	int n;

	for (size_t i = 0; i < MT_ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		size_t nr = retsites_find(v->code, v->size, &rs);

		if (v->nr)
			check(nr == v->nr && rs.at[0] == v->at0, "retsites: %s: %zu at +%llu",
			      v->what, v->nr, (unsigned long long)v->at0);
		else
			check(!nr && rs.why[0], "retsites: %s: refused (%s)", v->what, rs.why);
	}

	for (size_t i = 0; i < MT_ARRAY_SIZE(entry_vectors); i++) {
		const struct entry_vector *v = &entry_vectors[i];

		check(retsites_entry(v->code, v->size) == v->entry, "retsites: entry of %s",
		      v->what);
	}
	if (self_libc(libc, sizeof(libc))) {
		check(false, "retsites: the libc this test runs with");
		return;
	}
	n = elfsyms_find_allocators(libc, probes, MT_ARRAY_SIZE(probes), &err);
	for (size_t f = 0; f < MT_ARRAY_SIZE(funcs); f++) {
		int i;

		for (i = 0; i < n && probes[i].func != funcs[f]; i++)
			;
		if (!check(i < n && probes[i].size, "retsites: libc defines %s, with its size",
			   elfsyms_ufn_name(funcs[f])))
			continue;
		libc_function(libc, &probes[i]);
	}
	/* What the e2e tests' return-site path rests on: Debian's malloc has them. */
	for (int i = 0; i < n; i++) {
		uint8_t code[4096];
		int fd;

		if (probes[i].func != MEMTRACE_UFN_MALLOC || probes[i].size > sizeof(code))
			continue;
		fd = open(libc, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && pread(fd, code, probes[i].size, (off_t)probes[i].offset) > 0) {
			size_t nr = retsites_find(code, probes[i].size, &rs);

			check(nr > 0, "retsites: libc's malloc has return sites%s%s",
			      rs.why[0] ? ": " : "", rs.why);
		}
		if (fd >= 0)
			close(fd);
		break;
	}
}
