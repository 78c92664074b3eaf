// SPDX-License-Identifier: GPL-2.0-only
/*
 * Small engine utilities: cpumasks and the random streams.
 * Random numbers: xoshiro256** (Blackman and Vigna), each stream seeded by
 * splitmix64 from (seed, stream id), so that every vCPU and task has its
 * own reproducible stream whatever the others draw.
 */
#include "mmsim/sim.h"

void cpumask_clear(struct cpumask *m)
{
	unsigned int i;

	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		m->bits[i] = 0;
}

void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	unsigned int i;

	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

int cpumask_weight(const struct cpumask *m)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		n += __builtin_popcountll(m->bits[i]);
	return n;
}

bool cpumask_empty(const struct cpumask *m)
{
	unsigned int i;

	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		if (m->bits[i])
			return false;
	return true;
}

int cpumask_next(int cpu, const struct cpumask *m, int nr_cpus)
{
	int i = cpu + 1;

	while (i < nr_cpus) {
		uint64_t w = m->bits[i >> 6] >> (i & 63);

		if (w)
			return i + __builtin_ctzll(w) < nr_cpus ? i + __builtin_ctzll(w) : -1;
		i = (i | 63) + 1;
	}
	return -1;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *rng, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	int i;

	for (i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t sim_rng_below(struct sim_rng *rng, uint64_t n)
{
	/* Lemire's multiply-shift; the tiny bias is irrelevant here. */
	return (uint64_t)(((unsigned __int128)sim_rng_next(rng) * n) >> 64);
}
