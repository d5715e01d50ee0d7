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

#include <linux/math64.h>
#include <linux/types.h>

/* -ln(r / 2^32) in Q16, for r in [1, 2^32): an Exp(1) draw from a uniform r. */
u32 mt_neg_ln_q16(u32 r);
/* Bytes to the next sample point: an Exp(mean) draw from uniform r. */
u64 mt_bytes_to_next_sample(u32 mean, u32 r);
/* 1 / (1 - exp(-size / mean)) in Q16: what one sampled allocation stands for. */
u64 mt_byte_sample_weight_q16(u64 size, u32 mean);
/*
 * An allocation whose sampling was decided on decided_size bytes but
 * which holds only size: sampled once more with probability
 * p(size) / p(decided_size), from uniform r, it is sampled in all with
 * p(size), as its weight at snapshot time says (thinning a Poisson
 * process).  True: keep it.
 */
bool mt_byte_sample_thin(u64 size, u64 decided_size, u32 mean, u32 r);

/*
 * 1-in-N sampling by address (-s N in kernel mode): an address is sampled
 * when 32 bits of a full-avalanche mix of it with the session's seed fall
 * below mt_addr_sample_threshold(N), 2^32 / N, with probability 1 / N.
 * The free of an address computes the same answer, so a free whose
 * address was never sampled is known without a lookup.  The seed is
 * drawn once per session: changed in the middle, it would strand
 * recorded entries.
 *
 * Why a mix, not a multiply-shift: slab objects lie in arithmetic
 * progressions (a slab's objects a stride apart), and the top bits of
 * their products with one multiplier form a Weyl sequence.  For a
 * multiplier whose step lies near a fraction with a small denominator,
 * a slab's objects fall on a few values, all sampled or none: a leak of
 * 640 kmalloc-1k objects read as 160 under -s 10.  Each round below
 * (xor-shift, multiply by an odd constant: the 64-bit finalizer of
 * MurmurHash3) spreads every input bit over the word.
 */
static inline u32 mt_addr_sample_threshold(u32 every)
{
	return every > 1 ? (u32)div_u64(1ULL << 32, every) : 0;
}

static __always_inline u32 mt_addr_sample_hash(unsigned long addr, u64 seed)
{
	u64 x = (u64)addr ^ seed;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (u32)x;
}

static __always_inline bool mt_addr_sampled(unsigned long addr, u64 seed, u32 threshold)
{
	return mt_addr_sample_hash(addr, seed) < threshold;
}

#endif
