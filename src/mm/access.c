// SPDX-License-Identifier: GPL-2.0-only
/*
 * User memory accesses through the per-CPU TLB model, and the wiring of
 * that model (src/hw/tlb.c) under the kernel's TLB flushes.
 *
 * What it models
 *   - The MMU on a data access: a lookup in the vCPU's TLB, tagged with
 *     the mm's PCID (mm->asid); on an STLB miss a page walk that reads the
 *     huge PMD or the PTE and sets its accessed bit (and dirty bit for a
 *     store), as the hardware does; a walk that finds no mapping (PTE none,
 *     or a PMD that collapse has cleared) raises a fault, which runs
 *     handle_mm_fault() under mmap_lock and retries the access.
 *   - The cost of an access: mem.access_cycles, plus tlb.stlb_hit_cycles
 *     for an L1 miss, plus the page walk divided by tlb.page_walkers for an
 *     STLB miss (independent random loads keep that many walks in flight;
 *     tlb_walk_stall_cycles()).  Costs are summed per access and charged
 *     to virtual time in bulk (user_access_charge()).
 *   - dtlb_load_misses: one per completed walk (stats.walks of the TLB).
 *   - arch_tlb_flush_hook: flush_tlb_func() (src/mm/tlb.c) on a CPU also
 *     flushes that CPU's TLB model: a full flush of the mm's PCID above
 *     tlb_single_page_flush_ceiling, else INVLPG per page.
 *
 * What it leaves out
 *   - The dirty bit of a store that hits the TLB on a clean entry (the
 *     hardware re-walks to set it): our workloads' stores fault their pages
 *     in, so their entries are dirty from the start.
 *   - The data caches: the data access itself costs mem.access_cycles.
 *   - Several VMAs per user_access (each state covers one VMA).
 *
 * Lock order: a fault takes mmap_lock (read) -> PTL -> lru_lock, as
 * handle_mm_fault() documents.  TLB lookups and walks take no lock: the
 * MMU does not, and the walk sees the page tables as they are.
 */
#include <string.h>

#include "mm/access.h"

/*
 * flush_tlb_func()'s hook: drop what this CPU's TLB caches of [start, end)
 * in @mm's address space.  Runs on @cpu (locally or in the IPI handler).
 */
static void mm_tlb_flush_hook(int cpu, struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct tlb *t = sim_engine_vcpu(sim_engine_current, cpu)->tlb;

	if (!t || !mm)
		return;
	if (end == TLB_FLUSH_ALL)
		tlb_flush_asid(t, mm->asid);
	else
		tlb_flush_range(t, mm->asid, start, end,
				sim_mm->prof->tlb_single_page_flush_ceiling);
}

/**
 * mm_tlb_init - give every vCPU of @e a TLB of the profile's geometry
 * @e: the engine, created with its profile
 *
 * Installs the flush hook so that the kernel's TLB flushes reach the model.
 * Context: before the engine runs.
 * Return: 0, or a negative errno (-EINVAL for a bad [tlb] geometry).
 */
int mm_tlb_init(struct sim_engine *e)
{
	const struct sim_profile *p = sim_engine_profile(e);
	struct tlb_geometry geo = {
		.l1_4k_entries = (uint32_t)p->tlb_l1_4k_entries,
		.l1_4k_ways = (uint32_t)p->tlb_l1_4k_ways,
		.l1_2m_entries = (uint32_t)p->tlb_l1_2m_entries,
		.l1_2m_ways = (uint32_t)p->tlb_l1_2m_ways,
		.stlb_entries = (uint32_t)p->tlb_stlb_entries,
		.stlb_ways = (uint32_t)p->tlb_stlb_ways,
		.stlb_hit_cycles = (uint32_t)p->tlb_stlb_hit_cycles,
		.walk_cycles = (uint32_t)p->tlb_walk_cycles,
		.walk_dims = (uint32_t)p->tlb_walk_dims,
		.page_walkers = (uint32_t)p->tlb_page_walkers,
	};
	int cpu, ret;

	for (cpu = 0; cpu < sim_engine_nr_cpus(e); cpu++) {
		struct sim_vcpu *v = sim_engine_vcpu(e, cpu);
		struct tlb *t = calloc(1, sizeof(*t));

		if (!t)
			return -12;
		ret = tlb_init(t, &geo);
		if (ret) {
			free(t);
			return ret;
		}
		v->tlb = t;
	}
	arch_tlb_flush_hook = mm_tlb_flush_hook;
	return 0;
}

/**
 * mm_tlb_destroy - free the TLBs of @e and remove the flush hook
 * @e: the engine
 *
 * Context: after the engine has run.
 */
void mm_tlb_destroy(struct sim_engine *e)
{
	int cpu;

	for (cpu = 0; cpu < sim_engine_nr_cpus(e); cpu++) {
		struct sim_vcpu *v = sim_engine_vcpu(e, cpu);

		if (v->tlb) {
			tlb_destroy(v->tlb);
			free(v->tlb);
			v->tlb = NULL;
		}
	}
	arch_tlb_flush_hook = NULL;
}

/**
 * user_access_init - prepare accesses of the current task to @vma
 * @ua: the state to fill
 * @vma: the VMA the task accesses
 *
 * Context: the task that will access, on its vCPU, after switch_mm.
 */
void user_access_init(struct user_access *ua, struct vm_area_struct *vma)
{
	struct tlb *t = sim_this_vcpu()->tlb;
	uint32_t w = t->geo.page_walkers;
	uint32_t base = (uint32_t)sim_mm->prof->mem_access_cycles;
	int huge;

	memset(ua, 0, sizeof(*ua));
	ua->tlb = t;
	ua->mm = vma->vm_mm;
	ua->vma = vma;
	ua->pmd_huge = vma->pmd_huge;
	ua->pmd_base = vma->vm_start & ~(PMD_SIZE - 1);
	ua->asid = vma->vm_mm->asid;
	for (huge = 0; huge < 2; huge++) {
		ua->unit[TLB_L1_HIT][huge] = base * w;
		ua->unit[TLB_STLB_HIT][huge] = (base + t->cost[TLB_STLB_HIT][huge]) * w;
		ua->unit[TLB_WALK][huge] = (base + t->cost[TLB_STLB_HIT][huge]) * w +
					   t->walk_cost[huge];
	}
	ua->den = (uint64_t)w * sim_mm->prof->clock_mhz;
	ua->walks_seen = t->stats.walks;
	ua->lookups_seen = tlb_nr_lookups(t);
}

/**
 * user_access_charge - charge the accesses made since the last charge
 * @ua: the access state
 *
 * Converts the summed cycles to virtual time (keeping the remainder, so
 * that nothing is lost to rounding), counts the walks as dtlb_load_misses
 * and the accesses as sim_tlb_accesses (the host-speed denominator).  May sync: interrupts (TLB-flush IPIs) are taken here.
 * Context: the accessing task.
 */
void user_access_charge(struct user_access *ua)
{
	uint64_t num = ua->units * 1000000ULL + ua->rem;
	uint64_t walks = ua->tlb->stats.walks;
	uint64_t lookups = tlb_nr_lookups(ua->tlb);

	ua->cycles_x_w += ua->units;
	ua->units = 0;
	ua->rem = num % ua->den;
	count_events(SIM_DTLB_LOAD_MISSES, walks - ua->walks_seen);
	ua->walks_seen = walks;
	count_events(SIM_TLB_ACCESSES, lookups - ua->lookups_seen);
	ua->lookups_seen = lookups;
	sim_cost_cpu_ps(num / ua->den);
}

/*
 * The walk found no translation: the MMU caches none, but tlb_access()
 * filled one.  Drop it again without counting a flush.
 */
static void tlb_unfill(struct tlb *t, uint16_t asid, uint64_t addr)
{
	struct tlb_stats saved = t->stats;

	tlb_flush_one(t, asid, addr);
	t->stats = saved;
}

/* A fault on @addr: handle_mm_fault() under mmap_lock, as the #PF handler does. */
static void user_access_fault(struct user_access *ua, uint64_t addr, bool write)
{
	struct mm_struct *mm = ua->mm;

	tlb_unfill(ua->tlb, ua->asid, addr);
	user_access_charge(ua);
	/* The per-VMA lock is write-locked by a collapse: fall back to mmap_lock. */
	down_read(&mm->mmap_lock);
	handle_mm_fault(ua->vma, addr, write);
	up_read(&mm->mmap_lock);
	/* The instruction runs again. */
	user_access(ua, addr, write);
}

/**
 * user_access_walk - the page walk of an access that missed the STLB
 * @ua: the access state
 * @addr: the address
 * @huge: the walk ends at a huge PMD
 * @write: a store
 *
 * Sets the accessed (and, for a store, dirty) bit of the PMD or PTE, or
 * faults when nothing is mapped.
 * Context: the accessing task; may sleep on mmap_lock when it faults.
 */
void user_access_walk(struct user_access *ua, uint64_t addr, bool huge, bool write)
{
	struct vm_area_struct *vma = ua->vma;
	uint64_t idx = (addr - ua->pmd_base) >> PMD_SHIFT;
	pte_t *pte;

	if (huge) {
		vma->pmd_flags[idx] |= PMD_YOUNG | (write ? PMD_DIRTY : 0);
		return;
	}
	if (vma->pmd_flags[idx] & PMD_CLEARED)
		goto fault;
	pte = &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT];
	if (pte_present(*pte)) {
		*pte |= PTE_YOUNG | (write ? PTE_DIRTY : 0);
		return;
	}
fault:
	user_access_fault(ua, addr, write);
}
