// SPDX-License-Identifier: GPL-2.0-only
/*
 * Portable context-switch backend on ucontext(3).  Correct everywhere
 * glibc runs, but swapcontext() makes a sigprocmask system call on every
 * switch (about 1 us on a VM), so the assembly backends are the default.
 */
#include <stdlib.h>
#include <ucontext.h>

#include "engine/ctx/asan_fiber.h"
#include "engine/ctx/ctx.h"

struct sim_ctx {
	ucontext_t uc;
	struct sim_fiber_bounds fiber;
};

static struct sim_ctx *ctx_prev;

const char *sim_ctx_backend(void)
{
	return "ucontext";
}

struct sim_ctx *sim_ctx_create_main(void)
{
	return calloc(1, sizeof(struct sim_ctx));
}

struct sim_ctx *sim_ctx_create(void *stack, size_t size, void (*entry)(void))
{
	struct sim_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	if (getcontext(&ctx->uc)) {
		free(ctx);
		return NULL;
	}
	ctx->uc.uc_stack.ss_sp = stack;
	ctx->uc.uc_stack.ss_size = size;
	ctx->uc.uc_link = NULL;
	makecontext(&ctx->uc, entry, 0);
	ctx->fiber.bottom = stack;
	ctx->fiber.size = size;
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
	swapcontext(&from->uc, &to->uc);
	sim_fiber_arrive(&from->fiber, &ctx_prev->fiber);
}

void sim_ctx_started(struct sim_ctx *self)
{
	sim_fiber_arrive(&self->fiber, &ctx_prev->fiber);
}
