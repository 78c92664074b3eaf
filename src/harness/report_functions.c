// SPDX-License-Identifier: GPL-2.0-only
/*
 * The printers of --report functions: each variant's virtual CPU time by
 * modelled kernel function, laid out as `perf report --children` prints
 * it (children %, self %, then the seconds and the calls that perf does
 * not have), and the same rows in JSON.  The rows are gathered by
 * src/engine/funcprof.c; docs/report.md says how to read them beside a
 * live `perf record -g`.
 *
 * Models nothing of the kernel; nothing here runs inside the engine.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>

#include "mmsim/output.h"

/* A row's function as printed: a lock wait is "spin: " and the lock's kernel name. */
static void function_name(const struct sim_function_row *row, char *buf, size_t len)
{
	if (row->lock_wait)
		snprintf(buf, len, "spin: %s", sim_lock_kernel_name(row->name));
	else
		snprintf(buf, len, "%s", row->name);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static double seconds(uint64_t ps)
{
	return (double)ps / 1e12;
}

/**
 * sim_print_functions() - one table per variant: CPU time by function
 * @o: the sink
 * @r: the results; variants without rows (not asked for) are skipped
 *
 * Rows sorted by children time, as `perf report --children`; percentages
 * of the total virtual CPU time of the variant's vCPUs (busy, spinning
 * included: what perf's cpu-clock samples of the workload would count).
 * "[other]" is the time in no modelled function.
 */
void sim_print_functions(struct sim_out *o, const struct sim_report *r)
{
	int v, i;

	for (v = 0; v < r->nr_res; v++) {
		const struct sim_functions *f = &r->res[v].functions;

		if (!f->nr)
			continue;
		sim_out_printf(o, "\nfunctions: %s (perf report --children; %% of %.6f s, the virtual "
			       "CPU time of its %d vCPU%s, busy or spinning; %.6f s spinning)\n",
			       r->res[v].name, seconds(f->cpu_ps), r->res[v].nr_cpus,
			       r->res[v].nr_cpus == 1 ? "" : "s", seconds(f->spin_ps));
		sim_out_printf(o, "children %%    self %%  children (s)      self (s)       calls  function\n");
		for (i = 0; i < f->nr; i++) {
			const struct sim_function_row *row = &f->rows[i];
			char name[SIM_FUNCTION_NAME + 8], calls[24];

			function_name(row, name, sizeof(name));
			if (row->calls)
				snprintf(calls, sizeof(calls), "%" PRIu64, row->calls);
			else
				snprintf(calls, sizeof(calls), "-");
			sim_out_printf(o, "%9.2f%% %8.2f%% %13.6f %13.6f %11s  %s\n",
				       pct(row->children_ps, f->cpu_ps), pct(row->self_ps, f->cpu_ps),
				       seconds(row->children_ps), seconds(row->self_ps), calls, name);
		}
		if (f->nr_left_out)
			sim_out_printf(o, "(%d more functions, the smallest, not shown)\n",
				       f->nr_left_out);
		if (f->dropped)
			sim_out_printf(o, "(%" PRIu64 " spans ended out of order or past the "
				       "table's room: their time is in the function below them)\n",
				       f->dropped);
	}
}

/**
 * sim_functions_json() - a variant's --report functions rows as JSON
 * @f: the rows
 *
 * Return: a new array of {"function", "lock_wait", "children_pct",
 * "self_pct", "children_s", "self_s", "calls"}, in the table's order.
 */
struct json_t *sim_functions_json(const struct sim_functions *f)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < f->nr; i++) {
		const struct sim_function_row *row = &f->rows[i];
		char name[SIM_FUNCTION_NAME + 8];
		json_t *one = json_object();

		function_name(row, name, sizeof(name));
		json_object_set_new(one, "function", json_string(name));
		json_object_set_new(one, "lock_wait", json_boolean(row->lock_wait));
		json_object_set_new(one, "children_pct", json_real(pct(row->children_ps, f->cpu_ps)));
		json_object_set_new(one, "self_pct", json_real(pct(row->self_ps, f->cpu_ps)));
		json_object_set_new(one, "children_s", json_real(seconds(row->children_ps)));
		json_object_set_new(one, "self_s", json_real(seconds(row->self_ps)));
		json_object_set_new(one, "calls", json_integer((json_int_t)row->calls));
		json_array_append_new(a, one);
	}
	return a;
}
