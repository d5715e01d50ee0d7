// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace-read: reads /dev/memtrace and explains memory leaks and
 * growth, in the kernel or in one process, memleak(8)-style.  main() only
 * parses and dispatches through the mode table (modes.h).
 */
#include <stdio.h>

#include "cli.h"
#include "modes.h"
#include "device.h"

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
		return device_print_version(stdout);
	case MT_ACTION_RUN:
		break;
	}
	status = mode_run(&opts);
	cli_free(&opts);
	return status;
}
