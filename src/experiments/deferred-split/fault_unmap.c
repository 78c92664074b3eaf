// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first seed's workload: each thread of one process, `rounds` times,
 * mmap()s `region` bytes of anonymous memory, writes one byte per folio
 * (each write faults in a whole mTHP folio) and munmap()s it.  The threads
 * share the mm, so every munmap's TLB flush IPIs the other threads' CPUs.
 * With `unmap=dontneed` a thread maps once and empties its region with
 * madvise(MADV_DONTNEED) each round instead (the seed does not say which
 * its benchmark used); the last round's region is unmapped at the end.
 * Each write faults through do_user_addr_fault(): the per-VMA lock
 * first, mmap_lock when the VMA is being changed.  Consecutive mappings
 * merge into one VMA (mmap.c), so with threads a munmap() write-locks
 * the VMA that the other threads are faulting in.
 * The user-space loop between faults costs one instruction's worth and is
 * charged nothing.
 *
 * Where a worker starts in its round (round_phase): together, every worker
 * at the first fault of round 1; or random, each at a fault k drawn from
 * its task's generator, as workers whose rounds have drifted apart: the
 * first mapping then takes faults k..n-1 of the n, and one more mapping at
 * the end takes 0..k-1, so every worker still faults rounds x n folios.
 */
#include "mm/mm.h"
#include "experiments/deferred-split/fault_unmap.h"

void fault_unmap_thread(void *arg)
{
	const struct fault_unmap_params *p = arg;
	struct mm_struct *mm = p->mm;
	uint64_t addr = 0, n = p->region / p->step, k = 0, nr_maps, r, i, lo, hi;
	bool mapped = false;

	switch_mm_irqs_off(mm);
	/* A start spread: the threads do not all begin at the same moment. */
	if (p->start_spread_ps)
		sim_sleep_ps(sim_rng_next(&sim_current()->rng) % p->start_spread_ps);
	if (p->random_phase && n)
		k = sim_rng_next(&sim_current()->rng) % n;
	nr_maps = p->rounds + (k ? 1 : 0);
	for (r = 0; r < nr_maps; r++) {
		if (!mapped) {
			addr = vm_mmap_anon(mm, p->region, true);
			mapped = true;
		}
		lo = r == 0 ? k : 0;
		hi = k && r == nr_maps - 1 ? k : n;
		for (i = lo; i < hi; i++)
			do_user_addr_fault(mm, addr + i * p->step, true);
		if (p->dontneed) {
			madvise_dontneed(mm, addr, p->region);
		} else {
			vm_munmap(mm, addr, p->region);
			mapped = false;
		}
	}
	if (mapped)
		vm_munmap(mm, addr, p->region);
}
