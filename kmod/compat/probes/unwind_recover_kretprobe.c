// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_recover_kretprobe() (5.13 to 5.18): the x86 unwinder puts back a
 * return address a kretprobe replaced.  With it or unwind_recover_rethook()
 * (5.19) the kernel does; without both, memtrace does (compat.c).
 */
#include <asm/unwind.h>

void *memtrace_probe(void);
void *memtrace_probe(void)
{
	return unwind_recover_kretprobe;
}
