// SPDX-License-Identifier: GPL-2.0-only
/*
 * Anonymous mmap and munmap (mm/mmap.c, mm/vma.c), reduced to private
 * anonymous mappings, read at v6.12-v6.14 (the per-VMA lock is an
 * rw_semaphore, vma->vm_lock; later kernels use a refcount, vm_refcnt,
 * on the same line: either way every fault writes it).
 *
 * vm_mmap_anon(): get_unmapped_area() top-down from mmap_base, aligned
 * to 2 MiB (thp_get_unmapped_area()), so consecutive 16 MiB mappings lie
 * side by side; vma_merge_new_range() merges the new mapping with the
 * VMA that ends where it starts and the one that starts where it ends
 * (same flags; anon_vma compatible: one per mm here, as
 * find_mergeable_anon_vma() would reuse), write-locking each VMA it
 * expands or removes (vma_start_write()).
 * vm_munmap() follows do_vmi_align_munmap(): under mmap_lock for writing,
 * write-lock the VMA, split it around the range (__split_vma(): the
 * left part keeps the VMA, the right part gets a new one with the same
 * anon_vma), detach, downgrade to reading (which ends every VMA write
 * lock, vma_end_write_all()), zap and flush through an mmu_gather
 * (vms_clear_ptes(), page tables freed), then free.
 *
 * The model keeps one vm_area_struct per mmap() call, with its page
 * tables; the kernel VMA that merged mappings form is struct vma_merged
 * (mm.h).  Costs: mm.syscall_ns per call; free_pgtables() one
 * mm.list_op_ns per page-table page; a merge or split one list op per
 * mapping moved.
 * File mappings (issue 30): vm_mmap_file() links the VMA into the file's
 * i_mmap (vma_link_file()), munmap unlinks it (unlink_file_vma()) and
 * takes it out of a fork's anon_vma (unlink_anon_vmas()); dup_mmap() is
 * fork's copy (below).  mprotect is mprotect.c.
 * Left out: the maple tree (a list here), mremap, guard gaps, merging of
 * file mappings.
 *
 * Lock order: mmap_lock -> vma->vm_lock (written only under mmap_lock);
 * mmap_lock -> i_mmap_rwsem, anon_vma->rwsem; at fork the parent's
 * mmap_lock -> the child's -> PTLs (the child's, then the parent's).
 */
#include <string.h>

#include "mm/mm.h"
#include "mmsim/trace.h"

#define MMAP_BASE	(1ULL << 46)	/* top-down mmap area below it (x86-64: below the stack) */

struct mm_struct *mm_alloc(struct mem_cgroup *memcg)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));

	if (!mm)
		abort();
	init_rwsem_named(&mm->mmap_lock, "mmap_lock");
	INIT_LIST_HEAD(&mm->vmas);
	mm->memcg = memcg;
	mm->id = ++sim_mm->nr_mms;
	mm->asid = (uint16_t)mm->id;
	mm->mmap_base = MMAP_BASE;
	mm->line.last_writer = -1;
	list_add_tail(&mm->mmlist, &sim_mm->mmlist);
	return mm;
}

static struct vma_merged *vma_merged_new(void)
{
	struct vma_merged *vm = calloc(1, sizeof(*vm));

	if (!vm)
		abort();
	init_rwsem_named(&vm->vm_lock, "vma_lock");
	vm->vm_lock_seq = -1;
	return vm;
}

/* Drop @vma's membership of its kernel VMA; free that when it was the last. */
static void vma_unmerge(struct vm_area_struct *vma)
{
	struct vma_merged *vm = vma->merged;

	vma->merged = NULL;
	if (vm && --vm->nr_mappings == 0)
		free(vm);
}

static void vma_free(struct vm_area_struct *vma)
{
	/* a VMA freed without munmap (the mm's teardown): out of its file and anon_vma */
	if (vma->vm_file && !list_empty(&vma->shared_node))
		list_del_init(&vma->shared_node);
	unlink_anon_vmas(vma, false);
	mpol_free_vma(vma);
	vma_unmerge(vma);
	free(vma->ptes);
	free(vma->pmd_huge);
	free(vma->pmd_flags);
	free(vma->ptl);
	free(vma);
}

void mm_free(struct mm_struct *mm)
{
	list_del_init(&mm->mmlist);
	while (!list_empty(&mm->vmas)) {
		struct vm_area_struct *vma = list_first_entry(&mm->vmas, struct vm_area_struct, node);

		list_del_init(&vma->node);
		vma_free(vma);
	}
	free(mm);
}

/* ---- mmap_lock and the per-VMA lock ------------------------------------------------ */

void mmap_write_lock(struct mm_struct *mm)
{
	down_write(&mm->mmap_lock);
}

/* mmap_write_unlock(): every VMA write-locked under it is unlocked too. */
void mmap_write_unlock(struct mm_struct *mm)
{
	mm->mm_lock_seq++;		/* vma_end_write_all() */
	up_write(&mm->mmap_lock);
}

void mmap_write_downgrade(struct mm_struct *mm)
{
	mm->mm_lock_seq++;		/* vma_end_write_all() */
	downgrade_write(&mm->mmap_lock);
}

/**
 * vma_start_write - write-lock a VMA until mmap_lock is released
 * @vm: the kernel VMA
 * @mm: its mm
 *
 * Waits for the faults that hold it for reading; later faults see it
 * write-locked and retry under mmap_lock.
 * Context: mmap_lock held for writing.
 */
void vma_start_write(struct vma_merged *vm, struct mm_struct *mm)
{
	if (vma_is_write_locked(vm, mm))
		return;
	down_write(&vm->vm_lock);
	vm->vm_lock_seq = mm->mm_lock_seq;
	up_write(&vm->vm_lock);
}

/**
 * lock_vma_under_rcu - find the VMA at @addr and read-lock it alone
 * @mm: the mm
 * @addr: the faulting address
 *
 * vma_start_read() fails when the VMA is write-locked (an mmap, munmap
 * or merge is changing it) or its lock is contended by a writer.
 * Context: no mmap_lock.
 * Return: the mapping, its VMA read-locked; NULL: fall back to mmap_lock.
 */
struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, uint64_t addr)
{
	struct vm_area_struct *vma;
	struct vma_merged *vm;

	sim_sync();		/* the lookup and the lock are one step */
	vma = find_vma(mm, addr);
	if (!vma || !vma->merged)
		return NULL;
	vm = vma->merged;
	if (vma_is_write_locked(vm, mm) || !down_read_trylock(&vm->vm_lock))
		return NULL;
	if (vma_is_write_locked(vm, mm)) {
		up_read(&vm->vm_lock);
		return NULL;
	}
	return vma;
}

void vma_end_read(struct vm_area_struct *vma)
{
	up_read(&vma->merged->vm_lock);
}

/* ---- mmap ---------------------------------------------------------------------------- */

static int vma_cmp_start(const void *a, const void *b)
{
	const struct vm_area_struct *x = *(struct vm_area_struct *const *)a;
	const struct vm_area_struct *y = *(struct vm_area_struct *const *)b;

	return x->vm_start < y->vm_start ? 1 : x->vm_start > y->vm_start ? -1 : 0;
}

/*
 * get_unmapped_area() top-down (vm_unmapped_area() with
 * VM_UNMAPPED_AREA_TOPDOWN): the highest gap below mmap_base that holds
 * @len at a 2 MiB-aligned start.
 */
static uint64_t get_unmapped_area(struct mm_struct *mm, uint64_t len)
{
	struct vm_area_struct **v;
	struct list_head *pos;
	uint64_t top = mm->mmap_base, addr = 0;
	size_t n = 0, i;

	list_for_each(pos, &mm->vmas)
		n++;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		abort();
	n = 0;
	list_for_each(pos, &mm->vmas)
		v[n++] = list_entry(pos, struct vm_area_struct, node);
	qsort(v, n, sizeof(*v), vma_cmp_start);	/* highest first */
	for (i = 0; i <= n; i++) {
		uint64_t floor = i < n ? v[i]->vm_end : 0;

		if (top >= len && ((top - len) & ~(PMD_SIZE - 1)) >= floor) {
			addr = (top - len) & ~(PMD_SIZE - 1);
			break;
		}
		if (i < n)
			top = v[i]->vm_start;
	}
	free(v);
	sim_cost_cpu_ps(sim_mm->list_op_ps * (sim_time_t)(n + 1));
	return addr;
}

/* Move every mapping of @from into @to (a merge), one list op each. */
static void vma_merged_move(struct mm_struct *mm, struct vma_merged *from, struct vma_merged *to)
{
	struct list_head *pos;

	list_for_each(pos, &mm->vmas) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, node);

		if (vma->merged == from) {
			vma->merged = to;
			from->nr_mappings--;
			to->nr_mappings++;
			sim_cost_cpu_ps(sim_mm->list_op_ps);
		}
	}
}

/*
 * vma_merge_new_range(): merge the new mapping @vma with its neighbours,
 * or give it a VMA of its own.  Mapping @vma is not on mm->vmas yet.
 */
static void vma_merge_new_range(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vm_area_struct *prev = NULL, *next = NULL;
	struct list_head *pos;

	list_for_each(pos, &mm->vmas) {
		struct vm_area_struct *v = list_entry(pos, struct vm_area_struct, node);

		if (v->thp_eligible != vma->thp_eligible)
			continue;		/* different vm_flags: no merge */
		/*
		 * is_mergeable_vma(): same flags, file, policy; the model
		 * merges no file mapping, and no VMA fork gave an anon_vma.
		 */
		if (v->vm_flags != vma->vm_flags || v->vm_file || vma->vm_file ||
		    v->anon_vma || v->vm_policy)
			continue;
		if (v->vm_end == vma->vm_start)
			prev = v;
		if (v->vm_start == vma->vm_end)
			next = v;
	}
	if (prev && next && prev->merged != next->merged) {
		struct vma_merged *vm = prev->merged, *gone = next->merged;

		vma_start_write(vm, mm);	/* vma_expand() over the new range and next */
		vma_start_write(gone, mm);	/* next is removed */
		vm->vm_end = gone->vm_end;
		vm->anon_vma |= gone->anon_vma;
		vma_merged_move(mm, gone, vm);
		free(gone);
		vma->merged = vm;
	} else if (prev) {
		vma_start_write(prev->merged, mm);
		prev->merged->vm_end = vma->vm_end;
		vma->merged = prev->merged;
	} else if (next) {
		vma_start_write(next->merged, mm);
		next->merged->vm_start = vma->vm_start;
		vma->merged = next->merged;
	} else {
		vma->merged = vma_merged_new();
		vma->merged->vm_start = vma->vm_start;
		vma->merged->vm_end = vma->vm_end;
	}
	vma->merged->nr_mappings++;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
}

/*
 * The common part of vm_mmap_anon() and vm_mmap_file(): a new mapping of
 * @len bytes with its page tables, placed top-down and merged
 * (do_mmap() -> mmap_region()).
 */
static uint64_t mmap_region(struct mm_struct *mm, uint64_t len, bool thp_eligible,
			    struct address_space *file, uint64_t pgoff, unsigned long vm_flags)
{
	struct vm_area_struct *vma = calloc(1, sizeof(*vma));
	uint64_t pages = len >> PAGE_SHIFT;
	uint64_t pmds = (len + PMD_SIZE - 1) >> PMD_SHIFT;
	uint64_t i;

	if (!vma)
		abort();
	sim_cost_cpu_ps(sim_mm->syscall_ps);
	count_event(SIM_SIM_MMAP);
	vma->ptes = calloc(pages, sizeof(pte_t));
	vma->pmd_huge = calloc(pmds, sizeof(struct folio *));
	vma->pmd_flags = calloc(pmds, 1);
	vma->ptl = calloc(pmds, sizeof(struct spinlock));
	if (!vma->ptes || !vma->pmd_huge || !vma->pmd_flags || !vma->ptl)
		abort();
	for (i = 0; i < pmds; i++)
		spin_lock_init_named(&vma->ptl[i], "ptlock");
	vma->vm_mm = mm;
	vma->thp_eligible = thp_eligible;
	vma->vm_flags = vm_flags;
	vma->vm_file = file;
	vma->vm_ops = file ? file->vm_ops : NULL;
	INIT_LIST_HEAD(&vma->node);
	INIT_LIST_HEAD(&vma->shared_node);
	INIT_LIST_HEAD(&vma->anon_vma_node);
	mmap_write_lock(mm);
	vma->vm_start = get_unmapped_area(mm, len);
	vma->vm_end = vma->vm_start + len;
	vma->vm_pgoff = file ? pgoff : vma->vm_start >> PAGE_SHIFT;
	vma_merge_new_range(mm, vma);
	list_add_tail(&vma->node, &mm->vmas);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	if (file) {
		/* vma_link_file(): into the file's i_mmap */
		down_write(&file->i_mmap_rwsem);
		list_add_tail(&vma->shared_node, &file->i_mmap);
		sim_cost_cpu_ps(sim_mm->list_op_ps);
		up_write(&file->i_mmap_rwsem);
	}
	mmap_write_unlock(mm);
	return vma->vm_start;
}

/**
 * vm_mmap_anon - map @len bytes of private anonymous memory
 * @mm: the mm
 * @len: bytes, a multiple of the page size
 * @thp_eligible: huge pages (mTHP or PMD) may back it
 *
 * Context: takes mmap_lock for writing.
 * Return: the address (2 MiB aligned).
 */
uint64_t vm_mmap_anon(struct mm_struct *mm, uint64_t len, bool thp_eligible)
{
	return mmap_region(mm, len, thp_eligible, NULL, 0, VM_READ | VM_WRITE | VM_MAYWRITE);
}

/**
 * vm_mmap_shared_anon - mmap(MAP_SHARED | MAP_ANONYMOUS) of @len bytes
 * @mm: the mm
 * @len: bytes, a multiple of the page size
 *
 * shmem_zero_setup(): the mapping is a tmpfs file of its own ("dev/zero")
 * that it and its forked copies share; the file goes with its last
 * mapping (vm_munmap()).
 * Context: takes mmap_lock for writing.
 * Return: the address (2 MiB aligned).
 */
uint64_t vm_mmap_shared_anon(struct mm_struct *mm, uint64_t len)
{
	struct address_space *mapping = sim_file_create(len, SIM_FILE_TMPFS);

	mapping->anon_shared = true;
	return mmap_region(mm, len, false, mapping, 0, VM_READ | VM_WRITE | VM_MAYWRITE | VM_SHARED);
}

/**
 * vm_mmap_file - mmap() @len bytes of a file from page @pgoff
 * @mm: the mm
 * @mapping: the file (sim_file_create())
 * @pgoff: the file page at the mapping's start
 * @len: bytes, a multiple of the page size
 * @shared: MAP_SHARED (else MAP_PRIVATE)
 * @writable: PROT_READ | PROT_WRITE (else PROT_READ)
 *
 * The VMA gets the file system's vm_ops (generic_file_vm_ops or
 * shmem_vm_ops) and joins the file's i_mmap.  A file mapping never
 * merges with its neighbours in the model.
 * Context: takes mmap_lock for writing, then i_mmap_rwsem.
 * Return: the address (2 MiB aligned).
 */
uint64_t vm_mmap_file(struct mm_struct *mm, struct address_space *mapping, uint64_t pgoff,
		      uint64_t len, bool shared, bool writable)
{
	unsigned long flags = VM_READ | VM_MAYWRITE;

	if (writable)
		flags |= VM_WRITE;
	if (shared)
		flags |= VM_SHARED;
	return mmap_region(mm, len, false, mapping, pgoff, flags);
}

/*
 * __split_vma() twice, as do_vmi_align_munmap() needs: mapping @vma
 * leaves its kernel VMA; the mappings below it keep the VMA, those above
 * get a new one (or keep it, when nothing is below).
 */
static void vma_split_around(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vma_merged *vm = vma->merged, *right = NULL;
	bool below = vm->vm_start < vma->vm_start, above = vm->vm_end > vma->vm_end;
	struct list_head *pos;

	if (below && above) {
		right = vma_merged_new();
		right->vm_start = vma->vm_end;
		right->vm_end = vm->vm_end;
		right->anon_vma = vm->anon_vma;		/* anon_vma_clone() */
		list_for_each(pos, &mm->vmas) {
			struct vm_area_struct *v = list_entry(pos, struct vm_area_struct, node);

			if (v->merged == vm && v->vm_start >= vma->vm_end) {
				v->merged = right;
				vm->nr_mappings--;
				right->nr_mappings++;
				sim_cost_cpu_ps(sim_mm->list_op_ps);
			}
		}
		vm->vm_end = vma->vm_start;
	} else if (below) {
		vm->vm_end = vma->vm_start;
	} else if (above) {
		vm->vm_start = vma->vm_end;
	}
	vma_unmerge(vma);
}

/**
 * vm_munmap - unmap the mapping that starts at @addr
 * @mm: the mm
 * @addr: the mapping's start (whole mmap() calls only)
 * @len: its length
 *
 * Context: mmap_lock for writing, downgraded to reading for the zap.
 * Return: 0, or -EINVAL when no mapping starts at @addr with @len.
 */
int vm_munmap(struct mm_struct *mm, uint64_t addr, uint64_t len)
{
	struct vm_area_struct *vma;
	struct mmu_gather tlb;
	uint64_t pmds;

	sim_trace_begin("mm", "vm_munmap");
	sim_cost_cpu_ps(sim_mm->syscall_ps);
	count_event(SIM_SIM_MUNMAP);
	mmap_write_lock(mm);
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start != addr || vma->vm_end != addr + len) {
		mmap_write_unlock(mm);
		sim_trace_end();
		return -22;
	}
	/* vms_gather_munmap_vmas(): write-lock, split, detach */
	vma_start_write(vma->merged, mm);
	vma_split_around(mm, vma);
	list_del_init(&vma->node);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	mmap_write_downgrade(mm);
	tlb_gather_mmu(&tlb, mm);
	unmap_vmas(&tlb, vma);
	/* free_pgtables(): one page-table page per 2 MiB */
	pmds = (len + PMD_SIZE - 1) >> PMD_SHIFT;
	sim_cost_cpu_ps(sim_mm->list_op_ps * (sim_time_t)pmds);
	tlb.freed_tables = true;
	tlb_finish_mmu(&tlb);
	if (vma->vm_file) {
		/* free_pgtables() -> unlink_file_vma() */
		down_write(&vma->vm_file->i_mmap_rwsem);
		list_del_init(&vma->shared_node);
		sim_cost_cpu_ps(sim_mm->list_op_ps);
		up_write(&vma->vm_file->i_mmap_rwsem);
	}
	/* free_pgtables() -> unlink_anon_vmas() */
	unlink_anon_vmas(vma, true);
	up_read(&mm->mmap_lock);
	/* remove_vma() -> fput(): the last mapping of a shared anonymous region */
	if (vma->vm_file && vma->vm_file->anon_shared && list_empty(&vma->vm_file->i_mmap))
		sim_file_destroy(vma->vm_file);
	vma_free(vma);
	sim_trace_end();
	return 0;
}

/* ---- fork: dup_mmap() (mm/mmap.c since v6.15, kernel/fork.c before) ------------------ */

/*
 * A VMA whose page tables copy_page_range() cannot copy: one with
 * anonymous folios (it needs a copy) and a swap PTE (the swap count
 * would be 2) or a PMD-mapped THP.
 */
static bool vma_fork_unsupported(const struct vm_area_struct *vma)
{
	uint64_t i, n = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;

	if (!vma->anon_vma && !(vma->merged && vma->merged->anon_vma))
		return false;
	if (vma->nr_pmd_huge)
		return true;
	for (i = 0; i < n; i++)
		if (pte_swap(vma->ptes[i]))
			return true;
	return false;
}

/* vm_area_dup(): a copy of @orig for @mm, with page tables of its own. */
static struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig, struct mm_struct *mm)
{
	struct vm_area_struct *vma = calloc(1, sizeof(*vma));
	uint64_t len = orig->vm_end - orig->vm_start, i;
	uint64_t pmds = vma_nr_pmds(orig);

	if (!vma)
		abort();
	vma->vm_start = orig->vm_start;
	vma->vm_end = orig->vm_end;
	vma->vm_mm = mm;
	vma->thp_eligible = orig->thp_eligible;
	vma->vm_flags = orig->vm_flags;
	vma->vm_pgoff = orig->vm_pgoff;
	vma->vm_file = orig->vm_file;
	vma->vm_ops = orig->vm_ops;
	vma->ptes = calloc(len >> PAGE_SHIFT, sizeof(pte_t));
	vma->pmd_huge = calloc(pmds, sizeof(struct folio *));
	vma->pmd_flags = calloc(pmds, 1);
	vma->ptl = calloc(pmds, sizeof(struct spinlock));
	if (!vma->ptes || !vma->pmd_huge || !vma->pmd_flags || !vma->ptl)
		abort();
	for (i = 0; i < pmds; i++)
		spin_lock_init_named(&vma->ptl[i], "ptlock");
	if (orig->vm_policy) {			/* vma_dup_policy() */
		vma->vm_policy = malloc(sizeof(*vma->vm_policy));
		if (!vma->vm_policy)
			abort();
		*vma->vm_policy = *orig->vm_policy;
	}
	INIT_LIST_HEAD(&vma->node);
	INIT_LIST_HEAD(&vma->shared_node);
	INIT_LIST_HEAD(&vma->anon_vma_node);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	return vma;
}

/**
 * dup_mmap - copy the VMAs and page tables of @oldmm into the new @mm
 * @mm: the child's empty mm
 * @oldmm: the parent's mm
 *
 * Each VMA is write-locked and copied (vm_area_dup(), vma_dup_policy(),
 * anon_vma_fork(), the file's i_mmap), then copy_page_range(); the
 * parent's TLB is flushed once at the end (flush_tlb_mm()), after the
 * write-protection of its COW PTEs.  The child's VMAs keep the parent's
 * merges.
 * Context: takes both mmap_locks for writing (the parent's first).
 * Return: 0, or -EOPNOTSUPP (nothing copied) when a VMA with anonymous
 * folios holds a swap PTE or a PMD-mapped THP.
 */
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct vma_merged **from = NULL, **to = NULL;
	struct list_head *pos;
	size_t n = 0, cap = 0, i;

	mmap_write_lock(oldmm);
	list_for_each(pos, &oldmm->vmas) {
		if (vma_fork_unsupported(list_entry(pos, struct vm_area_struct, node))) {
			mmap_write_unlock(oldmm);
			return -95;
		}
	}
	mmap_write_lock(mm);			/* mmap_write_lock_nested() */
	mm->mmap_base = oldmm->mmap_base;
	list_for_each(pos, &oldmm->vmas) {
		struct vm_area_struct *mpnt = list_entry(pos, struct vm_area_struct, node);
		struct vm_area_struct *tmp;
		struct vma_merged *vm = NULL;

		vma_start_write(mpnt->merged, oldmm);
		tmp = vm_area_dup(mpnt, mm);
		/* the child's kernel VMA of this mapping: one per parent VMA */
		for (i = 0; i < n; i++)
			if (from[i] == mpnt->merged)
				vm = to[i];
		if (!vm) {
			vm = vma_merged_new();
			vm->vm_start = mpnt->merged->vm_start;
			vm->vm_end = mpnt->merged->vm_end;
			vm->anon_vma = mpnt->merged->anon_vma;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				from = realloc(from, cap * sizeof(*from));
				to = realloc(to, cap * sizeof(*to));
				if (!from || !to)
					abort();
			}
			from[n] = mpnt->merged;
			to[n++] = vm;
		}
		tmp->merged = vm;
		vm->nr_mappings++;
		if (mpnt->merged->anon_vma)
			anon_vma_fork(tmp, mpnt);
		if (tmp->vm_file) {
			down_write(&tmp->vm_file->i_mmap_rwsem);
			list_add_tail(&tmp->shared_node, &tmp->vm_file->i_mmap);
			sim_cost_cpu_ps(sim_mm->list_op_ps);
			up_write(&tmp->vm_file->i_mmap_rwsem);
		}
		list_add_tail(&tmp->node, &mm->vmas);	/* vma_iter_bulk_store() */
		copy_page_range(tmp, mpnt);
	}
	free(from);
	free(to);
	mmap_write_unlock(mm);
	flush_tlb_mm_range(oldmm, 0, TLB_FLUSH_ALL, false);	/* flush_tlb_mm() */
	mmap_write_unlock(oldmm);
	return 0;
}
