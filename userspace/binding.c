// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator entry points bound as ld.so binds them; see binding.h.
 */
#include "binding.h"

#include <string.h>

int binding_resolve(const char *const *paths, size_t nr, struct binding *b)
{
	size_t left = ELFSYMS_MAX_PROBES;
	int resolved = 0;

	for (size_t s = 0; s < ELFSYMS_MAX_PROBES; s++) {
		b->obj[s] = nr;
		memset(&b->def[s], 0, sizeof(b->def[s]));
	}
	for (size_t i = 0; i < nr && left; i++) {
		struct ufn_probe defs[ELFSYMS_MAX_PROBES];
		bool defined[ELFSYMS_MAX_PROBES];
		struct mt_err ignored;

		if (elfsyms_find_definitions(paths[i], defs, defined, &ignored) <= 0)
			continue;
		for (size_t s = 0; s < ELFSYMS_MAX_PROBES; s++) {
			if (b->obj[s] != nr || !defined[s])
				continue;
			b->obj[s] = i;
			b->def[s] = defs[s];
			left--;
			resolved++;
		}
	}
	return resolved;
}

bool binding_is_alias(const struct binding *b, size_t nr, size_t i)
{
	if (b->obj[i] == nr)
		return false;
	for (size_t j = 0; j < i; j++)
		if (b->obj[j] == b->obj[i] && b->def[j].offset == b->def[i].offset)
			return true;
	return false;
}

const char *binding_slot_name(size_t slot)
{
	const char *sym = elfsyms_slot_symbol(slot);

	if (!sym)
		return NULL;
	if (!strncmp(sym, "_Zn", 3))
		return "operator new";
	if (!strncmp(sym, "_Zd", 3))
		return "operator delete";
	return sym;
}
