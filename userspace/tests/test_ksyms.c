// SPDX-License-Identifier: GPL-2.0
/* The kallsyms symbolizer against kallsyms-format fixture files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "ksyms.h"

static bool formats_as(struct ksyms *ks, uint64_t addr, const char *want)
{
	struct rm_frame f;
	char buf[256];

	ksyms_frame(ks, NULL, 0, addr, &f);
	rm_frame_text(&f, buf, sizeof(buf));
	if (strcmp(buf, want)) {
		diag("0x%llx: expected \"%s\", got \"%s\"", (unsigned long long)addr, want, buf);
		return false;
	}
	return true;
}

static bool copy_file(const char *from, const char *to, const char *mode)
{
	char *text = read_file(from, NULL);
	FILE *f = fopen(to, mode);

	if (!text || !f) {
		free(text);
		if (f)
			fclose(f);
		return false;
	}
	fputs(text, f);
	fclose(f);
	free(text);
	return true;
}

static void test_basic(void)
{
	struct ksyms *ks = ksyms_new(fixture_path("kallsyms-basic.txt"));
	struct mt_err err;
	bool ok;

	check(ks && ksyms_reload(ks, &err) == 0 && ksyms_count(ks) == 13 && !ksyms_restricted(ks),
	      "ksyms loads the 13 symbols of an unsorted kallsyms file, not the absolute one");
	check(formats_as(ks, 0xffffffff8123451aULL,
			 "alloc_and_copy_ftrace_hash.constprop.59+0x1a [kernel]") &&
	      formats_as(ks, 0xffffffff8110003fULL, "ftrace_set_hash+0x3f [kernel]"),
	      "ksyms resolves vmlinux addresses as function+0xoff [kernel]");
	check(formats_as(ks, 0xffffffff81500000ULL, "kmalloc_trace+0x100000 [kernel]") &&
	      formats_as(ks, 0xffffffff81500001ULL, "kfree+0x1 [kernel]"),
	      "ksyms names a return address by the call before it: at a function's start, "
	      "the function before (a call ending it), with the return address's offset");
	check(formats_as(ks, 0xffffffffc0a00123ULL, "memtrace_leaker_work+0x23 [memtrace_leaker]") &&
	      formats_as(ks, 0xffffffffc0b00010ULL, "other_fn+0x10 [other_mod]"),
	      "ksyms names module symbols with [module]");
	{
		struct rm_frame f, g;

		ksyms_frame(ks, NULL, 0, 0xffffffffc0a00123ULL, &f);
		ksyms_frame(ks, NULL, 0, 0x10ULL, &g);
		check(f.addr == 0xffffffffc0a00123ULL && f.function &&
		      !strcmp(f.function, "memtrace_leaker_work") && f.offset == 0x23 &&
		      f.module && !strcmp(f.module, "memtrace_leaker") && !f.file && !f.line &&
		      !f.inlined && !f.text && g.addr == 0x10 && !g.function && !g.module,
		      "ksyms fills a frame's function, offset and module (no file: kallsyms has "
		      "none); an unknown one has neither function nor module");
	}
	check(formats_as(ks, 0xffffffffc0a00090ULL, "0xffffffffc0a00090 [unknown]") &&
	      formats_as(ks, 0xffffffffc0a00080ULL, "memtrace_leaker_init+0x80 [memtrace_leaker]"),
	      "ksyms bounds a function by the next symbol, a data symbol too: "
	      "past it, [unknown], never a wrong name");
	check(formats_as(ks, 0xffffffffc0b01010ULL, "0xffffffffc0b01010 [unknown]"),
	      "ksyms names nothing past the last symbol");
	check(formats_as(ks, 0xffffffff81300004ULL, "strong_fn+0x4 [kernel]"),
	      "ksyms prefers a global symbol over a weak one at the same address");
	ok = formats_as(ks, 0xffffffff80000000ULL, "0xffffffff80000000 [unknown]") &&
	     formats_as(ks, 0x10ULL, "0x0000000000000010 [unknown]");
	check(ok, "ksyms reports an address before the first symbol as [unknown]");
	ksyms_free(ks);
}

static void test_restricted(void)
{
	struct ksyms *ks = ksyms_new(fixture_path("kallsyms-restricted.txt"));
	struct mt_err err;

	check(ks && ksyms_reload(ks, &err) == 0 && ksyms_restricted(ks) && ksyms_count(ks) == 0 &&
	      formats_as(ks, 0xffffffff81100000ULL, "0xffffffff81100000 [unknown]"),
	      "ksyms detects all-zero addresses (kptr_restrict) and leaves frames unknown");
	ksyms_free(ks);
}

static void test_late_module(void)
{
	/* (ksyms_refresh on a fixture path always reloads: see below.) */
	char path[] = "/tmp/memtrace-ksyms-XXXXXX";
	int fd = mkstemp(path);
	struct ksyms *ks;
	struct mt_err err;
	bool ok;

	if (fd < 0) {
		check(false, "ksyms: cannot create a temporary file");
		return;
	}
	close(fd);
	copy_file(fixture_path("kallsyms-basic.txt"), path, "w");
	ks = ksyms_new(path);
	ok = ksyms_reload(ks, &err) == 0 &&
	     formats_as(ks, 0xffffffffc0b00010ULL, "other_fn+0x10 [other_mod]");
	/* A module is loaded after the table was read: a reload finds it. */
	copy_file(fixture_path("kallsyms-late-module.txt"), path, "a");
	ok = ok && ksyms_reload(ks, &err) == 0 && ksyms_count(ks) == 15 &&
	     formats_as(ks, 0xffffffffc0c00010ULL, "late_fn+0x10 [late_mod]");
	check(ok, "ksyms reload resolves a module loaded after the first read");

	/* A table without vmlinux yet: a miss reloads once by itself. */
	copy_file(fixture_path("kallsyms-late-module.txt"), path, "w");
	ok = ksyms_reload(ks, &err) == 0 && ksyms_count(ks) == 2;
	copy_file(fixture_path("kallsyms-basic.txt"), path, "a");
	ok = ok && formats_as(ks, 0xffffffff81100001ULL, "ftrace_set_hash+0x1 [kernel]");
	check(ok, "ksyms reloads on a frame it cannot find");
	ksyms_free(ks);
	unlink(path);
}

static void test_errors_and_env(void)
{
	struct ksyms *ks = ksyms_new("/nonexistent/kallsyms");
	struct mt_err err;

	check(ksyms_reload(ks, &err) != 0 && strstr(err.msg, "/nonexistent/kallsyms"),
	      "ksyms reports a missing kallsyms file by path");
	ksyms_free(ks);

	setenv(KSYMS_PATH_ENV, fixture_path("kallsyms-basic.txt"), 1);
	ks = ksyms_new(NULL);
	check(ks && !strcmp(ksyms_path(ks), fixture_path("kallsyms-basic.txt")) &&
	      ksyms_reload(ks, &err) == 0 && ksyms_count(ks) == 13,
	      "ksyms takes its path from $MEMTRACE_KALLSYMS");
	ksyms_free(ks);
	unsetenv(KSYMS_PATH_ENV);
	ks = ksyms_new(NULL);
	check(!strcmp(ksyms_path(ks), "/proc/kallsyms"), "ksyms defaults to /proc/kallsyms");
	ksyms_free(ks);
}

/* The real file, where this host lets us read it: parsing at full size. */
static void test_proc_kallsyms(void)
{
	struct ksyms *ks = ksyms_new("/proc/kallsyms");
	struct mt_err err;
	struct ksym sym;

	if (ksyms_reload(ks, &err) || ksyms_restricted(ks) || !ksyms_count(ks)) {
		check(true, "ksyms reads /proc/kallsyms # SKIP not readable with addresses here");
	} else {
		bool ok = ksyms_count(ks) > 1000 && !ksyms_lookup(ks, UINT64_MAX, &sym);

		check(ok, "ksyms reads /proc/kallsyms (%zu symbols), names nothing past the last",
		      ksyms_count(ks));
		/* The first refresh reads /proc/modules; then nothing changed. */
		ksyms_refresh(ks, &err);
		ksyms_refresh(ks, &err);
		check(ksyms_loads(ks) == 2,
		      "ksyms refresh reloads only when /proc/modules changes (%u loads)",
		      ksyms_loads(ks));
	}
	ksyms_free(ks);
}

/*
 * A module's functions end with its memory (/proc/modules: base and size),
 * whatever symbol comes next (6.4+ modules put text and data apart).
 */
static void test_module_bounds(void)
{
	char path[] = "/tmp/memtrace-ksyms-XXXXXX", mods[64];
	int fd = mkstemp(path);
	struct ksyms *ks;
	struct mt_err err;
	FILE *f;
	bool ok;

	if (fd < 0) {
		check(false, "ksyms: cannot create a temporary file");
		return;
	}
	close(fd);
	f = fopen(path, "w");
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffffc0a00000 t mod_a_fn\t[mod_a]\n"
	      "ffffffffc0a80000 t mod_b_fn\t[mod_b]\n"
	      "ffffffffc0b00000 d mod_b_data\t[mod_b]\n", f);
	fclose(f);
	snprintf(mods, sizeof(mods), "%s.modules", path);
	f = fopen(mods, "w");
	fputs("mod_a 8192 0 - Live 0xffffffffc0a00000\n"
	      "mod_b 4096 0 - Live 0xffffffffc0a80000 (O)\n", f);
	fclose(f);
	ks = ksyms_new(path);
	ok = ksyms_reload(ks, &err) == 0 &&
	     formats_as(ks, 0xffffffffc0a00100ULL, "mod_a_fn+0x100 [mod_a]") &&
	     formats_as(ks, 0xffffffffc0a02010ULL, "0xffffffffc0a02010 [unknown]") &&
	     formats_as(ks, 0xffffffffc0a80ff0ULL, "mod_b_fn+0xff0 [mod_b]") &&
	     formats_as(ks, 0xffffffffc0a81010ULL, "0xffffffffc0a81010 [unknown]");
	check(ok, "ksyms ends a module's functions where its memory ends (/proc/modules)");
	ksyms_free(ks);
	unlink(mods);
	unlink(path);
}

void ksyms_tests(void)
{
	test_module_bounds();
	test_basic();
	test_restricted();
	test_late_module();
	test_errors_and_env();
	test_proc_kallsyms();
}
