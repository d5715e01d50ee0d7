// SPDX-License-Identifier: GPL-2.0
/*
 * A library that allocates, for tests/e2e/45-user-dlopen.sh: loaded by
 * dlopenprog with dlopen() after memtrace-read attached, built without
 * frame pointers, so its frames are found only through its unwind table:
 *   dlalloc_leak(n, size): dlalloc_leak -> dl_level2 -> dl_level3 -> malloc,
 *   n times, every block kept.
 * Built twice: libdlalloc.so (.eh_frame) and libdlalloc-dbg.so, whose
 * only call-frame information (.debug_frame) and symbols are in a
 * separate debug file (objcopy --only-keep-debug, --add-gnu-debuglink).
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noclone, noipa))

/* Stores through a volatile: no allocation dropped, no call made a tail call. */
static void *volatile kept[64];
static unsigned int nkept;

static NOINLINE void dl_keep(void *p)
{
	kept[nkept++ % 64] = p;
}

static NOINLINE void dl_level3(size_t size)
{
	dl_keep(malloc(size));
}

static NOINLINE void dl_level2(size_t size)
{
	dl_level3(size);
	dl_keep(NULL);
}

int dlalloc_leak(int n, size_t size);
NOINLINE int dlalloc_leak(int n, size_t size)
{
	for (volatile int i = 0; i < n; i++)
		dl_level2(size);
	dl_keep(NULL);
	return n;
}
