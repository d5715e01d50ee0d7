// SPDX-License-Identifier: GPL-2.0
/*
 * dlopenprog LIB N SIZE: dlopen()s LIB once it runs (so after
 * memtrace-read attached to it) and leaks N blocks of SIZE bytes through
 * its dlalloc_leak() (tests/progs/dlalloc.c), from main -> run_dlopen.
 * Built without frame pointers, as Debian builds.  Prints "LEAKED N".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noclone, noipa))

static NOINLINE int run_dlopen(const char *lib, int n, size_t size)
{
	int (*leak)(int, size_t);
	void *h = dlopen(lib, RTLD_NOW);
	int done;

	if (!h) {
		fprintf(stderr, "dlopenprog: %s\n", dlerror());
		return 1;
	}
	*(void **)&leak = dlsym(h, "dlalloc_leak");
	if (!leak) {
		fprintf(stderr, "dlopenprog: %s\n", dlerror());
		return 1;
	}
	done = leak(n, size);
	printf("LEAKED %d\n", done);
	/* Kept loaded: its blocks' stacks are named while it is mapped. */
	return done == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: dlopenprog LIB N SIZE\n");
		return 2;
	}
	ret = run_dlopen(argv[1], atoi(argv[2]), (size_t)atol(argv[3]));
	fflush(stdout);
	return ret;
}
