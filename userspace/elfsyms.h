/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the user allocator functions (MEMTRACE_UFN_*) in an ELF object,
 * as file offsets: uprobes are placed on (inode, file offset), so that is
 * what the module needs, independent of where the target mapped the file.
 */
#ifndef MEMTRACE_READ_ELFSYMS_H
#define MEMTRACE_READ_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "util.h"

/*
 * Symbols that may be probed in one object: the C functions and C++'s
 * operators (the first ELFSYMS_STANDARD_SLOTS), then allocators' own entry
 * points (jemalloc's mallocx family, mimalloc's mi_*).
 */
#define ELFSYMS_MAX_PROBES	72
#define ELFSYMS_STANDARD_SLOTS	33

struct ufn_probe {
	uint32_t func;		/* MEMTRACE_UFN_* */
	uint64_t offset;	/* file offset of the function's first instruction */
	uint64_t size;		/* its symbol's size in bytes (0: not known) */
	char symbol[64];	/* the symbol name it was found under */
	/*
	 * elfsyms_find_definitions() only: defined as an IFUNC, so ld.so
	 * binds it here (no later object's definition is called), but the
	 * offset is its resolver's, not the function's: not to be probed.
	 */
	bool ifunc;
};

/*
 * Looks up every allocator function defined in the ELF file at path: the C
 * functions (one MEMTRACE_UFN_* each) and C++'s operator new (as
 * MEMTRACE_UFN_MALLOC) and delete (MEMTRACE_UFN_DELETE), every variant; in
 * .symtab, else (per symbol) in .dynsym.  Only defined GLOBAL/WEAK STT_FUNC
 * symbols count (an IFUNC's address is its resolver, wrong to probe, so
 * IFUNCs are skipped); of several versions of a name the default one wins;
 * glibc's internal names ("__libc_malloc") are used only when the public
 * name is absent.  Functions at the same offset (aliases, e.g. glibc's
 * memalign and aligned_alloc) are returned once, under the first one
 * (MEMTRACE_UFN_* order, C before C++), since one probe already sees every
 * call.
 *
 * Fills probes[] in that order, at most max (ELFSYMS_MAX_PROBES holds
 * them all); returns how many
 * (>= 0), or -errno with err set: the file cannot be opened (-errno of
 * open), is not an ELF executable or shared object (-ENOEXEC), or has no
 * symbol table at all (-ENOENT, "stripped").
 */
int elfsyms_find_allocators(const char *path, struct ufn_probe *probes, size_t max,
			    struct mt_err *err);

/*
 * What ld.so would bind in the ELF file at path, symbol by symbol: for
 * each of the ELFSYMS_MAX_PROBES symbols (elfsyms_slot_symbol(i)) it
 * defines under its public name (no glibc internal names), defined[i] and
 * slots[i] (func, offset, size, symbol); aliases are not collapsed (two
 * names at one offset are two definitions).  As ld.so binds a reference
 * made by a link against today's libraries: a name defined only in a
 * non-default version ("malloc@V" without "malloc@@") is not a
 * definition (ld.so skips hidden versions for unversioned references, and
 * a versioned one names another version); an IFUNC is one, with ifunc set.  Returns how many it defines,
 * or -errno with err set, as above.
 */
int elfsyms_find_definitions(const char *path, struct ufn_probe slots[ELFSYMS_MAX_PROBES],
			     bool defined[ELFSYMS_MAX_PROBES], struct mt_err *err);

/* The symbol name of definition slot i ("malloc", "_Znwm"), or NULL. */
const char *elfsyms_slot_symbol(size_t slot);

/*
 * The same for an allocator whose C functions' names carry a prefix
 * (memleak's -S: "je_malloc", "je_free", ...): only those, by those names.
 */
int elfsyms_find_prefixed(const char *path, const char *prefix, struct ufn_probe *probes,
			  size_t max, struct mt_err *err);

/*
 * The value of symbol name (a function or an object; of several versions,
 * the default one) in the ELF file at path, as an address in the object's
 * own layout, and the address its first byte is loaded at in that layout
 * (so that where the process maps offset 0 minus *load_vaddr is the bias
 * to add).  -ENOENT if it defines no such symbol; else as above.
 */
int elfsyms_lookup(const char *path, const char *name, uint64_t *vaddr, uint64_t *load_vaddr,
		   struct mt_err *err);

/* The ELF class of the file at path (ELFCLASS32, ELFCLASS64), or -errno. */
int elfsyms_class(const char *path);

/* The name of a MEMTRACE_UFN_* ("malloc"), or NULL. */
const char *elfsyms_ufn_name(uint32_t func);

/*
 * Whether the ELF file at path defines name (any version) as a GLOBAL or
 * WEAK function, IFUNCs included: 1 or 0, or -errno as above.
 */
int elfsyms_defines(const char *path, const char *name, struct mt_err *err);

/*
 * The file offset of vaddr (in the object's own layout), through the
 * PT_LOAD that maps it from the file (not from its zero-filled tail,
 * which has no file offset); false if none does.
 */
bool elfsyms_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset);

#endif
