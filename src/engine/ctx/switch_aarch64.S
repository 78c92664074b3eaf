/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim_ctx_swap(void **save_sp, void *load_sp) for AArch64: saves x19-x30
 * and d8-d15 (the AAPCS64 callee-saved registers) in a 176-byte frame.
 * A new context's frame holds its entry function in the x30 slot.
 */
	.text
	.globl	sim_ctx_swap
	.type	sim_ctx_swap, %function
sim_ctx_swap:
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mov	x2, sp
	str	x2, [x0]
	mov	sp, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #176
	ret
	.size	sim_ctx_swap, .-sim_ctx_swap
	.section .note.GNU-stack,"",@progbits
