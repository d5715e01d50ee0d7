// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables from libdw's CFI; see unwtab.h.
 *
 * libdw executes the CFI: dwarf_cfi_addrframe() gives the frame state at
 * an address and dwarf_frame_info() the range it holds for, so walking
 * each code section range by range yields every row without parsing any
 * DWARF here.  A range no FDE covers becomes a MEMTRACE_UNW_CFA_NONE row
 * (the module then tries frame pointers); a rule a row cannot express (a
 * DWARF expression) becomes MEMTRACE_UNW_CFA_BAD (the stack ends there,
 * counted), but for a lazy PLT's, whose entries are written out (two rows
 * an entry).  Adjacent ranges with equal rules are merged.
 */
#include "unwtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfile.h"

/* DWARF register numbers of x86-64 (the psABI's). */
#define DW_X86_64_RBP	6
#define DW_X86_64_RSP	7
#define DW_X86_64_RA	16

static int push_row(struct unwtab *t, const struct memtrace_unwind_row *r)
{
	if (t->nr) {
		struct memtrace_unwind_row *last = &t->rows[t->nr - 1];
		struct memtrace_unwind_row a = *last, b = *r;

		a.start = b.start = 0;
		if (!memcmp(&a, &b, sizeof(a)))
			return 0;	/* the same rule goes on */
		if (last->start == r->start) {
			*last = *r;
			return 0;
		}
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct memtrace_unwind_row *v = realloc(t->rows, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->rows = v;
		t->cap = cap;
	}
	t->rows[t->nr++] = *r;
	return 0;
}

/* A location "CFA + off" (DW_OP_call_frame_cfa [DW_OP_plus_uconst off]), as libdw gives it. */
static bool cfa_relative(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (!nops || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

static bool in_bounds(int64_t off)
{
	return off > -MEMTRACE_UNW_MAX_CFA_OFF && off < MEMTRACE_UNW_MAX_CFA_OFF;
}

/*
 * A lazy PLT's entries (binutils' .plt FDE): CFA = rsp + 8, + 8 more once
 * the entry has pushed its index, at byte K of each 16-byte entry:
 * DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litK;
 * DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus.  K (1..15), or 0 if the
 * expression is not that one.
 */
static unsigned int plt_split(const Dwarf_Op *ops, size_t nops)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge, DW_OP_lit3,
		DW_OP_shl, DW_OP_plus,
	};
	unsigned int k;

	if (nops != sizeof(shape))
		return 0;
	for (size_t i = 0; i < nops; i++)
		if (shape[i] && ops[i].atom != shape[i])
			return 0;
	if (ops[0].number != 8 || ops[1].number != 0 || ops[4].atom < DW_OP_lit1 ||
	    ops[4].atom > DW_OP_lit15)
		return 0;
	k = ops[4].atom - DW_OP_lit0;
	return k;
}

/*
 * The row of one frame state.  *plt: the split of a lazy PLT's entries
 * (plt_split()) where the CFA is its expression, else 0; the row is then
 * an entry's first part's (CFA = rsp + 8).
 */
static void frame_row(Dwarf_Frame *frame, bool signal, struct memtrace_unwind_row *r,
		      unsigned int *plt)
{
	Dwarf_Op ops_mem[3], *ops;
	uint8_t cfa_reg;
	size_t nops;
	int64_t off;

	r->cfa_reg = MEMTRACE_UNW_CFA_BAD;
	if (signal) {
		r->cfa_reg = MEMTRACE_UNW_CFA_SIGNAL;
		return;
	}
	/* The return address first: undefined marks the outermost frame. */
	if (dwarf_frame_register(frame, DW_X86_64_RA, ops_mem, &ops, &nops) != 0)
		return;
	if (nops == 0 && ops == ops_mem) {
		r->cfa_reg = MEMTRACE_UNW_CFA_END;
		return;
	}
	if (!cfa_relative(ops, nops, &off) || off >= 0 || off % 8 || !in_bounds(off))
		return;
	r->ra_off = (int16_t)off;
	*plt = 0;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0)
		return;
	if (off == -8 && (*plt = plt_split(ops, nops)) != 0) {
		r->cfa_reg = MEMTRACE_UNW_CFA_RSP;
		r->cfa_off = 8;
		return;
	}
	if (nops != 1 || ops[0].atom != DW_OP_bregx)
		return;
	off = (int64_t)ops[0].number2;
	if (off <= 0 || off >= MEMTRACE_UNW_MAX_CFA_OFF)
		return;
	if (ops[0].number != DW_X86_64_RSP && ops[0].number != DW_X86_64_RBP)
		return;
	cfa_reg = ops[0].number == DW_X86_64_RSP ? MEMTRACE_UNW_CFA_RSP : MEMTRACE_UNW_CFA_RBP;
	r->cfa_off = (int32_t)off;
	if (dwarf_frame_register(frame, DW_X86_64_RBP, ops_mem, &ops, &nops) != 0)
		return;
	if (nops && cfa_relative(ops, nops, &off)) {
		if (off >= 0 || off % 8 || !in_bounds(off))
			return;
		r->rbp_rule = MEMTRACE_UNW_RBP_AT_CFA;
		r->rbp_off = (int16_t)off;
	} else if (nops) {
		return;		/* rbp kept in another register, or computed */
	}
	/* Else the same value, or undefined (then whatever rbp holds is no frame). */
	r->cfa_reg = cfa_reg;
}

static Dwarf_Frame *frame_at(Dwarf_CFI *eh, Dwarf_CFI *dbg, Dwarf_Addr addr)
{
	Dwarf_Frame *f = NULL;

	if (eh && dwarf_cfi_addrframe(eh, addr, &f) == 0)
		return f;
	if (dbg && dwarf_cfi_addrframe(dbg, addr, &f) == 0)
		return f;
	return NULL;
}

/*
 * A lazy PLT's range [a, end) at file offset off: per 16-byte entry (by
 * address, as the expression tests rip), CFA = rsp + 8 up to byte k,
 * rsp + 16 from there.  first: the rsp + 8 row.
 */
static int plt_rows(struct unwtab *t, const struct memtrace_unwind_row *first, unsigned int k,
		    GElf_Addr a, GElf_Addr end, GElf_Off off)
{
	struct memtrace_unwind_row r = *first;
	int ret = 0;

	for (GElf_Addr x = a; x < end && !ret;) {
		GElf_Addr entry = x & ~(GElf_Addr)15, next = entry + 16;
		bool pushed = x >= entry + k;

		r.start = (uint32_t)(off + (x - a));
		r.cfa_off = pushed ? 16 : 8;
		ret = push_row(t, &r);
		x = pushed ? next : entry + k;
	}
	return ret;
}

/* The rows of one code section [addr, end), at file offset off. */
static int section_rows(struct unwtab *t, Dwarf_CFI *eh, Dwarf_CFI *dbg, GElf_Addr addr,
			GElf_Addr end, GElf_Off off)
{
	GElf_Addr a = addr;
	int ret = 0;

	while (a < end && !ret) {
		struct memtrace_unwind_row r = { .start = (uint32_t)(off + (a - addr)) };
		Dwarf_Frame *f = frame_at(eh, dbg, a);
		Dwarf_Addr fstart, fend;
		unsigned int plt = 0;
		bool signal = false;

		if (!f) {
			/* No FDE here: a gap, byte by byte to the next one. */
			r.cfa_reg = MEMTRACE_UNW_CFA_NONE;
			ret = push_row(t, &r);
			a++;
			continue;
		}
		if (dwarf_frame_info(f, &fstart, &fend, &signal) < 0 || fend <= a)
			fend = a + 1;
		frame_row(f, signal, &r, &plt);
		free(f);
		if (fend > end)
			fend = end;
		if (plt) {
			ret = plt_rows(t, &r, plt, a, fend, off + (a - addr));
			a = fend;
			continue;
		}
		if (r.cfa_reg == MEMTRACE_UNW_CFA_RBP)
			t->bytes_rbp += fend - a;
		else if (r.cfa_reg == MEMTRACE_UNW_CFA_RSP && r.cfa_off > 8)
			t->bytes_rsp += fend - a;
		ret = push_row(t, &r);
		a = fend;
	}
	if (!ret) {
		/* Past the section: nothing, until another section's rows. */
		struct memtrace_unwind_row r = {
			.start = (uint32_t)(off + (end - addr)), .cfa_reg = MEMTRACE_UNW_CFA_NONE,
		};

		ret = push_row(t, &r);
	}
	return ret;
}

static int cmp_start(const void *a, const void *b)
{
	const struct memtrace_unwind_row *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sections may come in any order in the headers: sort, and keep each start once. */
static void sort_rows(struct unwtab *t)
{
	size_t n = 0;

	qsort(t->rows, t->nr, sizeof(*t->rows), cmp_start);
	for (size_t i = 0; i < t->nr; i++) {
		if (n && t->rows[n - 1].start == t->rows[i].start) {
			/* A section's closing NONE row yields to the next section's first. */
			if (t->rows[i].cfa_reg != MEMTRACE_UNW_CFA_NONE)
				t->rows[n - 1] = t->rows[i];
			continue;
		}
		t->rows[n++] = t->rows[i];
	}
	t->nr = n;
}

static uint32_t elf_build_id(Elf *elf, uint8_t id[20])
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	if (n <= 0 || n > 20)
		return 0;
	memcpy(id, p, (size_t)n);
	return (uint32_t)n;
}

uint32_t unwtab_build_id(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint32_t n = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		n = elf_build_id(elf, id);
	elf_end(elf);
	close(fd);
	return n;
}

/*
 * A stripped object's .debug_frame is in its separate debug file
 * (debugfile.h), at the same addresses: its Dwarf, or NULL (*dfd: the
 * file, to close after dwarf_end()).
 */
static Dwarf *debug_file_dwarf(Elf *elf, const char *path, const uint8_t *id, uint32_t id_len,
			       int *dfd)
{
	const char *link;
	char *found = NULL;
	GElf_Word crc;
	Dwarf *dw;

	link = dwelf_elf_gnu_debuglink(elf, &crc);
	*dfd = debugfile_find("", path, id, (int)id_len, link, &found);
	free(found);
	if (*dfd < 0)
		return NULL;
	dw = dwarf_begin(*dfd, DWARF_C_READ);
	if (!dw) {
		close(*dfd);
		*dfd = -1;
	}
	return dw;
}

int unwtab_build(const char *path, struct unwtab *t, struct mt_err *err)
{
	Dwarf_CFI *eh = NULL, *dbg = NULL;
	Dwarf *dw = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	Elf *elf;
	int fd, dfd = -1, ret = 0;

	memset(t, 0, sizeof(*t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_errf(err, errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64) {
		ret = mt_errf(err, ENOEXEC, "%s: not an x86-64 ELF object", path);
		goto out;
	}
	t->build_id_len = elf_build_id(elf, t->build_id);
	eh = dwarf_getcfi_elf(elf);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (dw)
		dbg = dwarf_getcfi(dw);
	if (!dbg) {
		/* Stripped: the debug file's .debug_frame, where there is one. */
		if (dw)
			dwarf_end(dw);
		dw = debug_file_dwarf(elf, path, t->build_id, t->build_id_len, &dfd);
		if (dw)
			dbg = dwarf_getcfi(dw);
	}
	if (!eh && !dbg) {
		ret = mt_errf(err, ENOENT, "%s: no call-frame information", path);
		goto out;
	}
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		if (sh.sh_offset + sh.sh_size > UINT32_MAX) {
			ret = mt_errf(err, EFBIG, "%s: code beyond 4 GiB in the file", path);
			break;
		}
		ret = section_rows(t, eh, dbg, sh.sh_addr, sh.sh_addr + sh.sh_size, sh.sh_offset);
		if (ret)
			mt_errf(err, -ret, "%s: %s", path, strerror(-ret));
	}
	if (!ret)
		sort_rows(t);
	if (!ret && !t->nr)
		ret = mt_errf(err, ENOENT, "%s: no code", path);
out:
	if (eh)
		dwarf_cfi_end(eh);
	if (dw)
		dwarf_end(dw);
	if (dfd >= 0)
		close(dfd);
	elf_end(elf);
	close(fd);
	if (ret)
		unwtab_free(t);
	return ret;
}

bool unwtab_has_frame_pointers(const struct unwtab *t)
{
	return t->bytes_rbp > t->bytes_rsp;
}

const struct memtrace_unwind_row *unwtab_find(const struct unwtab *t, uint64_t off)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void unwtab_free(struct unwtab *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
