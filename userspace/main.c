// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace-read: reads /dev/memtrace and explains memory leaks and
 * growth, in the kernel or in one process, memleak(8)-style.  main() only parses and dispatches by mode.
 */
#include <stdio.h>

#include "cli.h"
#include "growth.h"
#include "pressure.h"
#include "session.h"
#include "use.h"

#define PROG "memtrace-read"

int main(int argc, char **argv)
{
	struct mt_options opts;
	struct mt_err err;
	int status;

	cli_defaults(&opts);
	if (cli_parse(argc, argv, &opts, &err)) {
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help' for more information.\n",
			err.msg);
		return MT_EXIT_USAGE;
	}
	switch (opts.action) {
	case MT_ACTION_HELP:
		cli_usage(stdout, PROG);
		return 0;
	case MT_ACTION_VERSION:
		return session_print_version(stdout);
	case MT_ACTION_RUN:
		break;
	}
	if (opts.mode == MT_MODE_OOM || opts.mode == MT_MODE_RECLAIM ||
	    opts.mode == MT_MODE_VMSCAN || opts.mode == MT_MODE_COMPACTION ||
	    opts.mode == MT_MODE_MIGRATION)
		status = pressure_run(&opts);
	else if (opts.mode == MT_MODE_MMAP || opts.mode == MT_MODE_BRK || opts.mode == MT_MODE_SHM ||
		 opts.mode == MT_MODE_FAULTS || opts.mode == MT_MODE_FFAULTS ||
		 opts.mode == MT_MODE_USDT)
		status = growth_run(&opts);
	else if (opts.mode == MT_MODE_USE)
		status = use_run(&opts);
	else
		status = session_run(&opts);
	cli_free(&opts);
	return status;
}
