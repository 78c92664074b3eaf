// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress-ng --vm N --vm-bytes B --vm-keep --timeout T (the second seed).
 * Read at ColinIanKing/stress-ng stress-vm.c (commit 00412ac6, 2023).
 *
 * What a worker does there: stress_vm() runs stress_vm_child() in a child
 * process (stress_oomable_child()), so each worker is a process with its
 * own mm.  vm_bytes /= num_instances: --vm-bytes is the total.  With
 * --vm-keep the buffer is mmap()ed once (MAP_PRIVATE|MAP_ANONYMOUS) and
 * kept; each iteration calls the method on the whole buffer.  The default
 * method "all" (stress_vm_all()) rotates through the method table,
 * starting at index 1, one method per iteration.  Each method adds to a
 * counter as it goes (per byte, per word or per chunk, depending on the
 * method) and the bogo ops reported are that counter >> VM_BOGO_SHIFT (12).
 *
 * What the model keeps: a representative subset of five methods, in the
 * table's order, each as its passes over the buffer: direction, whether
 * the pass stores, the loads and stores it makes per 4 KiB page, and the
 * counter increment per page, read from each method's code:
 *   checkerboard  W 1024, RW 768, R 512 (+64/page in the check pass)
 *   lfsr32        W 256 (+32/page), R 256
 *   move-inv      W 512, RW 1024 (+512), R 512 (+512), W rev 512,
 *                 RW rev 1024 (+512), R rev 512 (+512)
 *   modulo-x      23 x (W 178, W 3918 (+3918), R 178)
 *   walk-1d       RW 65536 (+4096): 8 set-and-test per byte
 * A pass over a page is one step: its first access goes through the
 * vCPU's TLB (user_access(), src/mm/access.h: a lookup, on a miss a walk
 * that sets the accessed bit, a fault if nothing is mapped); a store then
 * meets the TLB entry's permission and dirty bits (vm_store()): a clean
 * entry makes the CPU set the PTE's dirty bit, a read-only or vanished
 * one faults.  The page's other accesses hit the same TLB entry and are
 * charged at 1/mem.loads_per_cycle cycles each (their issue slots: the
 * data are in cache).  A worker that moved to another vCPU (it slept on a
 * swap-in, or was pulled) continues with that vCPU's TLB.
 *
 * Left out: the other methods (27 in that version; the 2026 version,
 * 291fc434, has 38, rotated the same way), stress_mincore_touch_pages() before
 * each method, stress_madvise_random() on the buffer, the bit-error
 * checks (the data are not modelled), the parent process.
 */
#include "mm/access.h"
#include "mm/mm.h"
#include "workloads/stress_vm.h"

#define VM_BOGO_SHIFT	12

struct vm_pass {
	bool write;
	bool reverse;
	uint32_t accesses;		/* loads and stores per page */
	uint32_t bogo;			/* counter increment per page */
	uint32_t repeat;		/* consecutive times (modulo-x's stride loop) */
};

struct vm_method {
	const char *name;
	struct vm_pass passes[6];
	int nr_passes;
	uint32_t loops;			/* the method repeats its passes */
};

static const struct vm_method vm_methods[] = {
	{ "checkerboard", { { true, false, 1024, 0, 1 }, { true, false, 768, 0, 1 },
			    { false, false, 512, 64, 1 } }, 3, 1 },
	{ "lfsr32", { { true, false, 256, 32, 1 }, { false, false, 256, 0, 1 } }, 2, 1 },
	{ "move-inv", { { true, false, 512, 0, 1 }, { true, false, 1024, 512, 1 },
			{ false, false, 512, 512, 1 }, { true, true, 512, 0, 1 },
			{ true, true, 1024, 512, 1 }, { false, true, 512, 512, 1 } }, 6, 1 },
	{ "modulo-x", { { true, false, 178, 0, 1 }, { true, false, 3918, 3918, 1 },
			{ false, false, 178, 0, 1 } }, 3, 23 },
	{ "walk-1d", { { true, false, 65536, 4096, 1 } }, 1, 1 },
};

#define NR_VM_METHODS	(sizeof(vm_methods) / sizeof(vm_methods[0]))

uint64_t stress_vm_bogo_ops(const struct stress_vm_worker *w)
{
	return w->counter >> VM_BOGO_SHIFT;
}

/*
 * A store through the TLB entry that the access just used: the CPU sets
 * the PTE's dirty bit if the entry is clean (an assist that re-reads the
 * PTE); if the PTE is no longer present and writable (reclaim cleared it,
 * or swap-in mapped it read-only) the store faults.  Returns 0, or
 * -ENOMEM when the fault could not be resolved.
 */
static int vm_store(struct vm_area_struct *vma, uint64_t addr)
{
	pte_t *pte = vma_pte_lookup(vma, addr);
	int tries, ret = 0;

	for (tries = 0; tries < 8; tries++) {
		pte_t v = *pte;

		if (pte_present(v) && (v & PTE_WRITE)) {
			*pte = v | PTE_YOUNG | PTE_DIRTY;
			return 0;
		}
		down_read(&vma->vm_mm->mmap_lock);
		ret = handle_mm_fault(vma, addr, true);
		up_read(&vma->vm_mm->mmap_lock);
		if (ret)
			return ret;
	}
	return 0;
}

/* One pass; false when the timeout hit (the method's stress_continue_flag()). */
static bool vm_pass_run(struct stress_vm_worker *w, struct user_access *ua,
			const struct vm_pass *p)
{
	struct vm_area_struct *vma = ua->vma;
	uint64_t pages = w->bytes >> PAGE_SHIFT, i;
	sim_time_t per_page = sim_cycles_to_ps(p->accesses - 1) / sim_mm->prof->mem_loads_per_cycle;

	for (i = 0; i < pages; i++) {
		uint64_t pg = p->reverse ? pages - 1 - i : i;
		uint64_t addr = vma->vm_start + (pg << PAGE_SHIFT);

		if (sim_now() >= w->duration)
			return false;
		user_access(ua, addr, p->write);
		if (p->write && vm_store(vma, addr))
			w->oom++;
		sim_preemptible(true);		/* user mode: may be preempted and moved */
		sim_cost_cpu_ps(per_page);
		user_access_charge(ua);
		sim_preemptible(false);
		w->counter += p->bogo;
		if (ua->tlb != sim_this_vcpu()->tlb)
			user_access_init(ua, vma);	/* moved: this vCPU's TLB */
	}
	return true;
}

/**
 * stress_vm_worker - body of one stress-ng vm worker process
 * @arg: its struct stress_vm_worker
 */
void stress_vm_worker(void *arg)
{
	struct stress_vm_worker *w = arg;
	struct vm_area_struct *vma;
	struct user_access ua;
	uint64_t addr;
	unsigned int m = 0;
	bool go = true;

	switch_mm_irqs_off(w->mm);
	addr = vm_mmap_anon(w->mm, w->bytes, false);	/* THP off: order-0 folios */
	vma = find_vma(w->mm, addr);
	user_access_init(&ua, vma);
	while (go) {
		const struct vm_method *meth = &vm_methods[m];
		uint32_t l;
		int p;

		for (l = 0; l < meth->loops && go; l++)
			for (p = 0; p < meth->nr_passes && go; p++)
				go = vm_pass_run(w, &ua, &meth->passes[p]);
		m = (m + 1) % NR_VM_METHODS;
	}
	vm_munmap(w->mm, addr, w->bytes);	/* --vm-keep: unmapped at the end */
}
