// SPDX-License-Identifier: GPL-2.0
/*
 * A process's return addresses symbolized (usyms.h): the module of the
 * address from the process's Dwfl (usymproc.c), its function from the
 * module's symbol table and its source line and inline chain from DWARF
 * (usymtab.c's tables), and each address's result cached: a report
 * symbolizes the same frames again and again.
 *
 * Calls usymproc, usymtab, libdw and libdwfl; above it only its callers.
 */
#include "usyms.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usymproc.h"
#include "usymtab.h"

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
	Dwfl_Module *mod = addr ? dwfl_addrmodule(u->proc.dwfl, pc) : NULL;
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
	cu = usymtab_cu(mod, pc, &bias);
	n = 0;
	where[0] = '\0';
	if (cu) {
		src_line(cu, pc - bias, where, sizeof(where));
		n = usymtab_inline_chain(mod, cu, pc - bias, chain);
	}
	/* Innermost first; each frame's line is where the next one in was inlined. */
	while (n-- > 0) {
		text_add(t, "%.256s [%.64s]%s (inlined)", die_name(&chain[n]), bin, where);
		call_site(cu, &chain[n], where, sizeof(where));
	}
	sym = usymtab_sym(mod, pc);
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
