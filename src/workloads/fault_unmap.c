// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first seed's workload: each thread of one process, `rounds` times,
 * mmap()s `region` bytes of anonymous memory, writes one byte per folio
 * (each write faults in a whole mTHP folio) and munmap()s it.  The threads
 * share the mm, so every munmap's TLB flush IPIs the other threads' CPUs.
 * With `unmap=dontneed` a thread maps once and empties its region with
 * madvise(MADV_DONTNEED) each round instead (the seed does not say which
 * its benchmark used); the last round's region is unmapped at the end.
 * The user-space loop between faults costs one instruction's worth and is
 * charged nothing.
 */
#include "mm/mm.h"
#include "workloads/fault_unmap.h"

void fault_unmap_thread(void *arg)
{
	const struct fault_unmap_params *p = arg;
	struct mm_struct *mm = p->mm;
	uint64_t addr = 0, r, off;
	struct vm_area_struct *vma = NULL;

	switch_mm_irqs_off(mm);
	/* A start spread: the threads do not all begin at the same moment. */
	if (p->start_spread_ps)
		sim_sleep_ps(sim_rng_next(&sim_current()->rng) % p->start_spread_ps);
	for (r = 0; r < p->rounds; r++) {
		if (!vma) {
			addr = vm_mmap_anon(mm, p->region, true);
			vma = find_vma(mm, addr);
		}
		for (off = 0; off < p->region; off += p->step)
			handle_mm_fault(vma, addr + off, true);
		if (p->dontneed) {
			madvise_dontneed(mm, addr, p->region);
		} else {
			vm_munmap(mm, addr, p->region);
			vma = NULL;
		}
	}
	if (vma)
		vm_munmap(mm, addr, p->region);
}
