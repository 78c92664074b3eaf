// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: the profile "host" that `mmsim compare` simulates on when no
 * calibrated profile is given (`compare --profile FILE`, or
 * `--profile-out FILE`, which runs `mmsim calibrate --quick`): this
 * machine's topology and clock from /sys and /proc, every other cost a
 * documented default, each with its source (docs/live.md, "The host
 * profile").  The topology is host_topology_read()'s (src/host/topology.c),
 * which calibrate reads too.  Mirrors no kernel function.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/topology.h"
#include "host/live_internal.h"
#include "mmsim/profile.h"

/* ---- the host profile ---- */

/* Costs live mode cannot measure: "section.key", value, source. */
static const struct {
	const char *key, *value, *source;
} live_profile_defaults[] = {
	{ "machine.name", "host", "live mode" },
	{ "machine.description", "this machine, from /sys and /proc", "live mode" },
	{ "clock.mhz", "2500", "default: typical x86-64 server clock" },
	{ "sched.quantum_ns", "1000", "default: DESIGN.md section 2 (about 1 us)" },
	{ "sched.context_switch_ns", "1500", "default: lmbench lat_ctx order of magnitude" },
	{ "sched.wakeup_ns", "5000", "default: assumed remote wake-up latency" },
	{ "sched.start_jitter_us", "10", "default: about one thread creation (9 us, Lemire 2020)" },
	{ "sched.slice_us", "3000", "default: CFS/EEVDF base slice 3 ms" },
	{ "sched.smt_throughput_pct", "65", "default: Marr et al., Intel Technology Journal 2002 (+30% for two threads)" },
	{ "sched.fork_us", "100", "default: assumed fork() of a small process" },
	{ "cache.l1_hit_ns", "1", "default: about 4 cycles" },
	{ "cache.smt_transfer_ns", "10", "default: assumed L1/L2 sibling transfer" },
	{ "cache.socket_transfer_ns", "40", "default: Skylake-SP core-to-core, same socket" },
	{ "cache.remote_transfer_ns", "120", "default: Skylake-SP cross-socket transfer" },
	{ "cache.dram_local_ns", "90", "default: typical local DRAM latency" },
	{ "cache.dram_remote_ns", "140", "default: typical remote DRAM latency" },
	{ "cache.l1d_kib", "32", "default: Skylake-class L1D" },
	{ "cache.l1d_ways", "8", "default: Skylake-class L1D" },
	{ "cache.l1d_cycles", "4", "default: Skylake-class L1D" },
	{ "cache.l2_kib", "1024", "default: Skylake-SP L2" },
	{ "cache.l2_ways", "16", "default: Skylake-SP L2" },
	{ "cache.l2_cycles", "14", "default: Skylake-SP L2" },
	{ "cache.l3_kib", "16384", "default: assumed L3 per socket" },
	{ "cache.l3_ways", "16", "default: assumed L3 associativity" },
	{ "cache.l3_cycles", "50", "default: assumed L3 latency" },
	{ "lock.atomic_cycles", "20", "default: Agner Fog, LOCK CMPXCHG on Skylake" },
	{ "lock.pause_cycles", "140", "default: PAUSE on Skylake-SP" },
	{ "lock.contention_trace_ns", "0", "default: the untraced kernel" },
	{ "lock.contention_begin_ns", "0", "default: the untraced kernel" },
	{ "ipi.send_ns", "300", "default: assumed x2APIC ICR write and csd queueing" },
	{ "ipi.latency_ns", "1000", "default: assumed IPI delivery" },
	{ "ipi.entry_exit_ns", "500", "default: assumed interrupt entry and exit" },
	{ "tlb.invlpg_ns", "100", "default: assumed INVLPG cost" },
	{ "tlb.flush_all_ns", "300", "default: assumed CR3 write with PCID" },
	{ "tlb.single_page_flush_ceiling", "33", "default: the kernel's tlb_single_page_flush_ceiling" },
	{ "tlb.l1_4k_entries", "64", "default: Skylake L1 dTLB" },
	{ "tlb.l1_4k_ways", "4", "default: Skylake L1 dTLB" },
	{ "tlb.l1_2m_entries", "32", "default: Skylake L1 dTLB" },
	{ "tlb.l1_2m_ways", "4", "default: Skylake L1 dTLB" },
	{ "tlb.stlb_entries", "1536", "default: Skylake STLB" },
	{ "tlb.stlb_ways", "12", "default: Skylake STLB" },
	{ "tlb.stlb_hit_cycles", "9", "default: Skylake STLB hit" },
	{ "tlb.walk_cycles", "30", "default: assumed walk with entries in cache" },
	{ "tlb.walk_dims", "1", "default: native" },
	{ "tlb.page_walkers", "2", "default: Skylake has two page walkers" },
	{ "tlb.pml4_cache_entries", "0", "default: none (sizes not published)" },
	{ "tlb.pdpte_cache_entries", "0", "default: none (sizes not published)" },
	{ "tlb.pde_cache_entries", "0", "default: none (sizes not published)" },
	{ "tlb.ept_page_kib", "2048", "default: QEMU backs guest RAM with THP (overlap model)" },
	{ "mem.zero_gbps", "10", "default: assumed clear_page bandwidth per core" },
	{ "mem.page_zero_ns", "0", "default: zeroing at mem.zero_gbps a page, as a sustained stream" },
	{ "mem.zero_l3_gbps", "0", "default: a folio's pages each at mem.page_zero_ns" },
	{ "mem.copy_gbps", "8", "default: assumed copy_page bandwidth per core" },
	{ "mem.node_write_gbps", "40", "default: assumed node write bandwidth" },
	{ "mem.loads_per_cycle", "2", "default: two load ports (Skylake)" },
	{ "mem.overlap", "0", "default: the flat access model" },
	{ "mem.walk_fill_buffers", "1", "default: walker loads go through the L1D and its fill buffers" },
	{ "mem.loaded_latency", "none", "default: the idle DRAM latency under any load" },
	{ "mem.access_loop", "none", "default: the issue slot alone (1/mem.loads_per_cycle)" },
	{ "mem.node_read_gbps", "40", "default: assumed as the node write bandwidth" },
	{ "mem.upi_links", "0", "default: no inter-socket link limit" },
	{ "mem.upi_mtps", "0", "default: no inter-socket link limit" },
	{ "mem.line_fill_buffers", "0", "default: no per-core lines-in-flight limit" },
	{ "mem.load_buffer_entries", "72", "default: Skylake's load buffer (Intel Opt. manual)" },
	{ "mem.rob_entries", "224", "default: Skylake's reorder buffer (Intel Opt. manual)" },
	{ "mem.stream_gbps", "0", "default: no per-core streaming limit (stress-ng vm passes only)" },
	{ "mem.directory", "0", "default: no memory directory (its DRAM writes are counted only on multi-socket profiles)" },
	{ "mem.string_store_rfo", "1", "default: string stores bounded by the fill buffers as loads are (the builtins' assumption; calibrate measures it)" },
	{ "mm.fault_entry_ns", "300", "default: assumed exception entry/exit and walk" },
	{ "mm.fault_spread_ns", "0", "default: every fault alike" },
	{ "mm.syscall_ns", "100", "default: assumed syscall entry/exit" },
	{ "mm.list_op_ns", "5", "default: assumed list op in cache" },
	{ "mm.folio_op_ns", "5", "default: assumed folio flag/refcount op" },
	{ "mm.pte_op_ns", "2", "default: assumed PTE access in cache" },
	{ "mm.read_ahead_kb", "128", "default: the kernel's VM_READAHEAD_PAGES (128 KiB)" },
	{ "mm.lru_add_ns", "5", "default: the list operation alone, as mm.list_op_ns" },
	{ "mm.lru_del_ns", "5", "default: the list operation alone, as mm.list_op_ns" },
	{ "mm.i_pages_add_ns", "5", "default: the XArray store alone, as mm.folio_op_ns" },
	{ "mm.i_pages_del_ns", "5", "default: the XArray store alone, as mm.folio_op_ns" },
	{ "mm.shmem_acct_ns", "5", "default: assumed per-CPU counter updates" },
	{ "mm.shmem_get_ns", "0", "default: nothing beyond the lookup, as before" },
	{ "mm.bh_begin_ns", "2", "default: a flag test in cache a block, as mm.pte_op_ns" },
	{ "mm.bh_commit_ns", "5", "default: a locked RMW a block, as mm.folio_op_ns" },
	{ "mm.bh_dirty_ns", "5", "default: a locked RMW a block, as mm.folio_op_ns" },
	{ "mm.zap_pte_ns", "2", "default: a PTE in cache, as mm.pte_op_ns" },
	{ "mm.rmap_del_ns", "5", "default: one folio operation, as mm.folio_op_ns" },
	{ "mm.uncharge_ns", "5", "default: one folio operation, as mm.folio_op_ns" },
	{ "mm.page_free_ns", "5", "default: one folio operation, as mm.folio_op_ns" },
	{ "swap.write_us", "20", "default: assumed NVMe write" },
	{ "swap.read_us", "80", "default: assumed NVMe 4K read" },
	{ "swap.bandwidth_mbps", "2000", "default: assumed NVMe bandwidth" },
	{ "swap.zram_compress_mbps", "650", "default: lzo-rle, zram's default compressor (zstd README lzbench lzo1x -1)" },
	{ "swap.zram_decompress_mbps", "825", "default: lzo-rle, zram's default compressor (zstd README lzbench lzo1x -1)" },
	{ "swap.zram_rate_mhz", "4900", "default: the zstd README's lzbench machine, Core i7-9700K @ 4.9GHz" },
};

/* Every profile field's section and key, from the one list. */
#define LIVE_PROFILE_KEY(sec_, key_, type_, unit_, meaning_) { #sec_, #key_ },
static const char *const live_profile_keys[][2] = {
	PROFILE_FIELDS(LIVE_PROFILE_KEY)
};
#undef LIVE_PROFILE_KEY
#define LIVE_PROFILE_NR_FIELDS \
	((int)(sizeof(live_profile_keys) / sizeof(live_profile_keys[0])))

/**
 * live_cpu_mhz - this machine's clock, as /proc/cpuinfo's first "cpu MHz"
 *
 * Context: may block.
 * Return: MHz, or 0 when /proc/cpuinfo does not say.
 */
double live_cpu_mhz(void)
{
	static struct host_topology t;

	host_topology_read(&t, getenv("MMSIM_LIVE_SYS_ROOT"), NULL);
	return t.mhz;
}

/**
 * live_host_profile - the INI text of profile "host", describing this machine
 * @buf: where to write it
 * @len: size of @buf
 *
 * Topology (sockets, cores per socket, threads per core, NUMA nodes) and
 * the clock come from /sys and /proc/cpuinfo; a guest (the "hypervisor"
 * CPU flag) gets two-dimensional page walks.  Every other cost cannot be
 * measured here and is copied from live_profile_defaults, with its source
 * in [sources].  Every key of PROFILE_FIELDS is written.
 *
 * Context: may block.
 * Return: the length written, or -ENOSPC, or -ENOENT when a field has
 * neither a measurement nor a default (a bug: the tests check for it).
 */
int live_host_profile(char *buf, size_t len)
{
	static struct host_topology t;
	char measured[8][2][64];
	char sources[LIVE_PROFILE_NR_FIELDS][200];
	int nr_measured = 0, nr_sources = 0;
	const char *section = "";
	size_t used = 0;

	/* every CPU /sys lists, whatever this process may run on */
	host_topology_read(&t, getenv("MMSIM_LIVE_SYS_ROOT"), NULL);
#define LIVE_MEASURE(k, fmt, v) do { \
		snprintf(measured[nr_measured][0], 64, "%s", k); \
		snprintf(measured[nr_measured][1], 64, fmt, v); \
		nr_measured++; \
	} while (0)
	LIVE_MEASURE("topology.sockets", "%d", t.sockets);
	LIVE_MEASURE("topology.cores_per_socket", "%d", t.cores_per_socket);
	LIVE_MEASURE("topology.threads_per_core", "%d", t.threads_per_core);
	LIVE_MEASURE("topology.nodes", "%d", t.nodes);
	if (t.mhz > 0)
		LIVE_MEASURE("clock.mhz", "%.0f", t.mhz);
	if (t.hypervisor)
		LIVE_MEASURE("tlb.walk_dims", "%u", 2u);
#undef LIVE_MEASURE

#define LIVE_APPEND(...) do { \
		int n_ = snprintf(buf + used, len - used, __VA_ARGS__); \
		if (n_ < 0 || (size_t)n_ >= len - used) \
			return -ENOSPC; \
		used += (size_t)n_; \
	} while (0)
	LIVE_APPEND("; profile \"host\": written by `mmsim compare` from this "
		    "machine's /sys and /proc\n");
	for (int f = 0; f < LIVE_PROFILE_NR_FIELDS; f++) {
		const char *sec = live_profile_keys[f][0];
		const char *v = NULL;
		char k[96];

		snprintf(k, sizeof(k), "%s.%s", sec, live_profile_keys[f][1]);
		if (strcmp(section, sec)) {
			LIVE_APPEND("\n[%s]\n", sec);
			section = sec;
		}
		for (int i = 0; i < nr_measured && !v; i++) {
			if (strcmp(measured[i][0], k))
				continue;
			v = measured[i][1];
			snprintf(sources[nr_sources++], sizeof(sources[0]),
				 "%s = measured: %s", k,
				 !strncmp(k, "topology", 8) ? "/sys/devices/system" :
				 !strcmp(k, "clock.mhz") ? "/proc/cpuinfo cpu MHz" :
				 "/proc/cpuinfo hypervisor flag (a guest walks "
				 "two dimensions)");
		}
		for (size_t i = 0; !v && i < sizeof(live_profile_defaults) /
		     sizeof(live_profile_defaults[0]); i++) {
			if (strcmp(live_profile_defaults[i].key, k))
				continue;
			v = live_profile_defaults[i].value;
			snprintf(sources[nr_sources++], sizeof(sources[0]),
				 "%s = %s", k, live_profile_defaults[i].source);
		}
		if (!v)
			return -ENOENT;
		LIVE_APPEND("%s = %s\n", live_profile_keys[f][1], v);
	}
	LIVE_APPEND("\n[sources]\n");
	for (int i = 0; i < nr_sources; i++)
		LIVE_APPEND("%s\n", sources[i]);
#undef LIVE_APPEND
	return (int)used;
}

/**
 * live_host_is_guest - whether this machine is a virtual machine
 *
 * Context: any.
 * Return: true when /proc/cpuinfo has the "hypervisor" flag.
 */
bool live_host_is_guest(void)
{
	static struct host_topology t;

	host_topology_read(&t, getenv("MMSIM_LIVE_SYS_ROOT"), NULL);
	return t.hypervisor;
}
