/* SPDX-License-Identifier: GPL-2.0-only */
/* A small machine with round numbers, so that tests can work out times by hand. */
#ifndef MMSIM_TEST_ENGINE_UTIL_H
#define MMSIM_TEST_ENGINE_UTIL_H
#include <string.h>
#include "mmsim/profile.h"

/*
 * 2 sockets x 2 cores x 1 thread at 1000 MHz (1 cycle = 1 ns):
 * cpu0, cpu1 on socket 0; cpu2, cpu3 on socket 1.
 * Lines: hit 1 ns, same socket 50 ns, other socket 100 ns.
 * Lock: RMW 10 cycles, PAUSE 0.  IPI: send 20, latency 200, entry/exit 300.
 */
static inline void test_profile(struct sim_profile *p, int sockets, int cores, int threads)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->machine_name, "test");
	p->topology_sockets = (uint64_t)sockets;
	p->topology_cores_per_socket = (uint64_t)cores;
	p->topology_threads_per_core = (uint64_t)threads;
	p->topology_nodes = (uint64_t)sockets;
	p->clock_mhz = 1000;
	p->sched_quantum_ns = 1000;
	p->sched_context_switch_ns = 1000;
	p->sched_wakeup_ns = 500;
	p->sched_slice_us = 100;
	p->sched_smt_throughput_pct = 100;
	p->cache_l1_hit_ns = 1;
	p->cache_smt_transfer_ns = 5;
	p->cache_socket_transfer_ns = 50;
	p->cache_remote_transfer_ns = 100;
	p->lock_atomic_cycles = 10;
	p->lock_pause_cycles = 0;
	p->ipi_send_ns = 20;
	p->ipi_latency_ns = 200;
	p->ipi_entry_exit_ns = 300;
	p->tlb_invlpg_ns = 100;
	p->tlb_flush_all_ns = 200;
	p->tlb_single_page_flush_ceiling = 33;
	p->mem_zero_gbps = 16;
	p->mem_copy_gbps = 8;
	p->mem_node_write_gbps = 64;
	p->mem_loads_per_cycle = 2;
	p->mm_fault_entry_ns = 500;
	p->mm_syscall_ns = 100;
	p->mm_list_op_ns = 3;
	p->mm_folio_op_ns = 8;
	p->mm_pte_op_ns = 2;
	p->swap_zram_compress_mbps = 780;
	p->swap_zram_decompress_mbps = 4970;
	p->swap_zram_rate_mhz = p->clock_mhz;	/* the rates as given */
}
#endif
