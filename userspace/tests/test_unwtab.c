// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables (unwtab.c) from real ELF files, against oracles that are
 * not unwtab's own: the compiler (__builtin_dwarf_cfa() and
 * __builtin_return_address() in this very process, at a PC whose row the
 * table built from /proc/self/exe gives), the x86-64 psABI (at every
 * exported function's first instruction of the host's libc the CFA is
 * rsp + 8 with the return address just below it), libdw's own answer for
 * sampled PCs, and the layout rules the module checks.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "procmaps.h"
#include "unwtab.h"

/* The file offset of address a in this process, and the file's path, from /proc/self/maps. */
static bool self_offset(unsigned long a, uint64_t *off, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4200];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		struct maps_line m;

		if (!procmaps_parse_line(line, &m) || a < m.start || a >= m.end || !m.name_len)
			continue;
		*off = a - m.start + m.offset;
		snprintf(path, len, "%.*s", (int)m.name_len - (m.name[m.name_len - 1] == '\n'),
			 m.name);
		found = true;
	}
	fclose(f);
	return found;
}

struct probe_point {
	unsigned long pc, sp, bp, cfa, ret;
	unsigned long below_cfa[8];	/* the stack's words below the CFA, while the frame lives */
};

static __attribute__((noinline, noipa)) void probe_here(struct probe_point *p)
{
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(p->pc), "=r"(p->sp), "=r"(p->bp));
	p->cfa = (unsigned long)__builtin_dwarf_cfa();
	p->ret = (unsigned long)__builtin_return_address(0);
	memcpy(p->below_cfa, (const void *)(p->cfa - sizeof(p->below_cfa)), sizeof(p->below_cfa));
}

static void self_tests(void)
{
	struct probe_point p;
	const struct memtrace_unwind_row *r;
	char path[4096];
	struct unwtab t;
	struct mt_err err;
	uint64_t off = 0;
	unsigned long cfa, ra;

	probe_here(&p);
	if (!check(self_offset(p.pc, &off, path, sizeof(path)), "unwtab: this test's code is mapped"))
		return;
	if (!check(unwtab_build(path, &t, &err) == 0, "unwtab: builds the table of %s", path)) {
		diag("%s", err.msg);
		return;
	}
	r = unwtab_find(&t, off);
	if (check(r && (r->cfa_reg == MEMTRACE_UNW_CFA_RSP || r->cfa_reg == MEMTRACE_UNW_CFA_RBP),
		  "unwtab: a row covers probe_here's PC, by rsp or rbp")) {
		cfa = (r->cfa_reg == MEMTRACE_UNW_CFA_RSP ? p.sp : p.bp) + r->cfa_off;
		check(cfa == p.cfa, "unwtab: its CFA is the compiler's (__builtin_dwarf_cfa): "
		      "0x%lx, 0x%lx", cfa, p.cfa);
		ra = r->ra_off >= -64 ? p.below_cfa[8 + r->ra_off / 8] : 0;
		check(ra == p.ret, "unwtab: the return address it finds is the compiler's: "
		      "0x%lx, 0x%lx", ra, p.ret);
	}
	unwtab_free(&t);
}

/* The table's rows are what the module accepts: sorted, in the file, in bounds. */
static bool rows_valid(const struct unwtab *t, uint64_t file_size)
{
	for (size_t i = 0; i < t->nr; i++) {
		const struct memtrace_unwind_row *r = &t->rows[i];

		if (r->start >= file_size || (i && r->start <= t->rows[i - 1].start) ||
		    r->cfa_reg > MEMTRACE_UNW_CFA_MAX)
			return false;
		if ((r->cfa_reg == MEMTRACE_UNW_CFA_RSP || r->cfa_reg == MEMTRACE_UNW_CFA_RBP) &&
		    (r->cfa_off <= 0 || r->ra_off >= 0 || r->ra_off % 8 ||
		     (r->rbp_rule == MEMTRACE_UNW_RBP_AT_CFA && (r->rbp_off >= 0 || r->rbp_off % 8))))
			return false;
	}
	return true;
}

/* The file offset of vaddr, by the section holding it. */
static bool vaddr_offset(Elf *elf, GElf_Addr a, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR) && a >= sh.sh_addr && a < sh.sh_addr + sh.sh_size) {
			*off = a - sh.sh_addr + sh.sh_offset;
			return true;
		}
	return false;
}

static void libc_tests(void)
{
	char libc[4096];
	struct unwtab t;
	struct mt_err err;
	size_t funcs = 0, entry_ok = 0, sampled = 0, agree = 0;
	Dwarf_CFI *cfi;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (self_libc(libc, sizeof(libc))) {
		check(true, "unwtab: libc # SKIP no shared libc");
		return;
	}
	if (!check(unwtab_build(libc, &t, &err) == 0, "unwtab: builds the table of %s", libc)) {
		diag("%s", err.msg);
		return;
	}
	fd = open(libc, O_RDONLY);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	check(rows_valid(&t, (uint64_t)lseek(fd, 0, SEEK_END)),
	      "unwtab: libc's %zu rows are sorted, in the file, in bounds", t.nr);
	check(!unwtab_has_frame_pointers(&t), "unwtab: Debian's libc is told to lack frame pointers");
	check(t.build_id_len == 20, "unwtab: libc's build id read (%u bytes)", t.build_id_len);
	{
		size_t signal = 0;

		for (size_t i = 0; i < t.nr; i++)
			signal += t.rows[i].cfa_reg == MEMTRACE_UNW_CFA_SIGNAL;
		check(signal == 1, "unwtab: libc's signal trampoline (__restore_rt) has its "
		      "signal-frame row (%zu)", signal);
	}

	/* The psABI: at a function's entry, CFA = rsp + 8, return address at CFA - 8. */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const struct memtrace_unwind_row *r;
			GElf_Sym s;
			uint64_t off;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_size || !s.st_value || !vaddr_offset(elf, s.st_value, &off))
				continue;
			funcs++;
			r = unwtab_find(&t, off);
			entry_ok += r && r->cfa_reg == MEMTRACE_UNW_CFA_RSP && r->cfa_off == 8 &&
				    r->ra_off == -8;
		}
	}
	check(funcs > 1000 && entry_ok * 100 >= funcs * 99,
	      "unwtab: at %zu of libc's %zu exported functions' entries, CFA = rsp + 8 and the "
	      "return address at CFA - 8", entry_ok, funcs);

	/* libdw's own answer, at every 4099th byte of code with an FDE. */
	cfi = dwarf_getcfi_elf(elf);
	scn = NULL;
	while (cfi && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (GElf_Addr a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a += 4099) {
			const struct memtrace_unwind_row *r;
			Dwarf_Frame *f;
			Dwarf_Op *ops;
			size_t nops;

			if (dwarf_cfi_addrframe(cfi, a, &f))
				continue;
			if (dwarf_frame_cfa(f, &ops, &nops) == 0 && nops == 1 &&
			    ops[0].atom == DW_OP_bregx && (ops[0].number == 7 || ops[0].number == 6)) {
				sampled++;
				r = unwtab_find(&t, a - sh.sh_addr + sh.sh_offset);
				agree += r && r->cfa_reg == (ops[0].number == 7 ? MEMTRACE_UNW_CFA_RSP :
							     MEMTRACE_UNW_CFA_RBP) &&
					 r->cfa_off == (int64_t)ops[0].number2;
			}
			free(f);
		}
	}
	check(sampled > 50 && agree == sampled,
	      "unwtab: libdw's CFA at %zu sampled PCs of libc is the table's at %zu", sampled, agree);
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	unwtab_free(&t);
}

/*
 * A lazy PLT (this test's own): per the psABI's layout of an entry
 * (jmp *GOT(%rip), 6 bytes; push $index, 5; jmp .plt), CFA = rsp + 8
 * until the push, rsp + 16 after it; the return address at CFA - 8, as
 * at the entry of the function the entry stands for.
 */
static void plt_tests(void)
{
	const char *path = "/proc/self/exe";
	size_t entries = 0, ok = 0;
	Elf_Scn *scn = NULL;
	struct unwtab t;
	struct mt_err err;
	GElf_Shdr plt = { 0 };
	size_t shstrndx;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY);
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		check(false, "unwtab: plt: reads %s", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".plt")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			const unsigned char *b = d ? d->d_buf : NULL;

			/* Entry 1's opcode: ff 25 (jmp *disp(%rip)), not IBT's endbr64. */
			if (b && sh.sh_size >= 32 && b[16] == 0xff && b[17] == 0x25)
				plt = sh;
		}
	}
	if (!plt.sh_size) {
		check(true, "unwtab: plt # SKIP no lazy PLT of the classic layout in %s", path);
		goto out;
	}
	if (!check(unwtab_build(path, &t, &err) == 0, "unwtab: plt: builds the table of %s", path)) {
		diag("%s", err.msg);
		goto out;
	}
	for (GElf_Off e = plt.sh_offset + 16; e + 16 <= plt.sh_offset + plt.sh_size; e += 16) {
		bool good = true;

		entries++;
		for (unsigned int b = 0; b < 16; b++) {
			const struct memtrace_unwind_row *r = unwtab_find(&t, e + b);

			good &= r && r->cfa_reg == MEMTRACE_UNW_CFA_RSP && r->ra_off == -8 &&
				r->cfa_off == (b < 11 ? 8 : 16);
		}
		ok += good;
	}
	check(entries && ok == entries, "unwtab: plt: at every byte of the %zu lazy PLT entries, "
	      "CFA = rsp + 8 before the push, rsp + 16 after it (%zu right)", entries, ok);
	unwtab_free(&t);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/*
 * Hostile call-frame information: this test's own program with its
 * .eh_frame overwritten (garbage; every 7th byte of its second half
 * flipped; the first records' lengths and pointers): the build ends, with
 * rows the module would accept or with an error, never a crash or a row
 * out of bounds.
 */
static void corrupt_tests(void)
{
	char dir[64], copy[128], self[4096];
	GElf_Shdr eh = { 0 };
	ssize_t len;
	Elf_Scn *scn = NULL;
	size_t shstrndx, bounded = 0;
	Elf *elf;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY);
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	while (elf && !elf_getshdrstrndx(elf, &shstrndx) && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".eh_frame"))
			eh = sh;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	/* The program's own path: in cp, /proc/self/exe would be cp. */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0 || !eh.sh_size || !check(make_tmpdir(dir, sizeof(dir), "unwbad"),
					      "unwtab: corrupt: a temporary directory"))
		return;
	self[len] = '\0';
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	for (int round = 0; round < 3; round++) {
		unsigned char *b = NULL;
		struct unwtab t;
		struct mt_err err;
		uint32_t x = 12345 + round;
		size_t n = eh.sh_size;
		int ret;

		if (!run_quiet("cp '%s' '%s'", self, copy) || !(b = malloc(n)))
			break;
		fd = open(copy, O_RDWR);
		if (fd < 0 || pread(fd, b, n, (off_t)eh.sh_offset) != (ssize_t)n) {
			free(b);
			if (fd >= 0)
				close(fd);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245 + 12345;
			if (round == 0)
				b[i] = (unsigned char)(x >> 16);
			else if (round == 1 && i >= n / 2 && i % 7 == 0)
				b[i] ^= (unsigned char)(x >> 16) | 1;
		}
		if (round == 2 && n >= 64)
			memset(b + 24, 0xff, 40);	/* lengths and pointers past the end */
		if (pwrite(fd, b, n, (off_t)eh.sh_offset) != (ssize_t)n) {
			free(b);
			close(fd);
			break;
		}
		close(fd);
		free(b);
		ret = unwtab_build(copy, &t, &err);
		if (ret == 0) {
			struct stat st;
			bool ok = !stat(copy, &st) && rows_valid(&t, (uint64_t)st.st_size);

			diag("corrupt .eh_frame, round %d: %zu rows%s", round, t.nr,
			     ok ? "" : ", not as the module takes them");
			bounded += ok;
			unwtab_free(&t);
		} else {
			diag("corrupt .eh_frame, round %d: %s", round, err.msg);
			bounded += ret < 0;
		}
	}
	check(bounded == 3, "unwtab: a corrupt .eh_frame (garbage, bytes flipped, lengths broken): "
	      "rows the module accepts, or an error, %zu of 3", bounded);
	remove_tree(dir);
}

static void error_tests(void)
{
	struct unwtab t;
	struct mt_err err;

	check(unwtab_build("/nonexistent/libfoo.so", &t, &err) == -ENOENT,
	      "unwtab: a missing file is ENOENT");
	check(unwtab_build("/proc/self/status", &t, &err) == -ENOEXEC && strstr(err.msg, "ELF"),
	      "unwtab: a file that is no ELF is said so (%s)", err.msg);
}

static bool same_rows(const struct unwtab *a, const struct unwtab *b)
{
	return a->nr == b->nr && !memcmp(a->rows, b->rows, a->nr * sizeof(*a->rows));
}

/* Rows whose rule says something (not "no information"). */
static size_t rows_known(const struct unwtab *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += t->rows[i].cfa_reg != MEMTRACE_UNW_CFA_NONE;
	return n;
}

/*
 * A stripped object whose only call-frame information (.debug_frame, no
 * .eh_frame: -fno-asynchronous-unwind-tables) is in its separate debug
 * file: found by .gnu_debuglink next to it and in .debug/ there, the
 * table must be the one the unstripped object gives (the oracle: the
 * same object before objcopy took its DWARF out).
 */
static void debug_file_tests(void)
{
	char dir[64], full[128], lib[128], dbg[128], src[128];
	FILE *f;
	struct unwtab t_full, t_strip, t_none;
	struct mt_err err;

	if (!run_quiet("command -v cc >/dev/null && command -v objcopy >/dev/null")) {
		check(true, "unwtab debug files # SKIP no cc or objcopy");
		return;
	}
	if (!check(make_tmpdir(dir, sizeof(dir), "unwdbg"), "unwtab: a temporary directory"))
		return;
	snprintf(full, sizeof(full), "%s/full.so", dir);
	snprintf(lib, sizeof(lib), "%s/lib.so", dir);
	snprintf(dbg, sizeof(dbg), "%s/lib.so.debug", dir);
	snprintf(src, sizeof(src), "%s/lib.c", dir);
	f = fopen(src, "w");
	if (f) {
		/* Functions with frames of their own, none made a tail call. */
		fputs("#include <stdlib.h>\n"
		      "void *volatile kept;\n"
		      "__attribute__((noinline, noipa)) void leaf(size_t n) { kept = malloc(n); }\n"
		      "__attribute__((noinline, noipa)) void mid(size_t n) "
		      "{ char b[64]; b[n % 64] = 1; kept = b; leaf(n); kept = 0; }\n"
		      "void top(size_t n) { for (volatile int i = 0; i < 3; i++) mid(n); kept = 0; }\n",
		      f);
		fclose(f);
	}
	if (!check(f && run_quiet("cc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables "
		      "-fno-unwind-tables -fPIC -shared -o '%s' '%s' && "
		      "objcopy --only-keep-debug '%s' '%s' && "
		      "objcopy --strip-all --add-gnu-debuglink='%s' '%s' '%s'",
		      full, src, full, dbg, dbg, full, lib),
		   "unwtab: a library with .debug_frame only, stripped, with a debug link")) {
		remove_tree(dir);
		return;
	}
	if (check(unwtab_build(full, &t_full, &err) == 0, "unwtab: the unstripped one's table") &&
	    check(unwtab_build(lib, &t_strip, &err) == 0, "unwtab: the stripped one's table")) {
		check(rows_known(&t_full) > 0 && same_rows(&t_full, &t_strip),
		      "unwtab: the stripped object's table is the unstripped one's, "
		      "from its debug file's .debug_frame (%zu rows, %zu known)",
		      t_strip.nr, rows_known(&t_strip));
		unwtab_free(&t_strip);
		/* In .debug/ next to it, as gdb looks too. */
		if (run_quiet("mkdir '%s/.debug' && mv '%s' '%s/.debug/'", dir, dbg, dir) &&
		    check(unwtab_build(lib, &t_strip, &err) == 0,
			  "unwtab: the stripped one's table, debug file in .debug/")) {
			check(same_rows(&t_full, &t_strip), "unwtab: ... the same rows");
			unwtab_free(&t_strip);
		}
		/* No debug file: no information for its functions, not a wrong rule. */
		if (run_quiet("rm -rf '%s/.debug'", dir)) {
			int ret = unwtab_build(lib, &t_none, &err);

			check((ret == -ENOENT || (ret == 0 && rows_known(&t_none) < rows_known(&t_full))),
			      "unwtab: without its debug file, the stripped object's functions "
			      "have no rule (%d)", ret);
			if (!ret)
				unwtab_free(&t_none);
		}
		unwtab_free(&t_full);
	}
	remove_tree(dir);
}

void unwtab_tests(void)
{
	self_tests();
	libc_tests();
	plt_tests();
	corrupt_tests();
	error_tests();
	debug_file_tests();
}
