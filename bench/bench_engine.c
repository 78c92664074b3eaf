// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine benchmark (not a test: the host is shared and noisy).
 * Prints host nanoseconds per context switch (two tasks that sync in turn,
 * so that every sync switches coroutines) and engine events per host
 * second for the spinlock experiment at 80 and 1024 vCPUs.
 * Usage: bench_engine [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mmsim/hw.h"
#include "mmsim/profile.h"
#include "mmsim/sim.h"

static double host_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t pingpong_iters;

static void pingpong(void *arg)
{
	uint64_t i;

	for (i = 0; i < pingpong_iters; i++) {
		sim_cost_ps(1000);
		sim_sync();
	}
}

static struct spinlock lock;
static uint64_t spin_iters;

static void spinner(void *arg)
{
	uint64_t i;

	for (i = 0; i < spin_iters; i++) {
		spin_lock_irq(&lock);
		sim_cost_ns(500);
		spin_unlock_irq(&lock);
		sim_cost_ns(2000);
	}
}

static int run(struct sim_profile *p, int cpus, void (*fn)(void *), double *secs, uint64_t *events)
{
	struct sim_engine_opts o = { .profile = p, .nr_cpus = cpus, .seed = 1 };
	struct sim_engine *e = sim_engine_create(&o);
	double t0;
	int i;

	if (!e)
		return -1;
	spin_lock_init_named(&lock, "spinlock");
	for (i = 0; i < cpus; i++)
		sim_task_create(e, i, "bench", fn, NULL);
	t0 = host_now();
	if (sim_engine_run(e, NULL, 0))
		return -1;
	*secs = host_now() - t0;
	*events = sim_engine_events(e);
	sim_engine_destroy(e);
	return 0;
}

int main(int argc, char **argv)
{
	struct sim_profile p;
	char err[256];
	double secs;
	uint64_t events;

	spin_iters = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
	if (sim_profile_load("skylake-sp-2s", &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	pingpong_iters = 2000000;
	if (run(&p, 2, pingpong, &secs, &events))
		return 1;
	printf("context switch: %.1f ns per switch (%llu switches in %.3f s)\n",
	       secs * 1e9 / (double)events, (unsigned long long)events, secs);

	if (run(&p, 80, spinner, &secs, &events))
		return 1;
	printf("spinlock, 80 vCPUs: %.2f M events per host second (%llu events, %.3f s)\n",
	       (double)events / secs / 1e6, (unsigned long long)events, secs);

	/* The same machine scaled to 8 sockets x 64 cores x 2 threads. */
	p.topology_sockets = 8;
	p.topology_cores_per_socket = 64;
	p.topology_nodes = 8;
	spin_iters = spin_iters / 10 ? spin_iters / 10 : 1;
	if (run(&p, 1024, spinner, &secs, &events))
		return 1;
	printf("spinlock, 1024 vCPUs: %.2f M events per host second (%llu events, %.3f s)\n",
	       (double)events / secs / 1e6, (unsigned long long)events, secs);
	return 0;
}
