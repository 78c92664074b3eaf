#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Live runs in a guest that reports free pages to its host touch and free
# the run's memory first (src/host/workloads.c, live_guest_prefault()), and
# only there: with /sys/module/page_reporting in a fake sysfs tree
# (MMSIM_LIVE_SYS_ROOT) the run says so under its table, without it it
# does not, and either way the faults it reports are the workload's alone
# (the prefault's come before the counters start).
# Usage: bash tests/live_prefault.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

. "$2/tests/lib/fake_thp.sh"
fake_thp "$T/sys"
export MMSIM_LIVE_SYS_ROOT=$T/sys MMSIM_LIVE_STATE=$T/state MMSIM_LIVE_LOCKS=off

faults() {	# the faults metric of a JSON report
	python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['variants'][0]['metrics']['faults']))" "$1"
}
run() {		# 8 MiB of 4K faults, one thread
	"$BIN" live deferred-split --set threads=1 --set rounds=1 --set region=8M \
		--json "$T/$1.json" > "$T/$1.txt" 2> "$T/$1.err" ||
		fail "live exited $?: $(head -3 "$T/$1.err")"
}

run plain
grep -q "free page reporting" "$T/plain.txt" && fail "a prefault without page reporting"
mkdir -p "$T/sys/sys/module/page_reporting"
run reporting
grep -q "free page reporting: [0-9]* MiB touched and freed" "$T/reporting.txt" ||
	fail "no prefault note with page reporting: $(tail -5 "$T/reporting.txt")"
a=$(faults "$T/plain.json") b=$(faults "$T/reporting.json")
# 8 MiB: 2048 faults of 4K pages, 512 of 16K mTHP (the machine's own
# setting: this test changes none); the prefault, 4K pages of twice the
# run's memory, would add about 4100 more
[ "$a" -ge 512 ] || fail "plain run: $a faults"
[ "$b" -lt $((a + a / 4 + 64)) ] || fail "the prefault's faults were counted: $b against $a"
echo "ok: prefault only with page reporting ($a and $b faults)"
