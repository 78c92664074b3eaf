// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: hardware event counts through perf_event_open(2).
 *
 * Counts dTLB-load-misses (PERF_TYPE_HW_CACHE, L1 dTLB, read, miss: what
 * `perf stat -e dTLB-load-misses` counts; on Intel that is page walks
 * caused by loads), cycles and instructions, for one process and, with
 * inherit, the threads and children it creates after the counters open.
 *
 * Each event is opened alone, not as a group, so that a machine without
 * one event (a VM without a virtual PMU has none) still counts the others;
 * an event that cannot be opened keeps its errno for the "unavailable"
 * line.  Counts are scaled by time_enabled/time_running when the kernel
 * had to multiplex them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/live_internal.h"

const char *const live_perf_names[LIVE_PERF_NR] = {
	[LIVE_PERF_DTLB_LOAD_MISSES] = "dTLB-load-misses",
	[LIVE_PERF_CYCLES] = "cycles",
	[LIVE_PERF_INSTRUCTIONS] = "instructions",
};

static void live_perf_attr(enum live_perf_event e, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	switch (e) {
	case LIVE_PERF_DTLB_LOAD_MISSES:
		a->type = PERF_TYPE_HW_CACHE;
		a->config = PERF_COUNT_HW_CACHE_DTLB |
			    (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
		break;
	case LIVE_PERF_CYCLES:
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
		break;
	default:
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_INSTRUCTIONS;
		break;
	}
	a->disabled = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/**
 * live_perf_open - open the counters, disabled, on a process
 * @p: filled with one fd (or errno) per event
 * @pid: the process; 0 is the caller
 * @inherit: also count threads and children created afterwards
 *
 * Context: may block.  Never fails as a whole: see @p->err.
 */
void live_perf_open(struct live_perf *p, pid_t pid, bool inherit)
{
	for (int e = 0; e < LIVE_PERF_NR; e++) {
		struct perf_event_attr a;
		long fd;

		live_perf_attr(e, &a);
		a.inherit = inherit;
		fd = syscall(SYS_perf_event_open, &a, pid, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
		p->fd[e] = fd < 0 ? -1 : (int)fd;
		p->err[e] = fd < 0 ? errno : 0;
	}
}

/**
 * live_perf_enable - start counting
 * @p: the counters
 *
 * Context: any.
 */
void live_perf_enable(struct live_perf *p)
{
	for (int e = 0; e < LIVE_PERF_NR; e++)
		if (p->fd[e] >= 0)
			ioctl(p->fd[e], PERF_EVENT_IOC_ENABLE, 0);
}

/**
 * live_perf_disable - stop counting
 * @p: the counters
 *
 * Context: any.
 */
void live_perf_disable(struct live_perf *p)
{
	for (int e = 0; e < LIVE_PERF_NR; e++)
		if (p->fd[e] >= 0)
			ioctl(p->fd[e], PERF_EVENT_IOC_DISABLE, 0);
}

/**
 * live_perf_read - one event's count, scaled for multiplexing
 * @p: the counters
 * @e: which event
 * @v: its count
 *
 * Context: any.
 * Return: false when the event is unavailable or never ran.
 */
bool live_perf_read(const struct live_perf *p, enum live_perf_event e,
		    uint64_t *v)
{
	uint64_t buf[3];

	if (p->fd[e] < 0 || read(p->fd[e], buf, sizeof(buf)) != sizeof(buf))
		return false;
	if (!buf[2])
		return false;
	*v = buf[2] == buf[1] ? buf[0] :
	     (uint64_t)((double)buf[0] * (double)buf[1] / (double)buf[2]);
	return true;
}

/**
 * live_perf_close - close the counters
 * @p: the counters; safe to call twice
 *
 * Context: any.
 */
void live_perf_close(struct live_perf *p)
{
	for (int e = 0; e < LIVE_PERF_NR; e++) {
		if (p->fd[e] >= 0)
			close(p->fd[e]);
		p->fd[e] = -1;
	}
}
