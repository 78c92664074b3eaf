#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The inputs that crashed, hung or corrupted output before issue 18, run
# against the real binary: each must now end with exactly one
# "mmsim: error:" line and exit 2, before any work, within a few seconds.
# Signals: a run killed by SIGINT, SIGTERM or SIGKILL leaves no file
# behind, and its pool children end with it.
# Usage: bash tests/bad_input.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
n=0

# expect_bad WANT ARGS...: one error line containing WANT, exit 2, no stdout, in 20 s.
expect_bad() {
	local want=$1 rc
	shift
	timeout 20 "$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	grep -v '^==[0-9]*==' err.txt > err1.txt	# the sanitizer's own notes
	[ $rc -eq 2 ] || fail "$*: exit $rc, expected 2 ($(head -c 300 err1.txt))"
	[ "$(wc -l < err1.txt)" -eq 1 ] || fail "$*: $(wc -l < err1.txt) lines on stderr: $(head -c 600 err1.txt)"
	grep -q '^mmsim: error: ' err1.txt || fail "$*: not an mmsim error: $(cat err1.txt)"
	grep -qF -- "$want" err1.txt || fail "$*: expected \"$want\" in: $(cat err1.txt)"
	[ -s out.txt ] && fail "$*: wrote to stdout"
	n=$((n + 1))
}

SMALL=(--set threads=2 --set rounds=1 --set region=1M --set node_memory=64M)

# cmd_merge: a NUL byte, an endless input
printf 'scenario,cpus,seed,variant,metric,value\nspinlock,2\0x\n' > n.csv
expect_bad "merge n.csv: a NUL byte" merge n.csv
# an endless input of NUL bytes, as /dev/zero would give, from a FIFO this
# test makes (make test reads none of the host's device files); the writer
# ends when mmsim closes the FIFO (SIGPIPE), or after 60 s if it never opens it
mkfifo zero.fifo || fail "mkfifo"
zeros() { timeout 60 sh -c 'yes "" | tr "\n" "\0" > zero.fifo' & zpid=$!; }
zeros
expect_bad "merge zero.fifo: a NUL byte" merge zero.fifo
wait "$zpid"
zeros
expect_bad "profile $T/zero.fifo: a NUL byte" run spinlock --profile "$T/zero.fifo"
wait "$zpid"
printf '%*s' 2000000 '' | tr ' ' '#' > big.ini
expect_bad "profile big.ini: longer than" run spinlock --profile big.ini

# values that were truncated to int or uint32_t after the range check
for v in 4294967296 2147483648 18446744073709551615 9; do
	expect_bad "topology.nodes = $v: expected 1 to 8" run deferred-split "${SMALL[@]}" --cost topology.nodes=$v
done
expect_bad "topology.sockets = 4294967298: expected 1 to 64" run deferred-split "${SMALL[@]}" \
	--cost topology.sockets=4294967298
expect_bad "topology.sockets = 18446744073709551615" run spinlock --cost topology.sockets=18446744073709551615
sed 's/^sockets = .*/sockets = 4294967296/' "$2/profiles/desktop.ini" > big-sockets.ini
expect_bad "topology.sockets = 4294967296: expected 1 to 64" profiles big-sockets.ini
sed 's/^mm.pte_op_ns = /mm.nope = /' "$2/profiles/desktop.ini" > src-unknown.ini
expect_bad "source for unknown field mm.nope" profiles src-unknown.ini
sed 's/^mm.pte_op_ns = /mmpte = /' "$2/profiles/desktop.ini" > src-nodot.ini
expect_bad "source for mmpte: expected section.key" profiles src-nodot.ini
expect_bad "mem.loads_per_cycle = 4294967296: expected 1 to 16" run spinlock --cost mem.loads_per_cycle=4294967296
for k in cache.l1d_kib cache.l2_kib cache.l3_kib tlb.pml4_cache_entries tlb.pdpte_cache_entries \
	 tlb.pde_cache_entries tlb.l1_4k_entries; do
	for v in 4294967296 18446744073709551615; do
		expect_bad "$k = $v: expected" run khugepaged-cold --cost $k=$v
	done
done

# costs that hung a short run or broke its locks at 2^32 and 2^64-1
for k in clock.mhz sched.quantum_ns sched.context_switch_ns sched.wakeup_ns cache.l1_hit_ns \
	 cache.socket_transfer_ns cache.l1d_cycles mm.fault_entry_ns mm.folio_op_ns lock.atomic_cycles; do
	for v in 4294967296 18446744073709551615; do
		expect_bad "$k = $v: expected" run spinlock --cost $k=$v
	done
done
# a line transfer longer than the quantum let two vCPUs own one lock
expect_bad "sched.quantum_ns = 1: expected at least" run spinlock --cost sched.quantum_ns=1
expect_bad "expected at least 100" run spinlock --cost cache.l1_hit_ns=100000

# found only in the worker processes before: now before forking
expect_bad "topology.nodes = 9" run deferred-split "${SMALL[@]}" --jobs 2 --cost topology.nodes=9
expect_bad "tlb.l1_4k_entries = 4294967296" run deferred-split "${SMALL[@]}" --jobs 2 \
	--cost tlb.l1_4k_entries=4294967296
expect_bad "tlb.l1_4k_entries=48, tlb.l1_4k_ways=4: expected" run deferred-split "${SMALL[@]}" \
	--jobs 2 --cost tlb.l1_4k_entries=48

# a run that cannot fit in this host's memory: refused with the estimate
expect_bad "GiB of host memory" run deferred-split --set threads=64 --set region=64G \
	--set node_memory=4T --set rounds=1
expect_bad "GiB of host memory" sweep deferred-split --vary region=1M,64G --set threads=64 \
	--set node_memory=4T --set rounds=1

# two outputs that are one file
expect_bad "--json x.json and --trace x.json are one file" run spinlock --json x.json --trace x.json
expect_bad "are one file" run deferred-split "${SMALL[@]}" --json t.json --trace "$T/t.json"
expect_bad "are one file" run spinlock --json ./d.json --csv "$T/d.json"
expect_bad "--csv s.svg and --plot s.svg are one file" sweep spinlock --vary cpus=2,4 \
	--set iterations=5 --csv s.svg --plot s.svg
[ -z "$(ls -A | grep -v '^\(out\|err\|err1\)\.txt$\|\.csv$\|\.ini$\|^zero\.fifo$')" ] || fail "files left: $(ls -A)"
echo "ok: $n bad inputs, one line and exit 2 each"

# merge of a header-only shard (qsort(NULL, 0) before): the header, exit 0
printf 'scenario,cpus,seed,variant,metric,value\n' > h.csv
"$BIN" merge h.csv > out.txt 2> err.txt || fail "header-only merge exited $?"
cmp -s out.txt h.csv || fail "header-only merge printed $(cat out.txt)"
grep -v '^==[0-9]*==' err.txt | grep -q . && fail "header-only merge: $(cat err.txt)"
echo "ok: header-only merge"

# signals: no temporary file left, no child left running
mkdir sig && cd sig || exit 1
for sig in INT TERM KILL; do
	rm -f ./*
	# a background job of a script ignores SIGINT; the run must not
	( trap - INT; exec "$BIN" run deferred-split --set threads=8 --set rounds=100000 \
		--json o.json --csv o.csv --jobs 2 > /dev/null 2>&1 ) &
	pid=$!
	for _ in $(seq 50); do
		[ "$(pgrep -P $pid | wc -l)" -ge 2 ] && break
		sleep 0.1
	done
	kids=$(pgrep -P $pid)
	[ -n "$kids" ] || fail "SIG$sig: no pool children seen"
	kill -$sig $pid
	wait $pid 2> /dev/null
	for _ in $(seq 50); do
		alive=0
		for k in $kids; do
			[ -e /proc/$k ] && [ "$(cut -d' ' -f3 /proc/$k/stat 2> /dev/null)" != Z ] && alive=1
		done
		[ $alive -eq 0 ] && break
		sleep 0.1
	done
	[ $alive -eq 0 ] || fail "SIG$sig: pool children still running"
	[ -z "$(ls -A)" ] || fail "SIG$sig: left $(ls -A)"
done
echo "ok: SIGINT, SIGTERM and SIGKILL leave no file and no child"
