// SPDX-License-Identifier: GPL-2.0
/*
 * --mmap, --brk and --shm: their command line, the lines printed for each
 * system call (mmapsnoop's and shmsnoop's columns), and the totals by
 * process and stack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "cli.h"
#include "growthagg.h"
#include "growthcall.h"
#include "harness.h"

static void test_cli(void)
{
	struct mt_options o;
	struct mt_err err;

	check(cli_parse_words(&o, &err, 2, "--mmap") == 0 && o.mode == MT_MODE_MMAP && !o.stacks &&
	      !o.pid, "growth cli: --mmap, system-wide");
	check(cli_parse_words(&o, &err, 5, "--mmap", "--stacks", "-p", "42") == 0 &&
	      o.mode == MT_MODE_MMAP && o.stacks && o.pid == 42, "growth cli: --mmap --stacks -p");
	check(cli_parse_words(&o, &err, 6, "--brk", "-T", "3", "1", "2") == 0 &&
	      o.mode == MT_MODE_BRK && o.top == 3 && o.interval_s == 1 && o.count == 2,
	      "growth cli: --brk with -T, interval and count");
	check(cli_parse_words(&o, &err, 3, "--shm", "--stacks") == 0 && o.stacks,
	      "growth cli: --shm --stacks");
	check(cli_parse_words(&o, &err, 4, "--shm", "--by-comm", "java") == 0 &&
	      o.mode == MT_MODE_SHM && !strcmp(o.by_comm, "java"), "growth cli: --shm --by-comm");
	check(cli_parse_words(&o, &err, 4, "--shm", "--", "true") == 0 && o.mode == MT_MODE_SHM &&
	      o.cmd_argv && !strcmp(o.cmd_argv[0], "true"), "growth cli: --shm -- CMD");
	check(cli_parse_words(&o, &err, 3, "--mmap", "--brk") == -EINVAL &&
	      strstr(err.msg, "different modes"), "growth cli: --mmap and --brk: one mode");
	check(cli_parse_words(&o, &err, 3, "--brk", "--stacks") == -EINVAL &&
	      strstr(err.msg, "--stacks"), "growth cli: --stacks only with --mmap (%s)", err.msg);
	check(cli_parse_words(&o, &err, 2, "--stacks") == -EINVAL, "growth cli: --stacks alone refused");
	check(cli_parse_words(&o, &err, 3, "--mmap", "--oom") == -EINVAL &&
	      strstr(err.msg, "different modes"), "growth cli: not with --oom");
	check(cli_parse_words(&o, &err, 3, "--shm", "-t") == -EINVAL && strstr(err.msg, "-t"),
	      "growth cli: not with -t (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--brk", "-z", "8") == -EINVAL &&
	      strstr(err.msg, "allocation option"), "growth cli: not with -z");
	/* Options an event mode would ignore are refused by name. */
	check(cli_parse_words(&o, &err, 5, "--mmap", "--unwind=cfi", "-p", "1") == -EINVAL &&
	      strstr(err.msg, "--unwind"), "growth cli: not with --unwind (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--brk", "-S", "je_") == -EINVAL &&
	      strstr(err.msg, "-S"), "growth cli: not with -S (%s)", err.msg);
	check(cli_parse_words(&o, &err, 3, "--mmap", "--frame-addresses") == -EINVAL,
	      "growth cli: not with --frame-addresses");
	check(cli_parse_words(&o, &err, 4, "--faults", "--sort", "count") == -EINVAL &&
	      strstr(err.msg, "--sort"), "growth cli: not with --sort (%s)", err.msg);
	check(cli_parse_words(&o, &err, 3, "--oom", "--unwind=fp") == -EINVAL &&
	      strstr(err.msg, "--unwind"), "pressure cli: not with --unwind (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--oom", "-z", "1") == -EINVAL && strstr(err.msg, "-z"),
	      "pressure cli: not with -z (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--vmscan", "-o", "10") == -EINVAL &&
	      strstr(err.msg, "-o"), "pressure cli: not with -o (%s)", err.msg);
	check(cli_parse_words(&o, &err, 3, "--reclaim", "--follow-forks") == -EINVAL,
	      "pressure cli: not with --follow-forks");
	check(cli_parse_words(&o, &err, 4, "--compaction", "--stack-depth", "4") == -EINVAL,
	      "pressure cli: not with --stack-depth");
	check(cli_parse_words(&o, &err, 6, "--mmap", "-p", "1", "-c", "true") == -EINVAL,
	      "growth cli: -p and -c refused together");
	check(cli_parse_words(&o, &err, 4, "--faults", "-p", "7") == 0 && o.mode == MT_MODE_FAULTS &&
	      o.pid == 7, "growth cli: --faults -p");
	check(cli_parse_words(&o, &err, 3, "--ffaults", "5") == 0 && o.mode == MT_MODE_FFAULTS &&
	      o.interval_s == 5, "growth cli: --ffaults with an interval");
	check(cli_parse_words(&o, &err, 3, "--faults", "--stacks") == -EINVAL &&
	      strstr(err.msg, "always report stacks"), "growth cli: --faults --stacks refused");
	check(cli_parse_words(&o, &err, 3, "--ffaults", "--faults") == -EINVAL &&
	      strstr(err.msg, "different modes"), "growth cli: --faults and --ffaults: one mode");
	check(cli_parse_words(&o, &err, 3, "--faults", "-a") == -EINVAL &&
	      strstr(err.msg, "page faults"), "growth cli: --faults not with -a (%s)", err.msg);
}

static struct memtrace_ev_syscall *rec(uint16_t type, int64_t ret, uint64_t a0, uint64_t a1,
				       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
				       const char *file, uint32_t nr, const uint64_t *frames)
{
	size_t size = sizeof(struct memtrace_ev_syscall) + nr * sizeof(uint64_t);
	struct memtrace_ev_syscall *r = calloc(1, size);

	r->hdr.size = (uint32_t)size;
	r->hdr.type = type;
	r->pid = 1234;
	r->tid = 1235;
	strcpy(r->comm, "memgrowth");
	r->ret = ret;
	r->args[0] = a0;
	r->args[1] = a1;
	r->args[2] = a2;
	r->args[3] = a3;
	r->args[4] = a4;
	r->args[5] = a5;
	if (file)
		strcpy(r->file, file);
	r->nr_frames = nr;
	if (nr)
		memcpy(r + 1, frames, nr * sizeof(uint64_t));
	return r;
}

static void expect_line(struct memtrace_ev_syscall *r, const char *want, const char *what)
{
	char line[512];

	check(growth_format_call(line, sizeof(line), r) && !strcmp(line, want),
	      "growth format: %s", what);
	if (strcmp(line, want))
		diag("got  '%s'\n# want '%s'", line, want);
	free(r);
}

static void test_flags(void)
{
	char p[4], m[5], buf[96];

	growth_prot_str(PROT_READ | PROT_WRITE, p);
	growth_map_str(MAP_PRIVATE | MAP_ANONYMOUS, m);
	check(!strcmp(p, "RW-") && !strcmp(m, "-P-A"), "growth format: RW- -P-A");
	growth_prot_str(PROT_READ | PROT_EXEC, p);
	growth_map_str(MAP_SHARED | MAP_FIXED, m);
	check(!strcmp(p, "R-E") && !strcmp(m, "S-F-"), "growth format: R-E S-F-");
	growth_prot_str(PROT_NONE, p);
	check(!strcmp(p, "---"), "growth format: PROT_NONE");
	growth_shmflg_str(IPC_CREAT | 0600, true, buf, sizeof(buf));
	check(!strcmp(buf, "IPC_CREAT|0600"), "growth format: shmget IPC_CREAT|0600 (%s)", buf);
	growth_shmflg_str(SHM_RDONLY, false, buf, sizeof(buf));
	check(!strcmp(buf, "SHM_RDONLY"), "growth format: shmat SHM_RDONLY (%s)", buf);
	growth_shmflg_str(0, false, buf, sizeof(buf));
	check(!strcmp(buf, ""), "growth format: shmat no flags");
}

static void test_lines(void)
{
	expect_line(rec(MEMTRACE_EVT_MMAP, 0x7f0000001000, 0, 65536, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0, NULL, 0, NULL),
		    "1234   memgrowth        RW-  -P-A         0       64 = 0x7f0000001000",
		    "anonymous mmap");
	expect_line(rec(MEMTRACE_EVT_MMAP, 0x7f0000002000, 0, 8192, PROT_READ, MAP_SHARED, 3,
			12288, "data.bin", 0, NULL),
		    "1234   memgrowth        R--  S---        12        8 data.bin = 0x7f0000002000",
		    "file mmap with offset");
	expect_line(rec(MEMTRACE_EVT_MMAP, -ENOMEM, 0, 1ULL << 40, PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0, NULL, 0, NULL),
		    "1234   memgrowth        R--  -P-A         0 1073741824 (failed: ENOMEM)",
		    "failed mmap");
	expect_line(rec(MEMTRACE_EVT_MUNMAP, 0, 0x7f0000001000, 65536, 0, 0, 0, 0, NULL, 0, NULL),
		    "1234   memgrowth        munmap            -       64 addr 0x7f0000001000",
		    "munmap");
	expect_line(rec(MEMTRACE_EVT_MREMAP, 0x7f0000010000, 0x7f0000001000, 65536, 131072, 1, 0,
			0, NULL, 0, NULL),
		    "1234   memgrowth        mremap           64      128 addr 0x7f0000001000 "
		    "flags 0x1 = 0x7f0000010000", "mremap");
	expect_line(rec(MEMTRACE_EVT_SHMGET, 0x58c000a, 0, 65536, IPC_CREAT | 0600, 0, 0, 0, NULL,
			0, NULL),
		    "1234   memgrowth        SHMGET          58c000a key: 0x0, size: 65536, "
		    "shmflg: 0x380 (IPC_CREAT|0600)", "shmget as shmsnoop");
	expect_line(rec(MEMTRACE_EVT_SHMAT, 0x7fde9c033000, 0x58c000a, 0, SHM_RDONLY, 0, 0, 0,
			NULL, 0, NULL),
		    "1234   memgrowth         SHMAT     7fde9c033000 shmid: 0x58c000a, shmaddr: 0x0, "
		    "shmflg: 0x1000 (SHM_RDONLY)", "shmat as shmsnoop");
	expect_line(rec(MEMTRACE_EVT_SHMDT, 0, 0x7fde9c033000, 0, 0, 0, 0, 0, NULL, 0, NULL),
		    "1234   memgrowth         SHMDT                0 shmaddr: 0x7fde9c033000",
		    "shmdt as shmsnoop");
	expect_line(rec(MEMTRACE_EVT_SHMCTL, -EINVAL, 0x58c000a, IPC_RMID, 0, 0, 0, 0, NULL, 0,
			NULL),
		    "1234   memgrowth        SHMCTL              -22 shmid: 0x58c000a, cmd: 0, buf: 0x0",
		    "failed shmctl");
}

static void test_agg(void)
{
	const uint64_t s1[] = { 0x401000, 0x402000, 0x403000 }, s2[] = { 0x401000, 0x404000 };
	struct growth_agg *a = growth_agg_new();
	const struct growth_entry *const *e;
	struct memtrace_ev_syscall *r;
	size_t n;
	bool ok = true;

	/* brk: 0x1000 -> 0x21000 grew 128 KiB; a query (brk(0)) grew nothing. */
	r = rec(MEMTRACE_EVT_BRK, 0x21000, 0x21000, 0x1000, 0, 0, 0, 0, NULL, 3, s1);
	check(growth_bytes(r) == 0x20000, "growth agg: brk growth is new minus old break");
	ok &= !growth_agg_add(a, r, growth_bytes(r));
	free(r);
	r = rec(MEMTRACE_EVT_BRK, 0x21000, 0, 0x21000, 0, 0, 0, 0, NULL, 3, s1);
	check(growth_bytes(r) == 0, "growth agg: brk(0) grows nothing");
	ok &= !growth_agg_add(a, r, growth_bytes(r));
	free(r);
	r = rec(MEMTRACE_EVT_BRK, 0x41000, 0x41000, 0x21000, 0, 0, 0, 0, NULL, 2, s2);
	ok &= !growth_agg_add(a, r, growth_bytes(r));
	free(r);
	/* Many stacks: the table grows and keeps every one apart. */
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t f[2] = { 0x500000 + i, 0x600000 };

		r = rec(MEMTRACE_EVT_MMAP, 0x7f0000000000, 0, 4096, 3, 0x22, 0, 0, NULL, 2, f);
		ok &= !growth_agg_add(a, r, growth_bytes(r));
		free(r);
	}
	e = growth_agg_sorted(a, &n);
	check(ok && e && n == 1002, "growth agg: 1002 distinct stacks (%zu)", n);
	check(e && e[0]->bytes == 0x20000 && e[0]->calls == 2 && e[0]->nr_frames == 3 &&
	      e[0]->frames[1] == 0x402000 && !strcmp(e[0]->comm, "memgrowth") && e[0]->pid == 1234,
	      "growth agg: first stack, 2 calls, 128 KiB");
	check(e && e[1]->bytes == 0x20000 && e[1]->calls == 1 && e[1]->nr_frames == 2,
	      "growth agg: second stack apart");
	check(e && e[2]->bytes == 4096 && e[1001]->bytes == 4096, "growth agg: mmap bytes");
	r = rec(MEMTRACE_EVT_MREMAP, 0x7f0000000000, 0x7f0000000000, 4096, 16384, 1, 0, 0, NULL,
		0, NULL);
	check(growth_bytes(r) == 12288, "growth agg: mremap growth");
	free(r);
	growth_agg_free(a);
}

static struct memtrace_ev_fault *fault(uint32_t flags, const char *file, uint32_t nr,
				       const uint64_t *frames)
{
	size_t size = sizeof(struct memtrace_ev_fault) + nr * sizeof(uint64_t);
	struct memtrace_ev_fault *r = calloc(1, size);

	r->hdr.size = (uint32_t)size;
	r->hdr.type = MEMTRACE_EVT_FAULT;
	r->pid = 77;
	strcpy(r->comm, "faulter");
	r->flags = flags;
	if (file)
		strcpy(r->file, file);
	r->nr_frames = nr;
	if (nr)
		memcpy(r + 1, frames, nr * sizeof(uint64_t));
	return r;
}

static void test_faults(void)
{
	const uint64_t s1[] = { 0x401000, 0x402000 }, s2[] = { 0x401100, 0x402000 };
	struct growth_agg *a = growth_agg_new();
	struct growth_files *f = growth_files_new();
	const struct growth_entry *const *e;
	const struct growth_file *const *fl;
	struct memtrace_ev_fault *r;
	uint64_t amin, amaj;
	bool ok = true;
	size_t n;

	for (int i = 0; i < 10; i++) {
		r = fault(i < 3 ? MEMTRACE_FAULT_MAJOR : 0, i < 4 ? "libc.so.6" : i < 9 ? "data" : "",
			  2, i < 7 ? s1 : s2);
		ok &= !growth_agg_add_fault(a, r) && !growth_files_add(f, r);
		free(r);
	}
	e = growth_agg_sorted(a, &n);
	check(ok && e && n == 2 && e[0]->calls == 7 && e[0]->major == 3 && e[0]->frames[0] == 0x401000 &&
	      e[1]->calls == 3 && e[1]->major == 0, "growth faults: by stack, major apart");
	fl = growth_files_sorted(f, &n, &amin, &amaj);
	check(fl && n == 2 && !strcmp(fl[0]->name, "data") && fl[0]->minor == 5 && fl[0]->major == 0 &&
	      !strcmp(fl[1]->name, "libc.so.6") && fl[1]->minor == 1 && fl[1]->major == 3 &&
	      amin == 1 && amaj == 0, "growth ffaults: by file, most first, anonymous apart");
	growth_agg_free(a);
	growth_files_free(f);
}

void growth_tests(void)
{
	test_faults();
	test_cli();
	test_flags();
	test_lines();
	test_agg();
}
