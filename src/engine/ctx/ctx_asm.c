// SPDX-License-Identifier: GPL-2.0-only
/*
 * Assembly context-switch backend (x86-64 and AArch64).  A context is the
 * saved stack pointer; switch_*.S saves and restores the callee-saved
 * registers.  About 20 instructions per switch, no system call.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ctx/asan_fiber.h"
#include "engine/ctx/ctx.h"

struct sim_ctx {
	void *sp;			/* saved stack pointer */
	struct sim_fiber_bounds fiber;	/* for ASan */
};

void sim_ctx_swap(void **save_sp, void *load_sp);

static struct sim_ctx *ctx_prev;	/* the context switched away from */

const char *sim_ctx_backend(void)
{
#if defined(__x86_64__)
	return "asm-x86_64";
#else
	return "asm-aarch64";
#endif
}

struct sim_ctx *sim_ctx_create_main(void)
{
	return calloc(1, sizeof(struct sim_ctx));
}

struct sim_ctx *sim_ctx_create(void *stack, size_t size, void (*entry)(void))
{
	struct sim_ctx *ctx = calloc(1, sizeof(*ctx));
	uintptr_t top;
	void **sp;

	if (!ctx)
		return NULL;
	ctx->fiber.bottom = stack;
	ctx->fiber.size = size;
	top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
#if defined(__x86_64__)
	/* 6 saved registers, then the entry as return address, then a fake
	 * return address for the entry so that it starts with rsp % 16 == 8. */
	sp = (void **)top - 8;
	memset(sp, 0, 8 * sizeof(void *));
	sp[6] = (void *)entry;
#else
	/* 176-byte frame; the x30 slot (offset 88) holds the entry. */
	sp = (void **)(top - 176);
	memset(sp, 0, 176);
	sp[11] = (void *)entry;
#endif
	ctx->sp = sp;
	return ctx;
}

void sim_ctx_destroy(struct sim_ctx *ctx)
{
	free(ctx);
}

void sim_ctx_switch(struct sim_ctx *from, struct sim_ctx *to, int dying)
{
	sim_fiber_leave(&from->fiber, &to->fiber, dying);
	ctx_prev = from;
	sim_ctx_swap(&from->sp, to->sp);
	sim_fiber_arrive(&from->fiber, &ctx_prev->fiber);
}

void sim_ctx_started(struct sim_ctx *self)
{
	sim_fiber_arrive(&self->fiber, &ctx_prev->fiber);
}
