/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload executors' generator: wyrand (Wang Yi's 64-bit generator),
 * the one deferred-split's and khugepaged-cold's tasks use.  One state
 * per task, seeded from the run's seed and the task's index, so that a
 * task's random order and addresses do not depend on any other task.
 */
#ifndef MMSIM_WORKLOAD_WL_RAND_H
#define MMSIM_WORKLOAD_WL_RAND_H

#include <stdint.h>

/*
 * The next 64 random bits of @s: the high and low halves of one 128-bit
 * product, xored.  Written as two halves: with a named 128-bit product,
 * gcc 12 -O3 kept it on the stack in the live access loop, two stores an
 * access (src/workload/live_task.c).
 */
static inline uint64_t wl_rand(uint64_t *s)
{
	uint64_t x = *s += 0xa0761d6478bd642fULL, y = x ^ 0xe7037ed1a0b428dbULL;

	return (uint64_t)(((unsigned __int128)x * y) >> 64) ^ (x * y);
}

/* A uniform double in [0, 1). */
static inline double wl_rand_unit(uint64_t *s)
{
	return (double)(wl_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * @r (64 random bits) mapped onto [0, @n) by a multiply (Lemire, "Fast
 * random integer generation in an interval", 2019; the bias is below
 * n / 2^64): no division, for loops whose cost is the memory's.
 */
static inline uint64_t wl_below(uint64_t r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

/* The generator of task @idx of a run with @seed. */
static inline uint64_t wl_rand_seed(uint64_t seed, uint64_t idx)
{
	uint64_t s = seed ^ (0x9e3779b97f4a7c15ULL * (idx + 1));

	wl_rand(&s);
	return s;
}

#endif /* MMSIM_WORKLOAD_WL_RAND_H */
