// SPDX-License-Identifier: GPL-2.0
/*
 * The growth hint (growthhint.c): which mappings are the process's
 * anonymous memory, and when an interval's growth without allocator calls
 * is said.
 */
#include <string.h>

#include "growthhint.h"
#include "harness.h"

static void test_anon(void)
{
	const char *maps =
		"55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/prog\n"
		"55d0c0001000-55d0c0002000 r-xp 00001000 08:01 1234 /usr/bin/prog\n"
		"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0 [heap]\n"
		"7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
		"7f0000800000-7f0000900000 rw-p 00000000 00:00 0 [anon:jemalloc]\n"
		"7f0000900000-7f0000a00000 rw-s 00000000 00:05 77 /dev/zero (deleted)\n"
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
		"7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0 [vdso]\n";

	/* 132 KiB of heap, 8 MiB unnamed, 1 MiB named: not files, the stack, the vDSO. */
	check(growth_hint_anon_kib(maps) == 132 + 8192 + 1024,
	      "growth hint: anonymous memory is [heap], [anon:...] and unnamed mappings (%llu KiB)",
	      (unsigned long long)growth_hint_anon_kib(maps));
}

static void test_judge(void)
{
	struct growth_hint h = { 0 };
	char line[512] = "";

	check(!growth_hint_judge(&h, 7, 10, 1000, 2000, line, sizeof(line)),
	      "growth hint: nothing at the first interval's end (nothing to compare)");
	check(!growth_hint_judge(&h, 7, 20, 9000, 2000, line, sizeof(line)),
	      "growth hint: nothing when allocator calls were seen");
	check(growth_hint_judge(&h, 7, 20, 9000 + 8192, 2000 + 8200, line, sizeof(line)) &&
	      strstr(line, "pid 7's anonymous memory grew by 8192 KiB (RSS +8200 KiB) with no "
		     "allocator call seen") && strstr(line, "maps itself") && !strchr(line, '\n'),
	      "growth hint: no call, 8 MiB more mapped: one line with the likely cause: %s", line);
	check(!growth_hint_judge(&h, 7, 20, 9000 + 8192 + 100, 10200, line, sizeof(line)),
	      "growth hint: nothing for growth below %d KiB", GROWTH_HINT_MIN_KIB);
	check(growth_hint_judge(&h, 7, 20, 9000 + 8292, 10200 + 4096, line, sizeof(line)) &&
	      strstr(line, "RSS grew by 4096 KiB"),
	      "growth hint: RSS alone grown by 4 MiB is said too: %s", line);
	check(!growth_hint_judge(&h, 7, 20, 100, 100, line, sizeof(line)),
	      "growth hint: nothing when memory shrank");
}

void growthhint_tests(void)
{
	test_anon();
	test_judge();
}
