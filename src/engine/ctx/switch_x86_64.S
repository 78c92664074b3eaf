/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim_ctx_swap(void **save_sp, void *load_sp): save the callee-saved
 * registers of the System V x86-64 ABI on the current stack, store the
 * stack pointer in *save_sp, load load_sp and restore the same registers
 * from there.  A new context's stack is laid out by ctx_asm.c so that the
 * final `ret` enters its entry function.
 */
	.text
	.globl	sim_ctx_swap
	.type	sim_ctx_swap, @function
sim_ctx_swap:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size	sim_ctx_swap, .-sim_ctx_swap
	.section .note.GNU-stack,"",@progbits
