// SPDX-License-Identifier: GPL-2.0
/*
 * --use's parsers: /proc/meminfo, /proc/vmstat (allocstall summed over
 * zones, counters a kernel lacks told apart from zero),
 * /proc/pressure/memory, memory.max, and the kernel log's page
 * allocation failure warnings; text as the kernels print it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "harness.h"
#include "use.h"

static void test_meminfo(void)
{
	static const char text[] =
		"MemTotal:        1002316 kB\n"
		"MemFree:          512000 kB\n"
		"MemAvailable:     700100 kB\n"
		"Buffers:            1024 kB\n"
		"Cached:           100000 kB\n"
		"SwapCached:            0 kB\n"
		"AnonPages:         20480 kB\n"
		"Shmem:              4096 kB\n"
		"Slab:              30000 kB\n"
		"SReclaimable:      10000 kB\n"
		"SUnreclaim:        20000 kB\n"
		"SwapTotal:         65536 kB\n"
		"SwapFree:          65000 kB\n";
	struct use_meminfo m;

	check(use_parse_meminfo(text, &m) == 0 && m.total == 1002316 && m.free == 512000 &&
	      m.available == 700100 && m.buffers == 1024 && m.cached == 100000 &&
	      m.anon == 20480 && m.shmem == 4096 && m.slab == 30000 && m.sreclaimable == 10000 &&
	      m.swap_total == 65536 && m.swap_free == 65000,
	      "use: /proc/meminfo's lines, SwapCached not taken for Cached");
	check(use_parse_meminfo("MemFree: 1 kB\n", &m) == -EPROTO,
	      "use: /proc/meminfo without MemTotal is refused");
}

static void test_vmstat(void)
{
	static const char text[] =
		"nr_free_pages 120000\n"
		"pswpin 3\n"
		"pswpout 7\n"
		"allocstall_dma 0\n"
		"allocstall_dma32 2\n"
		"allocstall_normal 5\n"
		"allocstall_movable 1\n"
		"pgscan_kswapd 100\n"
		"pgscan_direct 40\n"
		"pgscan_direct_throttle 9\n"
		"pgsteal_kswapd 90\n"
		"pgsteal_direct 30\n"
		"pgscan_anon 11\n"
		"pgscan_file 129\n"
		"pgmajfault 12\n"
		"compact_stall 4\n"
		"compact_fail 3\n"
		"oom_kill 2\n";
	struct use_vmstat v;

	check(use_parse_vmstat(text, &v) == 0 && v.v[USE_ALLOCSTALL] == 8 &&
	      v.v[USE_PSWPIN] == 3 && v.v[USE_PSWPOUT] == 7 && v.v[USE_PGSCAN_DIRECT] == 40 &&
	      v.v[USE_PGSTEAL_KSWAPD] == 90 && v.v[USE_COMPACT_STALL] == 4 &&
	      v.v[USE_COMPACT_FAIL] == 3 && v.v[USE_OOM_KILL] == 2 && v.v[USE_PGMAJFAULT] == 12 &&
	      v.v[USE_PGSCAN_ANON] == 11 && v.v[USE_PGSCAN_FILE] == 129 &&
	      !v.have[USE_PGSTEAL_FILE],
	      "use: /proc/vmstat: allocstall summed over zones, pgscan_direct not "
	      "pgscan_direct_throttle");
	/* A kernel without CONFIG_VM_EVENT_COUNTERS has none of the event counters. */
	check(use_parse_vmstat("nr_free_pages 1\noom_kill 0\n", &v) == 0 && v.have[USE_OOM_KILL] &&
	      !v.have[USE_ALLOCSTALL] && !v.have[USE_PSWPIN],
	      "use: /proc/vmstat: counters it lacks are told apart from zero");
	check(use_parse_vmstat("nr_free_pages 1\n", &v) == -EPROTO,
	      "use: /proc/vmstat with none of the counters is refused");
	check(!strcmp(use_counter_name(USE_ALLOCSTALL), "allocstall") &&
	      !strcmp(use_counter_name(USE_OOM_KILL), "oom_kill"), "use: the counters' names");
}

static void test_psi(void)
{
	struct use_psi p;

	check(use_parse_psi("some avg10=1.25 avg60=0.50 avg300=0.10 total=123456\n"
			    "full avg10=0.75 avg60=0.25 avg300=0.05 total=65432\n", &p) == 0 &&
	      p.some.avg10 == 1.25 && p.some.avg300 == 0.10 && p.some.total_us == 123456 &&
	      p.full.avg60 == 0.25 && p.full.total_us == 65432,
	      "use: /proc/pressure/memory's some and full lines");
	check(use_parse_psi("some avg10=1.25 avg60=0.50 avg300=0.10 total=1\n", &p) == -EPROTO &&
	      use_parse_psi("", &p) == -EPROTO, "use: PSI text without both lines is refused");
}

static void test_kmsg(void)
{
	static const char fail[] = "4,1234,5678901,-;dd: page allocation failure: order:10, "
		"mode:0xcc0(GFP_KERNEL), nodemask=(null),cpuset=/,mems_allowed=0\n"
		" SUBSYSTEM=x\n";
	static const char other[] = "6,1235,5678902,-;Out of memory: Killed process 1 (init)\n";
	static const char cont[] = "4,1236,5678903,c;page allocation failure in a message\n";

	check(use_kmsg_alloc_failure(fail, sizeof(fail) - 1), "use: warn_alloc()'s record counts");
	check(!use_kmsg_alloc_failure(other, sizeof(other) - 1) &&
	      !use_kmsg_alloc_failure(cont, sizeof(cont) - 1) &&
	      !use_kmsg_alloc_failure("no separator", 12),
	      "use: other records do not, nor a message only mentioning it");
}

static void test_memcg_max(void)
{
	uint64_t max;

	check(use_parse_memcg_max("max\n", &max) == 0 && max == UINT64_MAX &&
	      use_parse_memcg_max("16777216\n", &max) == 0 && max == 16777216 &&
	      use_parse_memcg_max("16M\n", &max) == -EPROTO,
	      "use: memory.max: bytes, or max for no limit");
}

static void test_cli(void)
{
	struct mt_options o;
	struct mt_err e;

	check(cli_parse_words(&o, &e, 5, "--use", "--json=/tmp/u.json", "2", "3") == 0 &&
	      o.mode == MT_MODE_USE && o.interval_s == 2 && o.count == 3 && o.json,
	      "use: --use --json=FILE interval count");
	check(cli_parse_words(&o, &e, 3, "--use", "--oom") == -EINVAL &&
	      strstr(e.msg, "--use and --oom are different modes"),
	      "use: --use with another mode is refused");
	check(cli_parse_words(&o, &e, 3, "--use", "--folded") == -EINVAL &&
	      strstr(e.msg, "--use reports memory pressure"), "use: --use --folded is refused");
}

void use_tests(void)
{
	test_meminfo();
	test_vmstat();
	test_psi();
	test_kmsg();
	test_memcg_max();
	test_cli();
}
