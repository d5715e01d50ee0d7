// SPDX-License-Identifier: GPL-2.0
/*
 * dlopenprog LIB N SIZE [wait]: dlopen()s LIB once it runs (so after
 * memtrace-read attached to it) and leaks N blocks of SIZE bytes through
 * its dlalloc_leak() (tests/progs/dlalloc.c), from main -> run_dlopen.
 * Built without frame pointers, as Debian builds.  Prints "LEAKED N".
 * With "wait": reads a line from stdin before the dlopen(), prints
 * "LOADED", reads another before leaking, prints "LEAKED N" at once and
 * stays until a third line or the end of stdin (a -p reader's pace: the
 * reader reports on a running process, and stops it itself).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone, noipa))

/* With wait: the next line of stdin (false at its end). */
static bool await_line(bool wait)
{
	char line[64];

	return !wait || fgets(line, sizeof(line), stdin);
}

static NOINLINE int run_dlopen(const char *lib, int n, size_t size, bool wait)
{
	int (*leak)(int, size_t);
	void *h;
	int done;

	if (!await_line(wait))
		return 1;
	h = dlopen(lib, RTLD_NOW);

	if (!h) {
		fprintf(stderr, "dlopenprog: %s\n", dlerror());
		return 1;
	}
	*(void **)&leak = dlsym(h, "dlalloc_leak");
	if (!leak) {
		fprintf(stderr, "dlopenprog: %s\n", dlerror());
		return 1;
	}
	if (wait) {
		printf("LOADED\n");
		fflush(stdout);
	}
	if (!await_line(wait))
		return 1;
	done = leak(n, size);
	printf("LEAKED %d\n", done);
	fflush(stdout);
	/* Kept loaded: its blocks' stacks are named while it is mapped. */
	await_line(wait);
	return done == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc != 4 && (argc != 5 || strcmp(argv[4], "wait"))) {
		fprintf(stderr, "usage: dlopenprog LIB N SIZE [wait]\n");
		return 2;
	}
	ret = run_dlopen(argv[1], atoi(argv[2]), (size_t)atol(argv[3]), argc == 5);
	fflush(stdout);
	return ret;
}
