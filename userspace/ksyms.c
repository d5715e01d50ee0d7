// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms lines are "ADDR TYPE NAME[\t[MODULE]]", not sorted
 * across modules.  Stack frames are return addresses in text, named as
 * the kernel's %pB does: the function holding address - 1 (a call may be
 * a function's last instruction), with the offset of the address itself.
 * kallsyms gives no sizes, so a function is taken to end where the next
 * symbol of any kind begins, or where its module ends (/proc/modules);
 * an address after a data symbol, past every symbol, or outside the
 * kernel and every module is [unknown], never a wrong name.  Module code
 * freed while tracing is named from the module's own records (the
 * snapshot's freed functions) for the stacks made before it went.
 * Lookups binary-search the sorted table.
 */
#include "ksyms.h"
#include "snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym_entry {
	uint64_t addr;
	uint32_t name_off;	/* into strings */
	uint32_t module_off;	/* into strings */
	uint32_t order;		/* line number, for a stable sort */
	uint8_t rank;		/* at the same address, the lower rank wins */
	bool text;		/* a function (t, T, w, W): the others only bound one */
};

/* A loaded module's memory, from /proc/modules: its functions end by its end. */
struct ksym_module {
	uint64_t start, end;
};

struct ksyms {
	char *path;
	struct ksym_entry *syms;
	size_t nr_syms;
	char *strings;
	size_t strings_len;
	bool restricted;
	bool retried;		/* a miss already caused a reload of this table */
	bool loaded;
	unsigned int loads;	/* successful loads, for tests */
	char *modules;		/* /proc/modules as of the last load */
	size_t modules_len;
	struct ksym_module *mods;	/* sorted by start */
	size_t nr_mods;
	/* ksyms_frame()'s module for init code freed since: "<module> init" */
	char init_module[64 + sizeof(" init")];	/* module names: < MODULE_NAME_LEN, 64 */
};

/* A name or module string table that grows by doubling. */
struct strtab {
	char *buf;
	size_t len, cap;
};

static int strtab_add(struct strtab *t, const char *s, size_t n, uint32_t *off)
{
	if (t->len + n + 1 > UINT32_MAX)
		return -EOVERFLOW;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;
		char *buf;

		while (cap < t->len + n + 1)
			cap *= 2;
		buf = realloc(t->buf, cap);
		if (!buf)
			return -ENOMEM;
		t->buf = buf;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->buf[t->len + n] = '\0';
	*off = (uint32_t)t->len;
	t->len += n + 1;
	return 0;
}

struct ksyms *ksyms_new(const char *path)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	if (!path)
		path = getenv(KSYMS_PATH_ENV);
	if (!path || !path[0])
		path = KSYMS_DEFAULT_PATH;
	ks->path = strdup(path);
	if (!ks->path) {
		free(ks);
		return NULL;
	}
	return ks;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->strings);
	free(ks->modules);
	free(ks->mods);
	free(ks->path);
	free(ks);
}

/*
 * Global text first, then local, then weak: the most telling name; any
 * other symbol ranks after them (it bounds a function, never names one).
 */
static int type_rank(char type)
{
	switch (type) {
	case 'T': return 0;
	case 't': return 1;
	case 'W': return 2;
	case 'w': return 3;
	default: return 4;
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct ksym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Parses one line into its parts; returns false for lines that are not
 * "ADDR TYPE NAME [MODULE]" (kallsyms has none, but a fixture might).
 */
static bool split_line(char *line, uint64_t *addr, char *type, char **name,
		       size_t *name_len, char **module, size_t *module_len)
{
	char *p = line, *end;

	errno = 0;
	*addr = strtoull(p, &end, 16);
	if (end == p || errno || (*end != ' ' && *end != '\t'))
		return false;
	p = end + strspn(end, " \t");
	if (!*p || (p[1] != ' ' && p[1] != '\t'))
		return false;
	*type = *p;
	p += 1 + strspn(p + 1, " \t");
	*name = p;
	*name_len = strcspn(p, " \t\r\n");
	if (*name_len == 0)
		return false;
	p += *name_len;
	p += strspn(p, " \t");
	*module = NULL;
	*module_len = 0;
	if (*p == '[') {
		char *close = strchr(p, ']');

		if (!close)
			return false;
		*module = p + 1;
		*module_len = (size_t)(close - p - 1);
	}
	return true;
}

/*
 * The whole of a small file (NULL on error); *len its length.  /proc files
 * report no size, so read until EOF.
 */
static char *read_all(const char *path, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "re");
	size_t got;

	if (!buf || !f) {
		free(buf);
		if (f)
			fclose(f);
		return NULL;
	}
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

unsigned int ksyms_loads(const struct ksyms *ks)
{
	return ks->loads;
}

int ksyms_refresh(struct ksyms *ks, struct mt_err *err)
{
	size_t len = 0;
	char *modules;

	/* A fixture file (tests) has no /proc/modules to go by. */
	if (strcmp(ks->path, "/proc/kallsyms"))
		return ksyms_reload(ks, err);
	modules = read_all("/proc/modules", &len);
	/* No /proc/modules: a kernel without modules, whose symbols never change. */
	if (!modules && errno == ENOENT)
		modules = strdup("");
	if (ks->loaded && modules && ks->modules && len == ks->modules_len &&
	    !memcmp(modules, ks->modules, len)) {
		free(modules);
		return 0;
	}
	free(ks->modules);
	ks->modules = modules;
	ks->modules_len = len;
	return ksyms_reload(ks, err);
}

static int module_cmp(const void *a, const void *b)
{
	const struct ksym_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * "name size refs deps state 0xaddr [taints]" per line of /proc/modules:
 * a module's memory starts at addr and spans at most size bytes.  A
 * fixture path reads "<path>.modules" if there is one.
 */
static void load_module_bounds(struct ksyms *ks)
{
	char path[4096], *text, *line, *save = NULL;
	size_t len = 0, n = 0;

	free(ks->mods);
	ks->mods = NULL;
	ks->nr_mods = 0;
	if (!strcmp(ks->path, "/proc/kallsyms"))
		snprintf(path, sizeof(path), "/proc/modules");
	else
		snprintf(path, sizeof(path), "%s.modules", ks->path);
	text = read_all(path, &len);
	if (!text)
		return;
	text = realloc(text, len + 1);
	if (!text)
		return;
	text[len] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n++;
	ks->mods = calloc(n ? n : 1, sizeof(*ks->mods));
	if (!ks->mods) {
		free(text);
		return;
	}
	/* strtok_r cut the lines at their NULs: walk them again. */
	for (char *p = text; p < text + len; p += strlen(p) + 1) {
		unsigned long long size, addr;

		if (sscanf(p, "%*s %llu %*s %*s %*s %llx", &size, &addr) == 2 && addr && size)
			ks->mods[ks->nr_mods++] = (struct ksym_module) {
				.start = addr, .end = addr + size,
			};
	}
	qsort(ks->mods, ks->nr_mods, sizeof(*ks->mods), module_cmp);
	free(text);
}

int ksyms_reload(struct ksyms *ks, struct mt_err *err)
{
	struct ksym_entry *syms = NULL;
	size_t nr = 0, cap = 0, lines = 0;
	struct strtab strings = { 0 };
	uint32_t kernel_off, last_module_off = 0;
	char *last_module = NULL;
	size_t last_module_len = 0;
	bool any_nonzero = false;
	char *line = NULL;
	size_t line_cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(ks->path, "re");
	if (!f)
		return mt_errf(err, errno, "cannot read kernel symbols from %s: %s",
			       ks->path, strerror(errno));
	ret = strtab_add(&strings, "kernel", 6, &kernel_off);
	while (!ret && getline(&line, &line_cap, f) > 0) {
		char *name, *module, type;
		size_t name_len, module_len;
		struct ksym_entry *e;
		uint64_t addr;
		int rank;

		if (!split_line(line, &addr, &type, &name, &name_len, &module, &module_len))
			continue;
		lines++;
		if (addr)
			any_nonzero = true;
		rank = type_rank(type);
		/* Absolute symbols (A: percpu offsets and such) are no addresses. */
		if (addr == 0 || type == 'A' || type == 'a')
			continue;
		if (nr == cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			struct ksym_entry *n = realloc(syms, ncap * sizeof(*syms));

			if (!n) {
				ret = -ENOMEM;
				break;
			}
			syms = n;
			cap = ncap;
		}
		e = &syms[nr];
		e->addr = addr;
		e->rank = (uint8_t)rank;
		e->text = rank < 4;
		e->order = (uint32_t)lines;
		ret = strtab_add(&strings, name, name_len, &e->name_off);
		if (ret)
			break;
		if (!module) {
			e->module_off = kernel_off;
		} else if (last_module && module_len == last_module_len &&
			   !memcmp(strings.buf + last_module_off, module, module_len)) {
			/* A module's symbols are consecutive: store its name once. */
			e->module_off = last_module_off;
		} else {
			ret = strtab_add(&strings, module, module_len, &e->module_off);
			if (ret)
				break;
			last_module_off = e->module_off;
			last_module = strings.buf + last_module_off;
			last_module_len = module_len;
		}
		nr++;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	free(line);
	if (ret) {
		free(syms);
		free(strings.buf);
		return mt_errf(err, -ret, "cannot read kernel symbols from %s: %s",
			       ks->path, strerror(-ret));
	}
	if (nr)
		qsort(syms, nr, sizeof(*syms), entry_cmp);

	free(ks->syms);
	free(ks->strings);
	ks->syms = syms;
	ks->nr_syms = nr;
	ks->strings = strings.buf;
	ks->strings_len = strings.len;
	ks->restricted = lines > 0 && !any_nonzero;
	ks->retried = false;
	ks->loaded = true;
	ks->loads++;
	load_module_bounds(ks);
	return 0;
}

/* The end of the module memory holding addr, or 0 if none does. */
static uint64_t module_end(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->nr_mods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->mods[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < ks->mods[lo - 1].end)
		return ks->mods[lo - 1].end;
	return 0;
}

bool ksyms_lookup(const struct ksyms *ks, uint64_t addr, struct ksym *out)
{
	size_t lo = 0, hi = ks->nr_syms;
	const struct ksym_entry *e, *next;

	/* Find the first entry above addr; the one before it is ours. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	e = &ks->syms[lo - 1];
	next = lo < ks->nr_syms ? &ks->syms[lo] : NULL;
	/* Several names at one address: the sort put the preferred first. */
	while (e > ks->syms && (e - 1)->addr == e->addr)
		e--;
	if (!e->text)
		return false;	/* past a data symbol: not in any function */
	if (!next)
		return false;	/* past the last symbol: no bound */
	if (strcmp(ks->strings + e->module_off, "kernel")) {
		uint64_t end = module_end(ks, e->addr);

		/* A module function ends with its module. */
		if (ks->nr_mods && (!end || addr >= end))
			return false;
	}
	out->addr = e->addr;
	out->size = next->addr - e->addr;
	out->name = ks->strings + e->name_off;
	out->module = ks->strings + e->module_off;
	return true;
}

/*
 * Module code freed while tracing that the stack (stored at epoch) was
 * made with: the first freeing after the stack of code holding addr.
 */
static const struct mt_freed_sym *freed_code(const struct mt_snapshot *snap,
					     uint32_t epoch, uint64_t addr, bool range)
{
	const struct mt_freed_sym *best = NULL;

	for (size_t i = 0; snap && i < snap->nr_freed_syms; i++) {
		const struct mt_freed_sym *f = &snap->freed_syms[i];

		if (f->start > addr)
			break;		/* sorted by start */
		if (!(f->flags & MEMTRACE_KSYM_RANGE) != !range || f->freed_epoch <= epoch ||
		    addr - f->start >= f->size)
			continue;
		if (!best || f->freed_epoch < best->freed_epoch)
			best = f;
	}
	return best;
}

/* What a frame names: a function, only a module's freed code, or nothing. */
struct kframe {
	const char *name;	/* NULL: none known */
	const char *module;	/* NULL: unknown */
	uint64_t start;
	bool init;		/* module init code */
};

static void resolve_frame(struct ksyms *ks, const struct mt_snapshot *snap,
			  uint32_t epoch, uint64_t ret, struct kframe *f)
{
	const struct mt_freed_sym *range, *fn;
	uint64_t addr = ret - 1;	/* inside the call instruction */
	struct ksym sym;

	memset(f, 0, sizeof(*f));
	/* Code freed after the stack was made: named as it was then. */
	range = freed_code(snap, epoch, addr, true);
	if (range) {
		fn = freed_code(snap, epoch, addr, false);
		f->module = range->module;
		f->init = range->flags & MEMTRACE_KSYM_INIT;
		if (fn && fn->freed_epoch == range->freed_epoch) {
			f->name = fn->name;
			f->start = fn->start;
		}
		return;
	}
	if (!ksyms_lookup(ks, addr, &sym) && !ks->retried) {
		/* A module loaded since the last read: read again, once. */
		ks->retried = true;
		if (ksyms_reload(ks, NULL) == 0)
			ks->retried = true;
	}
	if (ksyms_lookup(ks, addr, &sym)) {
		f->name = sym.name;
		f->module = sym.module;
		f->start = sym.addr;
	}
}

void ksyms_frame(struct ksyms *ks, const struct mt_snapshot *snap, uint32_t epoch,
		 uint64_t ret, struct rm_frame *f)
{
	struct kframe k;

	resolve_frame(ks, snap, epoch, ret, &k);
	memset(f, 0, sizeof(*f));
	f->addr = ret;
	f->function = (char *)k.name;
	f->module = (char *)k.module;
	if (k.name) {
		f->offset = ret - k.start;
	} else if (k.module) {
		/* No function: the address itself, in the module's code. */
		f->offset = ret;
		if (k.init) {
			snprintf(ks->init_module, sizeof(ks->init_module), "%s init", k.module);
			f->module = ks->init_module;
		}
	}
}

bool ksyms_frame_in_module(struct ksyms *ks, const struct mt_snapshot *snap,
			   uint32_t epoch, uint64_t ret, const char *module)
{
	struct kframe f;

	resolve_frame(ks, snap, epoch, ret, &f);
	return f.module && !strcmp(f.module, module);
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks->nr_syms;
}

bool ksyms_restricted(const struct ksyms *ks)
{
	return ks->restricted;
}

const char *ksyms_path(const struct ksyms *ks)
{
	return ks->path;
}
