/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lookup tables usyms keeps per libdwfl module, in the module's
 * userdata: its function symbols sorted by address, each CU's functions
 * by address, and (without .debug_aranges) its CUs by address.  libdwfl
 * (elfutils 0.188) answers these lookups by linear scans, which made a
 * report of many stacks take minutes; these tables are built on a
 * module's first lookup and dropped with the module.
 *
 * Below usymproc.c (which creates and frees a module's data) and usyms.c
 * (which symbolizes with the tables); calls only libdw and libdwfl.
 */
#ifndef MEMTRACE_READ_USYMTAB_H
#define MEMTRACE_READ_USYMTAB_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deeper inline chains exist only in generated code; cut them there. */
#define USYMS_MAX_INLINE	16

/* A function symbol of a module. */
struct usyms_sym {
	uint64_t addr;		/* absolute, in the process */
	uint64_t size;		/* 0: unknown, up to the next symbol */
	const char *name;	/* in the module's ELF string table */
	uint32_t name_len;	/* without a version ("tmpfile@@GLIBC_2.2.5") */
	uint32_t order;		/* index in the ELF table: a stable sort */
	uint32_t rank;		/* among names at one address, lower wins */
	bool label;		/* STT_NOTYPE in code: an assembly entry point */
};

struct usyms_symtab;
struct usyms_cu_range;

/*
 * What usyms keeps per module, in its libdwfl userdata: where its file
 * is found (set by usymproc.c when the module is reported) and the
 * lookup tables (built here on first use).
 */
struct usyms_module {
	int pid;			/* 0: unknown (no memory when reported) */
	int root_fd;			/* the process's root directory (usymproc.root_fd) */
	uint64_t vma_start, vma_end;	/* its first mapping, for map_files */
	struct usyms_symtab *symtab;	/* NULL until the first lookup */
	void *cus;			/* tsearch tree of struct usyms_cu */
	struct usyms_cu_range *cu_ranges;	/* see usymtab_cu */
	size_t nr_cu_ranges;
	bool cu_ranges_built;
};

/* The module's data, made empty if it had none; NULL without memory. */
struct usyms_module *usymtab_module(Dwfl_Module *mod);
void usymtab_module_free(struct usyms_module *m);

/*
 * The function symbol containing pc (an address in the process), or
 * NULL: none precedes it, or the one before it ends before pc (a gap,
 * e.g. the PLT or a stripped static function, which is better left as an
 * address than misnamed).  Of aliases, the plainest name: "malloc", not
 * "__libc_malloc".
 */
const struct usyms_sym *usymtab_sym(Dwfl_Module *mod, uint64_t pc);

/* The CU DIE holding pc (an address in the process) and the DWARF bias; NULL: none. */
Dwarf_Die *usymtab_cu(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias);

/*
 * The inlined instances containing pc (a DWARF address in cu), outermost
 * first, into chain (room for USYMS_MAX_INLINE); returns their number.
 */
int usymtab_inline_chain(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain);

#endif
