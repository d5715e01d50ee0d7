/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which definition of each allocator entry point a process calls: the
 * first object in ld.so's lookup order (linkmap.h) that defines it, as
 * ld.so binds a symbol.  malloc in libjemalloc.so.2 ahead of libc is
 * jemalloc's; reallocarray, which jemalloc lacks, is still libc's.
 */
#ifndef MEMTRACE_READ_BINDING_H
#define MEMTRACE_READ_BINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "elfsyms.h"
#include "util.h"

struct binding {
	/* Per definition slot (elfsyms_slot_symbol()): the index of the
	 * object in the list given that defines it first, or the list's
	 * length if none does; and that definition. */
	size_t obj[ELFSYMS_MAX_PROBES];
	struct ufn_probe def[ELFSYMS_MAX_PROBES];
};

/*
 * Resolves every entry point over the objects at paths[0..nr), in lookup
 * order.  An object that cannot be read or has no symbols (a stripped
 * executable) defines nothing.  Returns how many entry points resolved.
 */
int binding_resolve(const char *const *paths, size_t nr, struct binding *b);

/*
 * Whether slot i is an alias of an earlier slot bound to the same
 * function (same object, same offset): one probe sees both.
 */
bool binding_is_alias(const struct binding *b, size_t nr, size_t i);

/* A slot's name as people know it: "malloc", "operator new", "operator delete". */
const char *binding_slot_name(size_t slot);

#endif
