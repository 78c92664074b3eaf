// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small engine program for checking a context backend on another
 * architecture (scripts/check_aarch64.sh): 16 vCPUs on one lock.  It links
 * only the engine (no jansson, inih or cmocka), so a cross compiler and
 * qemu-user are all it needs.  Every backend must print the same line.
 */
#include <stdio.h>
#include <string.h>
#include "mmsim/hw.h"
#include "mmsim/profile.h"
#include "engine_util.h"
static struct spinlock lock;
static void worker(void *arg) { for (int i = 0; i < 1000; i++) { spin_lock_irq(&lock); sim_cost_ns(500); spin_unlock_irq(&lock); sim_cost_ns(200); } }
int main(void) {
	struct sim_profile p; test_profile(&p, 1, 16, 1);
	struct sim_engine_opts o = { .profile = &p, .nr_cpus = 16, .seed = 1 };
	struct sim_engine *e = sim_engine_create(&o);
	spin_lock_init_named(&lock, "a");
	for (int i = 0; i < 16; i++) sim_task_create(e, i, "w", worker, NULL);
	if (sim_engine_run(e, NULL, 0)) return 1;
	struct lock_class_stat *s = sim_lock_class(e, "a");
	printf("acq %llu cont %llu wait %llu ps end %llu ps\n", (unsigned long long)s->acquisitions, (unsigned long long)s->contentions, (unsigned long long)s->wait_total, (unsigned long long)sim_engine_end_time(e));
	return 0;
}
/* The trace writer's sink is not used here. */
struct sim_out;
void sim_out_write(struct sim_out *o, const char *s, size_t n) { (void)o; (void)s; (void)n; }
void sim_out_printf(struct sim_out *o, const char *fmt, ...) { (void)o; (void)fmt; }
