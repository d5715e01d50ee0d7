// SPDX-License-Identifier: GPL-2.0
/* try_cmpxchg64() (6.0 for every architecture; not in 5.10). */
#include <linux/atomic.h>

bool memtrace_probe(u64 *p, u64 *old, u64 new);
bool memtrace_probe(u64 *p, u64 *old, u64 new)
{
	return try_cmpxchg64(p, old, new);
}
