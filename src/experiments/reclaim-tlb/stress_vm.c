// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress-ng --vm N --vm-bytes B --vm-keep --timeout T (the second seed).
 * Read at ColinIanKing/stress-ng stress-vm.c, commit 291fc434 (22 August
 * 2026), the version current in 2026; no code is copied, only what each
 * method does to memory.
 *
 * What a worker does there: stress_vm() runs stress_vm_child() in a child
 * process (stress_oomable_child()), so each worker is a process with its
 * own mm.  vm_bytes /= instances: --vm-bytes is the total.  With --vm-keep
 * the buffer is mmap()ed once (MAP_PRIVATE|MAP_ANONYMOUS) and kept; each
 * iteration calls the method on the whole buffer.  The default method
 * "all" (stress_vm_all()) calls one method per iteration from the method
 * table, starting at index 1 (the entry after "all" itself) and wrapping
 * back to 1 after the last, so a worker's k-th call is the table's
 * (k mod 39)-th method: 38 names in the x86-64 build, wrrd128nt listed
 * twice.  Versions up to V0.19.00 (May 2025) ordered the table otherwise
 * (vm_rotation_v0_19[]); the scenario's stress_ng parameter picks one.
 * Each method adds to the bogo counter as it goes (per byte, per word, per
 * chunk or per call, as its code says) and the bogo ops reported are that
 * counter >> VM_BOGO_SHIFT (12).
 *
 * Per iteration stress_vm_child() also calls stress_mincore_touch_pages(),
 * and several methods call it between passes (the PAGEIN entries of
 * vm_methods[]); it returns at once unless --page-in
 * (OPT_FLAGS_MMAP_MINCORE) is given, and the post's command has none.  In
 * V0.13.00-V0.17.05 (July 2021-February 2024) it swept the whole buffer
 * back in whatever the options (vm_page_in(), stress_ng=v0.17, the
 * scenario's default: the post's numbers fit that version, docs/results.md).
 * stress_madvise_randomize() runs once, on the new buffer (madvise
 * is on by default): one advice drawn from 16 (normal, random, sequential,
 * willneed, dofork, dontfork, mergeable, unmergeable, hugepage,
 * nohugepage, dontdump, dodump, cold, pageout, populate-read,
 * populate-write) on an empty mapping; the model leaves it out (see
 * docs/results.md: with THP off only populate-write would fault the
 * buffer in early).  --vm-nt is off, so the methods' plain-store paths run.
 *
 * What the model keeps: every method as data (vm_methods[]), each a list
 * of passes over the buffer; one mechanism runs them all.  A pass has
 *   order     forward, reverse, random (as many draws as pages, each a
 *             page drawn at random, with repeats: galpat's random bits)
 *             or a flush-and-reload loop on two lines (rowhammer);
 *   flags     VM_W: it stores, so the page is dirtied and its lines are
 *             written back; VM_NT: whole-line stores that read nothing
 *             (glibc's memset of a buffer this large is rep stosb, whose
 *             fast-string stores read no line); VM_LAT: every line costs
 *             a DRAM latency, no prefetch (clflush and reload, page-sized
 *             strides); VM_ZERO, VM_SAME: the pass leaves each page it
 *             stores to all zero, or one non-zero word repeated (a memset,
 *             incdec's increments), which swap-out keeps as a zero-map
 *             bit or zram as that word, uncompressed (every other store
 *             leaves the page "mixed": enum folio_data, src/mm/mm.h);
 *   lines     cache lines it touches per page;
 *   accesses  loads and stores per page (issue slots);
 *   bogo      counter increment per page (per pass for the hammer);
 *   repeat    passes made in a row;
 *   far       pages it touches beside the page in order: the mirror page
 *             (fwdrev), the pages at power-of-two distances (walk-0a,
 *             walk-1a) or random chunks (swap).
 * A page's first access in a pass goes through the vCPU's TLB
 * (user_access(), src/mm/access.h: a lookup, on a miss a walk that sets
 * the accessed bit, a fault if nothing is mapped); a store then meets the
 * TLB entry's permission and dirty bits (vm_store()).  The page's other
 * accesses cost their issue slots, 1/mem.loads_per_cycle cycle each; its
 * lines come from DRAM (a 128 MiB buffer fits no cache) through the memory
 * system, memsys_stream() (include/mmsim/memsys.h): the core streams at
 * mem.stream_gbps and the node's DRAM is shared by all sixteen workers.
 * The issue slots and the traffic overlap: a chunk of pages costs the
 * longer of the two.
 *
 * Left out: the bit-error checks (the data are not modelled), the methods'
 * static start offsets (cache-lines, prime-*), the counter of a pass cut
 * by the timeout (the model counts per page; some methods add theirs at
 * the pass's end), the parent process.
 */
#include <string.h>

#include "mm/access.h"
#include "mm/mm.h"
#include "experiments/reclaim-tlb/stress_vm.h"

#define VM_BOGO_SHIFT	12

/* Pages whose memory traffic is charged in one request. */
#define VM_CHARGE_PAGES	16

/* A prime for swap's far chunks: i * VM_SCATTER_PRIME mod pages. */
#define VM_SCATTER_PRIME	2654435761ULL

enum vm_order {
	VM_FWD,
	VM_REV,
	VM_RANDOM,		/* as many draws as pages, each a random page (repeats) */
	VM_HAMMER,		/* @repeat rounds of clflush and reload, no pages */
	VM_PAGEIN,		/* stress_mincore_touch_pages(): see vm_page_in() */
};

enum vm_far {
	VM_FAR_NONE,
	VM_FAR_MIRROR,		/* the page as far from the end: fwdrev */
	VM_FAR_XOR,		/* the pages at offset XOR 2^k, k >= 12: walk-0a, walk-1a */
	VM_FAR_RANDOM,		/* @nr_far random pages: swap's chunk exchanges */
};

#define VM_W	0x1	/* stores: dirties the page, its lines are written back */
#define VM_NT	0x2	/* whole-line stores that read nothing (rep stosb) */
#define VM_LAT	0x4	/* each line a DRAM latency: no prefetch */
#define VM_ZERO	0x8	/* each page stored to is all zero afterwards */
#define VM_SAME	0x10	/* each page stored to holds one non-zero word repeated afterwards */

struct vm_pass {
	uint8_t order;
	uint8_t flags;
	uint8_t lines;			/* lines touched per page, 1..64 */
	uint8_t far;			/* enum vm_far */
	uint16_t nr_far;		/* VM_FAR_RANDOM: far pages per page */
	uint16_t far_lines;		/* lines touched in each far page */
	uint32_t accesses;		/* loads and stores per page */
	uint32_t bogo;			/* counter increment per page (VM_HAMMER: per pass) */
	uint32_t repeat;		/* consecutive passes (VM_HAMMER: rounds) */
};

#define VM_MAX_PASSES	20

struct vm_method {
	const char *name;
	struct vm_pass passes[VM_MAX_PASSES];
	uint32_t loops;			/* the passes are made this many times */
};

/* A pass over @l of each page's 64 lines; PASS, a dense one: every line, in order. */
#define PASS_L(o, f, l, acc, b)	{ .order = (o), .flags = (f), .lines = (l), .accesses = (acc), \
				  .bogo = (b), .repeat = 1 }
#define PASS(o, f, acc, b)	PASS_L(o, f, 64, acc, b)
#define W_(acc, b)		PASS(VM_FWD, VM_W, acc, b)		/* stores (and RMW) */
#define W_ZERO(acc, b)		PASS(VM_FWD, VM_W | VM_ZERO, acc, b)	/* ... leaving zeros */
#define W_SAME(acc, b)		PASS(VM_FWD, VM_W | VM_SAME, acc, b)	/* ... leaving one word */
#define R_(acc, b)		PASS(VM_FWD, 0, acc, b)			/* loads */
#define W_LINES(l, acc, b)	PASS_L(VM_FWD, VM_W, l, acc, b)		/* strided stores */
#define R_LINES(l, acc, b)	PASS_L(VM_FWD, 0, l, acc, b)		/* strided loads */
#define MEMSET0			PASS(VM_FWD, VM_W | VM_NT | VM_ZERO, 64, 0)	/* glibc memset: rep stosb */
#define MEMSET1			PASS(VM_FWD, VM_W | VM_NT | VM_SAME, 64, 0)	/* ... of 0xff */
#define PRIME61(f, b)		PASS(VM_FWD, f, 67, b)			/* every 61st byte: 67 per page */
#define GALPAT_BITS		{ .order = VM_RANDOM, .flags = VM_W | VM_LAT, .lines = 1, \
				  .accesses = 2, .repeat = 1 }
#define WALK_A			{ .order = VM_FWD, .flags = VM_W, .lines = 64, .accesses = 400, \
				  .bogo = 16, .repeat = 1, .far = VM_FAR_XOR, .far_lines = 16 }
#define PAGEIN			{ .order = VM_PAGEIN, .repeat = 1 }
#define WALK_D			W_(65536, 4096)				/* 8 set-and-test per byte */
#define SWAP_CHUNKS(o)		{ .order = (o), .flags = VM_W, .lines = 64, .accesses = 16384, \
				  .bogo = 64, .repeat = 1, .far = VM_FAR_RANDOM, .nr_far = 64, \
				  .far_lines = 1 }

/*
 * Per 4 KiB page, read from each method's loops (p: passes; W store or
 * read-modify-write, R load; "+n" the counter per page):
 *   cache-lines   W 1 byte per line (+64), R 64
 *   cache-stripe  W 64 bytes per line (+64), R 4096
 *   checkerboard  W 16 words per line, RW swap of 8 word pairs, R 512 (+64)
 *   flip          W 4096 (+512), 8 x RMW 4096 (+512 each), R 4096
 *   fwdrev        W 16 bytes per 16 from both ends (+256), R the same (+256)
 *   galpat-0/1    memset, as many random bytes as pages (a page drawn at
 *                 random for each: about 37% get none), R 512 (+64)
 *   gray          W 4096, R 4096 (+4096)
 *   grayflip      W 4096, R 4096 (+4096)
 *   incdec        memset, RMW 4096, RMW 4096 (+4096), R 4096
 *   inc-nybble    memset, RMW 4096 (+512), RMW 4096 (+512), R 4096
 *   lfsr32        W 8 words per 128 bytes (its uint32_t pointer steps
 *                 32 words): 256 words in 32 lines (+32), R the same
 *   modulo-x      23 x (W 178, W 1959 (+1959), R 178): stride 23; the
 *                 complement loop's pointer steps twice per 23 bytes, so
 *                 it stores 22 bytes of every 46
 *   move-inv      W 512, RW 512 (+512), R 512 (+512), then the same in reverse
 *   mscan         RMW 8 per byte (+4096), R 4096, RMW 8 per byte (+4096), R 4096
 *   one-zero      memset, R 512 (+512), memset, R 512 (+512)
 *   prime-*       W every 61st byte, 8 x RMW of those (+67 each), R
 *   prime-incdec  memset, RMW 4096, 4096 sweeps of 1 byte per page, the
 *                 stride one page and a little (+1 each), R 4096
 *   rand-set      W 4096 (+512), R 4096
 *   rand-sum      W 8 words per 512 bytes (its uint64_t pointer steps 64
 *                 words): 64 words in 8 lines (+8), R the same
 *   read64        R 512 words (+16)
 *   ror           W 4096 (+512), RMW 4096 (+512), R 4096
 *   rowhammer     W 1024 words, 10^6 rounds of 2 flushed loads (+10^6 per
 *                 call), R 1024
 *   swap          W 64 chunks of 64 B, each chunk exchanged with a random
 *                 one forward (+64) and in reverse (+64), R 4096
 *   walk-0a/1a    memset, per 256 B a store and 12 in-page and about 15
 *                 far store-and-checks at XOR distances 2^k (+16)
 *   walk-0d/1d    8 set-and-test per byte (+4096)
 *   walk-flush    per line 8 stores, clflush, 8 loads: a DRAM latency (+64)
 *   write64       W 512 words (+16); write64ds falls back to it on a CPU
 *                 without MOVDIRI (Skylake-class); write64nt NT stores (+16)
 *   write1024v    W 32 stores of 128 B (+32)
 *   wrrd128nt     W 16 x 16 B per line (+64), R 1024 (listed twice)
 *   zero-one      memset, R 512 (+512), memset, R 512 (+512)
 */
static const struct vm_method vm_methods[] = {
	{ "cache-lines", { W_(64, 64), R_(64, 0), PAGEIN }, 1 },
	{ "cache-stripe", { W_(4096, 64), R_(4096, 0), PAGEIN }, 1 },
	{ "checkerboard", { W_(1024, 0), W_(1024, 0), PAGEIN, R_(512, 64) }, 1 },
	{ "flip", { W_(4096, 512), PAGEIN, W_(8192, 512), PAGEIN, W_(8192, 512), PAGEIN,
		    W_(8192, 512), PAGEIN, W_(8192, 512), PAGEIN, W_(8192, 512), PAGEIN,
		    W_(8192, 512), PAGEIN, W_(8192, 512), PAGEIN, W_(8192, 512), PAGEIN,
		    R_(4096, 0) }, 1 },
	{ "fwdrev", { { .order = VM_FWD, .flags = VM_W | VM_SAME, .lines = 64, .accesses = 4096,
			.bogo = 256, .repeat = 1, .far = VM_FAR_MIRROR },
		      { .order = VM_FWD, .lines = 64, .accesses = 4096, .bogo = 256, .repeat = 1,
			.far = VM_FAR_MIRROR } }, 1 },
	{ "galpat-0", { MEMSET0, GALPAT_BITS, PAGEIN, R_(512, 64) }, 1 },
	{ "galpat-1", { MEMSET1, GALPAT_BITS, PAGEIN, R_(512, 64) }, 1 },
	{ "gray", { W_(4096, 0), PAGEIN, R_(4096, 4096) }, 1 },
	{ "grayflip", { W_(4096, 0), PAGEIN, R_(4096, 4096) }, 1 },
	{ "incdec", { MEMSET0, W_SAME(8192, 0), PAGEIN, W_ZERO(8192, 4096), R_(4096, 0) }, 1 },
	{ "inc-nybble", { MEMSET0, W_SAME(8192, 512), W_SAME(8192, 512), PAGEIN, R_(4096, 0) }, 1 },
	{ "lfsr32", { W_LINES(32, 256, 32), PAGEIN, R_LINES(32, 256, 0) }, 1 },
	{ "modulo-x", { W_(178, 0), W_(1959, 1959), R_(178, 0) }, 23 },
	{ "move-inv", { W_(512, 0), W_(1024, 512), PAGEIN, R_(512, 512), PASS(VM_REV, VM_W, 512, 0),
			PAGEIN, PASS(VM_REV, VM_W, 1024, 512), PASS(VM_REV, 0, 512, 512) }, 1 },
	{ "mscan", { W_SAME(65536, 4096), R_(4096, 0), W_ZERO(65536, 4096), R_(4096, 0) }, 1 },
	{ "one-zero", { MEMSET1, PAGEIN, R_(512, 512), MEMSET0, PAGEIN, R_(512, 512) }, 1 },
	{ "prime-0", { PRIME61(VM_W, 0), PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
		       PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
		       PRIME61(VM_W, 67), PAGEIN, PRIME61(0, 0) }, 1 },
	{ "prime-1", { PRIME61(VM_W, 0), PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
		       PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
		       PRIME61(VM_W, 67), PAGEIN, PRIME61(0, 0) }, 1 },
	{ "prime-gray-0", { PRIME61(VM_W, 0), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
			    PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
			    PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
			    PAGEIN, PRIME61(0, 0) }, 1 },
	{ "prime-gray-1", { PRIME61(VM_W, 0), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
			    PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
			    PRIME61(VM_W, 67), PRIME61(VM_W, 67), PRIME61(VM_W, 67),
			    PAGEIN, PRIME61(0, 0) }, 1 },
	{ "prime-incdec", { MEMSET0, W_ZERO(8192, 0), PAGEIN,
			    { .order = VM_FWD, .flags = VM_W | VM_LAT | VM_ZERO, .lines = 1, .accesses = 2,
			      .bogo = 1, .repeat = 4096 },
			    R_(4096, 0) }, 1 },
	{ "rand-set", { W_(4096, 512), PAGEIN, R_(4096, 0) }, 1 },
	{ "rand-sum", { W_LINES(8, 64, 8), PAGEIN, R_LINES(8, 64, 0) }, 1 },
	{ "read64", { R_(512, 16) }, 1 },
	{ "ror", { W_(4096, 512), PAGEIN, W_(8192, 512), PAGEIN, R_(4096, 0) }, 1 },
	{ "rowhammer", { PAGEIN, W_SAME(1024, 0), { .order = VM_HAMMER, .flags = VM_LAT, .lines = 2,
					.accesses = 2, .bogo = 1000000, .repeat = 1000000 },
			 R_(1024, 0) }, 1 },
	{ "swap", { W_(128, 0), SWAP_CHUNKS(VM_FWD), SWAP_CHUNKS(VM_REV), PAGEIN, R_(4096, 0) },
	  1 },
	{ "walk-0a", { MEMSET0, WALK_A }, 1 },
	{ "walk-0d", { WALK_D }, 1 },
	{ "walk-1a", { MEMSET0, WALK_A }, 1 },
	{ "walk-1d", { WALK_D }, 1 },
	{ "walk-flush", { PASS(VM_FWD, VM_W | VM_LAT, 1024, 64) }, 1 },
	{ "write64", { W_(512, 16) }, 1 },
	{ "write64ds", { W_(512, 16) }, 1 },
	{ "write64nt", { PASS(VM_FWD, VM_W | VM_NT, 512, 16) }, 1 },
	{ "write1024v", { W_(128, 32) }, 1 },
	{ "wrrd128nt", { W_(1024, 64), R_(1024, 0) }, 1 },
	{ "wrrd128nt", { W_(1024, 64), R_(1024, 0) }, 1 },
	{ "zero-one", { MEMSET0, PAGEIN, R_(512, 512), MEMSET1, PAGEIN, R_(512, 512) }, 1 },
};

#define NR_VM_METHODS	(sizeof(vm_methods) / sizeof(vm_methods[0]))

/*
 * V0.15.06 (Debian 12's stress-ng), read at tag V0.15.06: the methods it
 * runs otherwise, in the same order as V0.17.05.  cache-lines counts one
 * a call (V0.17.02 made it a line); prime-0 and prime-1 memset the buffer
 * and then make 8 sweeps of sz one-byte RMWs, the stride the first prime
 * above sz + 4096 less sz (a page and a little), one a page a sweep, +1
 * each; prime-gray-* two such sweeps; prime-incdec counts its first pass
 * too (V0.17.05 as well: the 2026 code resets the counter before its
 * second loop, so STRESS_VM_V0_17 follows 2026 there).  Left out:
 * write64nt rewrites the same first 256 bytes there (until V0.19.02), the
 * model's pass covers the buffer; the +1 a call of cache-lines (under the
 * >> 12).
 */
#define PRIME_SWEEP(f, n)	{ .order = VM_FWD, .flags = VM_W | VM_LAT | (f), .lines = 1, \
				  .accesses = 2, .bogo = 1, .repeat = (n) }
static const struct vm_method vm_methods_v0_15[] = {
	{ "cache-lines", { W_(64, 0), R_(64, 0), PAGEIN }, 1 },
	{ "prime-0", { MEMSET1, PRIME_SWEEP(VM_ZERO, 8 * 4096), PAGEIN, R_(4096, 0) }, 1 },
	{ "prime-1", { MEMSET0, PRIME_SWEEP(VM_SAME, 8 * 4096), PAGEIN, R_(4096, 0) }, 1 },
	{ "prime-gray-0", { MEMSET1, PRIME_SWEEP(VM_ZERO, 2 * 4096), PAGEIN, R_(4096, 0) }, 1 },
	{ "prime-gray-1", { MEMSET0, PRIME_SWEEP(0, 4096), PAGEIN, PRIME_SWEEP(VM_SAME, 4096),
			    PAGEIN, R_(4096, 0) }, 1 },
	{ "prime-incdec", { MEMSET0, W_ZERO(8192, 4096), PAGEIN, PRIME_SWEEP(VM_ZERO, 4096),
			    R_(4096, 0) }, 1 },
};

/* Method @m of stress-ng @version: V0.15.06's own where it differs. */
static const struct vm_method *vm_method_of(unsigned int version, unsigned int m)
{
	if (version == STRESS_VM_V0_15)
		for (size_t i = 0; i < sizeof(vm_methods_v0_15) / sizeof(vm_methods_v0_15[0]); i++)
			if (!strcmp(vm_methods_v0_15[i].name, vm_methods[m].name))
				return &vm_methods_v0_15[i];
	return &vm_methods[m];
}

/* Whether stress_mincore_touch_pages() sweeps the buffer (V0.13.00-V0.17.05). */
static bool vm_sweeps_pages_in(unsigned int version)
{
	return version == STRESS_VM_V0_17 || version == STRESS_VM_V0_15;
}

/*
 * The table for stress-ng @major.@minor.@patch: STRESS_VM_V0_15 up to
 * V0.15.x, STRESS_VM_V0_17 for V0.16.00-V0.17.05, STRESS_VM_V0_19 from
 * V0.17.06 (the page-in sweeps gone; V0.19.00's order is the nearest) to
 * V0.21.x, STRESS_VM_V0_22 after.
 */
unsigned int stress_vm_version_of(unsigned int major, unsigned int minor, unsigned int patch)
{
	unsigned int v = major * 10000 + minor * 100 + patch;

	if (v < 1600)
		return STRESS_VM_V0_15;
	if (v <= 1705)
		return STRESS_VM_V0_17;
	if (v < 2200)
		return STRESS_VM_V0_19;
	return STRESS_VM_V0_22;
}

static unsigned int vm_nr_passes(const struct vm_method *meth)
{
	unsigned int n = 0;

	while (n < VM_MAX_PASSES && meth->passes[n].repeat)
		n++;
	return n;
}

unsigned int stress_vm_nr_methods(void)
{
	return NR_VM_METHODS;
}

const char *stress_vm_method_name(unsigned int m)
{
	return m < NR_VM_METHODS ? vm_methods[m].name : NULL;
}

/*
 * The table of V0.19.00 (May 2025, the order up to mid-2025), as indices
 * into vm_methods[]: rowhammer after grayflip, then incdec ... swap,
 * move-inv, modulo-x, mscan, one wrrd128nt, prime-*, walk-*, write64,
 * write64nt, write1024v, zero-one; no one-zero, no write64ds.  36 entries.
 */
static const uint8_t vm_rotation_v0_19[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 25, 9, 10, 11, 21, 22, 23, 24, 26, 13, 12, 14, 36,
	16, 17, 18, 19, 20, 28, 30, 27, 29, 31, 32, 34, 35, 38,
};

/* walk-flush, which V0.18.00 (June 2024) added; V0.16.00-V0.17.05 has the rest of that table. */
#define VM_WALK_FLUSH	31

/* stress_vm_all(): the next entry of @version's table, wrapping to its first method. */
unsigned int stress_vm_next_method(unsigned int version, unsigned int m)
{
	unsigned int i, n = sizeof(vm_rotation_v0_19), next = vm_rotation_v0_19[0];

	if (version == STRESS_VM_V0_22)
		return (m + 1) % NR_VM_METHODS;
	for (i = 0; i < n; i++)
		if (vm_rotation_v0_19[i] == m) {
			next = vm_rotation_v0_19[(i + 1) % n];
			if (vm_sweeps_pages_in(version) && next == VM_WALK_FLUSH)
				next = vm_rotation_v0_19[(i + 2) % n];
			break;
		}
	return next;
}

uint64_t stress_vm_method_counter(unsigned int version, unsigned int m, uint64_t pages)
{
	const struct vm_method *meth = vm_method_of(version, m);
	unsigned int p, n = vm_nr_passes(meth);
	uint64_t c = 0;

	for (p = 0; p < n; p++) {
		const struct vm_pass *ps = &meth->passes[p];

		if (ps->order == VM_HAMMER)
			c += ps->bogo;
		else
			c += (uint64_t)ps->bogo * ps->repeat * pages;
	}
	return c * meth->loops;
}

/**
 * stress_vm_method_sweeps - sweeps over the whole buffer one call makes
 * @version: STRESS_VM_V0_*: whether stress_mincore_touch_pages() sweeps
 * @m: index in vm_methods[]
 *
 * Context: none (the table only).
 * Return: the passes that touch pages (loops x repeats), plus for
 * STRESS_VM_V0_17 the PAGEIN entries and the page-in before the call.
 */
unsigned int stress_vm_method_sweeps(unsigned int version, unsigned int m)
{
	const struct vm_method *meth = vm_method_of(version, m);
	unsigned int p, n = vm_nr_passes(meth), sweeps = 0;

	for (p = 0; p < n; p++) {
		const struct vm_pass *ps = &meth->passes[p];

		if (ps->order == VM_PAGEIN)
			sweeps += vm_sweeps_pages_in(version);
		else if (ps->order != VM_HAMMER)
			sweeps += ps->repeat;
	}
	return sweeps * meth->loops + vm_sweeps_pages_in(version);
}

uint64_t stress_vm_bogo_ops(const struct stress_vm_worker *w)
{
	return w->counter >> VM_BOGO_SHIFT;
}

/*
 * A store through the TLB entry that the access just used.  user_access()
 * has set the PTE's dirty bit already (its walk, or the assist of a store
 * through an entry filled clean, src/mm/access.c), so this changes
 * nothing unless the access hit an entry whose PTE is no longer present
 * and writable (reclaim cleared it, its flush still pending): then the
 * store faults.  Returns 0, or -ENOMEM when the fault could not be
 * resolved.
 */
static int vm_store(struct vm_area_struct *vma, uint64_t addr, enum folio_data data)
{
	pte_t *pte = vma_pte_lookup(vma, addr);
	int tries, ret = 0;

	for (tries = 0; tries < 8; tries++) {
		pte_t v = *pte;

		if (pte_present(v) && (v & PTE_WRITE)) {
			*pte = v | PTE_YOUNG | PTE_DIRTY;
			pte_folio(v)->data = data;	/* what the page holds now */
			return 0;
		}
		down_read(&vma->vm_mm->mmap_lock);
		ret = handle_mm_fault(vma, addr, true);
		up_read(&vma->vm_mm->mmap_lock);
		if (ret)
			return ret;
	}
	return 0;
}

/* What a chunk of pages asked of the core and of memory, not yet charged. */
struct vm_traffic {
	uint64_t pages;
	uint64_t issue;			/* accesses not charged through the TLB model */
	uint64_t read_bytes;		/* streamed line fills */
	uint64_t wb_bytes;		/* dirty lines written back */
	uint64_t lat_lines;		/* lines that each cost a DRAM latency */
};

/*
 * Charge a chunk: its TLB outcomes (user_access_charge()), then its issue
 * slots overlapped with its memory traffic (memsys_stream()); a latency-bound
 * line adds the loaded DRAM latency it meets.  User mode: the worker may be
 * preempted and moved here, and then continues with the new vCPU's TLB.
 */
static void vm_charge(struct user_access *ua, struct vm_traffic *t)
{
	const struct sim_profile *p = sim_mm->prof;
	struct sim_vcpu *v = sim_this_vcpu();
	sim_time_t issue_ps, lat_ps = 0;

	issue_ps = sim_smt_scaled_ps(sim_cycles_to_ps(t->issue) / p->mem_loads_per_cycle);
	if (t->lat_lines)
		lat_ps = t->lat_lines * memsys_loaded_latency_ps(sim_mm->memsys, v->id, v->node,
								  v->now);
	sim_preemptible(true);
	user_access_charge(ua);
	memsys_stream(sim_mm->memsys, sim_this_vcpu()->node, t->read_bytes + t->lat_lines * 64,
		    t->wb_bytes, p->mem_stream_gbps, issue_ps + lat_ps);
	sim_preemptible(false);
	if (ua->mmu.tlb != sim_this_vcpu()->tlb)
		user_access_init(ua, ua->vma);
	*t = (struct vm_traffic){ 0 };
}

/*
 * What a store of pass @p at step @i leaves in the pages it touches: as
 * its VM_ZERO or VM_SAME flag says, except in fwdrev, whose forward
 * cursor stores the even bytes and whose backward cursor the odd ones: a
 * page is one word repeated once both have passed it, from the middle on.
 */
static enum folio_data vm_leaves(const struct vm_pass *p, uint64_t i, uint64_t pages)
{
	if (p->far == VM_FAR_MIRROR && 2 * i < pages - 1)
		return FOLIO_DATA_MIXED;
	if (p->flags & VM_ZERO)
		return FOLIO_DATA_ZERO;
	if (p->flags & VM_SAME)
		return FOLIO_DATA_SAME;
	return FOLIO_DATA_MIXED;
}

/*
 * One access to page @pg (and a store's dirty bit, the page left holding
 * @data), @lines of it from memory.
 */
static void vm_touch(struct stress_vm_worker *w, struct user_access *ua, uint64_t pg,
		     const struct vm_pass *p, unsigned int lines, bool stream,
		     enum folio_data data, struct vm_traffic *t)
{
	uint64_t addr = ua->vma->vm_start + (pg << PAGE_SHIFT);
	bool write = p->flags & VM_W;

	user_access(ua, addr, write);
	if (ua->fault_err) {		/* a fault that failed: counted, as vm_store()'s */
		ua->fault_err = 0;
		w->oom++;
		return;
	}
	if (write && vm_store(ua->vma, addr, data))
		w->oom++;
	if (!stream || (p->flags & VM_LAT)) {
		t->lat_lines += lines;
	} else if (!(p->flags & VM_NT)) {
		t->read_bytes += lines * 64ULL;
	}
	if (write)
		t->wb_bytes += lines * 64ULL;
}

/* The pages a pass touches beside @pg. */
static void vm_touch_far(struct stress_vm_worker *w, struct user_access *ua, uint64_t pg,
			 uint64_t pages, const struct vm_pass *p, enum folio_data data,
			 struct vm_traffic *t)
{
	uint64_t k, q;

	switch (p->far) {
	case VM_FAR_MIRROR:
		vm_touch(w, ua, pages - 1 - pg, p, p->lines, true, data, t);
		break;
	case VM_FAR_XOR:
		for (k = 1; k < pages; k <<= 1) {
			q = pg ^ k;
			if (q < pages) {
				vm_touch(w, ua, q, p, p->far_lines, false, data, t);
				t->issue += 2ULL * p->far_lines - 1;
			}
		}
		break;
	case VM_FAR_RANDOM:
		for (k = 0; k < p->nr_far; k++) {
			q = ((pg * p->nr_far + k) * VM_SCATTER_PRIME) % pages;
			vm_touch(w, ua, q, p, p->far_lines, false, data, t);
			t->issue += 4ULL * 64 - 1;	/* a 64-byte exchange */
		}
		break;
	default:
		break;
	}
}

/*
 * stress_mincore_touch_pages() (core-mincore.c), where stress-ng calls it:
 * once per iteration before the method (stress_vm_child()) and between
 * some methods' passes (the PAGEIN entries of vm_methods[]).  Since
 * 65ae7661b (6 February 2024, first in V0.17.06) it returns at once
 * without --page-in, as in the 2026 version.  From 63d3f9972 (July 2021)
 * until then it called madvise(MADV_POPULATE_READ) on the whole buffer
 * whatever the options: madvise_populate() -> faultin_page_range()
 * (mm/gup.c, FOLL_TOUCH) -> __get_user_pages() under mmap_lock for
 * reading, which looks up each page (follow_page_pte(): one PTE read) and
 * faults in, as a read, each one that is not present: a swapped-out page
 * is read back (do_swap_page()), with no access through the TLB and no
 * bogo op.  STRESS_VM_V0_17 runs that.
 *
 * Left out: FOLL_TOUCH's folio_mark_accessed() on a page found present
 * (the model has no such call; at this scenario's scale the sweep finds
 * almost every page swapped out), the zero page a read fault maps on a
 * page never touched (skipped here: the first store then faults as on an
 * empty PTE), and the exception entry that handle_mm_fault() charges
 * (mm.fault_entry_ns) where GUP takes none.
 *
 * Returns false when the timeout hit.
 */
static bool vm_page_in(struct stress_vm_worker *w, struct vm_area_struct *vma)
{
	uint64_t pages = w->bytes >> PAGE_SHIFT, i, addr;
	pte_t *pte;

	if (!vm_sweeps_pages_in(w->version))
		return true;
	sim_cost_cpu_ps(sim_mm->syscall_ps);
	down_read(&vma->vm_mm->mmap_lock);
	for (i = 0; i < pages && sim_now() < w->duration; i++) {
		addr = vma->vm_start + (i << PAGE_SHIFT);
		pte = vma_pte_lookup(vma, addr);
		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		if (pte_swap(*pte) && handle_mm_fault(vma, addr, false))
			w->oom++;
	}
	up_read(&vma->vm_mm->mmap_lock);
	return sim_now() < w->duration;
}

/* rowhammer's loop: @p->repeat rounds, each two flushed lines reloaded together. */
static bool vm_hammer(struct stress_vm_worker *w, struct user_access *ua,
		      const struct vm_pass *p)
{
	struct vm_traffic t = { 0 };
	uint32_t left = p->repeat, n;

	while (left) {
		n = left < 4096 ? left : 4096;
		t.issue = (uint64_t)n * p->accesses;
		t.lat_lines = n;		/* the two loads of a round overlap */
		vm_charge(ua, &t);
		left -= n;
	}
	w->counter += p->bogo;
	return sim_now() < w->duration;
}

/* One pass; false when the timeout hit (the method's stress_continue_flag()). */
static bool vm_pass_run(struct stress_vm_worker *w, struct user_access *ua,
			const struct vm_pass *p)
{
	uint64_t pages = w->bytes >> PAGE_SHIFT, i, pg;
	struct vm_traffic t = { 0 };
	enum folio_data data;
	uint32_t r;

	if (p->order == VM_HAMMER)
		return vm_hammer(w, ua, p);
	if (p->order == VM_PAGEIN)
		return vm_page_in(w, ua->vma);
	for (r = 0; r < p->repeat; r++) {
		for (i = 0; i < pages; i++) {
			if (sim_now() >= w->duration) {
				vm_charge(ua, &t);
				return false;
			}
			if (p->order == VM_REV)
				pg = pages - 1 - i;
			else if (p->order == VM_RANDOM)
				pg = sim_rng_below(&sim_current()->rng, pages);
			else
				pg = i;
			data = vm_leaves(p, i, pages);
			vm_touch(w, ua, pg, p, p->lines, true, data, &t);
			if (p->far != VM_FAR_NONE)
				vm_touch_far(w, ua, pg, pages, p, data, &t);
			t.issue += p->accesses - 1;
			w->counter += p->bogo;
			if (++t.pages == VM_CHARGE_PAGES)
				vm_charge(ua, &t);
		}
	}
	vm_charge(ua, &t);
	return true;
}

/**
 * stress_vm_worker - body of one stress-ng vm worker process
 * @arg: its struct stress_vm_worker
 */
void stress_vm_worker(void *arg)
{
	struct stress_vm_worker *w = arg;
	struct vm_area_struct *vma;
	struct user_access ua;
	uint64_t addr;
	bool go = true;

	switch_mm_irqs_off(w->mm);
	addr = vm_mmap_anon(w->mm, w->bytes, false);	/* THP off: order-0 folios */
	vma = find_vma(w->mm, addr);
	user_access_init(&ua, vma);
	w->method = 0;
	while (go) {
		const struct vm_method *meth = vm_method_of(w->version, w->method);
		unsigned int p, n = vm_nr_passes(meth);
		uint32_t l;

		go = vm_page_in(w, vma);	/* stress_vm_child(), before each call */
		for (l = 0; l < meth->loops && go; l++)
			for (p = 0; p < n && go; p++)
				go = vm_pass_run(w, &ua, &meth->passes[p]);
		if (go) {
			w->calls++;
			w->method = stress_vm_next_method(w->version, w->method);
		}
	}
	vm_munmap(w->mm, addr, w->bytes);	/* --vm-keep: unmapped at the end */
}
