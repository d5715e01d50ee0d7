// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_recover_rethook() (5.19): the x86 unwinder puts back a return
 * address a kretprobe (a rethook) replaced; see unwind_recover_kretprobe.c.
 */
#include <asm/unwind.h>

void *memtrace_probe(void);
void *memtrace_probe(void)
{
	return unwind_recover_rethook;
}
