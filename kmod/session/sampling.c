// SPDX-License-Identifier: GPL-2.0
/*
 * Integer sampling arithmetic; see sampling.h.
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/log2.h>
#include <linux/math64.h>

#include "session/sampling.h"

#define Q16_ONE		(1ULL << 16)
#define Q32_ONE		(1ULL << 32)
#define LN2_Q16		45426ULL	/* ln 2 */
#define LN2_Q32		2977044472ULL
#define LOG2E_Q16	94548ULL	/* log2 e */

/* log2(r) in Q16 by the square-and-compare method, for r >= 1. */
static u32 mt_log2_q16(u32 r)
{
	u32 k = ilog2(r), frac = 0;
	u64 m = (u64)r << (31 - k);	/* mantissa in [2^31, 2^32) */
	int bit;

	for (bit = 15; bit >= 0; bit--) {
		m = (m * m) >> 31;
		if (m >= (1ULL << 32)) {
			m >>= 1;
			frac |= 1U << bit;
		}
	}
	return (k << 16) | frac;
}

u32 mt_neg_ln_q16(u32 r)
{
	if (!r)
		r = 1;
	return (u32)((((32ULL << 16) - mt_log2_q16(r)) * LN2_Q16) >> 16);
}

u64 mt_bytes_to_next_sample(u32 mean, u32 r)
{
	return max_t(u64, ((u64)mean * mt_neg_ln_q16(r)) >> 16, 1);
}

/* exp(-t) in Q32 for t in [0, ln 2] (Q32), by its Taylor series. */
static u64 mt_exp_neg_small_q32(u64 t)
{
	u64 term = Q32_ONE, sum = Q32_ONE;
	int i;

	for (i = 1; i <= 10; i++) {
		term = mul_u64_u64_shr(term, t, 32) / i;
		if (i & 1)
			sum -= term;
		else
			sum += term;
	}
	return sum;
}

/* 1 - exp(-size / mean) in Q32: the chance an allocation of size is sampled. */
static u64 mt_byte_sample_prob_q32(u64 size, u32 mean)
{
	u64 x_q16, y_q16, e_q32;
	u32 k;

	/* Tiny x: 1 - e^-x = x - x^2/2 + ..., x within 2^-17 of it. */
	if (size * 65536 < mean)
		return div64_u64(size << 32, mean);
	x_q16 = div64_u64(size << 16, mean);
	if (x_q16 >= 24 * Q16_ONE)	/* p = 1 - e^-24 */
		return Q32_ONE;
	/* e^-x = 2^-(x log2 e) = 2^-k * e^-(f ln 2), f in [0, 1) */
	y_q16 = (x_q16 * LOG2E_Q16) >> 16;
	k = y_q16 >> 16;
	e_q32 = mt_exp_neg_small_q32(((y_q16 & 0xffff) * LN2_Q32) >> 16) >> k;
	return Q32_ONE - e_q32;
}

u64 mt_byte_sample_weight_q16(u64 size, u32 mean)
{
	u64 p_q32;

	if (!mean || !size)
		return Q16_ONE;
	/* Tiny x: 1 / (1 - e^-x) = 1/x + 1/2 + O(x), beyond Q32 precision below. */
	if (size * 65536 < mean)
		return div64_u64((u64)mean << 16, size) + Q16_ONE / 2;
	p_q32 = mt_byte_sample_prob_q32(size, mean);
	if (!p_q32 || p_q32 >= Q32_ONE)
		return Q16_ONE;
	return div64_u64(1ULL << 48, p_q32);
}

bool mt_byte_sample_thin(u64 size, u64 decided_size, u32 mean, u32 r)
{
	if (!mean || size >= decided_size)
		return true;
	/* r / 2^32 < p(size) / p(decided_size) */
	return mul_u64_u32_shr(mt_byte_sample_prob_q32(decided_size, mean), r, 32) <
	       mt_byte_sample_prob_q32(size, mean);
}
