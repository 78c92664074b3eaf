#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every U64 profile value at the minimum and the maximum of its PROFILE_LIMITS
# range, through every scenario at a small scale, one run each: each must end
# with exit 0 or a one-line bad-input error (exit 2), never an engine BUG, a
# crash or a hang (timeout 60 s).  Values other than the quantum run with the
# largest quantum, so that the check across fields (the quantum covers a line
# transfer plus a locked RMW) admits line costs at their maxima.
# Usage: scripts/cost_extremes.sh [MMSIM_BIN]   (about 500 runs; minutes)
set -u
cd "$(dirname "$0")/.."
bin=${1:-build/mmsim}
small() {
	case $1 in
	spinlock) echo "--set cpus=8 --set iterations=100" ;;
	deferred-split) echo "--set threads=4 --set rounds=4 --set region=1M --set node_memory=64M" ;;
	reclaim-tlb) echo "--set workers=2 --set vm_bytes=16M --set memcg_limit=8M --set swap=64M --set duration=10ms --set node_memory=256M" ;;
	khugepaged-cold) echo "--set task_size=8M --set accesses=100000 --set node_memory=256M --set first_wake=1ms --set scan_sleep=1ms" ;;
	esac
}
python3 - <<'PY' > /tmp/cost_extremes.$$
import re
s = open("include/mmsim/profile.h").read()
consts = dict(re.findall(r'#define (PROFILE_\w+_MAX)\s+(\d+)ULL', s))
s = s[s.index("#define PROFILE_LIMITS(X)"):]
for sec, key, lo, hi in re.findall(r'X\((\w+), (\w+), ([^,]+), ([^,]+),', s):
    ev = lambda x: str(eval(re.sub(r'PROFILE_\w+_MAX', lambda m: consts[m.group(0)], x).replace("ULL", "")))
    print("%s.%s %s %s" % (sec, key, ev(lo), ev(hi)))
PY
bad=0 n=0 refused=0
while read -r key lo hi; do
	for v in $lo $hi; do
		for s in spinlock deferred-split reclaim-tlb khugepaged-cold; do
			q=; [ "$key" = sched.quantum_ns ] || q="--cost sched.quantum_ns=10000000"
			# shellcheck disable=SC2046
			out=$(timeout 60 "$bin" run $s $(small $s) --jobs 1 --quiet $q --cost "$key=$v" 2>&1 >/dev/null)
			rc=$?
			n=$((n + 1))
			[ $rc -eq 2 ] && refused=$((refused + 1))
			if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
				echo "FAIL: $s --cost $key=$v: exit $rc: $out"
				bad=$((bad + 1))
			fi
		done
	done
done < /tmp/cost_extremes.$$
rm -f /tmp/cost_extremes.$$
echo "cost_extremes: $n runs: $((n - refused - bad)) ran, $refused refused as bad input, $bad failed"
[ $bad -eq 0 ]
