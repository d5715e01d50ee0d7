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
	[MEMTRACE_UFN_DELETE] = "operator delete",
};

/*
 * The symbols probed, in the order that settles aliases (an earlier one
 * at the same offset is probed, a later one not: glibc's memalign before
 * aligned_alloc, tcmalloc's free before the operator delete it aliases).
 * A fallback is glibc's own name for the public one (all real glibc
 * symbols: the public names are aliases of these), used only for an object
 * that exports just that.  aligned_alloc has none: it shares
 * __libc_memalign with memalign in some glibc versions but is its own
 * function in others.  C++'s operator new and delete, every variant, as
 * libstdc++ (and tcmalloc, jemalloc's C++ build) define them: operator new
 * takes its size first, as malloc does.
 */
static const struct ufn_symbol {
	const char *name;
	const char *fallback;
	uint32_t func;
} ufn_symbols[] = {
	{ "malloc", "__libc_malloc", MEMTRACE_UFN_MALLOC },
	{ "calloc", "__libc_calloc", MEMTRACE_UFN_CALLOC },
	{ "realloc", "__libc_realloc", MEMTRACE_UFN_REALLOC },
	{ "reallocarray", "__libc_reallocarray", MEMTRACE_UFN_REALLOCARRAY },
	{ "free", "__libc_free", MEMTRACE_UFN_FREE },
	{ "posix_memalign", "__posix_memalign", MEMTRACE_UFN_POSIX_MEMALIGN },
	{ "aligned_alloc", NULL, MEMTRACE_UFN_ALIGNED_ALLOC },
	{ "memalign", "__libc_memalign", MEMTRACE_UFN_MEMALIGN },
	{ "valloc", "__libc_valloc", MEMTRACE_UFN_VALLOC },
	{ "pvalloc", "__libc_pvalloc", MEMTRACE_UFN_PVALLOC },
	{ "mmap", "__mmap", MEMTRACE_UFN_MMAP },
	{ "munmap", "__munmap", MEMTRACE_UFN_MUNMAP },
	{ "mremap", "__mremap", MEMTRACE_UFN_MREMAP },
	{ "_Znwm", NULL, MEMTRACE_UFN_MALLOC },
	{ "_Znam", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZnwmRKSt9nothrow_t", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZnamRKSt9nothrow_t", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZnwmSt11align_val_t", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZnamSt11align_val_t", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZnwmSt11align_val_tRKSt9nothrow_t", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", NULL, MEMTRACE_UFN_MALLOC },
	{ "_ZdlPv", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdaPv", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdlPvm", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdaPvm", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdlPvRKSt9nothrow_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdaPvRKSt9nothrow_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdlPvSt11align_val_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdaPvSt11align_val_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdlPvmSt11align_val_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdaPvmSt11align_val_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdlPvSt11align_val_tRKSt9nothrow_t", NULL, MEMTRACE_UFN_DELETE },
	{ "_ZdaPvSt11align_val_tRKSt9nothrow_t", NULL, MEMTRACE_UFN_DELETE },
	/*
	 * Allocators' own entry points a program may call, each with the
	 * arguments of a function above (docs/design.md lists those not
	 * traced).  jemalloc's non-standard API: mallocx(size, flags),
	 * rallocx(ptr, size, flags), dallocx(ptr, flags), sdallocx(ptr, size,
	 * flags).
	 */
	{ "mallocx", NULL, MEMTRACE_UFN_MALLOC },
	{ "rallocx", NULL, MEMTRACE_UFN_REALLOC },
	{ "dallocx", NULL, MEMTRACE_UFN_FREE },
	{ "sdallocx", NULL, MEMTRACE_UFN_FREE },
	/* tcmalloc's tc_* are aliases of the functions above but this one. */
	{ "tc_malloc_skip_new_handler", NULL, MEMTRACE_UFN_MALLOC },
	/* mimalloc's mi_* that are not aliases of the standard names. */
	{ "mi_malloc_small", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_zalloc", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_zalloc_small", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_malloc_aligned", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_malloc_aligned_at", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_zalloc_aligned", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_zalloc_aligned_at", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_new_nothrow", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_new_aligned_nothrow", NULL, MEMTRACE_UFN_MALLOC },
	{ "mi_mallocn", NULL, MEMTRACE_UFN_CALLOC },
	{ "mi_calloc_aligned", NULL, MEMTRACE_UFN_CALLOC },
	{ "mi_calloc_aligned_at", NULL, MEMTRACE_UFN_CALLOC },
	{ "mi_new_n", NULL, MEMTRACE_UFN_CALLOC },
	{ "mi_reallocf", NULL, MEMTRACE_UFN_REALLOC },
	{ "reallocf", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_rezalloc", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_realloc_aligned", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_realloc_aligned_at", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_rezalloc_aligned", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_rezalloc_aligned_at", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_new_realloc", NULL, MEMTRACE_UFN_REALLOC },
	{ "mi_reallocn", NULL, MEMTRACE_UFN_REALLOCARRAY },
	{ "mi_recalloc", NULL, MEMTRACE_UFN_REALLOCARRAY },
	{ "mi_recalloc_aligned", NULL, MEMTRACE_UFN_REALLOCARRAY },
	{ "mi_recalloc_aligned_at", NULL, MEMTRACE_UFN_REALLOCARRAY },
	{ "mi_new_reallocn", NULL, MEMTRACE_UFN_REALLOCARRAY },
	{ "mi_free_size", NULL, MEMTRACE_UFN_FREE },
	{ "mi_free_aligned", NULL, MEMTRACE_UFN_FREE },
	{ "mi_free_size_aligned", NULL, MEMTRACE_UFN_FREE },
	{ "mi_cfree", NULL, MEMTRACE_UFN_FREE },
	{ "mi_posix_memalign", NULL, MEMTRACE_UFN_POSIX_MEMALIGN },
	{ "mi_aligned_alloc", NULL, MEMTRACE_UFN_ALIGNED_ALLOC },
	{ "mi_memalign", NULL, MEMTRACE_UFN_MEMALIGN },
	{ "mi_valloc", NULL, MEMTRACE_UFN_VALLOC },
};
_Static_assert(sizeof(ufn_symbols) / sizeof(ufn_symbols[0]) == ELFSYMS_MAX_PROBES &&
	       ELFSYMS_STANDARD_SLOTS <= ELFSYMS_MAX_PROBES,
	       "ufn_symbols[] holds ELFSYMS_MAX_PROBES symbols");

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
	uint64_t size;		/* st_size: the function's bytes */
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
		if (v.type != STT_FUNC && v.type != STT_GNU_IFUNC && v.type != STT_OBJECT)
			continue;
		v.name = elf_strptr(o->elf, shdr.sh_link, sym.st_name);
		if (!v.name || !*v.name)
			continue;
		at = strchr(v.name, '@');
		v.name_len = at ? (size_t)(at - v.name) : strlen(v.name);
		v.default_version = is_default_version(o, dynamic, i, at);
		v.value = sym.st_value;
		v.size = sym.st_size;
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

bool elfsyms_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
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
	uint64_t size;
	bool ifunc;
	char symbol[64];
};

struct find_ctx {
	const struct elf_obj *o;
	const char *prefix;		/* -S: of the C functions' names; NULL: none */
	bool public_only;		/* the names ld.so binds: no glibc internal ones */
	struct candidate cand[ELFSYMS_MAX_PROBES];
	bool done[ELFSYMS_MAX_PROBES];	/* settled by an earlier table */
};

static void consider(struct find_ctx *c, size_t i, const struct sym_view *v, bool public)
{
	enum cand_rank rank;
	uint64_t offset;

	rank = public ? RANK_PUBLIC_DEFAULT : RANK_FALLBACK_DEFAULT;
	/* A hidden version binds nothing a program links today (see elfsyms.h). */
	if (!v->default_version && c->public_only)
		return;
	if (!v->default_version)
		rank++;
	if (rank >= c->cand[i].rank || !elfsyms_vaddr_to_offset(c->o->elf, v->value, &offset))
		return;
	c->cand[i].rank = rank;
	c->cand[i].offset = offset;
	c->cand[i].size = v->size;
	c->cand[i].ifunc = v->type == STT_GNU_IFUNC;
	snprintf(c->cand[i].symbol, sizeof(c->cand[i].symbol), "%.*s",
		 (int)v->name_len, v->name);
}

static int find_one(const struct sym_view *v, void *ctx)
{
	struct find_ctx *c = ctx;

	/*
	 * An IFUNC's value is its resolver, which runs once at load time:
	 * never probed, but where ld.so binds the name it still shadows every
	 * later object's definition, so binding (public_only) keeps it.
	 */
	if (v->type != STT_FUNC && !(v->type == STT_GNU_IFUNC && c->public_only))
		return 0;
	for (size_t i = 0; i < ELFSYMS_MAX_PROBES; i++) {
		if (c->done[i])
			continue;
		if (c->prefix) {
			/* A prefixed allocator (-S je_): its C functions only, by that name. */
			size_t plen = strlen(c->prefix);

			if (ufn_symbols[i].name[0] != '_' && v->name_len > plen &&
			    !memcmp(v->name, c->prefix, plen) &&
			    v->name_len - plen == strlen(ufn_symbols[i].name) &&
			    !memcmp(v->name + plen, ufn_symbols[i].name, v->name_len - plen))
				consider(c, i, v, true);
			continue;
		}
		if (name_is(v, ufn_symbols[i].name))
			consider(c, i, v, true);
		else if (!c->public_only && name_is(v, ufn_symbols[i].fallback))
			consider(c, i, v, false);
	}
	return 0;
}

/* An alias of an earlier symbol: its calls are already seen. */
static bool is_alias(const struct find_ctx *c, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (c->cand[j].rank != RANK_NONE && c->cand[j].offset == c->cand[i].offset)
			return true;
	return false;
}

/* The candidates of every symbol in ufn_symbols[] that path defines. */
static int find_candidates(const char *path, struct find_ctx *c, struct mt_err *err)
{
	struct elf_obj o;
	size_t i;
	int rc;

	rc = elf_obj_open(&o, path, err);
	if (rc)
		return rc;
	c->o = &o;
	for (i = 0; i < ELFSYMS_MAX_PROBES; i++)
		c->cand[i].rank = RANK_NONE;
	/* .symtab is the complete table; .dynsym only fills its gaps. */
	if (o.symtab) {
		for_each_sym(&o, o.symtab, find_one, c);
		for (i = 0; i < ELFSYMS_MAX_PROBES; i++)
			c->done[i] = c->cand[i].rank != RANK_NONE;
	}
	if (o.dynsym)
		for_each_sym(&o, o.dynsym, find_one, c);
	c->o = NULL;
	elf_obj_close(&o);
	return 0;
}

const char *elfsyms_slot_symbol(size_t slot)
{
	return slot < ELFSYMS_MAX_PROBES ? ufn_symbols[slot].name : NULL;
}

int elfsyms_find_definitions(const char *path, struct ufn_probe slots[ELFSYMS_MAX_PROBES],
			     bool defined[ELFSYMS_MAX_PROBES], struct mt_err *err)
{
	struct find_ctx c;
	int rc, nr = 0;

	memset(&c, 0, sizeof(c));
	c.public_only = true;
	rc = find_candidates(path, &c, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < ELFSYMS_MAX_PROBES; i++) {
		defined[i] = c.cand[i].rank != RANK_NONE;
		memset(&slots[i], 0, sizeof(slots[i]));
		if (!defined[i])
			continue;
		slots[i].func = ufn_symbols[i].func;
		slots[i].offset = c.cand[i].offset;
		slots[i].size = c.cand[i].size;
		slots[i].ifunc = c.cand[i].ifunc;
		memcpy(slots[i].symbol, c.cand[i].symbol, sizeof(slots[i].symbol));
		nr++;
	}
	return nr;
}

int elfsyms_find_allocators(const char *path, struct ufn_probe *probes, size_t max,
			    struct mt_err *err)
{
	return elfsyms_find_prefixed(path, NULL, probes, max, err);
}

int elfsyms_find_prefixed(const char *path, const char *prefix, struct ufn_probe *probes,
			  size_t max, struct mt_err *err)
{
	struct find_ctx c;
	size_t nr = 0, i;
	int rc;

	memset(&c, 0, sizeof(c));
	c.prefix = prefix && prefix[0] ? prefix : NULL;
	rc = find_candidates(path, &c, err);
	if (rc)
		return rc;
	for (i = 0; i < ELFSYMS_MAX_PROBES && nr < max; i++) {
		if (c.cand[i].rank == RANK_NONE || is_alias(&c, i))
			continue;
		probes[nr].func = ufn_symbols[i].func;
		probes[nr].offset = c.cand[i].offset;
		probes[nr].size = c.cand[i].size;
		memcpy(probes[nr].symbol, c.cand[i].symbol, sizeof(probes[nr].symbol));
		nr++;
	}
	return (int)nr;
}

static int defines_one(const struct sym_view *v, void *ctx)
{
	return v->type != STT_OBJECT && name_is(v, ctx);
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

struct lookup_ctx {
	const char *name;
	uint64_t value;
	bool found, found_default;
};

static int lookup_one(const struct sym_view *v, void *ctx)
{
	struct lookup_ctx *l = ctx;

	if (!name_is(v, l->name) || (l->found && (l->found_default || !v->default_version)))
		return 0;
	l->found = true;
	l->found_default = v->default_version;
	l->value = v->value;
	return 0;
}

int elfsyms_lookup(const char *path, const char *name, uint64_t *vaddr, uint64_t *load_vaddr,
		   struct mt_err *err)
{
	struct lookup_ctx l = { .name = name };
	struct elf_obj o;
	size_t n;
	int rc;

	rc = elf_obj_open(&o, path, err);
	if (rc)
		return rc;
	if (o.symtab)
		for_each_sym(&o, o.symtab, lookup_one, &l);
	if (!l.found && o.dynsym)
		for_each_sym(&o, o.dynsym, lookup_one, &l);
	*load_vaddr = UINT64_MAX;
	if (!elf_getphdrnum(o.elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(o.elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_offset == 0)
				*load_vaddr = ph.p_vaddr;
		}
	}
	elf_obj_close(&o);
	if (!l.found)
		return mt_errf(err, ENOENT, "%s defines no %s", path, name);
	if (*load_vaddr == UINT64_MAX)
		return mt_errf(err, ENOEXEC, "%s: no loadable segment from its first byte", path);
	*vaddr = l.value;
	return 0;
}

int elfsyms_class(const char *path)
{
	int fd, cls = -ENOEXEC;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getclass(elf) != ELFCLASSNONE)
		cls = gelf_getclass(elf);
	if (elf)
		elf_end(elf);
	close(fd);
	return cls;
}
