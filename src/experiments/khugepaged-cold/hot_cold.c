// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seed 004's workload: three processes hot1, cold and hot2, each with one
 * THP-eligible anonymous region that it first touches page by page (small
 * pages).  hot1 and hot2 then access their regions continuously (random
 * 8-byte loads by default, or a sequential sweep of one load per cache
 * line); cold calls madvise(MADV_COLD) (or MADV_FREE) on its region and
 * stays alive.  hot2 measures `accesses` accesses; when it is done,
 * khugepaged is stopped, and every task unmaps its region and exits.
 *
 * Every access goes through the vCPU's TLB (src/mm/access.c).  The loop
 * charges its cycles every ACCESS_BATCH accesses, so that it syncs with
 * the engine only when its quantum runs out.  The loop's own instructions
 * take no execution time (an access that hits the L1 dTLB costs its issue
 * slot, 1/mem.loads_per_cycle cycles), but in the overlap model they hold
 * reorder-buffer entries: `loop_uops` micro-ops per access, which retire
 * only after the access's load, so mem.rob_entries / loop_uops accesses
 * are in flight at most (mmu_overlap_cycles()).  The tester's loop
 * is unpublished; docs/results.md ("The test loop's size") chooses it.
 */
#include "mm/access.h"
#include "mm/khugepaged.h"
#include "experiments/khugepaged-cold/hot_cold.h"

#define ACCESS_BATCH	64

/* wyrand: a fast 64-bit generator, seeded from the task's own stream. */
static inline uint64_t hot_cold_rand(uint64_t *s)
{
	__uint128_t t;

	*s += 0xa0761d6478bd642fULL;
	t = (__uint128_t)*s * (*s ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* A random 8-byte-aligned offset in the task's region. */
static inline uint64_t hot_cold_offset(const struct hot_cold_task *p, uint64_t *rng)
{
	uint64_t r = hot_cold_rand(rng);

	return (uint64_t)(((__uint128_t)r * p->size) >> 64) & ~7ULL;
}

/* A new random order of the region's pages (Fisher-Yates), for the next pass. */
static void hot_cold_shuffle(struct hot_cold_task *p, uint64_t *rng)
{
	uint32_t nr = (uint32_t)(p->size >> PAGE_SHIFT), i;

	for (i = 0; i < nr; i++)
		p->order[i] = i;
	for (i = nr - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(((__uint128_t)hot_cold_rand(rng) * (i + 1)) >> 64);
		uint32_t t = p->order[i];

		p->order[i] = p->order[j];
		p->order[j] = t;
	}
}

/*
 * @n accesses of the pattern, from the generator @rng (random, and the
 * order of each pass of pages-shuffled) or the cursor @seq (the offset of
 * the next access; for pages-shuffled, the place in the pass); returns the
 * cursor.  The addresses are drawn first and then accessed in one
 * user_access_batch(): the same accesses, in the same order, as drawing
 * each one when it is used.
 */
static uint64_t hot_cold_run(struct hot_cold_task *p, struct user_access *ua, uint64_t base,
			     unsigned int n, uint64_t *rng, uint64_t seq)
{
	uint64_t addrs[ACCESS_BATCH], step = PAGE_SIZE;
	unsigned int i;

	switch (p->pattern) {
	case HOT_COLD_RANDOM:
		for (i = 0; i < n; i++)
			addrs[i] = base + hot_cold_offset(p, rng);
		break;
	case HOT_COLD_PAGES_SHUFFLED:
		for (i = 0; i < n; i++) {
			if (!seq)
				hot_cold_shuffle(p, rng);
			addrs[i] = base + ((uint64_t)p->order[seq] << PAGE_SHIFT);
			if (++seq == p->size >> PAGE_SHIFT)
				seq = 0;
		}
		break;
	case HOT_COLD_SEQUENTIAL:
		step = 64;
		/* fall through */
	case HOT_COLD_PAGES:
		for (i = 0; i < n; i++) {
			addrs[i] = base + seq;
			seq += step;
			if (seq >= p->size)
				seq = 0;
		}
		break;
	}
	user_access_batch(ua, addrs, n, false);
	user_access_charge(ua);
	return seq;
}

/* This task has taken its first fault: let the next one created take its own. */
static void hot_cold_registered(struct hot_cold_shared *sh)
{
	struct sim_task *next;

	sh->registered++;
	next = sh->registered < HOT_COLD_NR_ROLES ? sh->waiter[sh->registered] : NULL;
	if (next)
		sim_wake(next, next->vcpu->now > sim_now() ? next->vcpu->now : sim_now());
}

void hot_cold_task(void *arg)
{
	struct hot_cold_task *p = arg;
	struct hot_cold_shared *sh = p->shared;
	struct mm_struct *mm = p->mm;
	struct vm_area_struct *vma;
	struct user_access ua;
	uint64_t base, off, seq = 0, rng;

	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, p->size, true);
	vma = find_vma(mm, base);
	user_access_init(&ua, vma);
	ua.uops = p->loop_uops;
	rng = sim_rng_next(&sim_current()->rng);

	/*
	 * The tester creates the tasks one after another, so they register
	 * with khugepaged (at their first fault) in that order.  All start at
	 * time 0 here, and the first fault's cost may differ between them (in
	 * the overlap model, a line another core brought into the shared L3 is
	 * cheaper), which must not reorder khugepaged's list: a task takes its
	 * first fault only once the one created before it has taken its own.
	 */
	if (sh->registered < (int)p->role) {
		sh->waiter[p->role] = sim_current();
		sim_sleep_block("hot_cold", sh, "the previous task's first fault");
	}

	/* Touch every page once: each first store faults a small page in. */
	for (off = 0; off < p->size; off += PAGE_SIZE) {
		user_access(&ua, base + off, true);
		if (!off)
			hot_cold_registered(sh);
		if (((off >> PAGE_SHIFT) & (ACCESS_BATCH - 1)) == ACCESS_BATCH - 1)
			user_access_charge(&ua);
	}
	user_access_charge(&ua);

	/*
	 * hot1 and hot2 access nothing until measure_at: what they would do
	 * before it changes nothing khugepaged reads (their PTEs stay young
	 * from the touch; nothing here clears them), so the model skips that
	 * time instead of simulating minutes of accesses.
	 */
	if (p->role != HOT_COLD_COLD && sim_now() < p->measure_at)
		sim_sleep_ps(p->measure_at - sim_now());

	switch (p->role) {
	case HOT_COLD_COLD:
		if (p->advice == HOT_COLD_MADV_COLD)
			madvise_cold(mm, base, p->size);
		else
			madvise_free(mm, base, p->size);
		break;
	case HOT_COLD_HOT1:
		while (!sh->hot2_done) {
			seq = hot_cold_run(p, &ua, base, ACCESS_BATCH, &rng, seq);
			p->done += ACCESS_BATCH;
		}
		break;
	case HOT_COLD_HOT2: {
		uint64_t left = p->accesses, walks0;
		double cycles0;

		sim_sync();
		p->t_start = sim_now();
		walks0 = ua.mmu.tlb->stats.walks;
		cycles0 = user_access_cycles(&ua);
		while (left) {
			unsigned int n = left < ACCESS_BATCH ? (unsigned int)left : ACCESS_BATCH;

			seq = hot_cold_run(p, &ua, base, n, &rng, seq);
			left -= n;
		}
		p->t_end = sim_now();
		p->walks = ua.mmu.tlb->stats.walks - walks0;
		p->cycles = user_access_cycles(&ua) - cycles0;
		p->done = p->accesses;
		sh->hot2_done = true;
		kthread_stop_khugepaged();
		break;
	}
	}

	/* Stay alive until the test ends, then exit: mmput() -> exit_mmap(). */
	while (!sh->hot2_done || !khugepaged_exited())
		sim_sleep_ps(SIM_MS);
	khugepaged_exit_raw(mm);
	vm_munmap(mm, base, p->size);
}
