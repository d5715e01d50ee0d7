// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms lines are "ADDR TYPE NAME[\t[MODULE]]", not sorted
 * across modules.  Only function symbols (t, T, w, W) are kept: stack
 * frames are return addresses in text, and data symbols would only
 * produce wrong names.  Lookups binary-search the sorted table.
 */
#include "ksyms.h"

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
	free(ks->path);
	free(ks);
}

/* Global text first, then local, then weak: the most telling name. */
static int type_rank(char type)
{
	switch (type) {
	case 'T': return 0;
	case 't': return 1;
	case 'W': return 2;
	case 'w': return 3;
	default: return -1;
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
		if (rank < 0 || addr == 0)
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
	return 0;
}

bool ksyms_lookup(const struct ksyms *ks, uint64_t addr, struct ksym *out)
{
	size_t lo = 0, hi = ks->nr_syms;
	const struct ksym_entry *e;

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
	/* Several names at one address: the sort put the preferred first. */
	while (e > ks->syms && (e - 1)->addr == e->addr)
		e--;
	out->addr = e->addr;
	out->name = ks->strings + e->name_off;
	out->module = ks->strings + e->module_off;
	return true;
}

void ksyms_format(struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	struct ksym sym;

	if (!ksyms_lookup(ks, addr, &sym) && !ks->retried) {
		ks->retried = true;
		if (ksyms_reload(ks, NULL) == 0)
			ks->retried = true;
	}
	if (ksyms_lookup(ks, addr, &sym))
		snprintf(buf, len, "%s+0x%llx [%s]", sym.name,
			 (unsigned long long)(addr - sym.addr), sym.module);
	else
		snprintf(buf, len, "0x%016llx [unknown]", (unsigned long long)addr);
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
