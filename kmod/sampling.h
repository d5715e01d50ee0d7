/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling arithmetic, integer-only (hooks cannot use the FPU).
 *
 * Byte sampling follows the heap profilers of tcmalloc and jemalloc:
 * sample points fall on the stream of allocated bytes as a Poisson process
 * of mean 'mean' bytes, so an allocation of s bytes is sampled with
 * probability p(s) = 1 - exp(-s / mean), big ones almost always, and each
 * sampled allocation stands for 1 / p(s) allocations: an unbiased estimate.
 */
#ifndef MEMTRACE_SAMPLING_H
#define MEMTRACE_SAMPLING_H

#include <linux/types.h>

/* -ln(r / 2^32) in Q16, for r in [1, 2^32): an Exp(1) draw from a uniform r. */
u32 mt_neg_ln_q16(u32 r);
/* Bytes to the next sample point: an Exp(mean) draw from uniform r. */
u64 mt_bytes_to_next_sample(u32 mean, u32 r);
/* 1 / (1 - exp(-size / mean)) in Q16: what one sampled allocation stands for. */
u64 mt_byte_sample_weight_q16(u64 size, u32 mean);

#endif
