// SPDX-License-Identifier: GPL-2.0-only
/*
 * File-backed memory, fork, mprotect, MADV_PAGEOUT, MADV_POPULATE_* and
 * interleaved allocation (issue 30 item 4), with answers worked out by
 * hand on engine_util.h's test machine: 2 sockets (2 nodes) of 1 core,
 * the task on cpu0, the model's invariant checks on.  A file on a device
 * reads at swap.read_us = 10 us per page.  Each case runs in a task and
 * records what it saw; the asserts run after the engine (cmocka's longjmp
 * stays outside the task).
 *
 * Fault-around (do_fault_around(), 16 pages) maps what the page cache
 * already holds: a read fault on a file page that is cached maps its
 * cached neighbours in the window too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mm/mm.h"

static struct sim_profile prof;
static const struct mm_variant v_base = { .name = "base" };

#define NSEEN	64
/* What the task saw: numbered values, asserted after the run. */
static int64_t seen[NSEEN];

static struct sim_engine *new_model(bool swap)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 2, .seed = 1, .check = true };
	struct sim_engine *e;
	struct mm_model *m;
	char err[128];

	test_profile(&prof, 2, 1, 1);
	prof.swap_read_us = 10;
	prof.swap_write_us = 10;
	prof.swap_bandwidth_mbps = 1000;
	e = sim_engine_create(&o);
	assert_non_null(e);
	m = mm_model_create(e, &v_base, 1L << 14, err, sizeof(err));
	assert_non_null(m);
	m->mthp_order = 0;
	if (swap)
		assert_int_equal(swap_device_create(16ULL << 20, false), 0);
	memset(seen, 0, sizeof(seen));
	return e;
}

static void run_and_free(struct sim_engine *e, sim_task_fn fn)
{
	assert_non_null(sim_task_create(e, 0, "test", fn, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	mm_check_final();
	mm_model_destroy(sim_mm);
	sim_engine_destroy(e);
}

static uint64_t counter(enum sim_counter c)
{
	return sim_engine_counters(sim_engine_current)[c];
}

static pte_t pte_at(struct mm_struct *mm, uint64_t addr)
{
	return *vma_pte_lookup(find_vma(mm, addr), addr);
}

static long lru_folios(enum lru_list lru)
{
	long n = 0;
	int nid;

	for (nid = 0; nid < sim_mm->nr_nodes; nid++)
		n += sim_mm->root_memcg->lruvec[nid].nr_folios[lru];
	return n;
}

/* ---- a read fault: page cache miss, then hit ------------------------------------------ */

/*
 * mm A maps a 4-page file privately, read-only; a read of page 0 misses:
 * pgfault 1, pgmajfault 1, 4 KiB read (pgpgin 4), one folio in the page
 * cache and, after the drain, on the inactive file list; A's PTE maps it
 * read-only and young.  A read of page 1 misses too.  Then mm B maps the
 * file and reads page 0: a hit, pgfault 1, no pgmajfault, and fault-around
 * maps page 1 as well (rss_file 2, folio 0 mapped twice).
 */
static void read_fault_task(void *arg)
{
	struct address_space *f = sim_file_create(4 * PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *a = mm_alloc(sim_mm->root_memcg), *b = mm_alloc(sim_mm->root_memcg);
	uint64_t ba, bb, f0, m0, p0;
	sim_time_t t0;
	struct folio *folio;

	(void)arg;
	ba = vm_mmap_file(a, f, 0, 4 * PAGE_SIZE, false, false);
	f0 = counter(SIM_PGFAULT);
	m0 = counter(SIM_PGMAJFAULT);
	p0 = counter(SIM_PGPGIN);
	t0 = sim_now();
	seen[0] = handle_mm_fault(find_vma(a, ba), ba, false);
	seen[1] = (int64_t)(sim_now() - t0);
	seen[2] = (int64_t)(counter(SIM_PGFAULT) - f0);
	seen[3] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[4] = (int64_t)(counter(SIM_PGPGIN) - p0);
	seen[5] = (int64_t)f->nrpages;
	seen[6] = global_node_page_state(NR_FILE_PAGES);
	lru_add_drain();
	seen[7] = lru_folios(LRU_INACTIVE_FILE);
	seen[8] = lru_folios(LRU_INACTIVE_ANON) + lru_folios(LRU_ACTIVE_ANON);
	seen[9] = (int64_t)pte_at(a, ba);
	folio = f->i_pages[0];
	seen[10] = pte_present(pte_at(a, ba)) && pte_folio(pte_at(a, ba)) == folio;
	seen[11] = folio->_refcount;		/* the cache's and the PTE's */
	seen[12] = a->rss_file;
	seen[13] = global_node_page_state(NR_FILE_MAPPED);
	handle_mm_fault(find_vma(a, ba), ba + PAGE_SIZE, false);	/* page 1: miss */
	seen[14] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);

	bb = vm_mmap_file(b, f, 0, 4 * PAGE_SIZE, false, false);
	f0 = counter(SIM_PGFAULT);
	m0 = counter(SIM_PGMAJFAULT);
	t0 = sim_now();
	seen[15] = handle_mm_fault(find_vma(b, bb), bb, false);
	seen[16] = (int64_t)(sim_now() - t0);
	seen[17] = (int64_t)(counter(SIM_PGFAULT) - f0);
	seen[18] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[19] = b->rss_file;
	seen[20] = folio->_mapcount;
	seen[21] = (int64_t)f->nrpages;
	seen[22] = global_node_page_state(NR_FILE_MAPPED);
	seen[23] = pte_present(pte_at(b, bb + 2 * PAGE_SIZE));	/* not cached: not mapped */

	vm_munmap(a, ba, 4 * PAGE_SIZE);
	vm_munmap(b, bb, 4 * PAGE_SIZE);
	seen[24] = global_node_page_state(NR_FILE_MAPPED);
	seen[25] = (int64_t)f->nrpages;		/* unmapping keeps the cache */
	sim_file_destroy(f);
	lru_add_drain();
	seen[26] = lru_folios(LRU_INACTIVE_FILE) + lru_folios(LRU_ACTIVE_FILE);
	seen[27] = global_node_page_state(NR_FILE_PAGES);
	mm_free(a);
	mm_free(b);
}

static void test_read_fault_miss_then_hit(void **state)
{
	(void)state;
	run_and_free(new_model(false), read_fault_task);
	assert_int_equal(seen[0], 0);
	/*
	 * slept for the read: swap.read_us (10 us) > 4 KiB at 1000 MB/s (4.1 us),
	 * plus the fault's CPU work (0.5 us of entry, the first allocation's pcp
	 * refill of 63 pages): 12.5 us here
	 */
	assert_true(seen[1] >= 10 * (int64_t)SIM_US && seen[1] < 14 * (int64_t)SIM_US);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 4);
	assert_int_equal(seen[5], 1);
	assert_int_equal(seen[6], 1);
	assert_int_equal(seen[7], 1);
	assert_int_equal(seen[8], 0);
	assert_true(seen[9] & PTE_YOUNG);
	assert_false(seen[9] & PTE_WRITE);
	assert_int_equal(seen[10], 1);
	assert_int_equal(seen[11], 2);
	assert_int_equal(seen[12], 1);
	assert_int_equal(seen[13], 1);
	assert_int_equal(seen[14], 2);
	assert_int_equal(seen[15], 0);
	/* no read: mm.fault_entry_ns (500 ns) and fault-around's work, 629 ns here */
	assert_true(seen[16] >= 500 * (int64_t)SIM_NS && seen[16] < 1 * (int64_t)SIM_US);
	assert_int_equal(seen[17], 1);
	assert_int_equal(seen[18], 0);
	assert_int_equal(seen[19], 2);
	assert_int_equal(seen[20], 2);
	assert_int_equal(seen[21], 2);
	assert_int_equal(seen[22], 2);
	assert_int_equal(seen[23], 0);
	assert_int_equal(seen[24], 0);
	assert_int_equal(seen[25], 2);
	assert_int_equal(seen[26], 0);
	assert_int_equal(seen[27], 0);
}

/*
 * With MGLRU on, a disk file's folio goes to the classic inactive file
 * list (the model leaves MGLRU's file type out), while a tmpfs folio and
 * an anonymous one go to MGLRU's generations (the anon type): after the
 * drain, 1 folio on the file lists, 2 on the generations.  The invariant
 * checks walk both at every step.
 */
static void mglru_task(void *arg)
{
	struct address_space *f = sim_file_create(PAGE_SIZE, SIM_FILE_DISK);
	struct address_space *t = sim_file_create(PAGE_SIZE, SIM_FILE_TMPFS);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t fb, tb, ab;
	long gen_pages = 0;
	unsigned int gen;

	(void)arg;
	fb = vm_mmap_file(mm, f, 0, PAGE_SIZE, false, false);
	tb = vm_mmap_file(mm, t, 0, PAGE_SIZE, true, true);
	ab = vm_mmap_anon(mm, PAGE_SIZE, false);
	handle_mm_fault(find_vma(mm, fb), fb, false);
	handle_mm_fault(find_vma(mm, tb), tb, true);
	handle_mm_fault(find_vma(mm, ab), ab, true);
	lru_add_drain();
	seen[0] = lru_folios(LRU_INACTIVE_FILE) + lru_folios(LRU_ACTIVE_FILE);
	seen[1] = lru_folios(LRU_INACTIVE_ANON);	/* MGLRU counts every generation's folio here */
	for (gen = 0; gen < MAX_NR_GENS; gen++)
		gen_pages += sim_mm->root_memcg->lruvec[0].lrugen.nr_pages[gen];
	seen[2] = gen_pages;
	seen[3] = folio_lru_gen(f->i_pages[0]);
	vm_munmap(mm, fb, PAGE_SIZE);
	vm_munmap(mm, tb, PAGE_SIZE);
	vm_munmap(mm, ab, PAGE_SIZE);
	sim_file_destroy(f);
	sim_file_destroy(t);
	lru_add_drain();
	mm_free(mm);
}

static void test_mglru_file_lists(void **state)
{
	struct sim_engine *e = new_model(false);

	(void)state;
	sim_mm->lru_gen_enabled = true;
	run_and_free(e, mglru_task);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 2);
	assert_int_equal(seen[2], 2);
	assert_int_equal(seen[3], -1);
}

/*
 * Memcg reclaim of the file LRU: the memcg limited to 64 pages, no swap,
 * 128 pages of a file read one at a time through a one-page mapping that
 * is unmapped at once (the page cache folio stays, clean and unmapped).
 * Every fault succeeds: the charge over the limit reclaims page cache
 * (get_scan_count() SCAN_FILE, shrink_inactive_list() on the inactive file
 * list, __remove_mapping()).  Each page read is either still cached or
 * was reclaimed: nrpages + pgsteal_file == 128, at most 64 cached.  (The
 * limit is above the lru_add batch's 31 folios, which reclaim cannot see
 * until drained, as in the kernel.)
 */
static void file_reclaim_task(void *arg)
{
	struct address_space *f = sim_file_create(128 * PAGE_SIZE, SIM_FILE_DISK);
	struct mem_cgroup *memcg = sim_mm->root_memcg;	/* the model's one memcg, which the checks walk */
	struct mm_struct *mm = mm_alloc(memcg);
	uint64_t i, s0 = counter(SIM_PGSTEAL_FILE), c0 = counter(SIM_PGSCAN_FILE);

	(void)arg;
	memcg->memory.max = 64;
	for (i = 0; i < 128; i++) {
		uint64_t a = vm_mmap_file(mm, f, i, PAGE_SIZE, false, false);

		seen[0] |= handle_mm_fault(find_vma(mm, a), a, false);
		vm_munmap(mm, a, PAGE_SIZE);
	}
	seen[1] = (int64_t)f->nrpages;
	seen[2] = (int64_t)(counter(SIM_PGSTEAL_FILE) - s0);
	seen[3] = (int64_t)(counter(SIM_PGSCAN_FILE) - c0);
	seen[4] = memcg->memory.usage;
	sim_file_destroy(f);
	lru_add_drain();
	mm_free(mm);
}

static void test_memcg_reclaims_page_cache(void **state)
{
	(void)state;
	run_and_free(new_model(false), file_reclaim_task);
	assert_int_equal(seen[0], 0);
	assert_true(seen[1] <= 64);
	assert_int_equal(seen[1] + seen[2], 128);
	assert_true(seen[2] >= 64);
	assert_true(seen[3] >= seen[2]);
	assert_true(seen[4] <= 64);
}

/*
 * Two tasks on two CPUs read-fault page 0 of the same file at once: one
 * misses, adds the folio locked and reads it (10 us); the other finds it
 * in the page cache and waits on the folio lock until the read is done.
 * One read, one major fault, two faults; both map the one folio.
 */
struct race_arg {
	struct address_space *f;
	struct mm_struct *mm;
	int slot;
};

static void race_fault(void *p)
{
	struct race_arg *r = p;
	uint64_t a;
	sim_time_t t0;

	switch_mm_irqs_off(r->mm);
	a = vm_mmap_file(r->mm, r->f, 0, PAGE_SIZE, false, false);
	t0 = sim_now();
	seen[r->slot] = handle_mm_fault(find_vma(r->mm, a), a, false);
	seen[r->slot + 1] = (int64_t)(sim_now() - t0);
	seen[r->slot + 2] = (int64_t)pte_folio(pte_at(r->mm, a))->id;
	vm_munmap(r->mm, a, PAGE_SIZE);
	lru_add_drain();
}

static void race_task(void *arg)
{
	struct address_space *f = sim_file_create(PAGE_SIZE, SIM_FILE_DISK);
	struct race_arg ra = { f, mm_alloc(sim_mm->root_memcg), 0 };
	struct race_arg rb = { f, mm_alloc(sim_mm->root_memcg), 3 };
	uint64_t f0 = counter(SIM_PGFAULT), m0 = counter(SIM_PGMAJFAULT), i0 = counter(SIM_PGPGIN);
	struct sim_task *child;

	(void)arg;
	child = sim_task_fork("racer", race_fault, &rb);
	race_fault(&ra);
	sim_waitpid(child);
	seen[6] = (int64_t)(counter(SIM_PGFAULT) - f0);
	seen[7] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[8] = (int64_t)(counter(SIM_PGPGIN) - i0);
	seen[9] = (int64_t)f->nrpages;
	sim_file_destroy(f);
	lru_add_drain();
	mm_free(ra.mm);
	mm_free(rb.mm);
}

static void test_concurrent_miss(void **state)
{
	(void)state;
	run_and_free(new_model(false), race_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[3], 0);
	assert_true(seen[1] >= 10 * (int64_t)SIM_US);	/* both waited for the one read */
	assert_true(seen[4] >= 10 * (int64_t)SIM_US);
	assert_int_equal(seen[2], seen[5]);		/* the same folio */
	assert_int_equal(seen[6], 2);
	assert_int_equal(seen[7], 1);
	assert_int_equal(seen[8], 4);
	assert_int_equal(seen[9], 1);
}

/* ---- private writes: copy-on-write of a file page ------------------------------------ */

/*
 * A private writable mapping of a 2-page file.  Page 0: a read (maps the
 * page cache folio read-only), then a write: do_wp_page() -> wp_page_copy():
 * a new anonymous folio, writable and dirty, one more allocation and one
 * TLB flush of the old PTE; the page cache folio stays cached, clean and
 * unmapped.  Page 1: the first access is a write: do_cow_fault(), a major
 * fault (the page is read into the cache), an anonymous copy mapped.
 */
static void cow_task(void *arg)
{
	struct address_space *f = sim_file_create(2 * PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t base, a0, g0, m0;
	struct folio *cached, *anon;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_file(mm, f, 0, 2 * PAGE_SIZE, false, true);
	handle_mm_fault(find_vma(mm, base), base, false);
	cached = f->i_pages[0];
	a0 = counter(SIM_PGALLOC_NORMAL);
	g0 = mm->tlb_gen;
	seen[0] = handle_mm_fault(find_vma(mm, base), base, true);
	anon = pte_folio(pte_at(mm, base));
	seen[1] = anon != cached;
	seen[2] = folio_test_anon(anon);
	seen[3] = (pte_at(mm, base) & (PTE_WRITE | PTE_DIRTY)) == (PTE_WRITE | PTE_DIRTY);
	seen[4] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	seen[5] = (int64_t)(mm->tlb_gen - g0);
	seen[6] = f->i_pages[0] == cached;
	seen[7] = folio_test(cached, PG_dirty);
	seen[8] = cached->_mapcount;
	seen[9] = mm->rss_anon;
	seen[10] = mm->rss_file;
	seen[11] = global_node_page_state(NR_FILE_DIRTY);
	seen[12] = global_node_page_state(NR_FILE_MAPPED);

	m0 = counter(SIM_PGMAJFAULT);
	seen[13] = handle_mm_fault(find_vma(mm, base), base + PAGE_SIZE, true);
	seen[14] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[15] = folio_test_anon(pte_folio(pte_at(mm, base + PAGE_SIZE)));
	seen[16] = f->nrpages;
	seen[17] = f->i_pages[1] && f->i_pages[1]->_mapcount == 0 &&
		   !folio_test(f->i_pages[1], PG_dirty);
	seen[18] = mm->rss_anon;

	vm_munmap(mm, base, 2 * PAGE_SIZE);
	sim_file_destroy(f);
	lru_add_drain();
	mm_free(mm);
}

static void test_private_write_copies(void **state)
{
	(void)state;
	run_and_free(new_model(false), cow_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 1);
	assert_int_equal(seen[5], 1);
	assert_int_equal(seen[6], 1);
	assert_int_equal(seen[7], 0);
	assert_int_equal(seen[8], 0);
	assert_int_equal(seen[9], 1);
	assert_int_equal(seen[10], 0);
	assert_int_equal(seen[11], 0);
	assert_int_equal(seen[12], 0);
	assert_int_equal(seen[13], 0);
	assert_int_equal(seen[14], 1);
	assert_int_equal(seen[15], 1);
	assert_int_equal(seen[16], 2);
	assert_int_equal(seen[17], 1);
	assert_int_equal(seen[18], 2);
}

/* ---- shared writes: page_mkwrite and dirty accounting --------------------------------- */

/*
 * A shared writable mapping of a 2-page file on a device.  A write to
 * page 0: do_shared_fault(), page_mkwrite dirties the folio: NR_FILE_DIRTY
 * 1, nr_dirtied 1, the PTE writable and dirty.  A read of page 1 maps it
 * read-only (write notification); the write after it goes through
 * wp_page_shared(): NR_FILE_DIRTY 2.  On tmpfs (shmem_vm_ops: no
 * page_mkwrite) a read maps writable at once, a write sets PG_dirty but
 * accounts nothing (noop_dirty_folio()), and nothing is a major fault.
 */
static void shared_write_task(void *arg)
{
	struct address_space *f = sim_file_create(2 * PAGE_SIZE, SIM_FILE_DISK);
	struct address_space *t = sim_file_create(2 * PAGE_SIZE, SIM_FILE_TMPFS);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t base, tb, d0, m0;

	(void)arg;
	base = vm_mmap_file(mm, f, 0, 2 * PAGE_SIZE, true, true);
	d0 = counter(SIM_NR_DIRTIED);
	seen[0] = handle_mm_fault(find_vma(mm, base), base, true);
	seen[1] = global_node_page_state(NR_FILE_DIRTY);
	seen[2] = (int64_t)(counter(SIM_NR_DIRTIED) - d0);
	seen[3] = (pte_at(mm, base) & (PTE_WRITE | PTE_DIRTY)) == (PTE_WRITE | PTE_DIRTY);
	seen[4] = pte_folio(pte_at(mm, base)) == f->i_pages[0];	/* no copy */
	handle_mm_fault(find_vma(mm, base), base + PAGE_SIZE, false);
	seen[5] = !!(pte_at(mm, base + PAGE_SIZE) & PTE_WRITE);
	seen[6] = global_node_page_state(NR_FILE_DIRTY);
	handle_mm_fault(find_vma(mm, base), base + PAGE_SIZE, true);
	seen[7] = !!(pte_at(mm, base + PAGE_SIZE) & PTE_WRITE);
	seen[8] = global_node_page_state(NR_FILE_DIRTY);
	seen[9] = mm->rss_file;

	tb = vm_mmap_file(mm, t, 0, 2 * PAGE_SIZE, true, true);
	m0 = counter(SIM_PGMAJFAULT);
	d0 = counter(SIM_NR_DIRTIED);
	handle_mm_fault(find_vma(mm, tb), tb, false);
	seen[10] = !!(pte_at(mm, tb) & PTE_WRITE);
	handle_mm_fault(find_vma(mm, tb), tb + PAGE_SIZE, true);
	seen[11] = folio_test(t->i_pages[1], PG_dirty);
	seen[12] = global_node_page_state(NR_FILE_DIRTY);
	seen[13] = (int64_t)(counter(SIM_NR_DIRTIED) - d0);
	seen[14] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[15] = global_node_page_state(NR_SHMEM);
	seen[16] = mm->rss_shmem;
	lru_add_drain();
	seen[17] = lru_folios(LRU_INACTIVE_ANON) + lru_folios(LRU_ACTIVE_ANON);	/* tmpfs */
	seen[18] = lru_folios(LRU_INACTIVE_FILE) + lru_folios(LRU_ACTIVE_FILE);	/* the disk file */

	vm_munmap(mm, base, 2 * PAGE_SIZE);
	vm_munmap(mm, tb, 2 * PAGE_SIZE);
	sim_file_destroy(f);
	sim_file_destroy(t);
	seen[19] = global_node_page_state(NR_FILE_DIRTY);
	lru_add_drain();
	mm_free(mm);
}

static void test_shared_write_dirty(void **state)
{
	(void)state;
	run_and_free(new_model(false), shared_write_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 1);
	assert_int_equal(seen[5], 0);
	assert_int_equal(seen[6], 1);
	assert_int_equal(seen[7], 1);
	assert_int_equal(seen[8], 2);
	assert_int_equal(seen[9], 2);
	assert_int_equal(seen[10], 1);
	assert_int_equal(seen[11], 1);
	assert_int_equal(seen[12], 2);
	assert_int_equal(seen[13], 0);
	assert_int_equal(seen[14], 0);
	assert_int_equal(seen[15], 2);
	assert_int_equal(seen[16], 2);
	assert_int_equal(seen[17], 2);
	assert_int_equal(seen[18], 2);
	assert_int_equal(seen[19], 0);
}

/* ---- truncation ---------------------------------------------------------------------- */

/*
 * A 4-page file mapped shared and writable, each page read (4 major
 * faults), page 2 written (dirty).  ftruncate(0): every PTE zapped (one
 * TLB flush), the page cache empty, NR_FILE_PAGES, NR_FILE_DIRTY and
 * NR_FILE_MAPPED 0, the LRU empty once drained; a fault after it is a
 * SIGBUS (-EFAULT in the model).
 */
static void truncate_task(void *arg)
{
	struct address_space *f = sim_file_create(4 * PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t base, i, m0, g0, free0;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_file(mm, f, 0, 4 * PAGE_SIZE, true, true);
	m0 = counter(SIM_PGMAJFAULT);
	for (i = 0; i < 4; i++)
		handle_mm_fault(find_vma(mm, base), base + i * PAGE_SIZE, false);
	handle_mm_fault(find_vma(mm, base), base + 2 * PAGE_SIZE, true);
	seen[0] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[1] = (int64_t)f->nrpages;
	seen[2] = global_node_page_state(NR_FILE_DIRTY);
	seen[3] = global_node_page_state(NR_FILE_MAPPED);
	lru_add_drain();
	seen[4] = lru_folios(LRU_INACTIVE_FILE);
	g0 = mm->tlb_gen;
	free0 = counter(SIM_PGFREE);
	seen[5] = sim_file_truncate(f, 0);
	seen[6] = (int64_t)f->nrpages;
	seen[7] = global_node_page_state(NR_FILE_PAGES);
	seen[8] = global_node_page_state(NR_FILE_DIRTY);
	seen[9] = global_node_page_state(NR_FILE_MAPPED);
	seen[10] = mm->rss_file;
	seen[11] = (int64_t)(mm->tlb_gen - g0);
	lru_add_drain();
	seen[12] = lru_folios(LRU_INACTIVE_FILE) + lru_folios(LRU_ACTIVE_FILE);
	seen[13] = (int64_t)(counter(SIM_PGFREE) - free0);
	for (i = 0; i < 4; i++)
		seen[14] += pte_present(pte_at(mm, base + i * PAGE_SIZE));
	seen[15] = handle_mm_fault(find_vma(mm, base), base, false);
	vm_munmap(mm, base, 4 * PAGE_SIZE);
	sim_file_destroy(f);
	mm_free(mm);
}

/*
 * Truncation reaches every VMA of the file (i_mmap): two mms map a
 * 2-page file, A shared, B private with page 1 copied on write (an
 * anonymous folio).  ftruncate(0) zaps both mms (one TLB flush each) and,
 * as truncate_pagecache() asks (even_cows), B's private copy too.
 */
static void truncate_two_task(void *arg)
{
	struct address_space *f = sim_file_create(2 * PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *a = mm_alloc(sim_mm->root_memcg), *b = mm_alloc(sim_mm->root_memcg);
	uint64_t ba, bb, ga, gb;

	(void)arg;
	ba = vm_mmap_file(a, f, 0, 2 * PAGE_SIZE, true, true);
	bb = vm_mmap_file(b, f, 0, 2 * PAGE_SIZE, false, true);
	handle_mm_fault(find_vma(a, ba), ba, false);
	handle_mm_fault(find_vma(a, ba), ba + PAGE_SIZE, false);
	handle_mm_fault(find_vma(b, bb), bb, false);		/* fault-around: both pages */
	handle_mm_fault(find_vma(b, bb), bb + PAGE_SIZE, true);	/* COW of page 1 */
	seen[0] = a->rss_file;
	seen[1] = b->rss_file;
	seen[2] = b->rss_anon;
	ga = a->tlb_gen;
	gb = b->tlb_gen;
	sim_file_truncate(f, 0);
	seen[3] = a->rss_file + b->rss_file + b->rss_anon;
	seen[4] = (int64_t)(a->tlb_gen - ga);
	seen[5] = (int64_t)(b->tlb_gen - gb);
	seen[6] = (int64_t)f->nrpages;
	vm_munmap(a, ba, 2 * PAGE_SIZE);
	vm_munmap(b, bb, 2 * PAGE_SIZE);
	sim_file_destroy(f);
	lru_add_drain();
	mm_free(a);
	mm_free(b);
}

static void test_truncate_every_mapping(void **state)
{
	(void)state;
	run_and_free(new_model(false), truncate_two_task);
	assert_int_equal(seen[0], 2);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 0);
	assert_int_equal(seen[4], 1);
	assert_int_equal(seen[5], 1);
	assert_int_equal(seen[6], 0);
}

static void test_truncate(void **state)
{
	(void)state;
	run_and_free(new_model(false), truncate_task);
	assert_int_equal(seen[0], 4);
	assert_int_equal(seen[1], 4);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 4);
	assert_int_equal(seen[4], 4);
	assert_int_equal(seen[5], 0);
	assert_int_equal(seen[6], 0);
	assert_int_equal(seen[7], 0);
	assert_int_equal(seen[8], 0);
	assert_int_equal(seen[9], 0);
	assert_int_equal(seen[10], 0);
	assert_int_equal(seen[11], 1);
	assert_int_equal(seen[12], 0);
	assert_int_equal(seen[13], 4);
	assert_int_equal(seen[14], 0);
	assert_int_equal(seen[15], -14);
}

/* ---- fork and copy-on-write of anonymous memory ----------------------------------------- */

/*
 * The parent writes 2 anonymous pages, then forks: each folio is mapped
 * twice (mapcount 2, refcount 2), both sides' PTEs read-only, the child's
 * old; the parent's TLB is flushed once.  The parent writes page 0: a copy
 * (one allocation; the old folio's mapcount drops to 1).  The child writes
 * page 0: the last mapper reuses it (no allocation, same folio).  The
 * child writes page 1: a copy; the parent then reuses page 1.  Two copies
 * in all.
 */
static void fork_task(void *arg)
{
	struct mm_struct *p = mm_alloc(sim_mm->root_memcg), *c;
	struct folio *f0, *f1;
	uint64_t base, a0, g0;

	(void)arg;
	switch_mm_irqs_off(p);
	base = vm_mmap_anon(p, 2 * PAGE_SIZE, false);
	handle_mm_fault(find_vma(p, base), base, true);
	handle_mm_fault(find_vma(p, base), base + PAGE_SIZE, true);
	lru_add_drain();
	f0 = pte_folio(pte_at(p, base));
	f1 = pte_folio(pte_at(p, base + PAGE_SIZE));
	g0 = p->tlb_gen;
	a0 = counter(SIM_PGALLOC_NORMAL);
	c = dup_mm(p);
	seen[0] = c != NULL;
	seen[1] = f0->_mapcount;
	seen[2] = f0->_refcount;
	seen[3] = !!(pte_at(p, base) & PTE_WRITE) + !!(pte_at(c, base) & PTE_WRITE);
	seen[4] = !!(pte_at(c, base) & PTE_YOUNG);
	seen[5] = pte_folio(pte_at(c, base)) == f0;
	seen[6] = (int64_t)(p->tlb_gen - g0);
	seen[7] = c->rss_anon;
	seen[8] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);

	handle_mm_fault(find_vma(p, base), base, true);		/* parent: copy */
	seen[9] = pte_folio(pte_at(p, base)) != f0;
	seen[10] = f0->_mapcount;
	seen[11] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	handle_mm_fault(find_vma(c, base), base, true);		/* child: reuse */
	seen[12] = pte_folio(pte_at(c, base)) == f0 && (pte_at(c, base) & PTE_WRITE);
	seen[13] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	handle_mm_fault(find_vma(c, base), base + PAGE_SIZE, true);	/* child: copy */
	handle_mm_fault(find_vma(p, base), base + PAGE_SIZE, true);	/* parent: reuse */
	seen[14] = pte_folio(pte_at(p, base + PAGE_SIZE)) == f1;
	seen[15] = pte_folio(pte_at(c, base + PAGE_SIZE)) != f1;
	seen[16] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	seen[17] = f1->_mapcount;

	vm_munmap(p, base, 2 * PAGE_SIZE);
	vm_munmap(c, base, 2 * PAGE_SIZE);
	lru_add_drain();
	mm_free(c);
	mm_free(p);
}

static void test_fork_cow(void **state)
{
	(void)state;
	run_and_free(new_model(false), fork_task);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 2);
	assert_int_equal(seen[2], 2);
	assert_int_equal(seen[3], 0);
	assert_int_equal(seen[4], 0);
	assert_int_equal(seen[5], 1);
	assert_int_equal(seen[6], 1);
	assert_int_equal(seen[7], 2);
	assert_int_equal(seen[8], 0);
	assert_int_equal(seen[9], 1);
	assert_int_equal(seen[10], 1);
	assert_int_equal(seen[11], 1);
	assert_int_equal(seen[12], 1);
	assert_int_equal(seen[13], 1);
	assert_int_equal(seen[14], 1);
	assert_int_equal(seen[15], 1);
	assert_int_equal(seen[16], 2);
	assert_int_equal(seen[17], 1);
}

/*
 * Fork with a shared folio, the parent unmaps first: the child still maps
 * it, and reclaim's rmap must still find the child's PTE.  The folio's
 * folio_referenced() sees the child's young PTE (set young by a write).
 */
static void fork_unmap_task(void *arg)
{
	struct mm_struct *p = mm_alloc(sim_mm->root_memcg), *c;
	struct folio *f0;
	uint64_t base;

	(void)arg;
	base = vm_mmap_anon(p, PAGE_SIZE, false);
	handle_mm_fault(find_vma(p, base), base, true);
	lru_add_drain();
	f0 = pte_folio(pte_at(p, base));
	c = dup_mm(p);
	*vma_pte_lookup(find_vma(c, base), base) |= PTE_YOUNG;
	vm_munmap(p, base, PAGE_SIZE);
	seen[0] = f0->_mapcount;
	seen[1] = f0->mm == c;
	assert_true(folio_trylock(f0));
	seen[2] = folio_referenced(f0, true);
	folio_unlock(f0);
	vm_munmap(c, base, PAGE_SIZE);
	lru_add_drain();
	mm_free(c);
	mm_free(p);
}

static void test_fork_parent_unmaps(void **state)
{
	(void)state;
	run_and_free(new_model(false), fork_unmap_task);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);
}

/*
 * sim_fork() from a task: the child (on its own mm) writes the shared page
 * and copies it (one allocation); after waitpid the parent, now its only
 * mapper, writes and reuses its folio (no allocation).
 */
static uint64_t fork_base;

static void fork_child(void *arg)
{
	struct mm_struct *mm = sim_current()->mm;
	uint64_t a0 = counter(SIM_PGALLOC_NORMAL);

	(void)arg;
	seen[1] = handle_mm_fault(find_vma(mm, fork_base), fork_base, true);
	seen[2] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	seen[3] = mm != (struct mm_struct *)arg;
	vm_munmap(mm, fork_base, PAGE_SIZE);
	lru_add_drain();
}

static void sim_fork_task(void *arg)
{
	struct mm_struct *p = mm_alloc(sim_mm->root_memcg), *c = NULL;
	struct sim_task *child;
	struct folio *f0;
	uint64_t a0;

	(void)arg;
	switch_mm_irqs_off(p);
	fork_base = vm_mmap_anon(p, PAGE_SIZE, false);
	handle_mm_fault(find_vma(p, fork_base), fork_base, true);
	f0 = pte_folio(pte_at(p, fork_base));
	child = sim_fork("child", fork_child, p, &c);
	seen[0] = child != NULL && c != NULL;
	if (child)
		sim_waitpid(child);
	a0 = counter(SIM_PGALLOC_NORMAL);
	handle_mm_fault(find_vma(p, fork_base), fork_base, true);
	seen[4] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	seen[5] = pte_folio(pte_at(p, fork_base)) == f0;
	seen[6] = f0->_mapcount;
	vm_munmap(p, fork_base, PAGE_SIZE);
	lru_add_drain();
	mm_free(c);
	mm_free(p);
}

static void test_sim_fork(void **state)
{
	(void)state;
	run_and_free(new_model(false), sim_fork_task);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 0);
	assert_int_equal(seen[5], 1);
	assert_int_equal(seen[6], 1);
}

/*
 * MAP_SHARED | MAP_ANONYMOUS (a tmpfs file of its own): the parent writes
 * page 0 and forks; the shared mapping is not copied (no anon_vma), the
 * child's read finds the parent's folio in the page cache (no copy, no
 * allocation), and the child's write to page 1 is seen by the parent's
 * next read (the same folio).  NR_SHMEM counts 2 pages until the last
 * mapping goes, which frees the file.
 */
static void shared_anon_task(void *arg)
{
	struct mm_struct *p = mm_alloc(sim_mm->root_memcg), *c;
	struct address_space *f;
	uint64_t base, a0;

	(void)arg;
	base = vm_mmap_shared_anon(p, 2 * PAGE_SIZE);
	f = find_vma(p, base)->vm_file;
	handle_mm_fault(find_vma(p, base), base, true);
	c = dup_mm(p);
	seen[0] = pte_present(pte_at(c, base));		/* not copied at fork */
	a0 = counter(SIM_PGALLOC_NORMAL);
	handle_mm_fault(find_vma(c, base), base, false);
	seen[1] = pte_folio(pte_at(c, base)) == pte_folio(pte_at(p, base));
	seen[2] = (int64_t)(counter(SIM_PGALLOC_NORMAL) - a0);
	handle_mm_fault(find_vma(c, base), base + PAGE_SIZE, true);
	handle_mm_fault(find_vma(p, base), base + PAGE_SIZE, false);
	seen[3] = pte_folio(pte_at(c, base + PAGE_SIZE)) == pte_folio(pte_at(p, base + PAGE_SIZE));
	seen[4] = global_node_page_state(NR_SHMEM);
	seen[5] = (int64_t)f->nrpages;
	vm_munmap(p, base, 2 * PAGE_SIZE);
	seen[6] = global_node_page_state(NR_SHMEM);	/* the child still maps it */
	vm_munmap(c, base, 2 * PAGE_SIZE);
	seen[7] = global_node_page_state(NR_SHMEM);
	lru_add_drain();
	mm_free(c);
	mm_free(p);
}

static void test_shared_anon_fork(void **state)
{
	(void)state;
	run_and_free(new_model(false), shared_anon_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 0);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 2);
	assert_int_equal(seen[5], 2);
	assert_int_equal(seen[6], 2);
	assert_int_equal(seen[7], 0);
}

/* ---- mprotect ------------------------------------------------------------------------- */

/*
 * 4 written anonymous pages, mprotect(PROT_READ): every PTE read-only,
 * one TLB flush (tlb_gen + 1); a write then faults with -EFAULT (no
 * VM_WRITE).  mprotect(PROT_READ | PROT_WRITE): the exclusive anonymous
 * folios get their write bit back without a flush.
 */
static void mprotect_task(void *arg)
{
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t base, i, g0;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 4 * PAGE_SIZE, false);
	for (i = 0; i < 4; i++)
		handle_mm_fault(find_vma(mm, base), base + i * PAGE_SIZE, true);
	g0 = mm->tlb_gen;
	seen[0] = do_mprotect(mm, base, 4 * PAGE_SIZE, PROT_READ);
	for (i = 0; i < 4; i++)
		seen[1] += !!(pte_at(mm, base + i * PAGE_SIZE) & PTE_WRITE);
	seen[2] = (int64_t)(mm->tlb_gen - g0);
	seen[3] = handle_mm_fault(find_vma(mm, base), base, true);
	g0 = mm->tlb_gen;
	seen[4] = do_mprotect(mm, base, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE);
	for (i = 0; i < 4; i++)
		seen[5] += !!(pte_at(mm, base + i * PAGE_SIZE) & PTE_WRITE);
	seen[6] = (int64_t)(mm->tlb_gen - g0);
	seen[7] = do_mprotect(mm, base, PAGE_SIZE, PROT_READ);	/* not a whole mapping */
	vm_munmap(mm, base, 4 * PAGE_SIZE);
	lru_add_drain();
	mm_free(mm);
}

static void test_mprotect(void **state)
{
	(void)state;
	run_and_free(new_model(false), mprotect_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], -14);
	assert_int_equal(seen[4], 0);
	assert_int_equal(seen[5], 4);
	assert_int_equal(seen[6], 0);
	assert_int_equal(seen[7], -22);
}

/* ---- MADV_PAGEOUT --------------------------------------------------------------------- */

/*
 * 4 written anonymous pages: MADV_PAGEOUT swaps all 4 out (pswpout 4,
 * 4 swap PTEs, rss 0, the anon LRU empty).  A file mapped privately, 2
 * clean pages read: both dropped from the page cache (nrpages 0, the file
 * LRU empty).  A shared mapping with page 0 written (dirty): kept, the
 * clean page 1 dropped.
 */
static void pageout_task(void *arg)
{
	struct address_space *f = sim_file_create(2 * PAGE_SIZE, SIM_FILE_DISK);
	struct address_space *g = sim_file_create(2 * PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t base, fb, gb, i, o0;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 4 * PAGE_SIZE, false);
	for (i = 0; i < 4; i++)
		handle_mm_fault(find_vma(mm, base), base + i * PAGE_SIZE, true);
	o0 = counter(SIM_PSWPOUT);
	seen[0] = madvise_pageout(mm, base, 4 * PAGE_SIZE);
	seen[1] = (int64_t)(counter(SIM_PSWPOUT) - o0);
	for (i = 0; i < 4; i++)
		seen[2] += pte_swap(pte_at(mm, base + i * PAGE_SIZE));
	seen[3] = mm->rss_anon;
	seen[4] = lru_folios(LRU_INACTIVE_ANON) + lru_folios(LRU_ACTIVE_ANON);

	fb = vm_mmap_file(mm, f, 0, 2 * PAGE_SIZE, false, false);
	handle_mm_fault(find_vma(mm, fb), fb, false);
	handle_mm_fault(find_vma(mm, fb), fb + PAGE_SIZE, false);
	seen[5] = madvise_pageout(mm, fb, 2 * PAGE_SIZE);
	seen[6] = (int64_t)f->nrpages;
	seen[7] = mm->rss_file;
	seen[8] = lru_folios(LRU_INACTIVE_FILE) + lru_folios(LRU_ACTIVE_FILE);

	gb = vm_mmap_file(mm, g, 0, 2 * PAGE_SIZE, true, true);
	handle_mm_fault(find_vma(mm, gb), gb, true);
	handle_mm_fault(find_vma(mm, gb), gb + PAGE_SIZE, false);
	madvise_pageout(mm, gb, 2 * PAGE_SIZE);
	seen[9] = (int64_t)g->nrpages;
	seen[10] = g->i_pages[0] != NULL && g->i_pages[1] == NULL;
	seen[11] = global_node_page_state(NR_FILE_DIRTY);

	vm_munmap(mm, base, 4 * PAGE_SIZE);
	vm_munmap(mm, fb, 2 * PAGE_SIZE);
	vm_munmap(mm, gb, 2 * PAGE_SIZE);
	sim_file_destroy(f);
	sim_file_destroy(g);
	lru_add_drain();
	mm_free(mm);
}

static void test_madv_pageout(void **state)
{
	(void)state;
	run_and_free(new_model(true), pageout_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 4);
	assert_int_equal(seen[2], 4);
	assert_int_equal(seen[3], 0);
	assert_int_equal(seen[4], 0);
	assert_int_equal(seen[5], 0);
	assert_int_equal(seen[6], 0);
	assert_int_equal(seen[7], 0);
	assert_int_equal(seen[8], 0);
	assert_int_equal(seen[9], 1);
	assert_int_equal(seen[10], 1);
	assert_int_equal(seen[11], 1);
}

/* ---- MADV_POPULATE_(READ|WRITE) -------------------------------------------------------- */

/*
 * POPULATE_WRITE of 8 anonymous pages: 8 faults, every PTE present,
 * writable and dirty, each folio touched by GUP (PG_referenced, which a
 * fault alone does not set), no user access.  POPULATE_READ
 * of a 32-page file not cached: every page a major fault (fault-around
 * finds nothing cached), 32 faults.  The same on a second mapping of it
 * in another mm: fault-around maps 16 cached pages per fault, 2 faults, no
 * major one.  A second POPULATE_WRITE of the populated range: no fault.
 */
static void populate_task(void *arg)
{
	struct address_space *f = sim_file_create(32 * PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg), *b = mm_alloc(sim_mm->root_memcg);
	uint64_t base, fb, bb, i, f0, m0;

	(void)arg;
	base = vm_mmap_anon(mm, 8 * PAGE_SIZE, false);
	f0 = counter(SIM_PGFAULT);
	seen[0] = madvise_populate(mm, base, 8 * PAGE_SIZE, true);
	seen[1] = (int64_t)(counter(SIM_PGFAULT) - f0);
	for (i = 0; i < 8; i++)
		seen[2] += (pte_at(mm, base + i * PAGE_SIZE) & (PTE_WRITE | PTE_DIRTY)) ==
			   (PTE_WRITE | PTE_DIRTY);
	seen[3] = folio_test(pte_folio(pte_at(mm, base)), PG_referenced);	/* FOLL_TOUCH */
	f0 = counter(SIM_PGFAULT);
	seen[4] = madvise_populate(mm, base, 8 * PAGE_SIZE, true);
	seen[5] = (int64_t)(counter(SIM_PGFAULT) - f0);

	fb = vm_mmap_file(mm, f, 0, 32 * PAGE_SIZE, false, false);
	f0 = counter(SIM_PGFAULT);
	m0 = counter(SIM_PGMAJFAULT);
	seen[6] = madvise_populate(mm, fb, 32 * PAGE_SIZE, false);
	seen[7] = (int64_t)(counter(SIM_PGFAULT) - f0);
	seen[8] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[9] = mm->rss_file;
	bb = vm_mmap_file(b, f, 0, 32 * PAGE_SIZE, false, false);
	f0 = counter(SIM_PGFAULT);
	m0 = counter(SIM_PGMAJFAULT);
	seen[10] = madvise_populate(b, bb, 32 * PAGE_SIZE, false);
	seen[11] = (int64_t)(counter(SIM_PGFAULT) - f0);
	seen[12] = (int64_t)(counter(SIM_PGMAJFAULT) - m0);
	seen[13] = b->rss_file;
	seen[14] = madvise_populate(b, bb, 32 * PAGE_SIZE, true);	/* read-only mapping */

	vm_munmap(mm, base, 8 * PAGE_SIZE);
	vm_munmap(mm, fb, 32 * PAGE_SIZE);
	vm_munmap(b, bb, 32 * PAGE_SIZE);
	sim_file_destroy(f);
	lru_add_drain();
	mm_free(mm);
	mm_free(b);
}

static void test_madv_populate(void **state)
{
	(void)state;
	run_and_free(new_model(false), populate_task);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 8);
	assert_int_equal(seen[2], 8);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 0);
	assert_int_equal(seen[5], 0);
	assert_int_equal(seen[6], 0);
	assert_int_equal(seen[7], 32);
	assert_int_equal(seen[8], 32);
	assert_int_equal(seen[9], 32);
	assert_int_equal(seen[10], 0);
	assert_int_equal(seen[11], 2);
	assert_int_equal(seen[12], 0);
	assert_int_equal(seen[13], 32);
	assert_int_equal(seen[14], -14);
}

/* ---- MPOL_INTERLEAVE ------------------------------------------------------------------ */

/*
 * mbind(MPOL_INTERLEAVE, nodes 0-1) on 8 anonymous pages of a 2 MiB
 * aligned mapping: page i's interleave index is its address >> PAGE_SHIFT,
 * so its node is i % 2; numa_interleave counts 8.  Without a policy every
 * page is on node 0 (the task's bind).  A tmpfs file under an interleave
 * policy: the index is biased by the inode number.
 */
static void interleave_task(void *arg)
{
	struct address_space *t = sim_file_create(4 * PAGE_SIZE, SIM_FILE_TMPFS);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	uint64_t base, plain, tb, i, n0;

	(void)arg;
	base = vm_mmap_anon(mm, 8 * PAGE_SIZE, false);
	plain = vm_mmap_anon(mm, 4 * PAGE_SIZE, false);
	seen[0] = do_mbind(mm, base, 8 * PAGE_SIZE, MPOL_INTERLEAVE, 0x3);
	n0 = counter(SIM_NUMA_INTERLEAVE_HIT);
	for (i = 0; i < 8; i++) {
		handle_mm_fault(find_vma(mm, base), base + i * PAGE_SIZE, true);
		seen[1 + i] = pte_folio(pte_at(mm, base + i * PAGE_SIZE))->nid;
	}
	seen[9] = (int64_t)(counter(SIM_NUMA_INTERLEAVE_HIT) - n0);
	for (i = 0; i < 4; i++) {
		handle_mm_fault(find_vma(mm, plain), plain + i * PAGE_SIZE, true);
		seen[10] += pte_folio(pte_at(mm, plain + i * PAGE_SIZE))->nid;
	}
	seen[11] = do_mbind(mm, base, 8 * PAGE_SIZE, MPOL_INTERLEAVE, 0x4);	/* no node 2 */
	tb = vm_mmap_file(mm, t, 0, 4 * PAGE_SIZE, true, true);
	seen[12] = do_mbind(mm, tb, 4 * PAGE_SIZE, MPOL_INTERLEAVE, 0x3);
	for (i = 0; i < 4; i++) {
		handle_mm_fault(find_vma(mm, tb), tb + i * PAGE_SIZE, true);
		seen[13 + i] = t->i_pages[i]->nid;
	}
	seen[17] = (int64_t)t->i_ino;
	vm_munmap(mm, base, 8 * PAGE_SIZE);
	vm_munmap(mm, plain, 4 * PAGE_SIZE);
	vm_munmap(mm, tb, 4 * PAGE_SIZE);
	sim_file_destroy(t);
	lru_add_drain();
	mm_free(mm);
}

static void test_interleave(void **state)
{
	int i;

	(void)state;
	run_and_free(new_model(false), interleave_task);
	assert_int_equal(seen[0], 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(seen[1 + i], i % 2);
	assert_int_equal(seen[9], 8);
	assert_int_equal(seen[10], 0);
	assert_int_equal(seen[11], -22);
	assert_int_equal(seen[12], 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(seen[13 + i], (seen[17] + i) % 2);
}

/* ---- readahead's folio sizes, and faults that map whole folios ---------------------- */

/* Folios of the page cache by order, each counted once. */
static void count_orders(struct address_space *f, int64_t *by_order)
{
	uint64_t i = 0;

	while (i < f->nr_slots) {
		struct folio *folio = f->i_pages[i];

		if (!folio) {
			i++;
			continue;
		}
		by_order[folio_order(folio)]++;
		i = folio->index + (uint64_t)folio_nr_pages(folio);
	}
}

/*
 * A 128 MiB sparse file read 64 KiB at a time, as the live executor fills
 * one (wl_sparse_file()), at the read_ahead_kb in seen[40]: the folios by
 * order in seen[0..9].  Then mapped shared and written one store a page,
 * faulting only where nothing maps the page yet: the faults (seen[10]),
 * the PMD mappings (seen[11]), rss_file and NR_FILE_MAPPED (seen[12],
 * seen[13]); after munmap NR_FILE_MAPPED and NR_FILE_DIRTY (seen[14],
 * seen[15]); after the file is dropped NR_FILE_PAGES (seen[16]).
 */
static void readahead_task(void *arg)
{
	uint64_t size = 128ULL << 20, pos, base, addr, f0;
	struct address_space *f = sim_file_create_sparse(size);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	struct vm_area_struct *vma;

	(void)arg;
	switch_mm_irqs_off(mm);
	for (pos = 0; pos < size; pos += 64 * 1024)
		filemap_read(f, pos, 64 * 1024, sim_mm->root_memcg);
	count_orders(f, seen);
	base = vm_mmap_file(mm, f, 0, size, true, true);
	vma = find_vma(mm, base);
	f0 = counter(SIM_PGFAULT);
	for (addr = base; addr < base + size; addr += PAGE_SIZE)
		if (!vma->pmd_huge[vma_pmd_index(vma, addr)] &&
		    !pte_present(*vma_pte_lookup(vma, addr)))
			handle_mm_fault(vma, addr, true);
	seen[10] = (int64_t)(counter(SIM_PGFAULT) - f0);
	seen[11] = (int64_t)vma->nr_pmd_huge;
	seen[12] = mm->rss_file;
	seen[13] = global_node_page_state(NR_FILE_MAPPED);
	vm_munmap(mm, base, size);
	seen[14] = global_node_page_state(NR_FILE_MAPPED);
	seen[15] = global_node_page_state(NR_FILE_DIRTY);
	sim_file_destroy(f);
	seen[16] = global_node_page_state(NR_FILE_PAGES);
	mm_free(mm);
}

static void run_readahead(uint64_t read_ahead_kb)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 2, .seed = 1, .check = true };
	struct sim_engine *e;
	char err[128];

	test_profile(&prof, 2, 1, 1);
	prof.mm_read_ahead_kb = read_ahead_kb;
	e = sim_engine_create(&o);
	assert_non_null(e);
	assert_non_null(mm_model_create(e, &v_base, 1L << 16, err, sizeof(err)));
	memset(seen, 0, sizeof(seen));
	run_and_free(e, readahead_task);
}

/*
 * Linux 6.18.44 on this project's guest, read_ahead_kb 8192, the same
 * reads (/proc/kpageflags over a mapping of the file): 64 folios of order
 * 0, 64 of 2, 32 of 4, 17 of 6, 1 of 7, 8 of 8, 56 of 9; a pass of
 * stores faults 242 times (getrusage), once per folio, and 56 folios are
 * PMD-mapped (FilePmdMapped 114688 kB in smaps).
 */
static void test_readahead_folio_orders(void **state)
{
	(void)state;
	run_readahead(8192);
	assert_int_equal(seen[0], 64);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[2], 64);
	assert_int_equal(seen[4], 32);
	assert_int_equal(seen[6], 17);
	assert_int_equal(seen[7], 1);
	assert_int_equal(seen[8], 8);
	assert_int_equal(seen[9], 56);
	assert_int_equal(seen[10], 242);
	assert_int_equal(seen[11], 56);
	assert_int_equal(seen[12], 32768);
	assert_int_equal(seen[13], 32768);
	assert_int_equal(seen[14], 0);
	assert_int_equal(seen[15], 32768);
	assert_int_equal(seen[16], 0);
}

/*
 * The kernel's default window, 128 KiB (32 pages): the first window 32
 * pages of order 0 (get_init_ra_size(16, 32) = 32), then 32-page windows
 * of order 2, 4, then 5 (ilog2(32)) for the rest: 32 + 8 + 2 + 1021
 * folios; no PMD mapping.
 */
static void test_readahead_default_window(void **state)
{
	(void)state;
	run_readahead(128);
	assert_int_equal(seen[0], 32);
	assert_int_equal(seen[2], 8);
	assert_int_equal(seen[4], 2);
	assert_int_equal(seen[5], 1021);
	assert_int_equal(seen[9], 0);
	assert_int_equal(seen[10], 32 + 8 + 2 + 1021);
	assert_int_equal(seen[11], 0);
	assert_int_equal(seen[15], 32768);
}

/*
 * Fault-around's work per folio it finds (filemap_map_pages()): a tmpfs
 * file of 16 pages read page by page through a shared mapping.  Each
 * fault's window is the 16 pages; the fault at page k finds k folios that
 * earlier faults cached and mapped, and tries each: folio_try_get(),
 * folio_trylock(), folio_put() (locked RMWs, lock.atomic_cycles = 10 at
 * 1000 MHz here: 30 ns; at 20 cycles the difference below is 13 x 66 ns),
 * the window's lookup and the PTE looked at (mm.pte_op_ns, 2 x 2 ns) and
 * folio_unlock()'s store with the lines in cache (2 ns).  So the fault at
 * page 14 takes 13 x 36 ns = 468 ns more than the fault at page 1: seen[0]
 * is that difference.  (The kernel's folio_unlock() is a locked xor,
 * folio_xor_flags_has_waiters(); the model's a store: making it an RMW
 * moves reclaim-tlb's goldens, not done here.)
 */
static void fault_around_task(void *arg)
{
	struct address_space *t = sim_file_create(16 * PAGE_SIZE, SIM_FILE_TMPFS);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	sim_time_t took[16], t0;
	uint64_t base;
	int i;

	(void)arg;
	/* no vmstat fold among the 16 pages' NR_FILE_MAPPED (test_vmstat_fold's) */
	sim_mm->stat_threshold[0] = 125;
	switch_mm_irqs_off(mm);
	base = vm_mmap_file(mm, t, 0, 16 * PAGE_SIZE, false, true);
	for (i = 0; i < 16; i++) {
		t0 = sim_now();
		handle_mm_fault(find_vma(mm, base), base + (uint64_t)i * PAGE_SIZE, false);
		took[i] = sim_now() - t0;
	}
	seen[0] = (int64_t)(took[14] - took[1]);
	seen[1] = mm->rss_shmem;
	vm_munmap(mm, base, 16 * PAGE_SIZE);
	sim_file_destroy(t);
	mm_free(mm);
}

static void test_fault_around_per_folio(void **state)
{
	(void)state;
	run_and_free(new_model(false), fault_around_task);
	assert_int_equal(seen[0], 13 * (3 * 10 + 4 + 2) * (int64_t)SIM_NS);
	assert_int_equal(seen[1], 16);
}

/* ---- a new tmpfs page's costs: the i_pages hold and the block accounting ------------- */

/*
 * Four write faults of new tmpfs pages, then the file's truncation
 * (sim_file_destroy()): with mm.i_pages_add_ns 100, mm.shmem_acct_ns 40,
 * mm.shmem_get_ns 25 and mm.i_pages_del_ns 60 against 0, each fault takes
 * 165 ns more (shmem_add_to_page_cache()'s hold, shmem_inode_acct_blocks(),
 * shmem_get_folio_gfp()'s own work) and the truncation 4 x 60 ns more
 * (filemap_remove_folio()'s hold).
 */
static void tmpfs_costs_task(void *arg)
{
	struct address_space *t = sim_file_create(4 * PAGE_SIZE, SIM_FILE_TMPFS);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	sim_time_t t0;
	uint64_t base;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_file(mm, t, 0, 4 * PAGE_SIZE, true, true);
	t0 = sim_now();
	for (int i = 0; i < 4; i++)
		handle_mm_fault(find_vma(mm, base), base + (uint64_t)i * PAGE_SIZE, true);
	seen[0] = (int64_t)(sim_now() - t0);
	vm_munmap(mm, base, 4 * PAGE_SIZE);
	t0 = sim_now();
	sim_file_destroy(t);
	seen[1] = (int64_t)(sim_now() - t0);
	mm_free(mm);
}

static void test_tmpfs_page_costs(void **state)
{
	int64_t took[2][2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct sim_engine *e = new_model(false);

		sim_mm->i_pages_add_ps = (sim_time_t)(k ? 100 : 0) * SIM_NS;
		sim_mm->shmem_acct_ps = (sim_time_t)(k ? 40 : 0) * SIM_NS;
		sim_mm->shmem_get_ps = (sim_time_t)(k ? 25 : 0) * SIM_NS;
		sim_mm->i_pages_del_ps = (sim_time_t)(k ? 60 : 0) * SIM_NS;
		run_and_free(e, tmpfs_costs_task);
		took[k][0] = seen[0];
		took[k][1] = seen[1];
	}
	assert_int_equal(took[1][0] - took[0][0], 4 * 165 * (int64_t)SIM_NS);
	assert_int_equal(took[1][1] - took[0][1], 4 * 60 * (int64_t)SIM_NS);
}

/* ---- a disk file folio's buffer_head passes ------------------------------------------- */

/*
 * A write fault on a shared mapping of a disk file page (a hole: read as
 * zeroes), then the unmap of its dirty PTE: with mm.bh_begin_ns 10,
 * mm.bh_commit_ns 20 and mm.bh_dirty_ns 30 against 0, the fault takes
 * 10 + 20 + 30 + 30 ns more (block_page_mkwrite()'s passes and its
 * folio_mark_dirty(), then fault_dirty_shared_page()'s) and the unmap 30
 * ns more (folio_mark_dirty() of the dirty PTE): one 4K block each.
 */
static void bh_costs_task(void *arg)
{
	struct address_space *f = sim_file_create(PAGE_SIZE, SIM_FILE_DISK);
	struct mm_struct *mm = mm_alloc(sim_mm->root_memcg);
	sim_time_t t0;
	uint64_t base;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_file(mm, f, 0, PAGE_SIZE, true, true);
	t0 = sim_now();
	handle_mm_fault(find_vma(mm, base), base, true);
	seen[0] = (int64_t)(sim_now() - t0);
	t0 = sim_now();
	vm_munmap(mm, base, PAGE_SIZE);
	seen[1] = (int64_t)(sim_now() - t0);
	sim_file_destroy(f);
	mm_free(mm);
}

static void test_buffer_head_costs(void **state)
{
	int64_t took[2][2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct sim_engine *e = new_model(false);

		sim_mm->bh_begin_ps = (sim_time_t)(k ? 10 : 0) * SIM_NS;
		sim_mm->bh_commit_ps = (sim_time_t)(k ? 20 : 0) * SIM_NS;
		sim_mm->bh_dirty_ps = (sim_time_t)(k ? 30 : 0) * SIM_NS;
		run_and_free(e, bh_costs_task);
		took[k][0] = seen[0];
		took[k][1] = seen[1];
	}
	assert_int_equal(took[1][0] - took[0][0], 90 * (int64_t)SIM_NS);
	assert_int_equal(took[1][1] - took[0][1], 30 * (int64_t)SIM_NS);
}

/* ---- vmstat: a node statistic's per-CPU delta and its fold ------------------------- */

/*
 * __mod_node_page_state(): a delta within the CPU's stat_threshold stays in
 * its per-CPU diff (no shared line, no time); past it, the diff is folded
 * into the node's and the global counters, an atomic on each line.  The
 * test machine's node: 1 << 14 pages (64 MiB: 0 in 128 MiB units), 2 CPUs:
 * threshold 2 * fls(2) * (1 + fls(0)) = 4.  cpu0 adds 3 (no fold), then 2
 * (5 > 4: a fold); cpu1 then adds 5 and folds into the lines cpu0 wrote
 * last: two transfers from the other socket.
 */
static struct folio vmstat_folio;

static void vmstat_cpu1(void *arg)
{
	sim_time_t t0;

	(void)arg;
	sim_sleep_ps(SIM_US);			/* after cpu0's */
	t0 = sim_now();
	node_stat_mod_folio(&vmstat_folio, NR_FILE_MAPPED, 5);
	seen[3] = (int64_t)(sim_now() - t0);
	seen[4] = (int64_t)sim_line_transfer_ps(0, 1);
	seen[5] = sim_mm->node_stat_diff[1][0][NR_FILE_MAPPED];
}

static void vmstat_cpu0(void *arg)
{
	sim_time_t t0;

	(void)arg;
	seen[6] = sim_mm->stat_threshold[0];
	t0 = sim_now();
	node_stat_mod_folio(&vmstat_folio, NR_FILE_MAPPED, 3);
	seen[0] = (int64_t)(sim_now() - t0);
	t0 = sim_now();
	node_stat_mod_folio(&vmstat_folio, NR_FILE_MAPPED, 2);
	seen[1] = (int64_t)(sim_now() - t0);
	seen[2] = sim_mm->node_stat_diff[0][0][NR_FILE_MAPPED];
	seen[7] = global_node_page_state(NR_FILE_MAPPED);
}

static void test_vmstat_fold(void **state)
{
	struct sim_engine *e = new_model(false);

	(void)state;
	/* calculate_normal_threshold(), the kernel's formula and cap */
	assert_int_equal(vmstat_normal_threshold(262144, 2), 20);	/* 1 GiB: 2*2*(1+4) */
	assert_int_equal(vmstat_normal_threshold(230400, 16), 40);	/* 900 MiB: 2*5*(1+3) */
	assert_int_equal(vmstat_normal_threshold(6291456, 2), 36);	/* 24 GiB: 2*2*(1+8) */
	assert_int_equal(vmstat_normal_threshold(4194304, 1024), 125);	/* the cap */
	assert_non_null(sim_task_create(e, 0, "cpu0", vmstat_cpu0, NULL));
	assert_non_null(sim_task_create(e, 1, "cpu1", vmstat_cpu1, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	sim_mm->node_stat[0][NR_FILE_MAPPED] = 0;	/* the test's own counts */
	mm_check_final();
	mm_model_destroy(sim_mm);
	sim_engine_destroy(e);
	assert_int_equal(seen[6], 4);
	assert_int_equal(seen[0], 0);		/* within the threshold: the CPU's diff */
	assert_true(seen[1] > 0);		/* the fold's two atomics */
	assert_int_equal(seen[2], 0);		/* folded */
	assert_int_equal(seen[7], 5);		/* the model reads the exact sum */
	assert_true(seen[3] >= 2 * seen[4]);	/* two lines cpu0 wrote last */
	assert_true(seen[3] > seen[1]);
	assert_int_equal(seen[5], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_fault_miss_then_hit),
		cmocka_unit_test(test_tmpfs_page_costs),
		cmocka_unit_test(test_buffer_head_costs),
		cmocka_unit_test(test_mglru_file_lists),
		cmocka_unit_test(test_concurrent_miss),
		cmocka_unit_test(test_memcg_reclaims_page_cache),
		cmocka_unit_test(test_private_write_copies),
		cmocka_unit_test(test_shared_write_dirty),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_truncate_every_mapping),
		cmocka_unit_test(test_fork_cow),
		cmocka_unit_test(test_fork_parent_unmaps),
		cmocka_unit_test(test_sim_fork),
		cmocka_unit_test(test_shared_anon_fork),
		cmocka_unit_test(test_mprotect),
		cmocka_unit_test(test_madv_pageout),
		cmocka_unit_test(test_madv_populate),
		cmocka_unit_test(test_interleave),
		cmocka_unit_test(test_readahead_folio_orders),
		cmocka_unit_test(test_readahead_default_window),
		cmocka_unit_test(test_fault_around_per_folio),
		cmocka_unit_test(test_vmstat_fold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
