// SPDX-License-Identifier: GPL-2.0
/*
 * ld.so's lookup order (linkmap.c) and the allocator entry points bound
 * through it (binding.c), on real processes of programs built here with
 * cc: each program says which object the loader bound its malloc and
 * reallocarray to (dladdr of dlsym(RTLD_DEFAULT, ...): the loader's own
 * word), and memtrace-read's answer, read from outside the process, must
 * be the same.  The programs: one whose malloc is in a library needed
 * both at depth 1 (libwide.so) and at depth 2 (libdeep.so, through
 * libmid.so): breadth-first, the first wins, though a depth-first walk
 * would take the second; the same with libpre.so in LD_PRELOAD; one with
 * its allocator linked into the executable; and a static one.
 */
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding.h"
#include "harness.h"
#include "linkmap.h"
#include "procmaps.h"

static char tmpdir[64];

/* Slots of malloc and reallocarray in elfsyms' table. */
static size_t slot_of(const char *name)
{
	for (size_t s = 0; s < ELFSYMS_MAX_PROBES; s++)
		if (!strcmp(elfsyms_slot_symbol(s), name))
			return s;
	return ELFSYMS_MAX_PROBES;
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

struct child {
	pid_t pid;
	int in;			/* its stdin: closing it ends it */
	char said[256];		/* "MALLOC-OBJ REALLOCARRAY-OBJ" */
};

/* The loader, to run a program as "ld.so ./prog" (its exe is then ld.so). */
#define LOADER "/lib64/ld-linux-x86-64.so.2"

static bool start(struct child *c, const char *prog, const char *preload, bool via_loader)
{
	int in[2], out[2];
	ssize_t n;
	size_t got = 0;

	if (pipe(in) || pipe(out))
		return false;
	c->pid = fork();
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		else
			unsetenv("LD_PRELOAD");
		if (via_loader)
			execl(LOADER, LOADER, prog, (char *)NULL);
		else
			execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	while (got < sizeof(c->said) - 1 &&
	       (n = read(out[0], c->said + got, sizeof(c->said) - 1 - got)) > 0) {
		got += (size_t)n;
		if (memchr(c->said, '\n', got))
			break;
	}
	close(out[0]);
	c->said[got] = '\0';
	c->said[strcspn(c->said, "\n")] = '\0';
	return c->pid > 0 && got;
}

static void stop(struct child *c)
{
	int status;

	close(c->in);
	waitpid(c->pid, &status, 0);
}

/*
 * What memtrace-read finds for pid: "MALLOC-OBJ REALLOCARRAY-OBJ" in the
 * child's terms, and where the order came from.  fallback: by DT_NEEDED.
 */
static void resolve(pid_t pid, bool fallback, char *out, size_t len, const char **how)
{
	struct mapped_object *maps = NULL;
	struct binding b;
	struct mt_err err;
	const char *paths[256];
	size_t order[256], nr = 0, n = 0, exe;
	char w[2][4096];

	snprintf(out, len, "(error)");
	if (procmaps_read(pid, &maps, &nr, &err) || nr > 256) {
		free(maps);
		return;
	}
	exe = linkmap_exe_index(pid, maps, nr);
	if (fallback) {
		char preload[4096];

		linkmap_preload(pid, preload, sizeof(preload));
		n = linkmap_order_needed(maps, nr, exe, preload, order);
		*how = "DT_NEEDED";
	} else {
		int rc = linkmap_order(pid, maps, nr, order, how, &err);

		n = rc > 0 ? (size_t)rc : 0;
	}
	for (size_t k = 0; k < n; k++)
		paths[k] = maps[order[k]].open_path;
	binding_resolve(paths, n, &b);
	for (int i = 0; i < 2; i++) {
		size_t s = slot_of(i ? "reallocarray" : "malloc");

		if (b.obj[s] == n)
			snprintf(w[i], sizeof(w[i]), "-");
		else if (order[b.obj[s]] == exe)
			snprintf(w[i], sizeof(w[i]), "(exe)");
		else
			snprintf(w[i], sizeof(w[i]), "%s", base(maps[order[b.obj[s]]].path));
	}
	snprintf(out, len, "%s %s", w[0], w[1]);
	free(maps);
}

static void check_program(const char *what, const char *prog, const char *preload,
			  const char *want_how, bool also_fallback, bool via_loader)
{
	struct child c;
	const char *how = "";
	char got[8200];

	if (!check(start(&c, prog, preload, via_loader),
		   "%s: runs and says where the loader bound malloc",
		   what))
		return;
	resolve(c.pid, false, got, sizeof(got), &how);
	check(!strcmp(got, c.said), "%s: malloc and reallocarray where the loader bound them "
	      "(loader: '%s', memtrace-read: '%s')", what, c.said, got);
	check(!strcmp(how, want_how), "%s: the order from %s (%s)", what, want_how, how);
	if (also_fallback) {
		resolve(c.pid, true, got, sizeof(got), &how);
		check(!strcmp(got, c.said), "%s: the same from the files' DT_NEEDED ('%s')",
		      what, got);
	}
	stop(&c);
}

/*
 * While a dlopen() links objects in, _r_debug.r_state is RT_ADD and the
 * list may be half-built: it is not used (the files' order is).  Shown
 * on this very process, its own r_state set as the loader sets it.
 */
static void test_inconsistent(void)
{
	struct mapped_object *maps = NULL;
	size_t order[1024], nr = 0;
	const char *how = "";
	struct mt_err err;
	struct r_debug *rd = NULL;
	uint64_t vaddr, load;
	int saved, rc;

	if (!check(!procmaps_read(getpid(), &maps, &nr, &err) && nr <= 1024,
		   "linkmap: this process's objects are read"))
		goto out;
	/*
	 * ld.so's own _r_debug, where its symbol says (a reference from
	 * this program would get a copy relocated into it, which ld.so
	 * never updates; dlsym does not give it).
	 */
	for (size_t i = 0; i < nr && !rd; i++)
		if (!strcmp(base(maps[i].path), "ld-linux-x86-64.so.2") &&
		    !elfsyms_lookup(maps[i].open_path, "_r_debug", &vaddr, &load, &err))
			rd = (struct r_debug *)(uintptr_t)(maps[i].start - load + vaddr);
	if (!check(rd && rd->r_version >= 1, "linkmap: ld.so's _r_debug is found in this process"))
		goto out;
	saved = rd->r_state;
	rc = linkmap_order(getpid(), maps, nr, order, &how, &err);
	check(rc == (int)nr && !strcmp(how, "the loader's link map"),
	      "linkmap: at RT_CONSISTENT the loader's list is used (%s)", how);
	rd->r_state = RT_ADD;
	rc = linkmap_order(getpid(), maps, nr, order, &how, &err);
	rd->r_state = saved;
	check(rc == (int)nr && !strcmp(how, "DT_NEEDED"),
	      "linkmap: at RT_ADD (a dlopen() under way) the list is not used (%s)", how);
out:
	free(maps);
}

void linkmap_tests(void)
{
	static char cc[12 * PATH_MAX], p[4][PATH_MAX];
	const char *alloc = fixture_path("linkmap-alloc.c");
	bool built;

	if (!run_quiet("command -v cc")) {
		check(true, "linkmap # SKIP no C compiler (cc) to build the programs");
		return;
	}
	if (!make_tmpdir(tmpdir, sizeof(tmpdir), "linkmap")) {
		check(false, "linkmap: cannot create a temporary directory");
		return;
	}
	/* Absolute: the commands run in the temporary directory. */
	if (!realpath(alloc, p[0]) || !realpath(fixture_path("linkmap-mid.c"), p[1]) ||
	    !realpath(fixture_path("linkmap-prog.c"), p[2])) {
		check(false, "linkmap: the fixtures are there (%s)", strerror(errno));
		remove_tree(tmpdir);
		return;
	}
	snprintf(cc, sizeof(cc),
		 "cd '%s' && "
		 "cc -shared -fPIC -O1 -Wl,-soname,libwide.so -o libwide.so '%s' && "
		 "cc -shared -fPIC -O1 -Wl,-soname,libdeep.so -o libdeep.so '%s' && "
		 "cc -shared -fPIC -O1 -Wl,-soname,libpre.so -o libpre.so '%s' && "
		 "cc -shared -fPIC -O1 -Wl,-soname,libmid.so -Wl,--no-as-needed -Wl,-rpath,'%s' "
		 "-o libmid.so '%s' -L. -ldeep && "
		 "cc -O1 -DNEEDS=linkmap_mid -Wl,--no-as-needed -Wl,-rpath,'%s' -o prog-bfs '%s' "
		 "-L. -lmid -lwide && "
		 "cc -O1 -o prog-own '%s' '%s'",
		 tmpdir, p[0], p[0], p[0], tmpdir, p[1], tmpdir, p[2], p[2], p[0]);
	built = run_quiet("%s", cc);
	if (!check(built, "linkmap: the libraries and programs build with cc")) {
		remove_tree(tmpdir);
		return;
	}
	snprintf(p[3], sizeof(p[3]), "%s/libpre.so", tmpdir);
	snprintf(cc, sizeof(cc), "%s/prog-bfs", tmpdir);
	check_program("libmid.so (needs libdeep.so) then libwide.so", cc, NULL,
		      "the loader's link map", true, false);
	/* The fallback too: LD_PRELOAD from the process's environment. */
	check_program("LD_PRELOAD=libpre.so", cc, p[3], "the loader's link map", true, false);
	/* /proc/PID/exe is ld.so: the program it loaded still comes first. */
	check_program("ld.so ./prog-bfs", cc, NULL, "the loader's link map", true, true);
	check_program("LD_PRELOAD=libpre.so ld.so ./prog-bfs", cc, p[3], "the loader's link map",
		      true, true);
	snprintf(cc, sizeof(cc), "%s/prog-own", tmpdir);
	check_program("allocator linked into the executable", cc, NULL,
		      "the loader's link map", true, false);
	check_program("ld.so ./prog-own (allocator in the program)", cc, NULL,
		      "the loader's link map", true, true);
	if (run_quiet("cd '%s' && cc -static -O1 -DSTATIC_PROG -o prog-static '%s'", tmpdir,
		      p[2])) {
		snprintf(cc, sizeof(cc), "%s/prog-static", tmpdir);
		check_program("static", cc, NULL, "DT_NEEDED", false, false);
	} else {
		check(true, "linkmap: static # SKIP no static libc (libc6-dev's libc.a)");
	}
	test_inconsistent();
	remove_tree(tmpdir);
}
