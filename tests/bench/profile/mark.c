// SPDX-License-Identifier: GPL-2.0
/*
 * mtprof-mark open|close: execute the marker instruction of the profile
 * plugin (tests/bench/profile/tbprof.c) that opens or closes a counting
 * window.  The marker is a long nop: on a CPU without the plugin this
 * program does nothing.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "open"))
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x4d540001");
	else if (argc == 2 && !strcmp(argv[1], "close"))
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x4d540002");
	else {
		fprintf(stderr, "usage: mtprof-mark open|close\n");
		return 2;
	}
	return 0;
}
