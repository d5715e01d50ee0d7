/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for module code that goes away while tracing.
 *
 * A stack keeps return addresses; the reader names them later from
 * /proc/kallsyms.  By then a module's init code is freed (its symbols
 * leave kallsyms when init returns) and an unloaded module's code is gone,
 * and either range may hold another module's code.  So when a module comes,
 * the functions of its init text are copied here (name, start, size, from
 * the module's own symbol table), and when it goes, those of its core
 * text; each is dated by the code epoch at which its code was freed.  The
 * stack table dates every stack by the epoch it was stored in and stops
 * matching old stacks whose frames lie in freed code (mt_stacktab_code_freed()),
 * so a frame is named from here exactly when its stack is older than the
 * code's freeing.
 *
 * The store is a fixed pool filled in process context (the module
 * notifier) and read by snapshots, both under mt.lock; a full pool drops
 * symbols, counted.
 */
#ifndef MEMTRACE_MODSYMS_H
#define MEMTRACE_MODSYMS_H

#include <linux/module.h>
#include <linux/types.h>

struct mt_modsyms {
	u8 *pool;
	size_t size;
	size_t used;
	u32 nr;
	u32 dropped;
};

int mt_modsyms_init(struct mt_modsyms *ms, size_t bytes);
void mt_modsyms_destroy(struct mt_modsyms *ms);
void mt_modsyms_clear(struct mt_modsyms *ms);

/* MODULE_STATE_COMING: keep the functions of mod's init text (not freed yet). */
void mt_modsyms_coming(struct mt_modsyms *ms, struct module *mod);
/*
 * mod's init text (MODULE_STATE_LIVE, or GOING after a failed init) or
 * its core text (GOING, core true; its functions are kept first) is freed
 * at code epoch 'epoch'.
 */
void mt_modsyms_freed(struct mt_modsyms *ms, struct module *mod, bool core, u32 epoch);

/*
 * Copy the freed functions into a snapshot buffer as memtrace_ksym_rec
 * records: returns the bytes they take (even past len, when only
 * measuring) and their number in *nr.
 */
size_t mt_modsyms_export(const struct mt_modsyms *ms, u8 *buf, size_t len, u32 *nr);

#endif
