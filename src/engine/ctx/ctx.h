/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Context-switch backends.  A context is a saved stack pointer (assembly
 * backends) or a ucontext (portable fallback).  Only this directory knows
 * which architecture it runs on.
 */
#ifndef MMSIM_CTX_H
#define MMSIM_CTX_H

#include <stddef.h>

struct sim_ctx;

/* The context of the thread that calls it (the engine's main loop). */
struct sim_ctx *sim_ctx_create_main(void);
/* A context that starts @entry on @stack (of @size bytes) when first switched to. */
struct sim_ctx *sim_ctx_create(void *stack, size_t size, void (*entry)(void));
void sim_ctx_destroy(struct sim_ctx *ctx);
/*
 * Save the running context in @from and resume @to.  @dying says @from
 * will never be resumed (its stack may be freed), for ASan's bookkeeping.
 */
void sim_ctx_switch(struct sim_ctx *from, struct sim_ctx *to, int dying);
/* Called first thing by a new context's entry function. */
void sim_ctx_started(struct sim_ctx *self);
/* Name of the backend, for reports. */
const char *sim_ctx_backend(void);

#endif
