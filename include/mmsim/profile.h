/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A machine profile: topology and costs, read from an INI file.
 *
 * PROFILE_FIELDS is the one list of every field: its INI section and key,
 * its type, unit and a one-line meaning.  It generates the struct, the
 * parser, the printer and the documentation check.  Every number's source
 * is in the profile's [sources] section (key "section.key") and in
 * docs/costs.md.
 */
#ifndef MMSIM_PROFILE_H
#define MMSIM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(section, key, type, unit, meaning); type is U64 (integers) or STR. */
#define PROFILE_FIELDS(X)                                                          \
	X(machine, name, STR, "", "profile name")                                  \
	X(machine, description, STR, "", "what machine this describes")            \
	X(topology, sockets, U64, "", "CPU packages")                              \
	X(topology, cores_per_socket, U64, "", "physical cores per package")       \
	X(topology, threads_per_core, U64, "", "SMT siblings per core")            \
	X(topology, nodes, U64, "", "NUMA nodes (one per socket here)")            \
	X(clock, mhz, U64, "MHz", "core clock under load")                         \
	X(sched, quantum_ns, U64, "ns", "engine run-ahead quantum")                \
	X(sched, context_switch_ns, U64, "ns", "task switch on one CPU")           \
	X(sched, wakeup_ns, U64, "ns", "remote wake-up to runnable")               \
	X(sched, slice_us, U64, "us", "time slice with several runnable tasks")    \
	X(sched, start_jitter_us, U64, "us", "a task's start varies by up to this from run to run (seeds)") \
	X(sched, smt_throughput_pct, U64, "%", "a thread's share of its core's throughput while its SMT sibling runs too") \
	X(sched, fork_us, U64, "us", "fork(): copy_process() in the parent before the child can run") \
	X(cache, l1_hit_ns, U64, "ns", "touch of a line this CPU wrote last")      \
	X(cache, smt_transfer_ns, U64, "ns", "line last written by the SMT sibling") \
	X(cache, socket_transfer_ns, U64, "ns", "modified line from a core on the same socket") \
	X(cache, remote_transfer_ns, U64, "ns", "modified line from the other socket") \
	X(cache, dram_local_ns, U64, "ns", "DRAM access, local node")               \
	X(cache, dram_remote_ns, U64, "ns", "DRAM access, remote node")            \
	X(cache, l1d_kib, U64, "KiB", "L1 data cache of a core")                   \
	X(cache, l1d_ways, U64, "", "L1D associativity")                          \
	X(cache, l1d_cycles, U64, "cycles", "L1D load-to-use latency")              \
	X(cache, l2_kib, U64, "KiB", "L2 cache of a core")                         \
	X(cache, l2_ways, U64, "", "L2 associativity")                            \
	X(cache, l2_cycles, U64, "cycles", "L2 load-to-use latency")                \
	X(cache, l3_kib, U64, "KiB", "L3 cache of a socket")                       \
	X(cache, l3_ways, U64, "", "L3 associativity")                            \
	X(cache, l3_cycles, U64, "cycles", "L3 load-to-use latency")                \
	X(lock, atomic_cycles, U64, "cycles", "locked RMW on a local line")        \
	X(lock, pause_cycles, U64, "cycles", "PAUSE latency in a spin loop")       \
	X(lock, contention_trace_ns, U64, "ns", "a lock:contention_end sample (a live run tracing lock waits) taken with the lock just acquired, after a wait; 0: an untraced kernel") \
	X(lock, contention_begin_ns, U64, "ns", "a lock:contention_begin sample with its call chain (a live run tracing lock waits), taken by the waiter before it spins and counted in its wait; 0: an untraced kernel") \
	X(ipi, send_ns, U64, "ns", "sender: queue one csd and write the ICR")      \
	X(ipi, latency_ns, U64, "ns", "interrupt delivery to the target")          \
	X(ipi, entry_exit_ns, U64, "ns", "receiver: interrupt entry and exit")     \
	X(tlb, invlpg_ns, U64, "ns", "INVLPG of one page")                         \
	X(tlb, flush_all_ns, U64, "ns", "full flush of the current PCID")          \
	X(tlb, single_page_flush_ceiling, U64, "pages", "tlb_single_page_flush_ceiling") \
	X(tlb, l1_4k_entries, U64, "", "L1 dTLB entries, 4K pages")                \
	X(tlb, l1_4k_ways, U64, "", "L1 dTLB associativity, 4K pages")             \
	X(tlb, l1_2m_entries, U64, "", "L1 dTLB entries, 2M pages")                \
	X(tlb, l1_2m_ways, U64, "", "L1 dTLB associativity, 2M pages")             \
	X(tlb, stlb_entries, U64, "", "shared STLB entries (4K and 2M)")           \
	X(tlb, stlb_ways, U64, "", "STLB associativity")                           \
	X(tlb, stlb_hit_cycles, U64, "cycles", "L1 miss, STLB hit")                \
	X(tlb, walk_cycles, U64, "cycles", "page walk, entries in cache")          \
	X(tlb, walk_dims, U64, "", "1 native, 2 nested (two-dimensional) walk")   \
	X(tlb, page_walkers, U64, "", "page walks in flight at once")              \
	X(tlb, pml4_cache_entries, U64, "", "PML4 cache (overlap model); 0: none")   \
	X(tlb, pdpte_cache_entries, U64, "", "PDPTE cache (overlap model); 0: none") \
	X(tlb, pde_cache_entries, U64, "", "PDE cache (overlap model); 0: none")     \
	X(tlb, ept_page_kib, U64, "KiB", "page size of the host's EPT mapping of guest memory (overlap model, nested walks)") \
	X(mem, zero_gbps, U64, "GB/s", "page zeroing bandwidth per core")          \
	X(mem, page_zero_ns, U64, "ns", "a 4K page zeroed between other work, core time (its lines' write-back overlaps); 0: mem.zero_gbps per page") \
	X(mem, copy_gbps, U64, "GB/s", "page copy bandwidth per core")             \
	X(mem, node_write_gbps, U64, "GB/s", "write bandwidth of one node")        \
	X(mem, loads_per_cycle, U64, "", "loads a core issues per cycle; a TLB-hit access costs 1/loads_per_cycle cycles") \
	X(mem, node_read_gbps, U64, "GB/s", "read bandwidth of one node; 0: no limit") \
	X(mem, upi_links, U64, "", "links between two sockets (each way); 0: no limit") \
	X(mem, upi_mtps, U64, "MT/s", "transfer rate of one link, 2 bytes per transfer each way") \
	X(mem, line_fill_buffers, U64, "", "a core's line fill buffers: its L1D misses in flight, loads and bulk flows; 0: no limit") \
	X(mem, overlap, U64, "", "1: the overlap access model (its loads overlap up to line_fill_buffers); 0: the flat model, a speed option (docs/tlb.md)") \
	X(mem, walk_fill_buffers, U64, "", "1: a page walk's loads that miss the L1D hold fill buffers, as the data's do (overlap model); 0: only the data's") \
	X(mem, loaded_latency, STR, "", "DRAM latency under load: util:latency pairs, per mille of peak and of idle (Intel MLC --loaded_latency); none: idle always") \
	X(mem, access_loop, STR, "", "the workload program's own cycles per access of its loop, by pattern (seq:C random:C shuffled:C zipf:C hot:C), over data in L1; none: the issue slot alone") \
	X(mem, load_buffer_entries, U64, "", "load buffer entries: loads in flight from issue to completion (overlap model)") \
	X(mem, rob_entries, U64, "", "reorder buffer entries: micro-ops in flight from allocation to retirement (overlap model)") \
	X(mem, stream_gbps, U64, "GB/s", "a core's streaming rate over memory with hardware prefetch; 0: no limit") \
	X(mem, directory, U64, "", "1: the memory directory of multi-socket Xeons: a line that a core of another socket takes is written once more at its home node, to record that; 0: none") \
	X(mem, zero_l3_gbps, U64, "GB/s", "a core's page zeroing (rep stosb a 4K page at a time) into lines its L3 holds: a folio's pages after the first drain at it; 0: each page at mem.page_zero_ns") \
	X(mem, string_store_rfo, U64, "", "1: a string store (page zeroing, a copy's destination) holds a fill buffer for the memory's latency per line, as a load miss; 0: full-line string stores do not wait for their lines, the core's store rate bounds them") \
	X(mm, fault_entry_ns, U64, "ns", "exception entry, exit and handle_mm_fault() walk") \
	X(mm, fault_spread_ns, U64, "ns", "each fault's fixed cost drawn uniformly within +- this of mm.fault_entry_ns (the measured spread of single faults); 0: every fault alike") \
	X(mm, syscall_ns, U64, "ns", "system call entry and exit")                 \
	X(mm, list_op_ns, U64, "ns", "list_add or list_del on lines in cache")     \
	X(mm, folio_op_ns, U64, "ns", "flag, refcount or stat update on a folio")  \
	X(mm, pte_op_ns, U64, "ns", "read or write of one PTE in cache")           \
	X(mm, read_ahead_kb, U64, "KiB", "the readahead window of the block device holding the files (its bdi's read_ahead_kb)") \
	X(mm, lru_add_ns, U64, "ns", "under lru_lock: putting one folio on an LRU list (lru_add() with its flags and counters)") \
	X(mm, lru_del_ns, U64, "ns", "under lru_lock: taking one folio off an LRU list (lruvec_del_folio() with its flags and counters)") \
	X(mm, i_pages_add_ns, U64, "ns", "under the i_pages lock: putting one folio in the page cache (xas_store() with its counters)") \
	X(mm, i_pages_del_ns, U64, "ns", "under the i_pages lock: taking one folio out of the page cache (__filemap_remove_folio())") \
	X(mm, shmem_acct_ns, U64, "ns", "a new tmpfs page's block accounting (shmem_inode_acct_blocks())") \
	X(mm, shmem_get_ns, U64, "ns", "shmem_get_folio_gfp()'s own work on a miss (the checks, the orders allowed)") \
	X(mm, bh_begin_ns, U64, "ns", "a write fault's pass over a file folio's buffer_heads, per 4K block (__block_write_begin_int())") \
	X(mm, bh_commit_ns, U64, "ns", "its commit, per 4K block (block_commit_write(), mark_buffer_dirty())") \
	X(mm, bh_dirty_ns, U64, "ns", "marking a file folio's buffers dirty, per 4K block and call (block_dirty_folio())") \
	X(mm, zap_pte_ns, U64, "ns", "an unmap clearing one present PTE (zap_pte_range()'s loop)") \
	X(mm, rmap_del_ns, U64, "ns", "a folio's mapping removed (folio_remove_rmap_ptes(): the mapcount, the stats)") \
	X(mm, uncharge_ns, U64, "ns", "a freed folio uncharged from its memcg (__mem_cgroup_uncharge_folios())") \
	X(mm, page_free_ns, U64, "ns", "a freed folio prepared and put on the per-CPU list (free_unref_folios())") \
	X(swap, write_us, U64, "us", "swap write latency per request")             \
	X(swap, read_us, U64, "us", "swap read latency per 4K page")               \
	X(swap, bandwidth_mbps, U64, "MB/s", "swap device bandwidth")             \
	X(swap, zram_compress_mbps, U64, "MB/s", "zram: compression per core")      \
	X(swap, zram_decompress_mbps, U64, "MB/s", "zram: decompression per core")  \
	X(swap, zram_rate_mhz, U64, "MHz", "the core clock at which the zram rates were measured: a run scales them by clock.mhz / this")

/*
 * PROFILE_LIMITS(X): X(section, key, min, max, why) - the valid range of
 * every U64 field, checked when a profile is read and on every --cost,
 * before a run starts.  A table of its own (not columns of PROFILE_FIELDS)
 * so that adding a key and giving its range stay separate, small edits;
 * tests/test_profile_limits.c fails when a U64 field has no row here.
 *
 * The ranges come from two things, and each row says which bounds it:
 *   - physics: what a real machine can have, with headroom of about ten
 *     times the largest shipping part, so that a --cost sweep can go past
 *     today's hardware;
 *   - the engine's arithmetic: virtual time is uint64_t picoseconds
 *     (2^64 ps = 213 days).  A time cost of at most 1 ms (10^9 ps) charged
 *     10^9 times stays below 10^18 ps; a cycle cost of at most 10^5 cycles
 *     at the slowest clock (100 MHz, 10^4 ps per cycle, 2^20 fixed point:
 *     about 2^33.3) multiplies to below 2^50.  Values the model casts to
 *     int or uint32_t stay far below 2^31.  Costs that large also keep a
 *     run's virtual time, and so its host time, bounded: the twelve costs
 *     that hung or broke a run at 2^32 and 2^64-1 (issue 18) are all
 *     below these maxima by a factor of at least 4000.
 */
#define PROFILE_NS_MAX	1000000ULL	/* 1 ms: no one step of these paths is longer */
#define PROFILE_US_MAX	100000ULL	/* 100 ms: above a disk seek or a long slice */
#define PROFILE_LINE_MAX	100000ULL	/* 100 us: 100 x any cross-socket line transfer */
#define PROFILE_CYC_MAX	100000ULL	/* 10^5 cycles: PAUSE (140) and walks are far below */

#define PROFILE_LIMITS(X)                                                         \
	X(topology, sockets, 1, 64, "physics: 32-socket systems exist; the product of the topology is checked against 1024 CPUs") \
	X(topology, cores_per_socket, 1, 1024, "the engine's 1024 CPUs at most")   \
	X(topology, threads_per_core, 1, 8, "physics: SMT8 (POWER) is the widest shipped") \
	X(topology, nodes, 1, 8, "engine: SIM_MAX_NODES, the size of the per-node arrays of src/mm/mm.h") \
	X(clock, mhz, 100, 10000, "physics: 0.1 to 10 GHz; ps per cycle must stay above 100") \
	X(sched, quantum_ns, 1, 10 * PROFILE_NS_MAX, "engine: run-ahead bound; must cover a line transfer plus a locked RMW at their maxima (sim_profile_check())") \
	X(sched, context_switch_ns, 0, PROFILE_NS_MAX, "time cost")               \
	X(sched, wakeup_ns, 0, PROFILE_NS_MAX, "time cost")                        \
	X(sched, slice_us, 1, PROFILE_US_MAX, "time cost; 0 would switch forever") \
	X(sched, start_jitter_us, 0, PROFILE_US_MAX, "time cost; 0: every task starts at once") \
	X(sched, smt_throughput_pct, 0, 100, "a share of the core; 0: no SMT slowdown") \
	X(sched, fork_us, 0, PROFILE_US_MAX, "time cost") \
	X(cache, l1_hit_ns, 0, PROFILE_LINE_MAX, "time cost")                        \
	X(cache, smt_transfer_ns, 0, PROFILE_LINE_MAX, "time cost")                  \
	X(cache, socket_transfer_ns, 0, PROFILE_LINE_MAX, "time cost")               \
	X(cache, remote_transfer_ns, 0, PROFILE_LINE_MAX, "time cost")               \
	X(cache, dram_local_ns, 0, PROFILE_NS_MAX, "time cost")                    \
	X(cache, dram_remote_ns, 0, PROFILE_NS_MAX, "time cost")                   \
	X(cache, l1d_kib, 1, 4096, "physics: 192 KiB is the largest L1D shipped; 4 MiB of 64-byte lines") \
	X(cache, l1d_ways, 1, 64, "physics: 20-way caches ship; the overlap model takes 16 at most (mm_tlb_check_profile())")     \
	X(cache, l1d_cycles, 1, PROFILE_CYC_MAX, "cycle cost")                     \
	X(cache, l2_kib, 1, 65536, "physics: 4 MiB L2s ship; 64 MiB of model state per core at most") \
	X(cache, l2_ways, 1, 64, "physics: 20-way caches ship; the overlap model takes 16 at most (mm_tlb_check_profile())")                           \
	X(cache, l2_cycles, 1, PROFILE_CYC_MAX, "cycle cost")                      \
	X(cache, l3_kib, 1, 2097152, "physics: about 1.1 GiB of L3 per socket ships (stacked cache); 2 GiB") \
	X(cache, l3_ways, 1, 64, "physics: 20-way caches ship; the overlap model takes 16 at most (mm_tlb_check_profile())")                           \
	X(cache, l3_cycles, 1, PROFILE_CYC_MAX, "cycle cost")                      \
	X(lock, atomic_cycles, 0, PROFILE_CYC_MAX, "cycle cost")                   \
	X(lock, pause_cycles, 0, PROFILE_CYC_MAX, "cycle cost")                    \
	X(lock, contention_trace_ns, 0, PROFILE_NS_MAX, "0: untraced; a perf sample costs a few hundred ns to a few us") \
	X(lock, contention_begin_ns, 0, PROFILE_NS_MAX, "0: untraced; a perf sample with a call chain costs a few hundred ns to a few us") \
	X(ipi, send_ns, 0, PROFILE_NS_MAX, "time cost")                            \
	X(ipi, latency_ns, 0, PROFILE_NS_MAX, "time cost")                         \
	X(ipi, entry_exit_ns, 0, PROFILE_NS_MAX, "time cost")                      \
	X(tlb, invlpg_ns, 0, PROFILE_NS_MAX, "time cost")                          \
	X(tlb, flush_all_ns, 0, PROFILE_NS_MAX, "time cost")                       \
	X(tlb, single_page_flush_ceiling, 0, 1ULL << 36, "pages: 2^36 pages (256 TiB) covers any range a run maps") \
	X(tlb, l1_4k_entries, 1, 65536, "physics: 96 entries ship; kept below 2^31 for the uint32_t geometry") \
	X(tlb, l1_4k_ways, 1, 16, "engine: TLB_MAX_WAYS")                          \
	X(tlb, l1_2m_entries, 1, 65536, "as l1_4k_entries")                        \
	X(tlb, l1_2m_ways, 1, 16, "engine: TLB_MAX_WAYS")                          \
	X(tlb, stlb_entries, 1, 65536, "physics: 3072 entries ship")               \
	X(tlb, stlb_ways, 1, 16, "engine: TLB_MAX_WAYS")                           \
	X(tlb, stlb_hit_cycles, 0, PROFILE_CYC_MAX, "cycle cost")                  \
	X(tlb, walk_cycles, 0, PROFILE_CYC_MAX, "cycle cost")                      \
	X(tlb, walk_dims, 1, 2, "1 native, 2 nested")                              \
	X(tlb, page_walkers, 1, 64, "physics: 2 to 4 walkers ship")                \
	X(tlb, pml4_cache_entries, 0, 4096, "physics: tens of entries; 0: none")   \
	X(tlb, pdpte_cache_entries, 0, 4096, "physics: tens of entries; 0: none")  \
	X(tlb, pde_cache_entries, 0, 4096, "physics: tens of entries; 0: none")    \
	X(tlb, ept_page_kib, 4, 2048, "4 or 2048 (checked by mm_tlb_check_profile()): the host's EPT page size") \
	X(mem, zero_gbps, 1, 10000, "a divisor; 10 TB/s is above any memory system") \
	X(mem, page_zero_ns, 0, PROFILE_NS_MAX, "time cost; 0: the sustained rate")    \
	X(mem, copy_gbps, 1, 10000, "a divisor")                                  \
	X(mem, node_write_gbps, 1, 10000, "a divisor")                            \
	X(mem, loads_per_cycle, 1, 16, "a divisor, cast to uint32_t; cores issue 2 to 4") \
	X(mem, overlap, 0, 1, "a switch: 0 the flat model, 1 the overlap model") \
	X(mem, walk_fill_buffers, 0, 1, "a switch: 0 or 1") \
	X(mem, load_buffer_entries, 1, 1024, "physics: 72 (Skylake) to a few hundred; the overlap model divides by it") \
	X(mem, rob_entries, 1, 4096, "physics: 224 (Skylake) to about 512 (Golden Cove); the overlap model divides by it") \
	X(mem, node_read_gbps, 0, 10000, "0: no limit; else a divisor, 10 TB/s above any memory system") \
	X(mem, upi_links, 0, 16, "physics: 2 to 4 links per socket ship; 0: no link limit") \
	X(mem, upi_mtps, 0, 100000, "physics: UPI runs 9.6 to 24 GT/s; 0: no link limit") \
	X(mem, line_fill_buffers, 0, 1024, "physics: 10 to a few dozen per core; 0: no per-core limit") \
	X(mem, stream_gbps, 0, 10000, "0: no limit; else a divisor, 10 TB/s above any core") \
	X(mem, directory, 0, 1, "a switch: 0 or 1") \
	X(mem, string_store_rfo, 0, 1, "a switch: 0 or 1") \
	X(mem, zero_l3_gbps, 0, 10000, "0: off; else a divisor, 10 TB/s above any core") \
	X(mm, fault_entry_ns, 0, PROFILE_NS_MAX, "time cost")                      \
	X(mm, fault_spread_ns, 0, PROFILE_NS_MAX, "time cost; at most mm.fault_entry_ns (checked where the two meet)") \
	X(mm, syscall_ns, 0, PROFILE_NS_MAX, "time cost")                          \
	X(mm, list_op_ns, 0, PROFILE_NS_MAX, "time cost")                          \
	X(mm, folio_op_ns, 0, PROFILE_NS_MAX, "time cost")                         \
	X(mm, pte_op_ns, 0, PROFILE_NS_MAX, "time cost")                           \
	X(mm, read_ahead_kb, 0, 1ULL << 20, "a size: 0 (no readahead) to 1 GiB") \
	X(mm, lru_add_ns, 0, PROFILE_NS_MAX, "time cost")                          \
	X(mm, lru_del_ns, 0, PROFILE_NS_MAX, "time cost")                          \
	X(mm, i_pages_add_ns, 0, PROFILE_NS_MAX, "time cost")                      \
	X(mm, i_pages_del_ns, 0, PROFILE_NS_MAX, "time cost")                      \
	X(mm, shmem_acct_ns, 0, PROFILE_NS_MAX, "time cost")                       \
	X(mm, shmem_get_ns, 0, PROFILE_NS_MAX, "time cost")                        \
	X(mm, bh_begin_ns, 0, PROFILE_NS_MAX, "time cost")                         \
	X(mm, bh_commit_ns, 0, PROFILE_NS_MAX, "time cost")                        \
	X(mm, bh_dirty_ns, 0, PROFILE_NS_MAX, "time cost")                         \
	X(mm, zap_pte_ns, 0, PROFILE_NS_MAX, "time cost")                          \
	X(mm, rmap_del_ns, 0, PROFILE_NS_MAX, "time cost")                         \
	X(mm, uncharge_ns, 0, PROFILE_NS_MAX, "time cost")                         \
	X(mm, page_free_ns, 0, PROFILE_NS_MAX, "time cost")                        \
	X(swap, write_us, 0, PROFILE_US_MAX, "time cost")                          \
	X(swap, read_us, 0, PROFILE_US_MAX, "time cost")                           \
	X(swap, bandwidth_mbps, 1, 10000000, "a divisor; 10 TB/s")                \
	X(swap, zram_compress_mbps, 1, 10000000, "a divisor when the run uses zram")                     \
	X(swap, zram_decompress_mbps, 1, 10000000, "a divisor when the run uses zram") \
	X(swap, zram_rate_mhz, 1, 100000, "a divisor; 100 GHz")

#define PROFILE_FIELD_U64(sec, key) uint64_t sec##_##key;
#define PROFILE_FIELD_STR(sec, key) char sec##_##key[96];

struct sim_profile {
#define PROFILE_STRUCT_FIELD(sec, key, type, unit, meaning) PROFILE_FIELD_##type(sec, key)
	PROFILE_FIELDS(PROFILE_STRUCT_FIELD)
#undef PROFILE_STRUCT_FIELD
	char sources[128][160];		/* "section.key = source" lines */
	int nr_sources;
	/*
	 * sources[0..nr_inherited_sources) came with `include = NAME` (NAME:
	 * @included, a builtin's name or a file's, without .ini) and the file
	 * did not replace them; `mmsim profiles` prints them "as NAME: ...".
	 */
	int nr_inherited_sources;
	char included[64];		/* "" when the profile includes none */
	/* [ranges]: "section.key = LO..HI, reason": where an assumption may lie */
	struct sim_profile_range {
		char key[48];		/* "section.key", a U64 field */
		uint64_t lo, hi;
		char reason[112];
	} ranges[32];
	int nr_ranges;
	char origin[256];		/* builtin name or file path */
	char overrides[512];		/* "sec.key=value ..." set after loading, or "" */
};

/* Load a profile by builtin name, or from a file if @name_or_path names one.
 * Returns 0, or -1 with one line in @err naming what was wrong. */
int sim_profile_load(const char *name_or_path, struct sim_profile *p,
		     char *err, size_t errlen);
/* Parse INI text (builtin or read from a file). */
int sim_profile_parse(const char *text, const char *origin,
		      struct sim_profile *p, char *err, size_t errlen);
/*
 * Override one value of a loaded profile: @assign is "section.key=value"
 * (e.g. "cache.remote_transfer_ns=100"), checked as the INI value would be,
 * and recorded in p->overrides.  Returns 0, or -1 with one line in @err
 * that starts with @assign.
 */
int sim_profile_set(struct sim_profile *p, const char *assign, char *err, size_t errlen);
/* The value of U64 field "section.key" of @p: 0, or -1 if there is none. */
int sim_profile_get(const struct sim_profile *p, const char *key, uint64_t *value);
/*
 * The valid range of U64 field @section.@key (PROFILE_LIMITS).  Returns 0,
 * or -1 when the key has no limit (a key added without one).
 */
int sim_profile_limit(const char *section, const char *key, uint64_t *min, uint64_t *max);
/*
 * The checks across fields (e.g. the quantum covers one line transfer and
 * a locked RMW); sim_profile_parse() runs them, and so must whoever sets
 * values with sim_profile_set().  Returns 0, or -1 with one line in @err.
 */
int sim_profile_check(const struct sim_profile *p, char *err, size_t errlen);
/* Names of the builtin profiles, NULL-terminated. */
const char *const *sim_profile_builtin_names(void);
/* The builtin profile's INI text, or NULL. */
const char *sim_profile_builtin_text(const char *name);

static inline int sim_profile_nr_cpus(const struct sim_profile *p)
{
	return (int)(p->topology_sockets * p->topology_cores_per_socket *
		     p->topology_threads_per_core);
}

#endif /* MMSIM_PROFILE_H */
