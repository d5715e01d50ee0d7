// SPDX-License-Identifier: GPL-2.0
/*
 * 6.4: a module's memory is mem[MOD_TEXT], mem[MOD_INIT_TEXT], ... (struct
 * module_memory); before, core_layout and init_layout (struct module_layout).
 */
#include <linux/module.h>

unsigned int memtrace_probe(const struct module *mod);
unsigned int memtrace_probe(const struct module *mod)
{
	return mod->mem[MOD_TEXT].size + mod->mem[MOD_INIT_TEXT].size;
}
