// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live executor of workload files: a stub until it lands (its
 * helper's src/workload/live.c replaces this file).
 */
#include <stdio.h>

#include "host/live_internal.h"
#include "mmsim/workload.h"

static enum live_stop workload_live_run(struct live_run *r)
{
	snprintf(r->err, sizeof(r->err), "the live executor is not built yet");
	return LIVE_STOP_ERROR;
}

const struct live_ops workload_live = {
	.summary = "the workload file's tasks with real system calls",
	.run = workload_live_run,
};
