// SPDX-License-Identifier: GPL-2.0
/* usdtprog's probe with a semaphore: every probe of this file has one. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "usdtgate.h"

/* The semaphore <sys/sdt.h> names PROVIDER_NAME_semaphore, in .probes. */
volatile unsigned short memtrace_test_gated_semaphore __attribute__((section(".probes")));

unsigned long usdtgate_hits;

__attribute__((noinline)) void hit_gated(int i)
{
	/* The costly argument a semaphore exists for. */
	if (memtrace_test_gated_semaphore) {
		DTRACE_PROBE2(memtrace_test, gated, i,
			      (unsigned int)memtrace_test_gated_semaphore);
		usdtgate_hits++;
	}
	__asm__ volatile("" ::: "memory");
}

unsigned int usdtgate_semaphore(void)
{
	return memtrace_test_gated_semaphore;
}
