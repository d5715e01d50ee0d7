// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator lookup in ELF symbol tables, with libelf.
 *
 * A symbol's value is a virtual address in the object's own layout; the
 * uprobe wants a file offset, which only the program headers relate to it
 * (the loader maps PT_LOAD segments, not sections), for ET_EXEC and ET_DYN
 * alike.
 *
 * Versions: in .dynsym the name is plain ("malloc") and .gnu.version says
 * which version it is, with bit 15 set for a non-default ("hidden") one;
 * in .symtab ld writes the version into the name: "malloc@@VER" for the
 * default, "malloc@VER" for another one.
 */
#include "elfsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memtrace.h>

/* .gnu.version: the version is not the default one for this name. */
#define VERSYM_HIDDEN_BIT 0x8000

static const char *const ufn_names[MEMTRACE_UFN_MAX + 1] = {
	[MEMTRACE_UFN_MALLOC] = "malloc",
	[MEMTRACE_UFN_CALLOC] = "calloc",
	[MEMTRACE_UFN_REALLOC] = "realloc",
	[MEMTRACE_UFN_REALLOCARRAY] = "reallocarray",
	[MEMTRACE_UFN_FREE] = "free",
	[MEMTRACE_UFN_POSIX_MEMALIGN] = "posix_memalign",
	[MEMTRACE_UFN_ALIGNED_ALLOC] = "aligned_alloc",
	[MEMTRACE_UFN_MEMALIGN] = "memalign",
	[MEMTRACE_UFN_VALLOC] = "valloc",
	[MEMTRACE_UFN_PVALLOC] = "pvalloc",
	[MEMTRACE_UFN_MMAP] = "mmap",
	[MEMTRACE_UFN_MUNMAP] = "munmap",
	[MEMTRACE_UFN_MREMAP] = "mremap",
};

/*
 * glibc's own names for the same functions (all real glibc symbols: the
 * public names are aliases of these), for an object that exports only
 * these.  aligned_alloc has none: it shares __libc_memalign with memalign
 * in some glibc versions but is its own function in others.
 */
static const char *const ufn_fallbacks[MEMTRACE_UFN_MAX + 1] = {
	[MEMTRACE_UFN_MALLOC] = "__libc_malloc",
	[MEMTRACE_UFN_CALLOC] = "__libc_calloc",
	[MEMTRACE_UFN_REALLOC] = "__libc_realloc",
	[MEMTRACE_UFN_REALLOCARRAY] = "__libc_reallocarray",
	[MEMTRACE_UFN_FREE] = "__libc_free",
	[MEMTRACE_UFN_POSIX_MEMALIGN] = "__posix_memalign",
	[MEMTRACE_UFN_MEMALIGN] = "__libc_memalign",
	[MEMTRACE_UFN_VALLOC] = "__libc_valloc",
	[MEMTRACE_UFN_PVALLOC] = "__libc_pvalloc",
	[MEMTRACE_UFN_MMAP] = "__mmap",
	[MEMTRACE_UFN_MUNMAP] = "__munmap",
	[MEMTRACE_UFN_MREMAP] = "__mremap",
};

const char *elfsyms_ufn_name(uint32_t func)
{
	return func <= MEMTRACE_UFN_MAX ? ufn_names[func] : NULL;
}

struct elf_obj {
	const char *path;
	int fd;
	Elf *elf;
	Elf_Scn *symtab, *dynsym;
	Elf_Data *versym;	/* .gnu.version, parallel to .dynsym; or NULL */
};

/* One GLOBAL or WEAK defined symbol, as the callbacks below see it. */
struct sym_view {
	const char *name;	/* not NUL-terminated at name_len if versioned */
	size_t name_len;	/* up to any "@VER" */
	bool default_version;
	int type;		/* STT_* */
	uint64_t value;
};

/* Returns nonzero to stop the walk. */
typedef int (*sym_fn)(const struct sym_view *sym, void *ctx);

static void elf_obj_close(struct elf_obj *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
}

/* A table holding only the mandatory null symbol (static-pie binaries
 * keep such a .dynsym) tells as little as no table. */
static bool has_symbols(Elf_Scn *scn)
{
	GElf_Shdr shdr;

	return gelf_getshdr(scn, &shdr) && shdr.sh_type != SHT_NOBITS &&
	       shdr.sh_entsize && shdr.sh_size / shdr.sh_entsize > 1;
}

static void find_tables(struct elf_obj *o)
{
	Elf_Scn *scn = NULL, *versym = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(o->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB && has_symbols(scn))
			o->symtab = scn;
		else if (shdr.sh_type == SHT_DYNSYM && has_symbols(scn))
			o->dynsym = scn;
		else if (shdr.sh_type == SHT_GNU_versym)
			versym = scn;
	}
	if (o->dynsym && versym)
		o->versym = elf_getdata(versym, NULL);
}

static int elf_obj_open(struct elf_obj *o, const char *path, struct mt_err *err)
{
	GElf_Ehdr ehdr;
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0)
		return mt_errf(err, errno, "cannot open %s: %s", path, strerror(errno));
	if (fstat(o->fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		elf_obj_close(o);
		return mt_errf(err, ENOEXEC, "%s: not an ELF file (not a regular file)", path);
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		elf_obj_close(o);
		return mt_errf(err, ENOTSUP, "libelf: %s", elf_errmsg(-1));
	}
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF) {
		elf_obj_close(o);
		return mt_errf(err, ENOEXEC, "%s: not an ELF file", path);
	}
	if (!gelf_getehdr(o->elf, &ehdr)) {
		elf_obj_close(o);
		return mt_errf(err, ENOEXEC, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
	}
	/* Relocatable objects and core files have nothing a process runs. */
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
		elf_obj_close(o);
		return mt_errf(err, ENOEXEC, "%s: not an executable or shared object (ELF type %u)",
			       path, (unsigned int)ehdr.e_type);
	}
	find_tables(o);
	if (!o->symtab && !o->dynsym) {
		elf_obj_close(o);
		return mt_errf(err, ENOENT, "%s: no symbol table (.symtab and .dynsym): stripped",
			       path);
	}
	return 0;
}

/* Default version: unversioned, "@@VER", or a .dynsym entry whose versym
 * does not have the hidden bit. */
static bool is_default_version(const struct elf_obj *o, bool dynamic, size_t ndx,
			       const char *at)
{
	GElf_Versym ver;

	if (!dynamic)
		return !at || at[1] == '@';
	if (!o->versym || !gelf_getversym(o->versym, (int)ndx, &ver))
		return true;
	return !(ver & VERSYM_HIDDEN_BIT);
}

static int for_each_sym(const struct elf_obj *o, Elf_Scn *scn, sym_fn fn, void *ctx)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	bool dynamic = scn == o->dynsym;
	GElf_Shdr shdr;
	size_t i, n;

	if (!data || !gelf_getshdr(scn, &shdr) || !shdr.sh_entsize)
		return 0;
	n = shdr.sh_size / shdr.sh_entsize;
	for (i = 1; i < n; i++) {
		struct sym_view v;
		const char *at;
		GElf_Sym sym;
		int bind, rc;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		bind = GELF_ST_BIND(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		v.type = GELF_ST_TYPE(sym.st_info);
		if (v.type != STT_FUNC && v.type != STT_GNU_IFUNC)
			continue;
		v.name = elf_strptr(o->elf, shdr.sh_link, sym.st_name);
		if (!v.name || !*v.name)
			continue;
		at = strchr(v.name, '@');
		v.name_len = at ? (size_t)(at - v.name) : strlen(v.name);
		v.default_version = is_default_version(o, dynamic, i, at);
		v.value = sym.st_value;
		rc = fn(&v, ctx);
		if (rc)
			return rc;
	}
	return 0;
}

static bool name_is(const struct sym_view *v, const char *name)
{
	return name && strlen(name) == v->name_len && !memcmp(v->name, name, v->name_len);
}

/* The file offset of vaddr, through the PT_LOAD that maps it from the file
 * (not from its zero-filled tail, which has no file offset). */
static bool vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*offset = ph.p_offset + (vaddr - ph.p_vaddr);
			return true;
		}
	}
	return false;
}

/* Lower is better; a public name always beats glibc's internal one. */
enum cand_rank {
	RANK_PUBLIC_DEFAULT,
	RANK_PUBLIC_OTHER,
	RANK_FALLBACK_DEFAULT,
	RANK_FALLBACK_OTHER,
	RANK_NONE,
};

struct candidate {
	enum cand_rank rank;
	uint64_t offset;
	char symbol[64];
};

struct find_ctx {
	const struct elf_obj *o;
	struct candidate cand[MEMTRACE_UFN_MAX + 1];
	bool done[MEMTRACE_UFN_MAX + 1];	/* settled by an earlier table */
};

static void consider(struct find_ctx *c, uint32_t func, const struct sym_view *v, bool public)
{
	enum cand_rank rank;
	uint64_t offset;

	rank = public ? RANK_PUBLIC_DEFAULT : RANK_FALLBACK_DEFAULT;
	if (!v->default_version)
		rank++;
	if (rank >= c->cand[func].rank || !vaddr_to_offset(c->o->elf, v->value, &offset))
		return;
	c->cand[func].rank = rank;
	c->cand[func].offset = offset;
	snprintf(c->cand[func].symbol, sizeof(c->cand[func].symbol), "%.*s",
		 (int)v->name_len, v->name);
}

static int find_one(const struct sym_view *v, void *ctx)
{
	struct find_ctx *c = ctx;
	uint32_t f;

	/* An IFUNC's value is its resolver, which runs once at load time. */
	if (v->type != STT_FUNC)
		return 0;
	for (f = 1; f <= MEMTRACE_UFN_MAX; f++) {
		if (c->done[f])
			continue;
		if (name_is(v, ufn_names[f]))
			consider(c, f, v, true);
		else if (name_is(v, ufn_fallbacks[f]))
			consider(c, f, v, false);
	}
	return 0;
}

/* An alias of an earlier (lower) function: its calls are already seen. */
static bool is_alias(const struct find_ctx *c, uint32_t func)
{
	uint32_t f;

	for (f = 1; f < func; f++)
		if (c->cand[f].rank != RANK_NONE && c->cand[f].offset == c->cand[func].offset)
			return true;
	return false;
}

int elfsyms_find_allocators(const char *path, struct ufn_probe *probes, size_t max,
			    struct mt_err *err)
{
	struct find_ctx c;
	struct elf_obj o;
	size_t nr = 0;
	uint32_t f;
	int rc;

	rc = elf_obj_open(&o, path, err);
	if (rc)
		return rc;
	memset(&c, 0, sizeof(c));
	c.o = &o;
	for (f = 0; f <= MEMTRACE_UFN_MAX; f++)
		c.cand[f].rank = RANK_NONE;

	/* .symtab is the complete table; .dynsym only fills its gaps. */
	if (o.symtab) {
		for_each_sym(&o, o.symtab, find_one, &c);
		for (f = 1; f <= MEMTRACE_UFN_MAX; f++)
			c.done[f] = c.cand[f].rank != RANK_NONE;
	}
	if (o.dynsym)
		for_each_sym(&o, o.dynsym, find_one, &c);

	for (f = 1; f <= MEMTRACE_UFN_MAX && nr < max; f++) {
		if (c.cand[f].rank == RANK_NONE || is_alias(&c, f))
			continue;
		probes[nr].func = f;
		probes[nr].offset = c.cand[f].offset;
		memcpy(probes[nr].symbol, c.cand[f].symbol, sizeof(probes[nr].symbol));
		nr++;
	}
	elf_obj_close(&o);
	return (int)nr;
}

static int defines_one(const struct sym_view *v, void *ctx)
{
	return name_is(v, ctx);
}

int elfsyms_defines(const char *path, const char *name, struct mt_err *err)
{
	struct elf_obj o;
	int rc;

	rc = elf_obj_open(&o, path, err);
	if (rc)
		return rc;
	if (o.symtab)
		rc = for_each_sym(&o, o.symtab, defines_one, (void *)name);
	if (!rc && o.dynsym)
		rc = for_each_sym(&o, o.dynsym, defines_one, (void *)name);
	elf_obj_close(&o);
	return rc ? 1 : 0;
}
