/* SPDX-License-Identifier: GPL-2.0-only */
/* ASan needs to be told when the stack changes; a no-op without ASan. */
#ifndef MMSIM_ASAN_FIBER_H
#define MMSIM_ASAN_FIBER_H

#include <stddef.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define SIM_ASAN 1
#else
#define SIM_ASAN 0
#endif

struct sim_fiber_bounds {
	const void *bottom;		/* lowest address of the stack */
	size_t size;
	void *fake_stack;		/* ASan's fake stack while switched out */
};

static inline void sim_fiber_leave(struct sim_fiber_bounds *from,
				   const struct sim_fiber_bounds *to, int dying)
{
#if SIM_ASAN
	__sanitizer_start_switch_fiber(dying ? NULL : &from->fake_stack,
				       to->bottom, to->size);
#endif
	(void)from; (void)to; (void)dying;
}

static inline void sim_fiber_arrive(struct sim_fiber_bounds *self,
				    struct sim_fiber_bounds *prev)
{
#if SIM_ASAN
	const void *bottom;
	size_t size;

	__sanitizer_finish_switch_fiber(self->fake_stack, &bottom, &size);
	/* The main thread's stack bounds are learnt on the first switch. */
	if (prev && !prev->bottom) {
		prev->bottom = bottom;
		prev->size = size;
	}
#endif
	(void)self; (void)prev;
}

#endif
