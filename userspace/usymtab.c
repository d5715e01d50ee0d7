// SPDX-License-Identifier: GPL-2.0
/*
 * A module's lookup tables (usymtab.h): its function symbols, its CUs'
 * functions and its CUs, each sorted by address and searched by bisection,
 * and the inline chain of an address found from them.  Calls libdw and
 * libdwfl only.
 */
#include "usymtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

/* ---- function symbols ------------------------------------------------ */

/*
 * libdwfl's dwfl_module_addrinfo scans the whole symbol table on every
 * call (elfutils 0.188): 10K symbols a lookup for libc with its debug
 * symbols, 100K lookups took 30 s.  So each module gets a table of its
 * function symbols sorted by address, built on its first lookup and kept
 * in the module's userdata until libdwfl drops the module.
 */
struct usyms_symtab {
	size_t nr;
	struct usyms_sym syms[];
};

/*
 * The plainest name at an address: a function over a label, global over
 * weak over local (glibc's internal "__GI_" aliases last), then the fewest
 * leading underscores and the shortest, so glibc's malloc shows as
 * "malloc", not "__libc_malloc".
 */
static uint32_t sym_rank(const GElf_Sym *sym, const char *name, size_t len)
{
	uint32_t bind = GELF_ST_BIND(sym->st_info);
	uint32_t rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	size_t underscores = strspn(name, "_");

	if (!strncmp(name, "__GI_", 5))
		rank = 3;
	if (GELF_ST_TYPE(sym->st_info) == STT_NOTYPE)
		rank = 4;

	return rank << 24 | (uint32_t)(underscores < 255 ? underscores : 255) << 16 |
	       (uint32_t)(len < 0xffff ? len : 0xffff);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct usyms_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorted, one entry per address (the best name, the largest size). */
static size_t dedup_syms(struct usyms_sym *syms, size_t nr)
{
	size_t out = 0;

	for (size_t i = 0; i < nr; i++) {
		if (out && syms[out - 1].addr == syms[i].addr) {
			if (syms[i].size > syms[out - 1].size)
				syms[out - 1].size = syms[i].size;
			continue;
		}
		syms[out++] = syms[i];
	}
	return out;
}

/*
 * An untyped symbol in a section of code: an entry point written in
 * assembly without a .type (the dynamic linker's _dl_start_user, which
 * calls the initializers), which gdb names and a report should too.
 */
static bool is_code_label(const GElf_Sym *sym, GElf_Word shndx, Elf *elf)
{
	GElf_Shdr shdr;
	Elf_Scn *scn;

	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || !elf || shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_EXECINSTR);
}

static struct usyms_symtab *build_symtab(Dwfl_Module *mod)
{
	int nr = dwfl_module_getsymtab(mod);
	struct usyms_symtab *t;
	size_t n = 0;

	t = malloc(sizeof(*t) + (size_t)(nr > 0 ? nr : 0) * sizeof(t->syms[0]));
	if (!t)
		return NULL;
	for (int i = 1; i < nr; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
							   &elf, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		bool label;
		size_t len;

		if (!name || !addr || shndx == SHN_UNDEF)
			continue;
		label = is_code_label(&sym, shndx, elf);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !label)
			continue;
		len = strcspn(name, "@");
		if (!len)
			continue;
		t->syms[n++] = (struct usyms_sym){ addr, sym.st_size, name, (uint32_t)len,
						   (uint32_t)i, sym_rank(&sym, name, len), label };
	}
	qsort(t->syms, n, sizeof(t->syms[0]), sym_cmp);
	t->nr = dedup_syms(t->syms, n);
	return t;
}

struct usyms_module *usymtab_module(Dwfl_Module *mod)
{
	void **userdata;

	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*userdata)
		*userdata = calloc(1, sizeof(struct usyms_module));
	return *userdata;
}

static struct usyms_symtab *module_symtab(Dwfl_Module *mod)
{
	struct usyms_module *m = usymtab_module(mod);

	if (m && !m->symtab)
		m->symtab = build_symtab(mod);
	return m ? m->symtab : NULL;
}

/* An assembly label has no size: it reaches to the next symbol, as in gdb. */
const struct usyms_sym *usymtab_sym(Dwfl_Module *mod, uint64_t pc)
{
	const struct usyms_symtab *t = module_symtab(mod);
	size_t lo = 0, hi = t ? t->nr : 0;
	const struct usyms_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->syms[lo - 1];
	if (s->label) {
		/* A label inside a function names a place in it, not the function. */
		for (size_t i = lo - 1, steps = 0; i-- > 0 && steps < 64; steps++) {
			const struct usyms_sym *f = &t->syms[i];

			if (f->label)
				continue;
			if (f->size && pc - f->addr < f->size)
				return f;
			break;
		}
		return s;
	}
	return s->size && pc - s->addr >= s->size ? NULL : s;
}

/* ---- functions by DWARF address, per CU ------------------------------ */

/*
 * Finding the scopes around an address means walking down from the CU,
 * and the first level, the whole CU's types, variables and functions, is
 * most of the walk (libc has CUs of thousands of DIEs).  So each CU gets a
 * sorted table of its functions' address ranges on its first lookup, and
 * later lookups start from the function.
 */
struct usyms_func {
	Dwarf_Addr low, high;	/* one range of the function */
	Dwarf_Die die;
};

struct usyms_cu {
	Dwarf_Off off;		/* of the CU DIE: the key */
	size_t nr;
	struct usyms_func *funcs;
};

struct usyms_funcs {
	struct usyms_func *v;
	size_t nr, cap;
};

static void add_func_ranges(struct usyms_funcs *f, Dwarf_Die *die)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &low, &high)) > 0) {
		if (f->nr == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			struct usyms_func *v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->nr++] = (struct usyms_func){ low, high, *die };
	}
}

/* The functions of a scope: the CU, and namespaces (C++ from clang). */
static void index_funcs(struct usyms_funcs *f, Dwarf_Die *scope)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child))
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram)
			add_func_ranges(f, &child);
		else if (tag == DW_TAG_namespace)
			index_funcs(f, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int func_cmp(const void *a, const void *b)
{
	const struct usyms_func *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static int cu_cmp(const void *a, const void *b)
{
	const struct usyms_cu *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static struct usyms_cu *index_cu(Dwarf_Die *cudie)
{
	struct usyms_cu *cu = malloc(sizeof(*cu));
	struct usyms_funcs f = { 0 };

	if (!cu)
		return NULL;
	index_funcs(&f, cudie);
	qsort(f.v, f.nr, sizeof(f.v[0]), func_cmp);
	cu->off = dwarf_dieoffset(cudie);
	cu->nr = f.nr;
	cu->funcs = f.v;
	return cu;
}

static void free_cu(void *p)
{
	struct usyms_cu *cu = p;

	free(cu->funcs);
	free(cu);
}

/*
 * Which CU holds an address: libdwfl (0.188) only knows from
 * .debug_aranges, which clang does not emit unless asked
 * (-gdwarf-aranges).  Without it, we build the same table from the CUs'
 * own address ranges, once per module.
 */
struct usyms_cu_range {
	Dwarf_Addr low, high;
	Dwarf_Die cu;
};

static int cu_range_cmp(const void *a, const void *b)
{
	const struct usyms_cu_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static void add_cu_ranges(struct usyms_module *m, size_t *cap, Dwarf_Die *cudie)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cudie, off, &base, &low, &high)) > 0) {
		if (m->nr_cu_ranges == *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			struct usyms_cu_range *v = realloc(m->cu_ranges, ncap * sizeof(*v));

			if (!v)
				return;
			m->cu_ranges = v;
			*cap = ncap;
		}
		m->cu_ranges[m->nr_cu_ranges++] = (struct usyms_cu_range){ low, high, *cudie };
	}
}

static void build_cu_ranges(struct usyms_module *m, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	Dwarf_Die cudie;

	m->cu_ranges_built = true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cudie))
			add_cu_ranges(m, &cap, &cudie);
		off = next;
	}
	qsort(m->cu_ranges, m->nr_cu_ranges, sizeof(m->cu_ranges[0]), cu_range_cmp);
}

/* The CU DIE holding pc (an address in the process) and the DWARF bias. */
Dwarf_Die *usymtab_cu(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
	struct usyms_module *m;
	size_t lo = 0, hi;
	Dwarf *dw;

	if (cu)
		return cu;
	m = usymtab_module(mod);
	dw = m ? dwfl_module_getdwarf(mod, bias) : NULL;
	if (!dw)
		return NULL;
	if (!m->cu_ranges_built)
		build_cu_ranges(m, dw);
	pc -= *bias;
	hi = m->nr_cu_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cu_ranges[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= m->cu_ranges[lo - 1].high)
		return NULL;
	return &m->cu_ranges[lo - 1].cu;
}

/* The function whose code holds pc (a DWARF address) in cudie, or NULL. */
static Dwarf_Die *find_func(Dwfl_Module *mod, Dwarf_Die *cudie, Dwarf_Addr pc)
{
	struct usyms_module *m = usymtab_module(mod);
	struct usyms_cu key = { .off = dwarf_dieoffset(cudie) }, *cu, **node;
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	node = tfind(&key, &m->cus, cu_cmp);
	if (!node) {
		cu = index_cu(cudie);
		node = cu ? tsearch(cu, &m->cus, cu_cmp) : NULL;
		if (!node) {
			if (cu)
				free_cu(cu);
			return NULL;
		}
	}
	cu = *node;
	hi = cu->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->funcs[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= cu->funcs[lo - 1].high)
		return NULL;
	return &cu->funcs[lo - 1].die;
}

void usymtab_module_free(struct usyms_module *m)
{
	if (!m)
		return;
	free(m->symtab);
	tdestroy(m->cus, free_cu);
	free(m->cu_ranges);
	free(m);
}

/* ---- the inline chain of an address ---------------------------------- */

static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_entry_point:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return true;
	default:
		return false;
	}
}

/*
 * The inlined instances containing pc (a DWARF address in cu), outermost
 * first, found by going down from the function through the scopes that
 * contain pc.  dwarf_getscopes does that from the CU, and then also walks
 * the inline's abstract origin: scans of whole CUs per lookup, we avoid.
 */
int usymtab_inline_chain(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain)
{
	Dwarf_Die *func, die, child;
	int n = 0;

	func = find_func(mod, cu, pc);
	if (!func)
		return 0;
	die = *func;
	while (dwarf_child(&die, &child) == 0) {
		bool found = false;

		do {
			found = may_hold_code(dwarf_tag(&child)) && dwarf_haspc(&child, pc) > 0;
		} while (!found && dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine && n < USYMS_MAX_INLINE)
			chain[n++] = child;
		die = child;
	}
	return n;
}

