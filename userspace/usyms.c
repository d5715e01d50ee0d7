// SPDX-License-Identifier: GPL-2.0
/*
 * A process's return addresses symbolized (usyms.h): the module of the
 * address from the process's Dwfl (usymproc.c), its function from the
 * module's symbol table and its source line and inline chain from DWARF
 * (usymtab.c's tables), and each address's result cached: a report
 * symbolizes the same frames again and again.
 *
 * Calls usymproc, usymtab, libdw and libdwfl; the frames it fills are
 * rmframe.h's.
 */
#include "usyms.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usymproc.h"
#include "usymtab.h"

#define USYMS_CHUNK_SIZE	(256 * 1024)
#define USYMS_CACHE_MIN		4096

/* A cached address: its frames.  frames NULL: a free slot. */
struct usyms_slot {
	uint64_t addr;
	const struct rm_frame *frames;	/* in the arena */
	uint32_t nr;
};

/* Arena chunk for cached frames and their strings: freed all at once when the cache is. */
struct usyms_chunk {
	struct usyms_chunk *next;
	size_t used;
	char data[];
};

struct usyms {
	struct usymproc proc;		/* the process's modules */
	struct usyms_slot *slots;
	size_t nr_slots;		/* a power of two, or 0 */
	size_t nr_used;
	struct usyms_chunk *chunks;
};

/* libstdc++'s demangler, the C++ ABI's (<cxxabi.h>), as elfutils' eu-stack uses it. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

void usyms_allow_debuginfod(bool allow)
{
	usymproc_allow_debuginfod(allow);
}

/* ---- one address's frames, put together --------------------------------- */

/*
 * Names are cut here, once (C++ names can be kilobytes long: a frame
 * shows the start), so that every format shows the names the text report
 * shows; the cuts bound what one address needs.
 */
#define USYMS_NAME_MAX		256	/* a symbol's or an inlined function's name */
#define USYMS_DEMANGLED_MAX	400	/* a C++ name, demangled */
#define USYMS_MODULE_MAX	64
#define USYMS_FILE_MAX		64
#define USYMS_STRINGS_MAX	8192

_Static_assert(USYMS_STRINGS_MAX >= USYMS_MODULE_MAX + 1 +
	       USYMS_MAX_INLINE * (USYMS_NAME_MAX + 1 + USYMS_FILE_MAX + 1) +
	       USYMS_DEMANGLED_MAX + 1 + USYMS_FILE_MAX + 1,
	       "room for the strings of an address's frames");

/* The frames of one address while they are put together, their strings in strings. */
struct usyms_result {
	struct rm_frame frames[USYMS_MAX_INLINE + 1];
	uint32_t nr;
	size_t len;
	char strings[USYMS_STRINGS_MAX];
};

/* A copy of s (n bytes of it, at most max) among r's strings. */
static char *result_str(struct usyms_result *r, const char *s, size_t n, size_t max)
{
	char *copy = r->strings + r->len;

	if (n > max)
		n = max;
	memcpy(copy, s, n);
	copy[n] = '\0';
	r->len += n + 1;
	return copy;
}

static struct rm_frame *result_frame(struct usyms_result *r, uint64_t addr, char *module)
{
	struct rm_frame *f = &r->frames[r->nr++];

	*f = (struct rm_frame){ .addr = addr, .module = module };
	return f;
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

	while (slots[i].frames && slots[i].addr != addr)
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
		if (u->slots[i].frames)
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

/* len bytes of the arena, aligned for a struct rm_frame; NULL without memory. */
static void *arena_alloc(struct usyms *u, size_t len)
{
	struct usyms_chunk *c = u->chunks;
	size_t at;

	len = (len + _Alignof(struct rm_frame) - 1) & ~(_Alignof(struct rm_frame) - 1);
	if (!c || c->used + len > USYMS_CHUNK_SIZE) {
		c = malloc(sizeof(*c) + USYMS_CHUNK_SIZE);
		if (!c)
			return NULL;
		c->next = u->chunks;
		c->used = 0;
		u->chunks = c;
	}
	at = c->used;
	c->used += len;
	return c->data + at;
}

static char *moved(char *s, const char *from, char *to)
{
	return s ? to + (s - from) : NULL;
}

/*
 * r's frames and strings moved into the arena, where they stay until the
 * cache is emptied; NULL without memory.
 */
static const struct rm_frame *keep_result(struct usyms *u, const struct usyms_result *r)
{
	size_t frames_len = r->nr * sizeof(r->frames[0]);
	struct rm_frame *kept = arena_alloc(u, frames_len + r->len);
	char *strings;

	if (!kept)
		return NULL;
	strings = (char *)kept + frames_len;
	memcpy(strings, r->strings, r->len);
	for (uint32_t i = 0; i < r->nr; i++) {
		kept[i] = r->frames[i];
		kept[i].function = moved(r->frames[i].function, r->strings, strings);
		kept[i].module = moved(r->frames[i].module, r->strings, strings);
		kept[i].file = moved(r->frames[i].file, r->strings, strings);
	}
	return kept;
}

/* ---- symbolization ---------------------------------------------------- */

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
	if (!usymproc_is_deleted(name, &n))
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

/* A source line: the file's base name (NULL: none known) and the line. */
struct usyms_where {
	const char *file;
	uint32_t line;
};

static void where_at(struct usyms_result *r, const char *src, uint64_t line,
		     struct usyms_where *w)
{
	const char *file = base_name(src);

	w->file = result_str(r, file, strlen(file), USYMS_FILE_MAX);
	w->line = (uint32_t)line;
}

/* The file and line of the call an inlined instance stands for. */
static void call_site(struct usyms_result *r, Dwarf_Die *cu, Dwarf_Die *inl,
		      struct usyms_where *w)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word file, line = 0;
	const char *src = NULL;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &file) == 0 &&
	    dwarf_getsrcfiles(cu, &files, NULL) == 0)
		src = dwarf_filesrc(files, file, NULL, NULL);
	dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &line);
	w->file = NULL;
	if (src)
		where_at(r, src, line, w);
}

/* The file and line of pc (a DWARF address in cu) from the line table. */
static void src_line(struct usyms_result *r, Dwarf_Die *cu, Dwarf_Addr pc,
		     struct usyms_where *w)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, pc);
	const char *src = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	int lineno = 0;

	w->file = NULL;
	if (src && dwarf_lineno(line, &lineno) == 0)
		where_at(r, src, (uint64_t)lineno, w);
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

/* The frames of addr into r, innermost first (see usyms_frames()). */
static void symbolize(struct usyms *u, uint64_t addr, struct usyms_result *r)
{
	/* A return address: the call, which is what we describe, precedes it. */
	Dwarf_Addr pc = addr - 1, start = 0, bias;
	Dwfl_Module *mod = addr ? dwfl_addrmodule(u->proc.dwfl, pc) : NULL;
	Dwarf_Die *cu, chain[USYMS_MAX_INLINE];
	struct usyms_where where = { 0 };
	const struct usyms_sym *sym;
	struct rm_frame *f;
	char bin_buf[256], *module;
	const char *bin;
	int n = 0;

	r->nr = 0;
	r->len = 0;
	if (!mod) {
		result_frame(r, addr, NULL);
		return;
	}
	bin = module_name(mod, &start, bin_buf, sizeof(bin_buf));
	module = result_str(r, bin, strlen(bin), USYMS_MODULE_MAX);
	cu = usymtab_cu(mod, pc, &bias);
	if (cu) {
		src_line(r, cu, pc - bias, &where);
		n = usymtab_inline_chain(mod, cu, pc - bias, chain);
	}
	/* Innermost first; each frame's line is where the next one in was inlined. */
	while (n-- > 0) {
		const char *name = die_name(&chain[n]);

		f = result_frame(r, addr, module);
		f->function = result_str(r, name, strlen(name), USYMS_NAME_MAX);
		f->inlined = true;
		f->file = (char *)where.file;
		f->line = where.line;
		call_site(r, cu, &chain[n], &where);
	}
	f = result_frame(r, addr, module);
	f->file = (char *)where.file;
	f->line = where.line;
	sym = usymtab_sym(mod, pc);
	if (sym) {
		char *plain = demangle(sym);

		f->function = plain ? result_str(r, plain, strlen(plain), USYMS_DEMANGLED_MAX) :
				      result_str(r, sym->name, sym->name_len, USYMS_NAME_MAX);
		f->offset = addr - sym->addr;
		free(plain);
	} else {
		f->offset = file_addr(mod, addr, start);
	}
}

/* Copies nr frames out, at most max; see usyms.h for which are dropped. */
static size_t copy_frames(const struct rm_frame *frames, uint32_t nr, struct rm_frame *out,
			  size_t max)
{
	size_t n = 0;

	for (uint32_t i = 0; i < nr; i++)
		if (i + 1 < max || i + 1 == nr)
			out[n++] = frames[i];
	return n;
}

size_t usyms_frames(struct usyms *u, uint64_t addr, struct rm_frame *frames, size_t max)
{
	struct usyms_slot *slot;
	struct usyms_result *r;
	const struct rm_frame *kept;
	uint32_t nr = 0;

	if (!max)
		return 0;
	slot = cache_slot(u, addr);
	if (slot && slot->frames)
		return copy_frames(slot->frames, slot->nr, frames, max);
	r = malloc(sizeof(*r));
	kept = NULL;
	if (r) {
		symbolize(u, addr, r);
		kept = keep_result(u, r);
		nr = r->nr;
		free(r);
	}
	if (!kept) {
		/* Out of memory: no names to keep, the address alone. */
		frames[0] = (struct rm_frame){ .addr = addr };
		return 1;
	}
	/* Without room in the table, the frames stay in the arena, not found again. */
	if (slot) {
		slot->addr = addr;
		slot->frames = kept;
		slot->nr = nr;
		u->nr_used++;
	}
	return copy_frames(kept, nr, frames, max);
}

bool usyms_mapping(struct usyms *u, uint64_t addr, struct usyms_mapping *out)
{
	Dwfl_Module *mod = addr ? dwfl_addrmodule(u->proc.dwfl, addr - 1) : NULL;
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

int usyms_new(int pid, struct usyms **out, struct mt_err *err)
{
	struct usyms *u = calloc(1, sizeof(*u));
	int ret;

	*out = NULL;
	if (!u)
		return mt_errf(err, ENOMEM, "pid %d: out of memory", pid);
	ret = usymproc_open(&u->proc, pid, err);
	if (ret) {
		free(u);
		return ret;
	}
	*out = u;
	return 0;
}

int usyms_refresh(struct usyms *u, struct mt_err *err)
{
	bool changed;
	int ret = usymproc_refresh(&u->proc, &changed, err);

	/* Addresses may now be in other modules, or in none. */
	if (changed)
		cache_clear(u);
	return ret;
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	cache_clear(u);
	usymproc_close(&u->proc);
	free(u);
}

unsigned int usyms_reports(const struct usyms *u)
{
	return u->proc.reports;
}

size_t usyms_cached(const struct usyms *u)
{
	return u->nr_used;
}
