#!/usr/bin/env bash
# `mmsim live` and `mmsim compare` of shipped workload files on this
# machine (src/workload/live.c): page_fault1 (anonymous memory) prints
# ops_per_task_s > 0; page_fault2 (a page cache file per task, in
# /tmp/mmsim-live-wl-X) leaves no such directory and no state file behind;
# compare prints a live and a simulated value of ops_per_task_s (skipped,
# with a note, while the simulated executor is not built: it says so).
# Live runs need root (system-wide tracepoints): without it, skipped.
# Usage (ctest): workload_live.sh MMSIM_BIN SOURCE_DIR
set -u
bin=$1
if [ "$(id -u)" != 0 ]; then
	echo "workload_live: skipped: live runs need root"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MMSIM_LIVE_STATE=$T/state
fail() { echo "workload_live: FAIL: $*"; exit 1; }

# The value of METRIC in a live table (first number after the name).
value() { awk -v m="$1" '$1 == m { print $2; exit }'; }

out=$("$bin" live page_fault1 --set duration=200ms --set size=16M 2>&1) ||
	fail "mmsim live page_fault1 exited $?: $out"
v=$(echo "$out" | value ops_per_task_s)
awk -v v="${v:-0}" 'BEGIN { exit !(v + 0 > 0) }' ||
	fail "page_fault1: ops_per_task_s is '${v}', expected > 0: $out"
ops=$(echo "$out" | value ops)
[ "${ops:-0}" -ge 4096 ] || fail "page_fault1: ops is '${ops}', expected at least one 16M round (4096)"

# a file per task in /tmp/mmsim-live-wl-X, gone at the end
ls -d /tmp/mmsim-live-wl-* 2>/dev/null | sort > "$T/before"
if findmnt -n -o FSTYPE -T /tmp | grep -qx tmpfs; then
	echo "workload_live: /tmp is a tmpfs: page_fault2 with fs=file is refused; checking that"
	out=$("$bin" live page_fault2 --set duration=100ms --set size=4M 2>&1)
	[ $? = 2 ] || fail "page_fault2 on a tmpfs /tmp: expected exit 2: $out"
else
	out=$("$bin" live page_fault2 --set duration=100ms --set size=4M 2>&1) ||
		fail "mmsim live page_fault2 exited $?: $out"
	v=$(echo "$out" | value ops_per_task_s)
	awk -v v="${v:-0}" 'BEGIN { exit !(v + 0 > 0) }' ||
		fail "page_fault2: ops_per_task_s is '${v}', expected > 0: $out"
fi
# another test's run may have one for a moment: look twice
for try in 1 2; do
	ls -d /tmp/mmsim-live-wl-* 2>/dev/null | sort > "$T/after"
	left=$(comm -13 "$T/before" "$T/after")
	[ -z "$left" ] && break
	sleep 2
done
[ -z "$left" ] || fail "left behind: $left"
[ ! -e "$MMSIM_LIVE_STATE" ] || fail "the state file is left: $(cat "$MMSIM_LIVE_STATE")"

out=$("$bin" compare page_fault1 --set duration=200ms --set size=16M 2>&1)
rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q "simulated executor is not built"; then
	echo "workload_live: note: compare's simulated side skipped: the simulated executor is not merged yet"
else
	[ $rc = 0 ] || fail "mmsim compare page_fault1 exited $rc: $out"
	line=$(echo "$out" | awk '$1 == "ops_per_task_s"' | tail -1)
	n=$(echo "$line" | awk '{ c = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.,]+$/ && $i + 0 > 0) c++; print c }')
	[ "${n:-0}" -ge 2 ] || fail "compare: expected a live and a simulated ops_per_task_s: '$line'"
fi
echo "workload_live: ok"
