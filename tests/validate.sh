#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mmsim validate end to end on a tiny matrix (1 thread, one live run after
# the warm-up, 1 MiB rounds): the report is whole (every point of every
# metric has a verdict, each judged one a live median and a simulated
# value), the JSON parses, and bad input gets exit 2 before anything runs.
# The THP settings live mode writes with --apply are a fake sysfs tree
# (MMSIM_LIVE_SYS_ROOT), so the test changes nothing on the machine.
# Usage: bash tests/validate.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

. "$2/tests/lib/fake_thp.sh"
fake_thp "$T/sys"
mkdir -p "$thp/hugepages-2048kB"
echo 511 > "$thp/khugepaged/max_ptes_none"
echo 10000 > "$thp/khugepaged/scan_sleep_millisecs"
echo "always [inherit] madvise never" > "$thp/hugepages-2048kB/enabled"
export MMSIM_LIVE_SYS_ROOT=$T/sys MMSIM_LIVE_STATE=$T/state
# the real tracefs in the fake tree (read only here): the lock recorder and
# the tracepoint sample's cost need its event ids
[ -d /sys/kernel/tracing/events ] && ln -s /sys/kernel/tracing "$T/sys/sys/kernel/tracing"

# bad input: one line, exit 2, nothing run
for bad in "nosuch" "--threads 0" "--threads 1,x" "--repeat 0" "--band -1" \
	   "--set rounds" "--profile $T/none.ini" "--json $T/nodir/r.json" "--frobnicate" \
	   "--report lines"; do
	# shellcheck disable=SC2086
	"$BIN" validate deferred-split $bad > out.txt 2> err.txt
	rc=$?
	[ "$rc" = 2 ] || fail "validate $bad: exit $rc, expected 2"
	[ "$(grep -v '^==' err.txt | wc -l)" = 1 ] || fail "validate $bad: $(cat err.txt)"
	[ ! -s out.txt ] || fail "validate $bad: printed $(head -2 out.txt)"
done
echo "ok: bad input"

"$BIN" profiles --from-host host.ini || fail "profiles --from-host"
"$BIN" validate deferred-split --profile host.ini --threads 1 --repeat 1 \
	--set rounds=1 --set region=1M --set node_memory=8G --json r.json > out.txt 2> err.txt ||
	fail "validate exited $?: $(cat err.txt)"
python3 - r.json <<'PY' || fail "the report"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
keys = {p["metric"] for p in pts}
assert {"runtime_s", "faults", "lruvec_lock_wait_s"} <= keys, keys
for p in pts:
    assert p["experiment"] == "deferred-split" and p["threads"] == 1, p
    assert p["verdict"] in ("agrees", "misses", "agrees (near zero)",
                            "misses (near zero)", "unavailable", "not simulated"), p
    if p["verdict"].startswith(("agrees", "misses")):
        assert len(p["live_runs"]) == 1 and p["simulated"] is not None, p
        # one simulated run a live run: seed 1
        assert p["simulated_runs"] == [p["simulated"]], p
# 1 MiB of 16K mTHP in one round: 64 faults on both sides
f = [p for p in pts if p["metric"] == "faults"][0]
assert f["simulated"] == 64, f
# the simulated side runs the live run's parameters: the live defaults
# (workers=threads, not the published runs' processes), the --set given,
# the thread count
sp = f["simulated_params"]
assert sp["workers"] == "threads" and sp["threads"] == 1, sp
assert sp["rounds"] == 1 and sp["region"] == 1 << 20, sp
# a parameter of the model alone (live refuses it) went to the simulated side only
assert sp["node_memory"] == 8 << 30, sp
s = d["summary"]
assert s["judged"] + s["not_judged"] == len(pts), s
# with two CPUs or more, the line transfer measured around the live runs,
# which the simulated side took (--cost cache.socket_transfer_ns)
import os
if len(os.sched_getaffinity(0)) >= 2:
    x = [p.get("line_transfer_ns") for p in pts if p["verdict"].startswith(("agrees", "misses"))]
    assert x and all(v and 1 <= v < 100000 for v in x), x
# as root, where the live run recorded its lock waits and the tracepoint
# sample could be timed, the simulated side took the recorder's sample
# inside each contended hold (--cost lock.contention_trace_ns)
w = [p for p in pts if p["metric"] == "lruvec_lock_wait_s"][0]
if (os.geteuid() == 0 and w["verdict"].startswith(("agrees", "misses")) and
        os.path.exists(os.environ["MMSIM_LIVE_SYS_ROOT"] +
                       "/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id")):
    t = [p.get("contention_trace_ns") for p in pts if p["verdict"].startswith(("agrees", "misses"))]
    assert all(v and 1 <= v < 100000 for v in t), t
    # and the begin sample (with a call chain), reported beside it
    b = [p.get("contention_begin_trace_ns") for p in pts if p["verdict"].startswith(("agrees", "misses"))]
    assert all(v and 1 <= v < 100000 for v in b), b
PY
grep -q "^validate: [0-9]* of [0-9]* judged metrics agree" out.txt || fail "no summary line"
[ ! -e "$T/state" ] || fail "the live state file was left behind"
grep -qx -e never -e '.*\[never\]' "$thp/hugepages-16kB/enabled" || fail "the fake mTHP setting was not restored"
ls /tmp/mmsim-validate-* > /dev/null 2>&1 && fail "a temporary folder was left in /tmp"
echo "ok: a 1-thread report"

# --report functions: each point's time by kernel function, the simulated
# run's rows and, as root, the warm-up live run's samples (its rows name
# kernel functions; handle_mm_fault is on both sides)
"$BIN" validate deferred-split --profile host.ini --threads 1 --repeat 1 \
	--set rounds=20 --set region=8M --set node_memory=8G --report functions --json rf.json \
	> out.txt 2> err.txt || fail "validate --report functions exited $?: $(cat err.txt)"
python3 - rf.json <<'PY' || fail "the functions of the report"
import json, os, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    f = p["functions"]
    sim = {r["function"] for r in f["simulated"]}
    assert "handle_mm_fault" in sim, sim
    if os.geteuid() == 0:
        live = {r["function"] for r in f["live"] or []}
        assert "handle_mm_fault" in live and f["live_samples"] > 0, f
PY
grep -q "^functions: deferred-split at 1 " out.txt || fail "no functions block in the table"
echo "ok: --report functions"

# A shipped workload (docs/workloads.md): live and simulated at each thread
# count, the tasks parameter set to it on both sides, ops_per_task_s and
# faults judged (not the metrics that follow from them); the thread counts
# take their live runs in turn (warm-ups 1 and 2, then 1, 2, 1, 2).
"$BIN" validate page_fault1 --profile host.ini --threads 1,2 --repeat 2 \
	--set duration=20ms --set size=1M --json w.json > out.txt 2> err.txt ||
	fail "validate page_fault1 exited $?: $(cat err.txt)"
python3 - w.json <<'PY' || fail "the workload's report"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert {p["experiment"] for p in pts} == {"page_fault1"}, pts
assert {p["threads"] for p in pts} == {1, 2}, pts
assert {p["metric"] for p in pts} == {"ops_per_task_s", "faults"}, pts
for p in pts:
    assert p["verdict"].startswith(("agrees", "misses")), p
    sp = p["simulated_params"]
    assert sp["tasks"] == p["threads"] and sp["size"] == 1 << 20, sp
    assert p["simulated"] > 0 and p["live_runs"][0] > 0, p
    want = [3, 5] if p["threads"] == 1 else [4, 6]
    assert p["live_run_sequence"] == want, p
    # with two CPUs or more, the line transfer measured before each live run,
    # and the simulated side took their median
    import os
    if len(os.sched_getaffinity(0)) >= 2:
        x = p["live_run_transfer_ns"]
        assert len(x) == 2 and all(1 <= v < 100000 for v in x), p
        assert 1 <= p["line_transfer_ns"] < 100000, p
PY
ls /tmp/mmsim-validate-* > /dev/null 2>&1 && fail "a temporary folder was left in /tmp"
echo "ok: a shipped workload"

# --repeat 3: three live runs and three simulated, seeds 1..3; the table
# and the judge take the seeds' median, the JSON keeps each in seed order,
# and seed 2's run is the one `mmsim run --seed 2` gives.
"$BIN" validate deferred-split --profile host.ini --threads 2 --repeat 3 \
	--set rounds=4 --set region=2M --set node_memory=8G --json s.json > out.txt 2> err.txt ||
	fail "validate --repeat 3 exited $?: $(cat err.txt)"
"$BIN" run deferred-split --variant unqueued --profile host.ini --seed 2 --set threads=2 \
	--set workers=threads --set rounds=4 --set region=2M --set node_memory=8G \
	$(python3 -c 'import json,sys; p=[p for p in json.load(open("s.json"))["points"] if p["metric"]=="runtime_s"][0]; print(" ".join("--cost %s=%.0f" % kv for kv in (("cache.socket_transfer_ns", p.get("line_transfer_ns")), ("lock.contention_trace_ns", p.get("contention_trace_ns")), ("lock.contention_begin_ns", p.get("contention_begin_trace_ns"))) if kv[1]))') \
	--json seed2.json > /dev/null 2> err.txt || fail "run --seed 2 exited $?: $(cat err.txt)"
python3 - s.json seed2.json <<'PY' || fail "the seeds of the report"
import json, sys
d = json.load(open(sys.argv[1]))
seed2 = json.load(open(sys.argv[2]))["variants"][0]["metrics"]
for p in d["points"]:
    if not p["verdict"].startswith(("agrees", "misses")):
        continue
    runs = p["simulated_runs"]
    assert len(runs) == 3 and len(p["live_runs"]) == 3, p
    assert p["simulated"] == sorted(runs)[1], p
    assert runs[1] == seed2[p["metric"]], (p, seed2)
PY
grep -q "and 3 simulated, seeds 1..3 (median, min..max)" out.txt || fail "the table's header"
echo "ok: the simulated side's seeds"

# reclaim-tlb (root: memory cgroups, zram): the simulated side models the
# stress-ng this machine has (live mode's "model_params": its version's
# table, the swap it used), unless a --set says otherwise.
if [ "$(id -u)" = 0 ] && command -v stress-ng > /dev/null; then
	ver=$(stress-ng --version | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/\1 \2 \3/p')
	want=$(echo "$ver" | awk '{ v = $1 * 10000 + $2 * 100 + $3;
		print v < 1600 ? "v0.15" : v <= 1705 ? "v0.17" : v < 2200 ? "v0.19" : "v0.22" }')
	found=$want
	for given in "" "--set stress_ng=v0.22"; do
		# shellcheck disable=SC2086
		"$BIN" validate reclaim-tlb --profile host.ini --threads 1 --repeat 1 \
			--set vm_bytes=32M --set memcg_limit=16M --set duration=1s $given \
			--json rt.json > out.txt 2> err.txt ||
			fail "validate reclaim-tlb $given exited $?: $(cat err.txt)"
		[ -n "$given" ] && want=v0.22
		python3 - rt.json "$want" <<'PY' || fail "reclaim-tlb's simulated parameters ($given)"
import json, sys
d = json.load(open(sys.argv[1]))
sp = d["points"][0]["simulated_params"]
assert sp["stress_ng"] == sys.argv[2], (sp, sys.argv[2])
assert sp["swap"] > 0, sp
# each live run's OOM kills (vmstat oom_kill), counted whether or not any
k = d["points"][0]["live_oom_kills"]
assert len(k) == 1 and all(isinstance(v, int) and v >= 0 for v in k), k
PY
	done
	echo "ok: reclaim-tlb models this machine's stress-ng ($(echo "$ver" | tr ' ' .): $found; a --set wins)"
else
	echo "skip: reclaim-tlb's stress-ng (needs root and stress-ng)"
fi
