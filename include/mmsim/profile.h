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
	X(mem, copy_gbps, U64, "GB/s", "page copy bandwidth per core")             \
	X(mem, node_write_gbps, U64, "GB/s", "write bandwidth of one node")        \
	X(mem, loads_per_cycle, U64, "", "loads a core issues per cycle; a TLB-hit access costs 1/loads_per_cycle cycles") \
	X(mem, node_read_gbps, U64, "GB/s", "read bandwidth of one node; 0: no limit") \
	X(mem, upi_links, U64, "", "links between two sockets (each way); 0: no limit") \
	X(mem, upi_mtps, U64, "MT/s", "transfer rate of one link, 2 bytes per transfer each way") \
	X(mem, line_fill_buffers, U64, "", "a core's lines in flight to memory; 0: no limit") \
	X(mem, loads_in_flight, U64, "", "L1D misses a core overlaps (line fill buffers); 0: the flat model, a speed option (docs/tlb.md)") \
	X(mem, load_buffer_entries, U64, "", "load buffer entries: loads in flight from issue to completion (overlap model)") \
	X(mm, fault_entry_ns, U64, "ns", "exception entry, exit and handle_mm_fault() walk") \
	X(mm, syscall_ns, U64, "ns", "system call entry and exit")                 \
	X(mm, list_op_ns, U64, "ns", "list_add or list_del on lines in cache")     \
	X(mm, folio_op_ns, U64, "ns", "flag, refcount or stat update on a folio")  \
	X(mm, pte_op_ns, U64, "ns", "read or write of one PTE in cache")           \
	X(swap, write_us, U64, "us", "swap write latency per request")             \
	X(swap, read_us, U64, "us", "swap read latency per 4K page")               \
	X(swap, bandwidth_mbps, U64, "MB/s", "swap device bandwidth")             \
	X(swap, zram_compress_mbps, U64, "MB/s", "zram: compression per core")      \
	X(swap, zram_decompress_mbps, U64, "MB/s", "zram: decompression per core")

#define PROFILE_FIELD_U64(sec, key) uint64_t sec##_##key;
#define PROFILE_FIELD_STR(sec, key) char sec##_##key[96];

struct sim_profile {
#define PROFILE_STRUCT_FIELD(sec, key, type, unit, meaning) PROFILE_FIELD_##type(sec, key)
	PROFILE_FIELDS(PROFILE_STRUCT_FIELD)
#undef PROFILE_STRUCT_FIELD
	char sources[96][160];		/* "section.key = source" lines */
	int nr_sources;
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
