// SPDX-License-Identifier: GPL-2.0
/*
 * --migration's accounting: calls paired by task, counts per reason and
 * per task, NUMA balancing's share; its rows, totals and command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "harness.h"
#include "migration.h"

static void call(struct migration *m, uint64_t t0, uint64_t t1, uint32_t pid, const char *comm,
		 uint32_t reason, uint64_t ok, uint64_t failed, uint64_t thp_ok)
{
	struct memtrace_ev_migrate r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_MIGRATE_BEGIN },
		.ts_ns = t0, .pid = pid, .reason = reason, .mode = 2,
	};

	strncpy(r.comm, comm, sizeof(r.comm) - 1);
	migration_account(m, &r.hdr);
	r.hdr.type = MEMTRACE_EVT_MIGRATE_END;
	r.ts_ns = t1;
	r.succeeded = ok;
	r.failed = failed;
	r.thp_succeeded = thp_ok;
	migration_account(m, &r.hdr);
}

static void test_accounting(void)
{
	struct migration *m = malloc(sizeof(*m));
	const struct migration_counts *c;
	struct memtrace_ev_migrate orphan = {
		.hdr = { .size = sizeof(orphan), .type = MEMTRACE_EVT_MIGRATE_END }, .pid = 9,
		.reason = 42, .succeeded = 1,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	migration_init(m);
	call(m, 1000000, 3000000, 60, "migrator", MEMTRACE_MR_SYSCALL, 2560, 0, 0);
	call(m, 4000000, 4500000, 61, "worker", MEMTRACE_MR_NUMA_MISPLACED, 1, 0, 0);
	call(m, 5000000, 5100000, 61, "worker", MEMTRACE_MR_NUMA_MISPLACED, 0, 1, 0);
	c = migration_interval(m);
	check(c->reason[MEMTRACE_MR_SYSCALL].calls == 1 &&
	      c->reason[MEMTRACE_MR_SYSCALL].succeeded == 2560 &&
	      c->reason[MEMTRACE_MR_SYSCALL].ns == 2000000 &&
	      c->reason[MEMTRACE_MR_NUMA_MISPLACED].calls == 2 &&
	      c->reason[MEMTRACE_MR_NUMA_MISPLACED].failed == 1 &&
	      c->reason[MEMTRACE_MR_NUMA_MISPLACED].max_ns == 500000,
	      "migration: calls, pages and time per reason");
	call(m, 6000000, 9000000, 62, "kcompactd0", MEMTRACE_MR_COMPACTION, 30, 2, 1);
	migration_account(m, &orphan.hdr);
	c = migration_interval(m);
	check(c->reason[MEMTRACE_MR_SYSCALL].calls == 0 &&
	      c->reason[MEMTRACE_MR_COMPACTION].thp_succeeded == 1 &&
	      c->reason[MIGRATION_REASON_OTHER].calls == 1 && m->unpaired == 1,
	      "migration: a new interval; an unknown reason and an unpaired end counted");
	check(m->nr_tasks == 4 && m->total.reason[MEMTRACE_MR_SYSCALL].succeeded == 2560,
	      "migration: per task and in the totals");

	out = open_memstream(&text, &len);
	migration_print_head(out);
	migration_print_rows(out, "12:00:01", c);
	migration_print_rows(out, "12:00:02", migration_interval(m));
	migration_print_totals(out, m, 10);
	fclose(out);
	check(same_as_golden(text, "migration.golden"), "migration: rows and totals");
	free(text);
	check(!strcmp(migration_reason_name(MEMTRACE_MR_NUMA_MISPLACED), "numa_misplaced") &&
	      !strcmp(migration_reason_name(77), "other"), "migration: reason names");
	free(m);
}

void migration_tests(void)
{
	struct mt_options o;
	struct mt_err err;

	test_accounting();
	check(cli_parse_words(&o, &err, 4, "--migration", "2", "3") == 0 && o.mode == MT_MODE_MIGRATION &&
	      o.interval_s == 2 && o.count == 3, "migration cli: --migration 2 3");
	check(cli_parse_words(&o, &err, 3, "--migration", "--oom") == -EINVAL &&
	      strstr(err.msg, "--oom and --migration are different modes"),
	      "migration cli: one mode (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--migration", "-c", "true") == -EINVAL &&
	      strstr(err.msg, "--migration reports memory pressure events"),
	      "migration cli: not with -c");
}
