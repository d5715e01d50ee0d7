// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator lookup against real ELF files: the host's libc (checked
 * against where the loader put malloc in this very process), a stripped
 * copy of it, a shared object built from fixtures/elfsyms-lib.c for the
 * symbol rules (versions, IFUNC, aliases, fallbacks), this test binary,
 * and a stripped static binary.  Nothing binary is checked in: what
 * needs building is built with cc into a temporary directory, and
 * skipped (saying why) if the tools are missing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/memtrace.h>

#include "binding.h"
#include "elfsyms.h"
#include "harness.h"
#include "procmaps.h"

static char tmpdir[64];

static void rm_tmpdir(void)
{
	remove_tree(tmpdir);
	tmpdir[0] = '\0';
}

static bool have(const char *tool)
{
	return run_quiet("command -v %s", tool);
}

static const char *tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
	return buf;
}

static const struct ufn_probe *find_probe(const struct ufn_probe *p, int n, uint32_t func)
{
	int i;

	for (i = 0; i < n; i++)
		if (p[i].func == func)
			return &p[i];
	return NULL;
}

struct addr_query {
	uintptr_t addr;
	uint64_t offset;
	bool found;
};

static int addr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct addr_query *q = data;
	uintptr_t vaddr = q->addr - info->dlpi_addr;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr - ph->p_vaddr < ph->p_filesz) {
			q->offset = ph->p_offset + (vaddr - ph->p_vaddr);
			q->found = true;
			return 1;
		}
	}
	return 0;
}

/* The file offset of a loaded function, as the loader mapped it. */
static bool loaded_offset(const void *addr, uint64_t *offset)
{
	struct addr_query q = { .addr = (uintptr_t)addr };

	dl_iterate_phdr(addr_cb, &q);
	*offset = q.offset;
	return addr && q.found;
}

/* The file holds, at offset, the bytes this process runs at addr. */
static bool same_bytes(const char *path, uint64_t offset, const void *addr)
{
	unsigned char buf[16];
	int fd = open(path, O_RDONLY);
	bool same;

	if (fd < 0)
		return false;
	same = pread(fd, buf, sizeof(buf), (off_t)offset) == (ssize_t)sizeof(buf) &&
	       !memcmp(buf, addr, sizeof(buf));
	close(fd);
	return same;
}

static void diag_probes(const char *what, const struct ufn_probe *p, int n)
{
	int i;

	diag("%s: %d allocator functions", what, n);
	for (i = 0; i < n; i++)
		diag("  %-14s at file offset 0x%llx as %s", elfsyms_ufn_name(p[i].func),
		     (unsigned long long)p[i].offset, p[i].symbol);
}

static void test_ufn_names(void)
{
	bool ok = !elfsyms_ufn_name(0) && !elfsyms_ufn_name(MEMTRACE_UFN_MAX + 1) &&
		  !strcmp(elfsyms_ufn_name(MEMTRACE_UFN_MALLOC), "malloc") &&
		  !strcmp(elfsyms_ufn_name(MEMTRACE_UFN_MREMAP), "mremap");
	uint32_t f, g;

	for (f = 1; f <= MEMTRACE_UFN_MAX; f++)
		for (g = 1; g < f; g++)
			ok = ok && elfsyms_ufn_name(f) &&
			     strcmp(elfsyms_ufn_name(f), elfsyms_ufn_name(g));
	check(ok, "elfsyms names each of the %d MEMTRACE_UFN_* once, and no other id",
	      MEMTRACE_UFN_MAX);
}

/* Every probe is where the loader put that symbol in this process. */
static bool probes_match_memory(const char *libc, void *h, const struct ufn_probe *p, int n)
{
	uint64_t off;
	int i;

	for (i = 0; i < n; i++) {
		void *addr = dlsym(h, p[i].symbol);

		if (!loaded_offset(addr, &off) || off != p[i].offset ||
		    !same_bytes(libc, p[i].offset, addr)) {
			diag("%s: offset 0x%llx, loaded at %p (offset 0x%llx)", p[i].symbol,
			     (unsigned long long)p[i].offset, addr, (unsigned long long)off);
			return false;
		}
	}
	return true;
}

/* Every allocator this libc exports has a probe at its offset (under its
 * own id or, for an alias, a lower one). */
static bool probes_complete(void *h, const struct ufn_probe *p, int n)
{
	uint64_t off;
	uint32_t f;
	int i;

	for (f = 1; f <= MEMTRACE_UFN_MAX; f++) {
		void *addr = dlsym(h, elfsyms_ufn_name(f));

		if (!addr)
			continue;
		for (i = 0; i < n; i++)
			if (loaded_offset(addr, &off) && off == p[i].offset && p[i].func <= f)
				break;
		if (i == n) {
			diag("%s is exported but has no probe", elfsyms_ufn_name(f));
			return false;
		}
	}
	return true;
}

static bool distinct_offsets(const struct ufn_probe *p, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (p[i].offset == p[j].offset)
				return false;
	return true;
}

static bool same_probes(const struct ufn_probe *p, int n, const struct ufn_probe *q, int m)
{
	int i;

	if (n != m)
		return false;
	for (i = 0; i < n; i++)
		if (p[i].func != q[i].func || p[i].offset != q[i].offset ||
		    strcmp(p[i].symbol, q[i].symbol))
			return false;
	return true;
}

static void test_stripped_copy(const char *libc, const struct ufn_probe *p, int n)
{
	struct ufn_probe q[ELFSYMS_MAX_PROBES];
	char copy[256];
	struct mt_err err;
	int m;

	tmp_path(copy, sizeof(copy), "libc-stripped.so");
	if (!have("objcopy")) {
		check(true, "elfsyms finds the same functions in libc after strip --strip-all "
		      "# SKIP no objcopy (binutils)");
		return;
	}
	if (!check(run_quiet("objcopy --strip-all '%s' '%s'", libc, copy), "objcopy strips a libc copy"))
		return;
	m = elfsyms_find_allocators(copy, q, ELFSYMS_MAX_PROBES, &err);
	check(same_probes(p, n, q, m),
	      "elfsyms finds the same functions in libc after objcopy --strip-all (.dynsym)");
}

static void test_host_libc(void)
{
	struct ufn_probe p[ELFSYMS_MAX_PROBES];
	struct mt_err err;
	char libc[4096];
	void *h;
	int n;

	if (self_libc(libc, sizeof(libc))) {
		check(false, "this test program runs with a shared libc");
		return;
	}
	n = elfsyms_find_allocators(libc, p, MT_ARRAY_SIZE(p), &err);
	if (!check(n > 0, "elfsyms reads the host libc %s", libc)) {
		diag("%s", err.msg);
		return;
	}
	diag_probes(libc, p, n);
	check(find_probe(p, n, MEMTRACE_UFN_MALLOC) && find_probe(p, n, MEMTRACE_UFN_FREE) &&
	      find_probe(p, n, MEMTRACE_UFN_CALLOC) && find_probe(p, n, MEMTRACE_UFN_REALLOC),
	      "elfsyms finds malloc, free, calloc and realloc in the host libc");
	check(distinct_offsets(p, n), "elfsyms returns each libc offset once (aliases collapse)");
	h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen(libc, RTLD_NOW | RTLD_NOLOAD);
	if (!check(h, "the test process has the host libc loaded"))
		return;
	check(probes_match_memory(libc, h, p, n),
	      "every libc probe offset is where the loader mapped that function here "
	      "(same offset via PT_LOAD, same bytes in the file and in memory)");
	check(probes_complete(h, p, n),
	      "every allocator libc exports has a probe at its offset");
	dlclose(h);
	test_stripped_copy(libc, p, n);
}

static void test_errors(void)
{
	static const unsigned char bad_elf[24] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	struct ufn_probe p[ELFSYMS_MAX_PROBES];
	struct mt_err err;
	char path[256];
	FILE *f;
	int rc;

	rc = elfsyms_find_allocators("/nonexistent/libc.so.6", p, ELFSYMS_MAX_PROBES, &err);
	check(rc == -ENOENT && strstr(err.msg, "/nonexistent/libc.so.6"),
	      "elfsyms reports a missing file as -ENOENT naming it (%d: %s)", rc, err.msg);
	rc = elfsyms_find_allocators("/etc/passwd", p, ELFSYMS_MAX_PROBES, &err);
	check(rc == -ENOEXEC && strstr(err.msg, "/etc/passwd: not an ELF file"),
	      "elfsyms rejects a text file: %s", err.msg);
	rc = elfsyms_defines("/etc", "malloc", &err);
	check(rc == -ENOEXEC && strstr(err.msg, "/etc"), "elfsyms rejects a directory: %s",
	      err.msg);
	f = fopen(tmp_path(path, sizeof(path), "truncated.so"), "w");
	if (f) {
		fwrite(bad_elf, 1, sizeof(bad_elf), f);
		fclose(f);
	}
	rc = elfsyms_find_allocators(path, p, ELFSYMS_MAX_PROBES, &err);
	check(rc == -ENOEXEC && strstr(err.msg, "not an ELF file"),
	      "elfsyms rejects a truncated ELF header: %s", err.msg);
}

/* This test binary: dynamically linked, with its own functions in .symtab. */
static void test_self(void)
{
	struct ufn_probe p[ELFSYMS_MAX_PROBES];
	struct mt_err err;

	check(elfsyms_defines("/proc/self/exe", "elfsyms_tests", &err) == 1 &&
	      elfsyms_defines("/proc/self/exe", "check", &err) == 1,
	      "elfsyms_defines finds the test binary's own functions");
	check(elfsyms_defines("/proc/self/exe", "fixture_dir", &err) == 0 &&
	      elfsyms_defines("/proc/self/exe", "tmp_path", &err) == 0 &&
	      elfsyms_defines("/proc/self/exe", "no_such_function", &err) == 0,
	      "elfsyms_defines ignores data, static functions and unknown names");
	check(elfsyms_defines("/proc/self/exe", "malloc", &err) == 0 &&
	      elfsyms_find_allocators("/proc/self/exe", p, ELFSYMS_MAX_PROBES, &err) == 0,
	      "elfsyms ignores the allocators a binary only imports (undefined)");
}

/* Offsets of the fixture library as this process loaded it. */
static bool fixture_offset(void *h, const char *name, const char *version, uint64_t *off)
{
	void *addr = version ? dlvsym(h, name, version) : dlsym(h, name);

	return loaded_offset(addr, off);
}

static bool probe_is(const struct ufn_probe *p, int n, uint32_t func, void *h, const char *name,
		     const char *version)
{
	const struct ufn_probe *q = find_probe(p, n, func);
	uint64_t off = 0;

	if (q && fixture_offset(h, name, version, &off) && q->offset == off &&
	    !strcmp(q->symbol, name))
		return true;
	diag("%s: expected %s%s%s at 0x%llx, got %s at 0x%llx", elfsyms_ufn_name(func), name,
	     version ? "@" : "", version ? version : "", (unsigned long long)off,
	     q ? q->symbol : "nothing", q ? (unsigned long long)q->offset : 0ULL);
	return false;
}

static void check_fixture_probes(const char *what, const struct ufn_probe *p, int n, void *h)
{
	uint64_t v1 = 0, v2 = 0;

	fixture_offset(h, "malloc", "ELFSYMS_1", &v1);
	fixture_offset(h, "malloc", "ELFSYMS_2", &v2);
	check(v1 != v2 && probe_is(p, n, MEMTRACE_UFN_MALLOC, h, "malloc", "ELFSYMS_2"),
	      "%s: of two versions of malloc, the default one", what);
	check(probe_is(p, n, MEMTRACE_UFN_POSIX_MEMALIGN, h, "posix_memalign", "ELFSYMS_1"),
	      "%s: a name only in a non-default version is still found", what);
	check(probe_is(p, n, MEMTRACE_UFN_FREE, h, "free", NULL) &&
	      probe_is(p, n, MEMTRACE_UFN_MUNMAP, h, "munmap", NULL),
	      "%s: global and weak functions", what);
	check(!find_probe(p, n, MEMTRACE_UFN_CALLOC), "%s: an IFUNC is skipped", what);
	check(probe_is(p, n, MEMTRACE_UFN_REALLOC, h, "__libc_realloc", NULL) &&
	      probe_is(p, n, MEMTRACE_UFN_MEMALIGN, h, "memalign", NULL),
	      "%s: glibc's internal name only when the public one is absent", what);
	check(probe_is(p, n, MEMTRACE_UFN_VALLOC, h, "valloc", NULL) &&
	      !find_probe(p, n, MEMTRACE_UFN_PVALLOC),
	      "%s: two allocators at one offset are returned once, as the lower id", what);
	check(!find_probe(p, n, MEMTRACE_UFN_MMAP) && !find_probe(p, n, MEMTRACE_UFN_MREMAP) &&
	      !find_probe(p, n, MEMTRACE_UFN_REALLOCARRAY) && n == 7,
	      "%s: data and local symbols are not functions to probe (%d found)", what, n);
}

static size_t slot_named(const char *name)
{
	for (size_t s = 0; s < ELFSYMS_MAX_PROBES; s++)
		if (!strcmp(elfsyms_slot_symbol(s), name))
			return s;
	return ELFSYMS_MAX_PROBES;
}

/*
 * What ld.so binds, with the fixture ahead of this process's libc: its
 * IFUNC calloc is bound there (and not to be probed), not libc's; its
 * posix_memalign, only in the non-default version ELFSYMS_1, is not
 * (ld.so skips it for an unversioned reference, and a reference to
 * posix_memalign@GLIBC_2.2.5 names another version): libc's.
 */
static void check_fixture_binding(const char *lib, const char *what)
{
	size_t calloc_slot = slot_named("calloc"), pm_slot = slot_named("posix_memalign");
	size_t malloc_slot = slot_named("malloc");
	Dl_info info;
	struct binding b;

	if (!check(dladdr((void *)free, &info) && info.dli_fname, "%s: this process's libc", what))
		return;
	binding_resolve((const char *const[]){ lib, info.dli_fname }, 2, &b);
	check(b.obj[calloc_slot] == 0 && b.def[calloc_slot].ifunc,
	      "%s: an IFUNC calloc binds where it is defined, marked not to probe (obj %zu)",
	      what, b.obj[calloc_slot]);
	check(b.obj[pm_slot] == 1 && !b.def[pm_slot].ifunc,
	      "%s: posix_memalign only in a hidden version binds to the next object, libc "
	      "(obj %zu)", what, b.obj[pm_slot]);
	check(b.obj[malloc_slot] == 0 && !b.def[malloc_slot].ifunc,
	      "%s: malloc@@ELFSYMS_2 binds in the fixture (obj %zu)", what, b.obj[malloc_slot]);
}

static void test_fixture_lib(void)
{
	struct ufn_probe p[ELFSYMS_MAX_PROBES], q[ELFSYMS_MAX_PROBES];
	char lib[256], stripped[256], obj[256];
	struct mt_err err;
	int n, m;
	void *h;

	char src[4096], map[4096];

	if (!have("cc")) {
		check(true, "elfsyms symbol rules # SKIP no C compiler (cc) to build the fixture");
		return;
	}
	tmp_path(lib, sizeof(lib), "elfsyms-lib.so");
	tmp_path(stripped, sizeof(stripped), "elfsyms-lib-stripped.so");
	snprintf(src, sizeof(src), "%s", fixture_path("elfsyms-lib.c"));
	snprintf(map, sizeof(map), "%s", fixture_path("elfsyms-lib.map"));
	/* -Ttext-segment: addresses differ from file offsets, as in ET_EXEC. */
	if (!check(run_quiet("cc -shared -fPIC -O1 -Wl,-Ttext-segment=0x200000 "
		       "-Wl,--version-script='%s' -o '%s' '%s'", map, lib, src),
		   "the fixture library builds with cc"))
		return;
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!check(h, "the fixture library loads")) {
		diag("%s", dlerror());
		return;
	}
	n = elfsyms_find_allocators(lib, p, ELFSYMS_MAX_PROBES, &err);
	diag_probes("elfsyms-lib.so", p, n);
	check_fixture_probes(".symtab", p, n, h);

	if (have("objcopy") && run_quiet("objcopy --strip-all '%s' '%s'", lib, stripped)) {
		m = elfsyms_find_allocators(stripped, q, ELFSYMS_MAX_PROBES, &err);
		check(same_probes(p, n, q, m),
		      "elfsyms finds the same in .dynsym alone (versions from .gnu.version)");
		check_fixture_probes(".dynsym", q, m, h);
	} else {
		check(true, "elfsyms .dynsym rules # SKIP no objcopy (binutils)");
	}
	dlclose(h);

	check_fixture_binding(lib, ".symtab");
	if (run_quiet("test -f '%s'", stripped))
		check_fixture_binding(stripped, ".dynsym");

	check(elfsyms_defines(lib, "calloc", &err) == 1 &&
	      elfsyms_defines(lib, "malloc", &err) == 1 &&
	      elfsyms_defines(lib, "mremap", &err) == 0 && elfsyms_defines(lib, "mmap", &err) == 0,
	      "elfsyms_defines counts IFUNCs and versioned names, not locals or data");
	m = elfsyms_find_allocators(lib, q, 2, &err);
	check(m == 2 && q[0].func == MEMTRACE_UFN_MALLOC && q[1].func == MEMTRACE_UFN_REALLOC,
	      "elfsyms fills at most max probes, in MEMTRACE_UFN_* order");
	/* -S: only the prefixed C functions, under their prefixed names. */
	m = elfsyms_find_prefixed(lib, "__libc_", q, ELFSYMS_MAX_PROBES, &err);
	check(m == 2 && q[0].func == MEMTRACE_UFN_REALLOC && !strcmp(q[0].symbol, "__libc_realloc") &&
	      q[1].func == MEMTRACE_UFN_MEMALIGN && !strcmp(q[1].symbol, "__libc_memalign"),
	      "elfsyms with a symbol prefix (-S __libc_) finds __libc_realloc and "
	      "__libc_memalign only");

	tmp_path(obj, sizeof(obj), "elfsyms-lib.o");
	if (check(run_quiet("cc -c -fPIC -o '%s' '%s'", obj, src), "the fixture object builds"))
		check(elfsyms_find_allocators(obj, q, ELFSYMS_MAX_PROBES, &err) == -ENOEXEC &&
		      strstr(err.msg, "not an executable or shared object"),
		      "elfsyms rejects a relocatable object: %s", err.msg);
}

/* A static binary stripped of everything has no symbol table at all. */
static void test_no_symbols(void)
{
	struct ufn_probe p[ELFSYMS_MAX_PROBES];
	char exe[256], stripped[256];
	struct mt_err err;
	int rc;

	tmp_path(exe, sizeof(exe), "elfsyms-static");
	tmp_path(stripped, sizeof(stripped), "elfsyms-static-stripped");
	if (!have("cc") || !have("objcopy") || !run_quiet("cc -print-file-name=libc.a | grep -q /")) {
		check(true, "elfsyms reports a binary without symbols # SKIP needs cc, objcopy "
		      "and a static libc (libc.a) to build one");
		return;
	}
	if (!check(run_quiet("cc -static -O1 -o '%s' '%s'", exe, fixture_path("elfsyms-static.c")) &&
		   run_quiet("objcopy --strip-all '%s' '%s'", exe, stripped),
		   "a static binary builds, and strips"))
		return;
	rc = elfsyms_find_allocators(exe, p, ELFSYMS_MAX_PROBES, &err);
	check(rc > 0 && find_probe(p, rc, MEMTRACE_UFN_MALLOC) &&
	      elfsyms_defines(exe, "malloc", &err) == 1,
	      "elfsyms finds malloc in a static (ET_EXEC) binary's .symtab");
	rc = elfsyms_find_allocators(stripped, p, ELFSYMS_MAX_PROBES, &err);
	check(rc == -ENOENT && strstr(err.msg, "stripped") && strstr(err.msg, stripped),
	      "elfsyms reports no symbol table as -ENOENT: %s", err.msg);
	rc = elfsyms_defines(stripped, "malloc", &err);
	check(rc == -ENOENT, "elfsyms_defines too (%d)", rc);
}

/* What binutils' nm says a symbol's value is in path (its text: offset = address). */
static bool nm_value(const char *path, const char *name, uint64_t *value)
{
	char cmd[512], line[512], sym[256], type;
	unsigned long long v;
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 && !strcmp(sym, name)) {
			*value = v;
			found = true;
		}
	pclose(f);
	return found;
}

/*
 * Allocators' own entry points (jemalloc's mallocx family, mimalloc's
 * mi_*) in the host's libraries (their text's file offsets are their
 * addresses), probed as the standard function whose arguments they take,
 * where binutils' nm has them.
 */
static void test_own_entry_points(const char *lib, const char *const *names,
				  const uint32_t *funcs, size_t n)
{
	struct ufn_probe slots[ELFSYMS_MAX_PROBES];
	bool defined[ELFSYMS_MAX_PROBES];
	struct mt_err err;
	char path[256];

	snprintf(path, sizeof(path), "/usr/lib/x86_64-linux-gnu/%s", lib);
	if (access(path, R_OK) || !have("nm")) {
		check(true, "elfsyms: %s's own entry points # SKIP no %s or no nm", lib, path);
		return;
	}
	if (!check(elfsyms_find_definitions(path, slots, defined, &err) > 0,
		   "elfsyms: %s's definitions", lib))
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t value = 0;
		size_t s;

		for (s = 0; s < ELFSYMS_MAX_PROBES; s++)
			if (!strcmp(elfsyms_slot_symbol(s), names[i]))
				break;
		if (!check(s < ELFSYMS_MAX_PROBES && defined[s] && slots[s].func == funcs[i] &&
			   nm_value(path, names[i], &value) && value == slots[s].offset,
			   "elfsyms: %s's %s is probed as %s, where nm has it", lib, names[i],
			   elfsyms_ufn_name(funcs[i])))
			diag("nm: 0x%llx, elfsyms: 0x%llx", (unsigned long long)value,
			     s < ELFSYMS_MAX_PROBES ? (unsigned long long)slots[s].offset : 0ULL);
	}
}

/*
 * The class that makes user mode refuse a process: a 32-bit program
 * (built here from assembly: the hosts have no 32-bit libc) is
 * ELFCLASS32, this 64-bit test binary ELFCLASS64, a non-ELF file none.
 */
static void test_class(void)
{
	char src[256], obj[256], exe[256];

	check(elfsyms_class("/proc/self/exe") == ELFCLASS64, "elfsyms_class: this program is 64-bit");
	check(elfsyms_class("/proc/self/maps") < 0, "elfsyms_class: not an ELF file: an error");
	if (!have("as") || !have("ld")) {
		check(true, "elfsyms_class 32-bit # SKIP no as and ld (binutils)");
		return;
	}
	tmp_path(src, sizeof(src), "x32.s");
	tmp_path(obj, sizeof(obj), "x32.o");
	tmp_path(exe, sizeof(exe), "x32");
	if (!check(run_quiet("printf '.globl _start\\n_start: hlt\\n' > '%s' && as --32 -o '%s' '%s' "
			     "&& ld -m elf_i386 -o '%s' '%s'", src, obj, src, exe, obj),
		   "a 32-bit program builds with as --32 and ld -m elf_i386"))
		return;
	check(elfsyms_class(exe) == ELFCLASS32, "elfsyms_class: a 32-bit (i386) program is ELFCLASS32");
}

void elfsyms_tests(void)
{
	if (!make_tmpdir(tmpdir, sizeof(tmpdir), "elfsyms")) {
		check(false, "elfsyms: cannot create a temporary directory");
		return;
	}
	test_ufn_names();
	test_host_libc();
	test_errors();
	test_self();
	test_fixture_lib();
	test_no_symbols();
	test_class();
	test_own_entry_points("libjemalloc.so.2",
			      (const char *const[]){ "mallocx", "rallocx", "dallocx", "sdallocx" },
			      (const uint32_t[]){ MEMTRACE_UFN_MALLOC, MEMTRACE_UFN_REALLOC,
						  MEMTRACE_UFN_FREE, MEMTRACE_UFN_FREE }, 4);
	test_own_entry_points("libmimalloc.so.2",
			      (const char *const[]){ "mi_zalloc", "mi_mallocn", "mi_reallocn",
						     "mi_free_aligned" },
			      (const uint32_t[]){ MEMTRACE_UFN_MALLOC, MEMTRACE_UFN_CALLOC,
						  MEMTRACE_UFN_REALLOCARRAY, MEMTRACE_UFN_FREE }, 4);
	rm_tmpdir();
}
