// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes of an ELF object; see usdt.h.  The note format is
 * systemtap's (<sys/sdt.h>): owner "stapsdt", type 3, a descriptor of
 * three addresses (the probe, the link-time address of .stapsdt.base,
 * the semaphore) followed by three strings (provider, name, argument
 * specs).  libelf reads the notes (gelf_getnote()); only the descriptor,
 * which libelf has no type for, is taken apart here.
 */
#include "usdt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"
#include "evjson.h"

#define NT_STAPSDT	3

/* ---- "BINARY:PROVIDER:NAME" ---- */

int usdt_parse_probe(const char *s, char *path, size_t path_len, char *provider,
		     char *name, struct mt_err *err)
{
	const char *n = strrchr(s, ':'), *p;
	size_t len;

	if (!n || n == s)
		goto bad;
	for (p = n - 1; p > s && *p != ':'; p--)
		;
	if (p == s || !n[1] || n - p - 1 == 0)
		goto bad;
	len = (size_t)(p - s);
	if (len >= path_len || (size_t)(n - p - 1) >= USDT_NAME_LEN ||
	    strlen(n + 1) >= USDT_NAME_LEN)
		return mt_errf(err, EINVAL, "--usdt %s: too long", s);
	memcpy(path, s, len);
	path[len] = '\0';
	memcpy(provider, p + 1, (size_t)(n - p - 1));
	provider[n - p - 1] = '\0';
	strcpy(name, n + 1);
	return 0;
bad:
	return mt_errf(err, EINVAL, "--usdt %s: expected BINARY:PROVIDER:NAME", s);
}

/* ---- argument specs ---- */

/* x86-64 register names, every width, as the assembler spells them in operands. */
static const struct {
	const char *name;
	uint8_t reg;
} regs[] = {
	{ "rax", MEMTRACE_USDT_REG_RAX }, { "eax", MEMTRACE_USDT_REG_RAX },
	{ "ax", MEMTRACE_USDT_REG_RAX }, { "al", MEMTRACE_USDT_REG_RAX },
	{ "rbx", MEMTRACE_USDT_REG_RBX }, { "ebx", MEMTRACE_USDT_REG_RBX },
	{ "bx", MEMTRACE_USDT_REG_RBX }, { "bl", MEMTRACE_USDT_REG_RBX },
	{ "rcx", MEMTRACE_USDT_REG_RCX }, { "ecx", MEMTRACE_USDT_REG_RCX },
	{ "cx", MEMTRACE_USDT_REG_RCX }, { "cl", MEMTRACE_USDT_REG_RCX },
	{ "rdx", MEMTRACE_USDT_REG_RDX }, { "edx", MEMTRACE_USDT_REG_RDX },
	{ "dx", MEMTRACE_USDT_REG_RDX }, { "dl", MEMTRACE_USDT_REG_RDX },
	{ "rsi", MEMTRACE_USDT_REG_RSI }, { "esi", MEMTRACE_USDT_REG_RSI },
	{ "si", MEMTRACE_USDT_REG_RSI }, { "sil", MEMTRACE_USDT_REG_RSI },
	{ "rdi", MEMTRACE_USDT_REG_RDI }, { "edi", MEMTRACE_USDT_REG_RDI },
	{ "di", MEMTRACE_USDT_REG_RDI }, { "dil", MEMTRACE_USDT_REG_RDI },
	{ "rbp", MEMTRACE_USDT_REG_RBP }, { "ebp", MEMTRACE_USDT_REG_RBP },
	{ "bp", MEMTRACE_USDT_REG_RBP }, { "bpl", MEMTRACE_USDT_REG_RBP },
	{ "rsp", MEMTRACE_USDT_REG_RSP }, { "esp", MEMTRACE_USDT_REG_RSP },
	{ "sp", MEMTRACE_USDT_REG_RSP }, { "spl", MEMTRACE_USDT_REG_RSP },
};

/* The register named at s ("%r9d"), its length in *used; -1 if none, -2 if not decoded. */
static int reg_of(const char *s, size_t *used)
{
	char name[8];
	size_t n = 0;

	if (*s != '%')
		return -1;
	while (n < sizeof(name) - 1 && isalnum((unsigned char)s[1 + n])) {
		name[n] = s[1 + n];
		n++;
	}
	name[n] = '\0';
	*used = n + 1;
	for (size_t i = 0; i < MT_ARRAY_SIZE(regs); i++)
		if (!strcmp(name, regs[i].name))
			return regs[i].reg;
	/* r8..r15, and their d, w, b (or l) parts */
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		char *end;
		long r = strtol(name + 1, &end, 10);

		if (r >= 8 && r <= 15 && (!*end || (!end[1] && strchr("dwbl", *end))))
			return MEMTRACE_USDT_REG_R8 + (int)(r - 8);
		return -1;
	}
	/* The high bytes (%ah), segments, rip, vector registers: not decoded. */
	if (!strcmp(name, "ah") || !strcmp(name, "bh") || !strcmp(name, "ch") ||
	    !strcmp(name, "dh") || !strcmp(name, "rip") || !strcmp(name, "fs") ||
	    !strcmp(name, "gs") || !strncmp(name, "xmm", 3))
		return -2;
	return -1;
}

static int unsupported(struct memtrace_usdt_arg *a, int size)
{
	memset(a, 0, sizeof(*a));
	a->kind = MEMTRACE_USDT_ARG_CONST;
	a->size = (int8_t)size;
	return -ENOTSUP;
}

int usdt_parse_arg(const char *spec, struct memtrace_usdt_arg *a, struct mt_err *err)
{
	const char *at = strchr(spec, '@'), *op = spec;
	long size = 8;
	size_t used;
	char *end;
	int reg;

	memset(a, 0, sizeof(*a));
	/* Old notes give the operand alone: a long. */
	if (at) {
		size = strtol(spec, &end, 10);
		if (end != at || (labs(size) != 1 && labs(size) != 2 && labs(size) != 4 &&
				  labs(size) != 8))
			return mt_errf(err, EINVAL, "USDT argument '%s': bad size", spec);
		op = at + 1;
	}
	a->size = (int8_t)size;
	if (*op == '$') {
		long long v;

		errno = 0;
		v = strtoll(op + 1, &end, 0);
		if (end == op + 1 || *end || errno)
			/* "$symbol": an address the link decided */
			return isalpha((unsigned char)op[1]) || op[1] == '_' ?
			       unsupported(a, (int)size) :
			       mt_errf(err, EINVAL, "USDT argument '%s': bad constant", spec);
		a->kind = MEMTRACE_USDT_ARG_CONST;
		a->value = v;
		return 0;
	}
	reg = reg_of(op, &used);
	if (reg >= 0 && !op[used]) {
		a->kind = MEMTRACE_USDT_ARG_REG;
		a->reg = (uint8_t)reg;
		return 0;
	}
	if (reg == -2)
		return unsupported(a, (int)size);
	if (reg >= 0)
		return mt_errf(err, EINVAL, "USDT argument '%s': bad operand", spec);
	/* Memory: [disp](%reg), disp a number; a symbol, an index or a segment is not decoded. */
	{
		const char *paren = strchr(op, '(');
		long long disp = 0;

		if (!paren)
			return isalpha((unsigned char)*op) || *op == '_' ?
			       unsupported(a, (int)size) :
			       mt_errf(err, EINVAL, "USDT argument '%s': bad operand", spec);
		if (paren != op) {
			errno = 0;
			disp = strtoll(op, &end, 0);
			if (end != paren || errno)
				return isalpha((unsigned char)*op) || *op == '_' ?
				       unsupported(a, (int)size) :
				       mt_errf(err, EINVAL, "USDT argument '%s': bad displacement",
					       spec);
		}
		reg = reg_of(paren + 1, &used);
		if (reg == -2 || (reg >= 0 && paren[1 + used] == ','))
			return unsupported(a, (int)size);
		if (reg < 0 || paren[1 + used] != ')' || paren[2 + used])
			return mt_errf(err, EINVAL, "USDT argument '%s': bad operand", spec);
		a->kind = MEMTRACE_USDT_ARG_MEM;
		a->reg = (uint8_t)reg;
		a->value = disp;
		return 0;
	}
}

int usdt_parse_args(const char *specs, struct memtrace_usdt_arg *args, uint32_t *unsup,
		    struct mt_err *err)
{
	const char *s = specs;
	int n = 0;

	*unsup = 0;
	for (;;) {
		char one[128];
		size_t len;
		int ret;

		while (*s == ' ')
			s++;
		if (!*s)
			return n;
		len = strcspn(s, " ");
		if (n == MEMTRACE_USDT_MAX_ARGS)
			return mt_errf(err, EINVAL, "USDT arguments '%s': more than %d", specs,
				       MEMTRACE_USDT_MAX_ARGS);
		if (len >= sizeof(one))
			return mt_errf(err, EINVAL, "USDT argument too long in '%s'", specs);
		memcpy(one, s, len);
		one[len] = '\0';
		ret = usdt_parse_arg(one, &args[n], err);
		if (ret == -ENOTSUP)
			*unsup |= 1U << n;
		else if (ret)
			return ret;
		n++;
		s += len;
	}
}

/* ---- the notes ---- */

struct note_probe {
	uint64_t pc, base, semaphore;
	const char *provider, *name, *args;
};

/* Takes a stapsdt note's descriptor apart; false if malformed. */
static bool note_probe(const char *desc, size_t len, bool is64, struct note_probe *p)
{
	size_t word = is64 ? 8 : 4, at = 3 * word;
	const char *s[3];

	if (len < at + 3)
		return false;
	if (is64) {
		memcpy(&p->pc, desc, 8);
		memcpy(&p->base, desc + 8, 8);
		memcpy(&p->semaphore, desc + 16, 8);
	} else {
		uint32_t v[3];

		memcpy(v, desc, sizeof(v));
		p->pc = v[0];
		p->base = v[1];
		p->semaphore = v[2];
	}
	for (int i = 0; i < 3; i++) {
		const char *nul = memchr(desc + at, '\0', len - at);

		if (!nul)
			return false;
		s[i] = desc + at;
		at = (size_t)(nul - desc) + 1;
		if (i < 2 && at >= len)
			return false;
	}
	p->provider = s[0];
	p->name = s[1];
	p->args = s[2];
	return true;
}

/* Where .stapsdt.base is in the object, or false if it has none. */
static bool stapsdt_base(Elf *elf, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base")) {
			*addr = sh.sh_addr;
			return true;
		}
	}
	return false;
}

int usdt_find(const char *path, const char *provider, const char *name,
	      struct usdt_site *sites, size_t max, struct mt_err *err)
{
	char others[256] = "";
	size_t others_len = 0;
	bool have_notes = false, is64, have_base;
	uint64_t base_addr = 0;
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	int fd, ret = 0;
	size_t n = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return mt_errf(err, EINVAL, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_errf(err, errno, "%s: %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = mt_errf(err, ENOEXEC, "%s: not an ELF file", path);
		goto out;
	}
	is64 = gelf_getclass(elf) == ELFCLASS64;
	have_base = stapsdt_base(elf, &base_addr);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = NULL;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		while ((data = elf_getdata(scn, data))) {
			size_t off = 0, name_off, desc_off;
			GElf_Nhdr nh;

			while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
				const char *owner = (const char *)data->d_buf + name_off;
				struct note_probe p;
				struct usdt_site *st;

				if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof("stapsdt") ||
				    memcmp(owner, "stapsdt", sizeof("stapsdt")))
					continue;
				have_notes = true;
				if (!note_probe((const char *)data->d_buf + desc_off, nh.n_descsz,
						is64, &p)) {
					ret = mt_errf(err, EINVAL, "%s: a malformed stapsdt note", path);
					goto out;
				}
				if (strcmp(p.provider, provider) || strcmp(p.name, name)) {
					if (others_len < sizeof(others) - 1)
						others_len += (size_t)snprintf(others + others_len,
							sizeof(others) - others_len, "%s%s:%s",
							others_len ? ", " : "", p.provider, p.name);
					continue;
				}
				if (n == max) {
					ret = mt_errf(err, ENOSPC, "%s: %s:%s has more than %zu sites",
						      path, provider, name, max);
					goto out;
				}
				st = &sites[n];
				memset(st, 0, sizeof(*st));
				/* The object may have moved since the note was written (prelink). */
				if (have_base && p.base) {
					p.pc += base_addr - p.base;
					if (p.semaphore)
						p.semaphore += base_addr - p.base;
				}
				st->pc = p.pc;
				st->semaphore = p.semaphore;
				if (!elfsyms_vaddr_to_offset(elf, p.pc, &st->offset)) {
					ret = mt_errf(err, EINVAL, "%s: %s:%s at 0x%" PRIx64
						      " is in no loaded segment", path, provider,
						      name, p.pc);
					goto out;
				}
				if (p.semaphore &&
				    !elfsyms_vaddr_to_offset(elf, p.semaphore, &st->ref_ctr_offset)) {
					ret = mt_errf(err, EINVAL, "%s: the semaphore of %s:%s at 0x%"
						      PRIx64 " is not in the file: it cannot be set",
						      path, provider, name, p.semaphore);
					goto out;
				}
				snprintf(st->specs, sizeof(st->specs), "%s", p.args);
				ret = usdt_parse_args(p.args, st->args, &st->unsupported, err);
				if (ret < 0)
					goto out;
				st->nr_args = (uint32_t)ret;
				ret = 0;
				n++;
			}
		}
	}
	if (!have_notes)
		ret = mt_errf(err, ENODATA, "%s: no USDT probes (no .note.stapsdt)", path);
	else if (!n)
		ret = mt_errf(err, ENOENT, "%s: no USDT probe %s:%s (it has: %s%s)", path,
			      provider, name, others,
			      others_len >= sizeof(others) - 1 ? ", ..." : "");
	else
		ret = (int)n;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* ---- hits ---- */

/* How argument i of a hit is shown: the text's and --json's one rule. */
enum arg_shown { ARG_UNREAD, ARG_SIGNED, ARG_HEX, ARG_UNSIGNED };

static enum arg_shown arg_shown(const struct memtrace_ev_usdt *r,
				const struct memtrace_usdt_arg *args, uint32_t unsup, uint32_t i)
{
	int size = args ? args[i].size : 8;

	if ((unsup | r->arg_faults) & (1U << i))
		return ARG_UNREAD;
	if (size < 0)
		return ARG_SIGNED;
	return size == 8 ? ARG_HEX : ARG_UNSIGNED;
}

static uint32_t hit_args(const struct memtrace_ev_usdt *r)
{
	return r->nr_args < MEMTRACE_USDT_MAX_ARGS ? r->nr_args : MEMTRACE_USDT_MAX_ARGS;
}

void usdt_format_args(char *buf, size_t len, const struct memtrace_ev_usdt *r,
		      const struct memtrace_usdt_arg *args, uint32_t unsup)
{
	size_t at = 0;
	uint32_t nr = hit_args(r);

	buf[0] = '\0';
	for (uint32_t i = 0; i < nr && at < len; i++) {
		const char *sep = i ? " " : "";

		switch (arg_shown(r, args, unsup, i)) {
		case ARG_UNREAD:
			at += (size_t)snprintf(buf + at, len - at, "%sarg%u=?", sep, i + 1);
			break;
		case ARG_SIGNED:
			at += (size_t)snprintf(buf + at, len - at, "%sarg%u=%" PRId64, sep, i + 1,
					       (int64_t)r->args[i]);
			break;
		case ARG_HEX:
			at += (size_t)snprintf(buf + at, len - at, "%sarg%u=0x%" PRIx64, sep, i + 1,
					       (uint64_t)r->args[i]);
			break;
		case ARG_UNSIGNED:
			at += (size_t)snprintf(buf + at, len - at, "%sarg%u=%" PRIu64, sep, i + 1,
					       (uint64_t)r->args[i]);
			break;
		}
	}
}

json_t *usdt_args_json(const struct memtrace_ev_usdt *r, const struct memtrace_usdt_arg *args,
		       uint32_t unsup)
{
	json_t *a = json_array();
	uint32_t nr = hit_args(r);
	char hex[24];

	for (uint32_t i = 0; a && i < nr; i++) {
		json_t *v = NULL;

		switch (arg_shown(r, args, unsup, i)) {
		case ARG_UNREAD:
			v = json_null();
			break;
		case ARG_SIGNED:
			v = json_integer((json_int_t)(int64_t)r->args[i]);
			break;
		case ARG_HEX:
			snprintf(hex, sizeof(hex), "0x%" PRIx64, (uint64_t)r->args[i]);
			v = json_string(hex);
			break;
		case ARG_UNSIGNED:
			/* 1, 2 or 4 bytes: the module zero-extends them, they fit. */
			v = evjson_u64(r->args[i]);
			break;
		}
		if (json_array_append_new(a, v)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *usdt_hit_json(const struct memtrace_ev_usdt *r, const struct usdt_site *site,
		      const char *probe, uint64_t start_ns, const char *hms)
{
	json_t *rec = evjson_record("usdt", "hit", hms);

	if (rec && json_object_update_new(rec, json_pack(
		"{s:o, s:o, s:I, s:I, s:o, s:s, s:I, s:o}",
		"monotonic_ns", evjson_u64(r->ts_ns),
		"elapsed_ns", evjson_u64(r->ts_ns >= start_ns ? r->ts_ns - start_ns : 0),
		"pid", (json_int_t)r->pid, "tid", (json_int_t)r->tid,
		"comm", evjson_comm(r->comm), "probe", probe, "site", (json_int_t)r->probe,
		"args", usdt_args_json(r, site ? site->args : NULL,
				       site ? site->unsupported : 0)))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}
