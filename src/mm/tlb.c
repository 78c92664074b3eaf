// SPDX-License-Identifier: GPL-2.0-only
/*
 * TLB flushing on x86 (arch/x86/mm/tlb.c, v6.6 plus the 2025 change that
 * trims mm_cpumask at most once a second).
 *
 * Mirrors flush_tlb_mm_range() (a full flush above
 * tlb_single_page_flush_ceiling pages), native_flush_tlb_multi() (IPIs
 * through smp_call_function_many_cond(), with should_flush_tlb() as the
 * condition unless page tables were freed), flush_tlb_func() on each CPU,
 * and switch_mm_irqs_off() for mm_cpumask and the loaded mm.  The flush
 * itself costs tlb.flush_all_ns or tlb.invlpg_ns per page; a CPU with a
 * TLB model (vcpu->tlb) also loses the entries (see the khugepaged issue).
 *
 * arch_tlbbatch_flush() is reclaim's batched flush (seed 003): always a
 * full flush with mm == NULL, to the union of the unmapped mms' cpumasks.
 * mm_cpumask is trimmed at most once a second (should_trim_cpumask()):
 * a flush of such an mm also goes to CPUs that left it, and they clear
 * themselves from the mask.
 *
 * Context switches (the engine's finish_task_switch() calls
 * switch_mm_irqs_off() for a task with an mm): the CPU sets its bit in the
 * next mm's cpumask and never clears it on switching away (v6.14+); only a
 * trimming flush clears it.  A CPU running a kernel thread or nothing is
 * lazy (enter_lazy_tlb(): cpu_tlbstate_shared.is_lazy) and skipped by
 * should_flush_tlb(); when it switches back to the mm it still has loaded,
 * it compares the mm's tlb_gen with the one it last flushed to and flushes
 * if behind, as switch_mm_irqs_off() does with cpu_tlbstate.ctxs[].
 *
 * Left out: INVLPGB, the partial (INVLPG) catch-up of flush_tlb_func()
 * (every flush request is acted on as asked), PCID allocation (one ASID
 * per mm; a switch to another mm drops that mm's entries from the CPU's
 * TLB model, as if its ASID had been reused: the model keeps one
 * generation per CPU, not one per ASID).
 */
#include "mm/mm.h"

struct flush_tlb_info {
	struct mm_struct *mm;		/* NULL: flush every mm (reclaim batch) */
	uint64_t start, end;
	bool freed_tables;
	bool trim_cpumask;		/* should_trim_cpumask(): stale CPUs leave */
	int initiating_cpu;
};

/* Hook for a per-CPU TLB model: flush @asid's [start, end) on @cpu. */
void (*arch_tlb_flush_hook)(int cpu, struct mm_struct *mm, uint64_t start, uint64_t end);

static void flush_tlb_func(void *arg)
{
	const struct flush_tlb_info *f = arg;
	struct sim_vcpu *v = sim_this_vcpu();
	struct mm_struct *loaded = v->loaded_mm;
	bool local = v->id == f->initiating_cpu;
	uint64_t nr;

	if (!local)
		count_event(SIM_NR_TLB_REMOTE_FLUSH_RECEIVED);
	if (f->mm && f->mm != loaded) {
		/* switched away meanwhile: leave the mm's cpumask (trim) */
		if (f->trim_cpumask && cpumask_test_cpu(v->id, &f->mm->cpumask)) {
			cpumask_clear_cpu(v->id, &f->mm->cpumask);
			sim_line_write(&f->mm->line);
		}
		return;
	}
	nr = (f->end - f->start) >> PAGE_SHIFT;
	if (f->end == TLB_FLUSH_ALL || nr > sim_mm->prof->tlb_single_page_flush_ceiling) {
		sim_cost_cpu_ps(sim_mm->prof->tlb_flush_all_ns * SIM_NS);
		if (local)
			count_event(SIM_NR_TLB_LOCAL_FLUSH_ALL);
	} else {
		sim_cost_cpu_ps(sim_mm->prof->tlb_invlpg_ns * nr * SIM_NS);
		if (local)
			count_events(SIM_NR_TLB_LOCAL_FLUSH_ONE, nr);
	}
	if (arch_tlb_flush_hook)
		arch_tlb_flush_hook(v->id, f->mm ? f->mm : loaded, f->start, f->end);
	if (loaded)
		v->loaded_tlb_gen = loaded->tlb_gen;	/* ctxs[asid].tlb_gen */
}

/*
 * should_flush_tlb(): skip CPUs in lazy TLB mode (idle: they flush at the
 * next switch); flush a CPU for a request without an mm (the reclaim
 * batch), one running the mm, or any CPU when the mm's cpumask is trimmed.
 */
static bool should_flush_tlb(int cpu, void *arg)
{
	const struct flush_tlb_info *f = arg;
	struct sim_vcpu *v = sim_engine_vcpu(sim_engine_current, cpu);

	if (!v->curr || !v->curr->mm)
		return false;		/* idle or a kthread: cpu_tlbstate_shared.is_lazy */
	if (!f->mm)
		return true;
	if (v->loaded_mm == f->mm)
		return true;
	return f->trim_cpumask;
}

/* should_trim_cpumask(): at most once a second per mm. */
static bool should_trim_cpumask(struct mm_struct *mm)
{
	if (sim_now() >= mm->next_trim_cpumask) {
		mm->next_trim_cpumask = sim_now() + SIM_SEC;
		return true;
	}
	return false;
}

static void flush_tlb_multi(const struct cpumask *cpumask, struct flush_tlb_info *info)
{
	count_event(SIM_NR_TLB_REMOTE_FLUSH);
	smp_call_function_many_cond(cpumask, flush_tlb_func, info, true,
				    info->freed_tables ? NULL : should_flush_tlb, true, true);
}

/**
 * flush_tlb_mm_range - flush [@start, @end) of @mm on every CPU that may cache it
 * @mm: the mm
 * @start: first byte
 * @end: end, or TLB_FLUSH_ALL
 * @freed_tables: page tables were freed (lazy CPUs must flush too)
 *
 * Context: no spinlock held with IRQs off (it waits for IPIs).
 */
void flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end, bool freed_tables)
{
	struct flush_tlb_info info = {
		.mm = mm, .start = start, .end = end, .freed_tables = freed_tables,
		.initiating_cpu = smp_processor_id(),
	};
	int cpu = smp_processor_id();
	struct cpumask others = mm->cpumask;
	SIM_TRACE_SCOPE("mm", "flush_tlb_mm_range");

	if (end != TLB_FLUSH_ALL &&
	    ((end - start) >> PAGE_SHIFT) > sim_mm->prof->tlb_single_page_flush_ceiling) {
		info.start = 0;
		info.end = TLB_FLUSH_ALL;
	}
	mm->tlb_gen++;			/* inc_mm_tlb_gen() */
	sim_line_write(&mm->line);
	cpumask_clear_cpu(cpu, &others);
	if (!cpumask_empty(&others)) {
		info.trim_cpumask = should_trim_cpumask(mm);
		flush_tlb_multi(&mm->cpumask, &info);
	}
	else if (sim_this_vcpu()->loaded_mm == mm) {
		local_irq_disable();
		flush_tlb_func(&info);
		local_irq_enable();
	}
}

/**
 * switch_mm_irqs_off - load @next on this CPU and join its mm_cpumask
 * @next: the mm of the task that now runs here; it becomes the task's mm
 *
 * Same mm as loaded (the CPU was lazy in between): flush if the mm's
 * tlb_gen moved past the one this CPU flushed to.  Another mm: the CR3
 * write, the cpumask bit (kept when the CPU later switches away).
 * Context: the task itself, on its vCPU.
 */
void switch_mm_irqs_off(struct mm_struct *next)
{
	struct sim_vcpu *v = sim_this_vcpu();

	sim_current()->mm = next;
	if (v->loaded_mm == next) {
		if (v->loaded_tlb_gen != next->tlb_gen) {
			/* a flush skipped this lazy CPU: catch up now */
			sim_cost_cpu_ps(sim_mm->prof->tlb_flush_all_ns * SIM_NS);
			count_event(SIM_NR_TLB_LOCAL_FLUSH_ALL);
			if (arch_tlb_flush_hook)
				arch_tlb_flush_hook(v->id, next, 0, TLB_FLUSH_ALL);
			v->loaded_tlb_gen = next->tlb_gen;
		}
		return;
	}
	v->loaded_mm = next;
	v->loaded_tlb_gen = next->tlb_gen;
	if (!cpumask_test_cpu(v->id, &next->cpumask)) {
		cpumask_set_cpu(v->id, &next->cpumask);
		sim_line_write(&next->line);
	}
	if (arch_tlb_flush_hook)
		arch_tlb_flush_hook(v->id, next, 0, TLB_FLUSH_ALL);
	sim_cost_cpu_ps(sim_mm->prof->tlb_flush_all_ns * SIM_NS);	/* CR3 write */
}

static void switch_mm_hook(struct sim_task *next)
{
	switch_mm_irqs_off(next->mm);
}

/* Install the context-switch hook (mm_model_create()). */
void mm_switch_hook_install(bool on)
{
	sim_switch_mm_hook = on ? switch_mm_hook : NULL;
}

/**
 * arch_tlbbatch_flush - flush the reclaim batch's CPUs: a full flush, mm == NULL
 * @batch: the task's tlbflush_unmap_batch; its cpumask is cleared
 *
 * IPIs go to every CPU of the accumulated mask but this one, lazy CPUs
 * excepted (should_flush_tlb()); this CPU flushes locally if in the mask.
 * Context: no spinlock held, IRQs on (waits for the IPIs).
 */
void arch_tlbbatch_flush(struct tlbflush_unmap_batch *batch)
{
	struct flush_tlb_info info = {
		.mm = NULL, .start = 0, .end = TLB_FLUSH_ALL,
		.initiating_cpu = smp_processor_id(),
	};
	int cpu = smp_processor_id();
	struct cpumask others = batch->cpumask;
	SIM_TRACE_SCOPE("reclaim", "arch_tlbbatch_flush");

	count_event(SIM_SIM_TLBBATCH_FLUSH);
	cpumask_clear_cpu(cpu, &others);
	if (!cpumask_empty(&others)) {
		flush_tlb_multi(&batch->cpumask, &info);
	} else if (cpumask_test_cpu(cpu, &batch->cpumask)) {
		local_irq_disable();
		flush_tlb_func(&info);
		local_irq_enable();
	}
	cpumask_clear(&batch->cpumask);
	batch->unmapped_pages = false;
}
