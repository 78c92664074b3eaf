// SPDX-License-Identifier: GPL-2.0-only
/*
 * VMAs (src/mm/mmap.c) and the per-VMA lock (src/mm/memory.c), with
 * answers worked out by hand on the test machine of engine_util.h
 * (1 socket x 4 cores here; 1 cycle = 1 ns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mm/mm.h"
#include "mmsim/scenario.h"

#define MIB	(1ULL << 20)

static const struct mm_variant v_plain = { .name = "unqueued" };
static struct sim_profile prof;
static struct sim_engine *eng;
static struct mm_model *model;
static struct mm_struct *mm;

static void setup(int cpus)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = cpus, .seed = 1, .check = true };
	char err[128];

	test_profile(&prof, 1, 4, 1);
	eng = sim_engine_create(&o);
	assert_non_null(eng);
	model = mm_model_create(eng, &v_plain, 1L << 18, err, sizeof(err));
	assert_non_null(model);
	model->mthp_order = 2;
}

static void teardown(void)
{
	mm_free(mm);
	mm = NULL;
	mm_model_destroy(model);
	sim_engine_destroy(eng);
}

/*
 * Three 16 MiB mappings, top-down from mmap_base (2^46): a at 2^46 - 16M,
 * b below it, c below b, each ending where the one above starts, so they
 * merge into one VMA [c, a + 16M).  munmap(b) splits it: c keeps the VMA
 * (now [c, b)), a gets a new one [a, a + 16M), with the same anon_vma.
 * The next 16 MiB mmap fills the highest gap, b's, and merges all three
 * again.
 */
static uint64_t a, b, c, b2;
static struct vma_merged *m_abc, *m_a, *m_c, *m_again;
static uint64_t m_abc_start, m_abc_end, m_c_end, m_a_start;
static int m_abc_nr;
static bool anon_after_split;

static void merge_split_body(void *arg)
{
	(void)arg;
	mm = mm_alloc(sim_mm->root_memcg);
	a = vm_mmap_anon(mm, 16 * MIB, true);
	b = vm_mmap_anon(mm, 16 * MIB, true);
	c = vm_mmap_anon(mm, 16 * MIB, true);
	/* the first fault prepares the VMA's anon_vma */
	assert_int_equal(do_user_addr_fault(mm, a, true), 0);
	m_abc = find_vma(mm, b)->merged;
	m_abc_start = m_abc->vm_start;
	m_abc_end = m_abc->vm_end;
	m_abc_nr = m_abc->nr_mappings;
	assert_ptr_equal(find_vma(mm, a)->merged, m_abc);
	assert_ptr_equal(find_vma(mm, c)->merged, m_abc);
	assert_int_equal(vm_munmap(mm, b, 16 * MIB), 0);
	m_a = find_vma(mm, a)->merged;
	m_c = find_vma(mm, c)->merged;
	m_c_end = m_c->vm_end;
	m_a_start = m_a->vm_start;
	anon_after_split = m_a->anon_vma && m_c->anon_vma;
	b2 = vm_mmap_anon(mm, 16 * MIB, true);
	m_again = find_vma(mm, b2)->merged;
	assert_ptr_equal(find_vma(mm, a)->merged, m_again);
	assert_ptr_equal(find_vma(mm, c)->merged, m_again);
	assert_int_equal(m_again->vm_start, c);
	assert_int_equal(m_again->vm_end, a + 16 * MIB);
	assert_int_equal(m_again->nr_mappings, 3);
	assert_int_equal(vm_munmap(mm, a, 16 * MIB), 0);
	assert_int_equal(vm_munmap(mm, b2, 16 * MIB), 0);
	assert_int_equal(vm_munmap(mm, c, 16 * MIB), 0);
	assert_true(list_empty(&mm->vmas));
}

static void test_vma_merge_and_split(void **state)
{
	(void)state;
	setup(1);
	assert_non_null(sim_task_create(eng, 0, "t", merge_split_body, NULL));
	assert_int_equal(sim_engine_run(eng, NULL, 0), 0);
	assert_int_equal(a, (1ULL << 46) - 16 * MIB);
	assert_int_equal(b, a - 16 * MIB);
	assert_int_equal(c, b - 16 * MIB);
	assert_int_equal(m_abc_start, c);
	assert_int_equal(m_abc_end, a + 16 * MIB);
	assert_int_equal(m_abc_nr, 3);
	assert_true(m_a != m_c);
	assert_int_equal(m_c_end, b);
	assert_int_equal(m_a_start, a);
	assert_true(anon_after_split);
	assert_int_equal(b2, b);
	mm_check_final();
	teardown();
}

/*
 * CPU 0 write-locks the VMA under mmap_lock at t0 and holds both for
 * 20 us.  CPU 1 faults in it at t0 + 5 us: lock_vma_under_rcu() sees the
 * VMA write-locked (vma_lock_abort), the fault takes mmap_lock for
 * reading and waits for CPU 0's unlock; it completes after it.  A second
 * fault, after the unlock, takes the VMA lock alone.
 */
static sim_time_t t_unlock, t_fault_done, t_fault_start;
static uint64_t base, aborts_mid, aborts_end;

static void writer_body(void *arg)
{
	struct vma_merged *vm;

	(void)arg;
	mm = mm_alloc(sim_mm->root_memcg);
	base = vm_mmap_anon(mm, 2 * MIB, true);
	assert_int_equal(do_user_addr_fault(mm, base, true), 0);	/* anon_vma */
	mmap_write_lock(mm);
	vm = find_vma(mm, base)->merged;
	vma_start_write(vm, mm);
	assert_true(vma_is_write_locked(vm, mm));
	sim_sleep_ps(20 * (1000 * SIM_NS));
	t_unlock = sim_now();
	mmap_write_unlock(mm);
	assert_false(vma_is_write_locked(vm, mm));
}

static void faulter_body(void *arg)
{
	uint64_t *c = sim_engine_counters(eng);

	(void)arg;
	sim_sleep_ps(5 * (1000 * SIM_NS));
	t_fault_start = sim_now();
	assert_int_equal(do_user_addr_fault(mm, base + 16384, true), 0);
	t_fault_done = sim_now();
	aborts_mid = c[SIM_VMA_LOCK_ABORT];
	assert_int_equal(do_user_addr_fault(mm, base + 32768, true), 0);
	aborts_end = c[SIM_VMA_LOCK_ABORT];
}

static void test_fault_falls_back_to_mmap_lock(void **state)
{
	struct lock_class_stat *ml;

	(void)state;
	setup(2);
	assert_non_null(sim_task_create(eng, 0, "writer", writer_body, NULL));
	assert_non_null(sim_task_create(eng, 1, "faulter", faulter_body, NULL));
	assert_int_equal(sim_engine_run(eng, NULL, 0), 0);
	assert_true(t_fault_start < t_unlock);
	assert_true(t_fault_done > t_unlock);
	assert_int_equal(aborts_mid, 1);
	assert_int_equal(aborts_end, 1);
	ml = sim_lock_class(eng, "mmap_lock");
	/* the fault waited as a reader (rwsem stats keep the sides apart) */
	assert_true(ml->rwsem);
	assert_int_equal(ml->read.contentions, 1);
	assert_int_equal(ml->contentions, 0);
	assert_true(ml->read.wait_total >= t_unlock - t_fault_start - (1000 * SIM_NS));
	teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vma_merge_and_split),
		cmocka_unit_test(test_fault_falls_back_to_mmap_lock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
