// SPDX-License-Identifier: GPL-2.0
/*
 * One Dwfl per traced process, fed from /proc/PID/maps much as
 * dwfl_linux_proc_report would, except that we read the file ourselves:
 * we keep only the mappings of code (see filter_maps), we need that text
 * anyway to tell whether it changed, and reporting from the same text
 * means that what we compare is exactly what libdwfl was told.
 *
 * libdwfl (elfutils 0.188) finds modules, ELF and debug files and reads
 * line tables well; the lookups it does by linear scans we do with tables
 * of our own per module: function symbols (dwfl_module_addrinfo scans the
 * symbol table), the scopes around an address (dwarf_getscopes scans the
 * CU) and, without .debug_aranges, the CU of an address.  Formatted
 * results are cached per address on top of that.
 */
#include "usyms.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <search.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfile.h"
#include "procfs.h"
#include "procmaps.h"

/* Deeper inline chains exist only in generated code; cut them there. */
#define USYMS_MAX_INLINE	16
/* Room for the formatted lines of one address: names are cut to fit. */
#define USYMS_TEXT_MAX		8192
#define USYMS_CHUNK_SIZE	(256 * 1024)
#define USYMS_CACHE_MIN		4096

/* A cached address: its lines, '\n'-separated.  text NULL: a free slot. */
struct usyms_slot {
	uint64_t addr;
	const char *text;
	uint32_t lines;
};

/* Arena chunk for cached strings: freed all at once when the cache is. */
struct usyms_chunk {
	struct usyms_chunk *next;
	size_t used;
	char data[];
};

struct usyms {
	int pid;
	int root_fd;			/* its root directory, also once it has exited */
	bool gone;			/* exited (or zombie): stop reading /proc */
	unsigned long long start_time;	/* tells a reused pid from ours */
	Dwfl *dwfl;
	char *maps;			/* the filtered maps last reported */
	size_t maps_len;
	unsigned int reports;
	struct usyms_slot *slots;
	size_t nr_slots;		/* a power of two, or 0 */
	size_t nr_used;
	struct usyms_chunk *chunks;
};

/* NULL: libdwfl's default, ":.debug:/usr/lib/debug", plus build-ids. */
static char *usyms_debuginfo_path;
/* usyms_allow_debuginfod(): the last resort for debug files. */
static bool usyms_debuginfod;

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp);
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name);

static const Dwfl_Callbacks usyms_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &usyms_debuginfo_path,
};

/* libstdc++'s demangler, the C++ ABI's (<cxxabi.h>), as elfutils' eu-stack uses it. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

void usyms_allow_debuginfod(bool allow)
{
	usyms_debuginfod = allow;
}

/* ---- /proc ------------------------------------------------------------ */

/*
 * The start time of a process, which tells it from a later one with the
 * same pid, and whether it is a kernel thread.  -ESRCH once it has exited
 * (its mappings are gone).
 */
static int read_stat(int pid, unsigned long long *start, bool *kthread)
{
	struct proc_stat st;
	int ret = procfs_stat(pid, 0, &st);

	if (ret)
		return ret;
	if (!procfs_alive(pid))
		return -ESRCH;
	*start = st.start_time;
	*kthread = st.flags & PROCFS_PF_KTHREAD;
	return 0;
}

struct map_line {
	uint64_t start, end, offset;
	unsigned int major, minor;
	uint64_t ino;
	bool exec;
	const char *name;	/* path or "[vdso]"; "" if none */
};

/* "START-END PERMS OFFSET MAJ:MIN INODE [NAME]", NUL-terminated. */
static bool parse_map_line(const char *line, struct map_line *m)
{
	struct maps_line l;

	if (!procmaps_parse_line(line, &l))
		return false;
	*m = (struct map_line){ l.start, l.end, l.offset, l.major, l.minor, l.inode, l.exec,
				l.name };
	return true;
}

static bool is_file(const struct map_line *m)
{
	return m->name[0] == '/' && (m->ino || m->major || m->minor);
}

static bool same_file(const struct map_line *a, const struct map_line *b)
{
	return a->ino == b->ino && a->major == b->major && a->minor == b->minor;
}

/* The next line of maps (split in place into NUL-terminated lines). */
static char *next_line(char **pos, char *end)
{
	char *line = *pos, *nl;

	if (line >= end)
		return NULL;
	nl = memchr(line, '\n', (size_t)(end - line));
	if (nl)
		*nl = '\0';
	*pos = nl ? nl + 1 : end;
	return line;
}

static void append_line(char *out, size_t *out_len, const char *line)
{
	size_t n = strlen(line);

	memcpy(out + *out_len, line, n);
	*out_len += n;
	out[(*out_len)++] = '\n';
}

/*
 * Keeps the lines of loaded objects with code, and the vDSO: anonymous
 * memory, the heap, stacks and data files change as the program runs but
 * hold no symbols.  An object is a run of lines of one file (anonymous
 * lines, its .bss, may sit between them), from its ELF header at offset
 * 0 on; another mapping of the file, from offset 0 again, is not part of
 * it (libelf maps the files it reads, which shows when we symbolize our
 * own process).  A run without an executable line is dropped, all of an
 * object's lines are kept: libdwfl finds its load address from the first.
 * out has room for len + 1 bytes.
 */
static size_t filter_maps(char *raw, size_t len, char *out)
{
	size_t out_len = 0, run_start = 0;
	char *pos = raw, *line;
	struct map_line m, run = { .name = "" };
	bool run_exec = false;

	while ((line = next_line(&pos, raw + len))) {
		if (!parse_map_line(line, &m))
			continue;
		if (!is_file(&m) && strcmp(m.name, "[vdso]"))
			continue;
		if (is_file(&m) && is_file(&run) && same_file(&run, &m) && m.offset) {
			append_line(out, &out_len, line);
			run_exec |= m.exec;
			continue;
		}
		/* This line ends the run before it: keep that one if it had code. */
		if (!run_exec)
			out_len = run_start;
		run_start = out_len;
		run = m;
		run_exec = m.exec || !is_file(&m);
		append_line(out, &out_len, line);
	}
	if (!run_exec)
		out_len = run_start;
	out[out_len] = '\0';
	return out_len;
}

/*
 * The filtered maps of our process; -ESRCH once it is gone: no maps file,
 * a zombie, empty maps (it is exiting), or the pid now names another one.
 */
static int read_maps(struct usyms *u, char **text, size_t *text_len)
{
	unsigned long long start;
	char *raw, *out;
	bool kthread;
	size_t len;
	int ret = procmaps_read_text(u->pid, &raw, &len);

	if (ret)
		return ret;
	/* Read after the maps: if the pid is still ours, so were they. */
	ret = read_stat(u->pid, &start, &kthread);
	if (!ret && (start != u->start_time || len == 0))
		ret = -ESRCH;
	out = ret ? NULL : malloc(len + 1);
	if (!ret && !out)
		ret = -ENOMEM;
	if (!ret)
		*text_len = filter_maps(raw, len, out);
	free(raw);
	*text = out;
	return ret;
}

/* ---- function symbols ------------------------------------------------ */

/*
 * libdwfl's dwfl_module_addrinfo scans the whole symbol table on every
 * call (elfutils 0.188): 10K symbols a lookup for libc with its debug
 * symbols, 100K lookups took 30 s.  So each module gets a table of its
 * function symbols sorted by address, built on its first lookup and kept
 * in the module's userdata until libdwfl drops the module.
 */
struct usyms_sym {
	uint64_t addr;		/* absolute, in the process */
	uint64_t size;		/* 0: unknown, up to the next symbol */
	const char *name;	/* in the module's ELF string table */
	uint32_t name_len;	/* without a version ("tmpfile@@GLIBC_2.2.5") */
	uint32_t order;		/* index in the ELF table: a stable sort */
	uint32_t rank;		/* among names at one address, lower wins */
	bool label;		/* STT_NOTYPE in code: an assembly entry point */
};

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

/* What we keep per module, in its libdwfl userdata. */
struct usyms_module {
	int pid;			/* 0: unknown (no memory when reported) */
	int root_fd;			/* the process's root directory (usyms.root_fd) */
	uint64_t vma_start, vma_end;	/* its first mapping, for map_files */
	struct usyms_symtab *symtab;	/* NULL until the first lookup */
	void *cus;			/* tsearch tree of struct usyms_cu */
	struct usyms_cu_range *cu_ranges;	/* see module_cu */
	size_t nr_cu_ranges;
	bool cu_ranges_built;
};

/* Ours, set up when the module is reported; NULL without memory. */
static struct usyms_module *module_data(Dwfl_Module *mod)
{
	void **userdata;

	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*userdata)
		*userdata = calloc(1, sizeof(struct usyms_module));
	return *userdata;
}

static struct usyms_symtab *module_symtab(Dwfl_Module *mod)
{
	struct usyms_module *m = module_data(mod);

	if (m && !m->symtab)
		m->symtab = build_symtab(mod);
	return m ? m->symtab : NULL;
}

/* The function symbol containing pc, or NULL: none precedes it, or the
 * one before it ends before pc (a gap, e.g. the PLT or a stripped static
 * function, which is better left as an address than misnamed).  An
 * assembly label has no size: it reaches to the next symbol, as in gdb. */
static const struct usyms_sym *find_sym(Dwfl_Module *mod, uint64_t pc)
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
static Dwarf_Die *module_cu(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
	struct usyms_module *m;
	size_t lo = 0, hi;
	Dwarf *dw;

	if (cu)
		return cu;
	m = module_data(mod);
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
	struct usyms_module *m = module_data(mod);
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

static void free_module_data(struct usyms_module *m)
{
	if (!m)
		return;
	free(m->symtab);
	tdestroy(m->cus, free_cu);
	free(m->cu_ranges);
	free(m);
}

/*
 * dwfl_report_end callback: a module is dropped, and our data with it.
 * Declared as taking a void *, but libdwfl passes the userdata's address,
 * as to dwfl_getmodules callbacks (MODCB_ARGS in libdwflP.h).
 */
static int usyms_module_removed(Dwfl_Module *mod, void *userdata, const char *name,
				Dwarf_Addr start, void *arg)
{
	void **slot = userdata;

	(void)mod;
	(void)name;
	(void)start;
	(void)arg;
	free_module_data(*slot);
	*slot = NULL;
	return DWARF_CB_OK;
}

/* dwfl_getmodules callback, before dwfl_end: frees every module's data. */
static int usyms_module_free(Dwfl_Module *mod, void **userdata, const char *name,
			     Dwarf_Addr start, void *arg)
{
	return usyms_module_removed(mod, userdata, name, start, arg);
}

/* ---- opening a module's file ----------------------------------------- */

static bool is_deleted(const char *name, size_t *len)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(name);

	*len = n;
	if (n < sizeof(suffix) - 1 || strcmp(name + n - (sizeof(suffix) - 1), suffix))
		return false;
	*len = n - (sizeof(suffix) - 1);
	return true;
}

/*
 * The file the process maps, whatever has become of its path: through
 * /proc/PID/map_files (root only), the very inode mapped, even deleted or
 * replaced since (a library upgraded under a running process); else
 * through /proc/PID/root, for a process in another mount namespace.
 */
static int open_mapped(const struct usyms_module *m, const char *name, size_t len)
{
	char path[4096 + 64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, m->pid,
		 m->vma_start, m->vma_end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || len > 4096)
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/root%.*s", m->pid, (int)len, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || m->root_fd < 0)
		return fd;
	/* Gone: its root directory, held since we first saw it. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d%.*s", m->root_fd, (int)len, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* ---- its debug files -------------------------------------------------- */

/*
 * Dwfl_Callbacks.find_debuginfo: the object's debug file where gdb looks,
 * in the process's own file tree (debugfile.h); a download from
 * debuginfod only with --debuginfod.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct usyms_module *m = *userdata;
	const unsigned char *id = NULL;
	char root[48] = "";
	GElf_Addr id_vaddr;
	int len, fd;

	if (m && m->root_fd >= 0)
		snprintf(root, sizeof(root), "/proc/self/fd/%d", m->root_fd);
	len = dwfl_module_build_id(mod, &id, &id_vaddr);
	fd = debugfile_find(root, file_name, id, len, debuglink_file, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (usyms_debuginfod)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	return -1;
}

/*
 * Dwfl_Callbacks.find_elf.  Once the process is gone, only the path is
 * left, as dwfl_linux_proc_find_elf opens it, which also reads the vDSO
 * from /proc/PID/mem.  That is why modules are opened as soon as they are
 * reported (open_module).
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct usyms_module *m = *userdata;
	size_t len;
	int fd;

	if (!m || !m->pid || name[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	is_deleted(name, &len);
	fd = open_mapped(m, name, len);
	if (fd < 0)
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	/* The path, not ours: debug files are looked for next to it. */
	*file_name = strndup(name, len);
	if (!*file_name) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- reporting to libdwfl --------------------------------------------- */

/*
 * dwfl_linux_proc_maps_report skips the vDSO (it only learns where it is
 * from /proc/PID/auxv); dwfl_linux_proc_find_elf reads a module named
 * "[vdso: PID]" from /proc/PID/mem, as dwfl_linux_proc_report names it.
 */
static int report_vdso(struct usyms *u, char *text, size_t len)
{
	char *pos = text, *line, name[32];
	struct map_line m;
	int ret = 0;

	while (!ret && (line = next_line(&pos, text + len))) {
		if (!parse_map_line(line, &m) || strcmp(m.name, "[vdso]"))
			continue;
		snprintf(name, sizeof(name), "[vdso: %d]", u->pid);
		if (!dwfl_report_module(u->dwfl, name, m.start, m.end))
			ret = -ENOMEM;
	}
	return ret;
}

/* Reports the modules of filtered maps text; between report begin and end. */
static int report_maps(struct usyms *u, const char *text, size_t len)
{
	char *copy;
	FILE *f;
	int ret;

	if (!len)
		return 0;
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	ret = dwfl_linux_proc_maps_report(u->dwfl, f);
	fclose(f);
	/* Positive: an errno; negative: libdwfl failed to add a module. */
	if (ret)
		return ret > 0 ? -ret : -ENOMEM;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	ret = report_vdso(u, copy, len);
	free(copy);
	return ret;
}

struct open_arg {
	int pid;
	int root_fd;
	const char *text;	/* the filtered maps reported */
	size_t len;
};

/* The end of the mapping that starts at start, per the maps text. */
static uint64_t vma_end(const char *text, size_t len, uint64_t start)
{
	const char *line = text, *end = text + len;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		uint64_t s, e;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &e) == 2 && s == start)
			return e;
		line = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * dwfl_getmodules callback after a report: gives each new module our data
 * and opens its file now, while the process still maps it.
 */
static int open_module(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr start, void *arg)
{
	const struct open_arg *a = arg;
	struct usyms_module *m = *userdata;
	Dwarf_Addr bias;

	(void)name;
	if (m)
		return DWARF_CB_OK;
	m = calloc(1, sizeof(*m));
	if (m) {
		m->pid = a->pid;
		m->root_fd = a->root_fd;
		m->vma_start = start;
		m->vma_end = vma_end(a->text, a->len, start);
		*userdata = m;
	}
	dwfl_module_getelf(mod, &bias);
	return DWARF_CB_OK;
}

/*
 * Replaces the modules with those of text.  Modules reported again with
 * the same name and bounds are kept by libdwfl with their ELF and DWARF
 * open, so a dlopen costs only the new library.  On failure the previous
 * modules are reported back, which keeps them the same way.
 */
static int report(struct usyms *u, const char *text, size_t len)
{
	struct open_arg arg = { u->pid, u->root_fd, text, len };
	int ret;

	dwfl_report_begin(u->dwfl);
	ret = report_maps(u, text, len);
	if (ret) {
		dwfl_report_begin(u->dwfl);
		report_maps(u, u->maps, u->maps_len);
		arg.text = u->maps;
		arg.len = u->maps_len;
	}
	if (dwfl_report_end(u->dwfl, usyms_module_removed, NULL) && !ret)
		ret = -ENOMEM;
	dwfl_getmodules(u->dwfl, open_module, &arg, 0);
	if (!ret)
		u->reports++;
	return ret;
}

/* ---- the cache -------------------------------------------------------- */

static size_t slot_hash(uint64_t addr, size_t nr_slots)
{
	/* Fibonacci hashing: frames of one function differ in low bits only. */
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 32) & (nr_slots - 1);
}

static void cache_clear(struct usyms *u)
{
	while (u->chunks) {
		struct usyms_chunk *next = u->chunks->next;

		free(u->chunks);
		u->chunks = next;
	}
	free(u->slots);
	u->slots = NULL;
	u->nr_slots = 0;
	u->nr_used = 0;
}

static struct usyms_slot *probe(struct usyms_slot *slots, size_t nr_slots, uint64_t addr)
{
	size_t i = slot_hash(addr, nr_slots);

	while (slots[i].text && slots[i].addr != addr)
		i = (i + 1) & (nr_slots - 1);
	return &slots[i];
}

/* Keeps the table at most half full, so probe sequences stay short. */
static bool cache_grow(struct usyms *u)
{
	size_t nr = u->nr_slots ? u->nr_slots * 2 : USYMS_CACHE_MIN;
	struct usyms_slot *slots = calloc(nr, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < u->nr_slots; i++)
		if (u->slots[i].text)
			*probe(slots, nr, u->slots[i].addr) = u->slots[i];
	free(u->slots);
	u->slots = slots;
	u->nr_slots = nr;
	return true;
}

/* The slot of addr, filled or free; NULL if the table cannot grow. */
static struct usyms_slot *cache_slot(struct usyms *u, uint64_t addr)
{
	if ((u->nr_used + 1) * 2 > u->nr_slots && !cache_grow(u))
		return NULL;
	return probe(u->slots, u->nr_slots, addr);
}

static const char *arena_dup(struct usyms *u, const char *s, size_t len)
{
	struct usyms_chunk *c = u->chunks;
	char *copy;

	if (!c || c->used + len + 1 > USYMS_CHUNK_SIZE) {
		c = malloc(sizeof(*c) + USYMS_CHUNK_SIZE);
		if (!c)
			return NULL;
		c->next = u->chunks;
		c->used = 0;
		u->chunks = c;
	}
	copy = c->data + c->used;
	memcpy(copy, s, len);
	copy[len] = '\0';
	c->used += len + 1;
	return copy;
}

/* ---- symbolization ---------------------------------------------------- */

/* The formatted lines of one address, '\n'-terminated each. */
struct usyms_text {
	char buf[USYMS_TEXT_MAX];
	size_t len;
	uint32_t lines;
};

static void text_add(struct usyms_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void text_add(struct usyms_text *t, const char *fmt, ...)
{
	size_t room = sizeof(t->buf) - t->len;
	va_list ap;
	int n;

	/* Lines are capped well below the buffer: this only guards. */
	if (room < 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, room - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	t->len += (size_t)n < room - 2 ? (size_t)n : room - 2;
	t->buf[t->len++] = '\n';
	t->lines++;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "libc.so.6" for a path (deleted or not), "vdso" for "[vdso: PID]". */
static const char *module_name(Dwfl_Module *mod, Dwarf_Addr *start, char *buf, size_t len)
{
	const char *name = dwfl_module_info(mod, NULL, start, NULL, NULL, NULL, NULL, NULL);
	size_t n;

	if (!name)
		return "?";
	if (name[0] == '[') {
		snprintf(buf, len, "%.*s", (int)strcspn(name + 1, ":]"), name + 1);
		return buf;
	}
	name = base_name(name);
	if (!is_deleted(name, &n))
		return name;
	snprintf(buf, len, "%.*s", (int)n, name);
	return buf;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	/* An inlined instance has its name in its abstract origin. */
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));

	return name ? name : "??";
}

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
static int inline_chain(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain)
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

/* " file.c:LINE" of the call an inlined instance stands for, or "". */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, char *where, size_t len)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word file, line = 0;
	const char *src = NULL;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &file) == 0 &&
	    dwarf_getsrcfiles(cu, &files, NULL) == 0)
		src = dwarf_filesrc(files, file, NULL, NULL);
	dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &line);
	if (src)
		snprintf(where, len, " %.64s:%" PRIu64, base_name(src), (uint64_t)line);
	else
		where[0] = '\0';
}

/* " file.c:LINE" of pc (a DWARF address in cu) from the line table, or "". */
static void src_line(Dwarf_Die *cu, Dwarf_Addr pc, char *where, size_t len)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, pc);
	const char *src = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	int lineno = 0;

	if (src && dwarf_lineno(line, &lineno) == 0)
		snprintf(where, len, " %.64s:%d", base_name(src), lineno);
	else
		where[0] = '\0';
}

/* The address as the module's ELF file counts it (addr2line -e takes it). */
static uint64_t file_addr(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr start)
{
	Dwarf_Addr bias;

	if (dwfl_module_getelf(mod, &bias))
		return addr - bias;
	return addr - start;
}

/* A C++ symbol's name as written ("operator new(unsigned long)"); NULL for others. */
static char *demangle(const struct usyms_sym *sym)
{
	char *mangled, *plain;
	int status;

	if (sym->name_len < 3 || strncmp(sym->name, "_Z", 2))
		return NULL;
	mangled = strndup(sym->name, sym->name_len);
	plain = mangled ? __cxa_demangle(mangled, NULL, NULL, &status) : NULL;
	free(mangled);
	return plain;
}

static void symbolize(struct usyms *u, uint64_t addr, struct usyms_text *t)
{
	/* A return address: the call, which is what we describe, precedes it. */
	Dwarf_Addr pc = addr - 1, start = 0, bias;
	Dwfl_Module *mod = addr ? dwfl_addrmodule(u->dwfl, pc) : NULL;
	Dwarf_Die *cu, chain[USYMS_MAX_INLINE];
	char bin_buf[256], where[96];
	const struct usyms_sym *sym;
	const char *bin;
	int n;

	if (!mod) {
		text_add(t, "0x%016" PRIx64 " [unknown]", addr);
		return;
	}
	bin = module_name(mod, &start, bin_buf, sizeof(bin_buf));
	cu = module_cu(mod, pc, &bias);
	n = 0;
	where[0] = '\0';
	if (cu) {
		src_line(cu, pc - bias, where, sizeof(where));
		n = inline_chain(mod, cu, pc - bias, chain);
	}
	/* Innermost first; each frame's line is where the next one in was inlined. */
	while (n-- > 0) {
		text_add(t, "%.256s [%.64s]%s (inlined)", die_name(&chain[n]), bin, where);
		call_site(cu, &chain[n], where, sizeof(where));
	}
	sym = find_sym(mod, pc);
	if (sym) {
		char *plain = demangle(sym);

		/* C++ names can be kilobytes long: a frame shows the start. */
		if (plain)
			text_add(t, "%.400s+0x%" PRIx64 " [%.64s]%s", plain, addr - sym->addr, bin,
				 where);
		else
			text_add(t, "%.*s+0x%" PRIx64 " [%.64s]%s",
				 (int)(sym->name_len < 256 ? sym->name_len : 256), sym->name,
				 addr - sym->addr, bin, where);
		free(plain);
	}
	else
		text_add(t, "0x%" PRIx64 " [%.64s]%s", file_addr(mod, addr, start), bin, where);
}

/* Copies lines to the caller's buffer; see usyms.h for what is dropped. */
static size_t emit(const char *text, uint32_t lines, char *buf, size_t line_len, size_t max)
{
	const char *p = text;
	size_t out = 0;

	for (uint32_t i = 0; i < lines; i++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (i + 1 < max || i + 1 == lines) {
			char *dst = buf + out++ * line_len;

			if (n > line_len - 1)
				n = line_len - 1;
			memcpy(dst, p, n);
			dst[n] = '\0';
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return out;
}

size_t usyms_format(struct usyms *u, uint64_t addr, char *buf, size_t line_len, size_t max)
{
	struct usyms_slot *slot;
	struct usyms_text t;
	const char *copy;

	if (!max || !line_len)
		return 0;
	slot = cache_slot(u, addr);
	if (slot && slot->text)
		return emit(slot->text, slot->lines, buf, line_len, max);

	t.len = 0;
	t.lines = 0;
	symbolize(u, addr, &t);
	t.buf[t.len - 1] = '\0';	/* the last '\n' */
	/* Out of memory: still answer, just without caching. */
	copy = slot ? arena_dup(u, t.buf, t.len - 1) : NULL;
	if (copy) {
		slot->addr = addr;
		slot->text = copy;
		slot->lines = t.lines;
		u->nr_used++;
	}
	return emit(t.buf, t.lines, buf, line_len, max);
}

bool usyms_mapping(struct usyms *u, uint64_t addr, struct usyms_mapping *out)
{
	Dwfl_Module *mod = addr ? dwfl_addrmodule(u->dwfl, addr - 1) : NULL;
	const unsigned char *id;
	GElf_Addr id_vaddr;
	Dwarf_Addr start, end;
	const char *name;
	int len;

	if (!mod)
		return false;
	name = dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	snprintf(out->path, sizeof(out->path), "%s", name ? name : "?");
	out->start = start;
	out->limit = end;
	/* libdwfl reports a module from its first mapping, at file offset 0. */
	out->offset = 0;
	out->build_id[0] = '\0';
	len = dwfl_module_build_id(mod, &id, &id_vaddr);
	for (int i = 0; i < len && i < 64; i++)
		snprintf(out->build_id + 2 * i, 3, "%02x", id[i]);
	return true;
}

/* ---- life cycle ------------------------------------------------------- */

static int proc_error(int pid, int ret, struct mt_err *err)
{
	if (ret == -ESRCH)
		return mt_errf(err, ESRCH, "pid %d: no such process", pid);
	return mt_errf(err, -ret, "pid %d: cannot read /proc/%d/maps: %s", pid, pid,
		       strerror(-ret));
}

int usyms_new(int pid, struct usyms **out, struct mt_err *err)
{
	char root[64], *maps;
	struct usyms *u;
	bool kthread;
	size_t len;
	int ret;

	*out = NULL;
	if (pid <= 0)
		return mt_errf(err, EINVAL, "pid %d: not a process id", pid);
	u = calloc(1, sizeof(*u));
	if (!u)
		return mt_errf(err, ENOMEM, "pid %d: out of memory", pid);
	u->pid = pid;
	u->root_fd = -1;
	ret = read_stat(pid, &u->start_time, &kthread);
	if (!ret && kthread) {
		free(u);
		return mt_errf(err, EINVAL, "pid %d is a kernel thread: it has no user stacks",
			       pid);
	}
	if (!ret)
		ret = read_maps(u, &maps, &len);
	if (ret) {
		free(u);
		return proc_error(pid, ret, err);
	}
	/* Its files, debug files included, are in its tree (a chroot's, a container's). */
	u->root_fd = open(procfs_path(pid, "root", root, sizeof(root)),
			  O_PATH | O_DIRECTORY | O_CLOEXEC);
	u->dwfl = dwfl_begin(&usyms_callbacks);
	if (!u->dwfl) {
		free(maps);
		usyms_free(u);
		return mt_errf(err, ENOMEM, "cannot start libdwfl: %s", dwfl_errmsg(-1));
	}
	ret = report(u, maps, len);
	if (ret) {
		free(maps);
		usyms_free(u);
		return mt_errf(err, -ret, "pid %d: cannot report its mappings to libdwfl: %s",
			       pid, strerror(-ret));
	}
	u->maps = maps;
	u->maps_len = len;
	*out = u;
	return 0;
}

int usyms_refresh(struct usyms *u, struct mt_err *err)
{
	char *maps;
	size_t len;
	int ret;

	if (u->gone)
		return mt_errf(err, ESRCH, "pid %d: the process has exited", u->pid);
	ret = read_maps(u, &maps, &len);
	if (ret == -ESRCH) {
		u->gone = true;
		return mt_errf(err, ESRCH, "pid %d: the process has exited", u->pid);
	}
	if (ret)
		return proc_error(u->pid, ret, err);
	if (len == u->maps_len && !memcmp(maps, u->maps, len)) {
		free(maps);
		return 0;
	}
	ret = report(u, maps, len);
	if (ret) {
		free(maps);
		return mt_errf(err, -ret, "pid %d: cannot report its mappings to libdwfl: %s",
			       u->pid, strerror(-ret));
	}
	free(u->maps);
	u->maps = maps;
	u->maps_len = len;
	/* Addresses may now be in other modules, or in none. */
	cache_clear(u);
	return 0;
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	cache_clear(u);
	if (u->dwfl) {
		dwfl_getmodules(u->dwfl, usyms_module_free, NULL, 0);
		dwfl_end(u->dwfl);
	}
	if (u->root_fd >= 0)
		close(u->root_fd);
	free(u->maps);
	free(u);
}

unsigned int usyms_reports(const struct usyms *u)
{
	return u->reports;
}

size_t usyms_cached(const struct usyms *u)
{
	return u->nr_used;
}
