/* SPDX-License-Identifier: GPL-2.0 */
/* usdtprog's probe with a semaphore (usdtgate.c). */
#ifndef USDTGATE_H
#define USDTGATE_H

extern unsigned long usdtgate_hits;
/* Hits memtrace_test:gated with (i, semaphore) if its semaphore is set. */
void hit_gated(int i);
unsigned int usdtgate_semaphore(void);

#endif
