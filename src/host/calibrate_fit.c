// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate`: the model's kernel-internal costs (mm.*), fitted to
 * the single-thread kernel paths that calibrate_kernel.c timed.
 */
#include "host/calibrate.h"

void cal_fit(struct cal_run *r, const char *include)
{
	(void)r;
	(void)include;
}
