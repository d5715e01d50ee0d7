/* SPDX-License-Identifier: GPL-2.0 */
/*
 * USDT probes (<sys/sdt.h>) of an ELF object: found in its .note.stapsdt
 * notes with libelf, each site turned into what the module needs
 * (struct memtrace_usdt: the file offsets of the probe and its semaphore,
 * the arguments compiled from the note's specs), and hits formatted as
 * trace(8) prints them, or as --json's records (docs/report-json.md).
 * The session is growth.c's (--usdt).
 */
#ifndef MEMTRACE_READ_USDT_H
#define MEMTRACE_READ_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "util.h"

#define USDT_NAME_LEN	128
#define USDT_SPEC_LEN	512

/* One site of a probe (a probe may be expanded at several places). */
struct usdt_site {
	uint64_t pc;			/* the probe's address in the object's own layout */
	uint64_t offset;		/* its file offset */
	uint64_t semaphore;		/* the semaphore's address; 0: none */
	uint64_t ref_ctr_offset;	/* its file offset; 0: none */
	uint32_t nr_args;
	struct memtrace_usdt_arg args[MEMTRACE_USDT_MAX_ARGS];
	uint32_t unsupported;		/* bit i: argument i is not decoded (printed "?") */
	char specs[USDT_SPEC_LEN];	/* the note's argument specs, as written */
};

/*
 * Splits "BINARY:PROVIDER:NAME" (BINARY may itself hold ':'; PROVIDER and
 * NAME may not).  0, or -EINVAL with err set.
 */
int usdt_parse_probe(const char *s, char *path, size_t path_len, char *provider,
		     char *name, struct mt_err *err);

/*
 * Compiles one argument spec as <sys/sdt.h> writes them for x86-64:
 * "SIZE@OPERAND", SIZE one of 1, 2, 4, 8 (negative: signed), OPERAND a
 * register ("%edi"), memory at a register plus a displacement
 * ("-16(%rbp)", "(%rax)"), or a constant ("$5").  Returns 0; -ENOTSUP
 * for an operand the module does not decode (an index register, a
 * symbol, a segment, an 8-bit high register), a is then the constant 0;
 * -EINVAL with err set for a spec that is none of these.
 */
int usdt_parse_arg(const char *spec, struct memtrace_usdt_arg *a, struct mt_err *err);

/*
 * Compiles the space-separated specs of a note into args (at most
 * MEMTRACE_USDT_MAX_ARGS); *unsupported gets a bit per argument
 * usdt_parse_arg() said -ENOTSUP of.  Returns how many, or -EINVAL.
 */
int usdt_parse_args(const char *specs, struct memtrace_usdt_arg *args, uint32_t *unsupported,
		    struct mt_err *err);

/*
 * The sites of PROVIDER:NAME in the ELF file at path, at most max.
 * Addresses are moved by where .stapsdt.base really is (prelink, or a
 * linker that moved it), then turned into file offsets through the
 * PT_LOAD headers.  Returns how many (>= 1), or -errno with err set: the
 * file cannot be opened, is no ELF (-ENOEXEC), has no .note.stapsdt
 * (-ENODATA), has no such probe (-ENOENT: the message lists those it
 * has), or a note is malformed (-EINVAL).
 */
int usdt_find(const char *path, const char *provider, const char *name,
	      struct usdt_site *sites, size_t max, struct mt_err *err);

/*
 * The arguments of a hit as "arg1=5 arg2=-3 arg3=0x7ffc..." (signed
 * values in decimal, unsigned ones of 8 bytes in hex, smaller ones in
 * decimal; "?" where the argument is not decoded or its memory could not
 * be read).  args: the site's compiled arguments, for their sizes (NULL:
 * all unsigned, 8 bytes); unsupported: its usdt_site.unsupported.
 */
void usdt_format_args(char *buf, size_t len, const struct memtrace_ev_usdt *r,
		      const struct memtrace_usdt_arg *args, uint32_t unsupported);

/*
 * The same arguments as --json's array: an integer where the text prints
 * decimal, a "0x..." string where it prints hex, null for "?".  NULL out
 * of memory.
 */
json_t *usdt_args_json(const struct memtrace_ev_usdt *r, const struct memtrace_usdt_arg *args,
		       uint32_t unsupported);

/*
 * A hit's --json record ("usdt"/"hit"): its times (elapsed_ns from
 * start_ns, the text's first column), task, probe ("PROVIDER:NAME"),
 * site and arguments.  site: the hit's site (NULL: unknown).  NULL out of
 * memory.
 */
json_t *usdt_hit_json(const struct memtrace_ev_usdt *r, const struct usdt_site *site,
		      const char *probe, uint64_t start_ns, const char *hms);

#endif
