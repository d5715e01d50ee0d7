// SPDX-License-Identifier: GPL-2.0
/*
 * Names for module code freed while tracing; see modsyms.h.
 *
 * Records are kept in the pool in their ABI form (struct memtrace_ksym_rec
 * and its two names, 8-byte aligned), so a snapshot copies them as they
 * are.  A record of init code waits with freed_epoch 0 until the module's
 * init is done; only records with an epoch are exported.
 */
#include <linux/elf.h>
#include <linux/kallsyms.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/memtrace.h>

#include "compat/compat.h"
#include "tables/modsyms.h"

#define MT_KSYM_ALIGN	8

int mt_modsyms_init(struct mt_modsyms *ms, size_t bytes)
{
	memset(ms, 0, sizeof(*ms));
	ms->pool = vmalloc(bytes);
	if (!ms->pool)
		return -ENOMEM;
	ms->size = bytes;
	return 0;
}

void mt_modsyms_destroy(struct mt_modsyms *ms)
{
	vfree(ms->pool);
	ms->pool = NULL;
}

void mt_modsyms_clear(struct mt_modsyms *ms)
{
	ms->used = 0;
	ms->nr = 0;
	ms->dropped = 0;
}

static size_t mt_ksym_size(size_t name_len, size_t module_len)
{
	return ALIGN(sizeof(struct memtrace_ksym_rec) + name_len + 1 + module_len + 1,
		     MT_KSYM_ALIGN);
}

static const char *mt_ksym_module(const struct memtrace_ksym_rec *r)
{
	return (const char *)(r + 1) + r->name_len + 1;
}

/* Visit every record; fn returns false to stop. */
static void mt_modsyms_each(const struct mt_modsyms *ms,
			    bool (*fn)(struct memtrace_ksym_rec *r, void *arg),
			    void *arg)
{
	size_t off = 0;

	while (off < ms->used) {
		struct memtrace_ksym_rec *r = (struct memtrace_ksym_rec *)(ms->pool + off);

		if (!fn(r, arg))
			return;
		off += mt_ksym_size(r->name_len, r->module_len);
	}
}

static void mt_modsyms_add(struct mt_modsyms *ms, unsigned long start,
			   unsigned long size, const char *name, const char *module,
			   u32 flags, u32 epoch)
{
	size_t name_len = strnlen(name, KSYM_NAME_LEN - 1);
	size_t module_len = strnlen(module, MODULE_NAME_LEN - 1);
	size_t need = mt_ksym_size(name_len, module_len);
	struct memtrace_ksym_rec *r;
	char *p;

	if (ms->used + need > ms->size) {
		ms->dropped++;
		return;
	}
	r = (struct memtrace_ksym_rec *)(ms->pool + ms->used);
	memset(r, 0, need);
	r->start = start;
	r->size = min_t(unsigned long, size, U32_MAX);
	r->freed_epoch = epoch;
	r->name_len = name_len;
	r->module_len = module_len;
	r->flags = flags;
	p = (char *)(r + 1);
	memcpy(p, name, name_len);
	memcpy(p + name_len + 1, module, module_len);
	ms->used += need;
	ms->nr++;
}

/*
 * Keep the functions of mod's text (init or core) with their sizes from
 * the module's own symbol table, and the whole range.
 */
static void mt_modsyms_capture(struct mt_modsyms *ms, struct module *mod,
			       bool init, u32 epoch)
{
	u32 flags = init ? MEMTRACE_KSYM_INIT : 0;
	const struct mod_kallsyms *ks;
	unsigned long base, size, i;

	size = mt_module_text(mod, init, &base);
	if (!size)
		return;
	mt_modsyms_add(ms, base, size, "", mod->name, flags | MEMTRACE_KSYM_RANGE, epoch);
	/* The module's symbol table is RCU-sched protected, as kallsyms reads it. */
	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 0; ks && i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];
		unsigned long addr = sym->st_value;

		if (ELF_ST_TYPE(sym->st_info) != STT_FUNC || addr - base >= size ||
		    !sym->st_name)
			continue;
		mt_modsyms_add(ms, addr, sym->st_size, ks->strtab + sym->st_name,
			       mod->name, flags, epoch);
	}
	preempt_enable();
}

void mt_modsyms_coming(struct mt_modsyms *ms, struct module *mod)
{
	mt_modsyms_capture(ms, mod, true, 0);
}

struct mt_modsyms_date {
	const char *module;
	u32 epoch;
};

/* Date the waiting init records of a module. */
static bool mt_modsyms_date_init(struct memtrace_ksym_rec *r, void *arg)
{
	const struct mt_modsyms_date *d = arg;

	if (!r->freed_epoch && (r->flags & MEMTRACE_KSYM_INIT) &&
	    !strcmp(mt_ksym_module(r), d->module))
		r->freed_epoch = d->epoch;
	return true;
}

void mt_modsyms_freed(struct mt_modsyms *ms, struct module *mod, bool core, u32 epoch)
{
	struct mt_modsyms_date d = { .module = mod->name, .epoch = epoch };

	/* Init code is freed too when a module goes (a failed init: no LIVE). */
	mt_modsyms_each(ms, mt_modsyms_date_init, &d);
	if (core)
		mt_modsyms_capture(ms, mod, false, epoch);
}

struct mt_modsyms_out {
	u8 *buf;
	size_t len, pos;
	u32 nr;
};

static bool mt_modsyms_copy(struct memtrace_ksym_rec *r, void *arg)
{
	struct mt_modsyms_out *o = arg;
	size_t n = mt_ksym_size(r->name_len, r->module_len);

	if (!r->freed_epoch)
		return true;	/* still in kallsyms */
	if (o->pos + n <= o->len)
		memcpy(o->buf + o->pos, r, n);
	o->pos += n;
	o->nr++;
	return true;
}

size_t mt_modsyms_export(const struct mt_modsyms *ms, u8 *buf, size_t len, u32 *nr)
{
	struct mt_modsyms_out o = { .buf = buf, .len = buf ? len : 0 };

	mt_modsyms_each(ms, mt_modsyms_copy, &o);
	*nr = o.nr;
	return o.pos;
}
