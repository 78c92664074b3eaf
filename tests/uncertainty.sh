#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Answers with their uncertainty (docs/uncertainty.md), end to end:
# 1. seeds: two seeds differ; one seed gives the same bytes twice and
#    with --jobs 1 and --jobs 2; --seeds 5 shows a nonzero spread, and its
#    JSON carries every seed's value;
# 2. the verdict of reproduce, in the text and the JSON: one agreeing and
#    one disagreeing metric on a small configuration;
# 3. --baseline and `mmsim diff` (bad input: one line, exit 2);
# 4. `mmsim sensitivity` on a small configuration.
# Usage: bash tests/uncertainty.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# The sanitizer build's own notes ("==PID==WARNING: ASan ...") are not mmsim's.
errlines() { grep -v '^==[0-9]*==' err.txt > err1.txt; mv err1.txt err.txt; }
# bad input: exit 2, exactly one line on stderr, starting "mmsim: error: "
bad() {
	"$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	errlines
	[ $rc -eq 2 ] || fail "$* exited $rc, expected 2"
	[ "$(wc -l < err.txt)" -eq 1 ] || fail "$*: expected one line, got: $(cat err.txt)"
	grep -q '^mmsim: error: ' err.txt || fail "$*: $(cat err.txt)"
}

DS=(deferred-split --set threads=8 --set rounds=4 --set region=1M)

# 1. seeds
"$BIN" run "${DS[@]}" --seed 1 --quiet > s1.txt || fail "seed 1"
"$BIN" run "${DS[@]}" --seed 2 --quiet > s2.txt || fail "seed 2"
cmp -s s1.txt s2.txt && fail "seeds 1 and 2 give the same table"
"$BIN" run "${DS[@]}" --seed 2 --jobs 1 2>/dev/null | grep -v '^host time' > a.txt
"$BIN" run "${DS[@]}" --seed 2 --jobs 1 2>/dev/null | grep -v '^host time' > b.txt
"$BIN" run "${DS[@]}" --seed 2 --jobs 2 2>/dev/null | grep -v '^host time' > c.txt
cmp a.txt b.txt || fail "seed 2 differs between two runs"
cmp a.txt c.txt || fail "seed 2 differs between --jobs 1 and --jobs 2"
echo "ok: two seeds differ; one seed is the same across runs and --jobs"

"$BIN" run "${DS[@]}" --seeds 5 --jobs 2 --json seeds.json > seeds.txt || fail "--seeds 5"
# the queueing cost of "before": "mean +- ci" with ci > 0
ci=$(grep '^queueing cost' seeds.txt | awk '{ print $11 }')
[ -n "$ci" ] || fail "no queueing cost row: $(cat seeds.txt)"
awk -v c="$ci" 'BEGIN { exit !(c > 0) }' || fail "queueing cost before: zero spread ($ci)"
grep -q '"count": 5' seeds.json || fail "JSON: no seed count"
grep -q '"ci_contains_zero"' seeds.json || fail "JSON: no change statistics"
# five values per metric and variant: 3 variants x 7 metrics + 1 change x 7 metrics
[ "$(grep -c '"values": \[' seeds.json)" -eq 28 ] || fail "JSON: expected 28 value lists"
"$BIN" run "${DS[@]}" --seeds 5 --jobs 1 --json seeds1.json > /dev/null || fail "--seeds 5 --jobs 1"
grep -v -E '"(cpu|wall)_seconds"' seeds.json > x1; grep -v -E '"(cpu|wall)_seconds"' seeds1.json > x2
cmp x1 x2 || fail "--seeds 5: --jobs 1 and --jobs 2 differ"
bad run "${DS[@]}" --seeds 2 --trace t.json
echo "ok: --seeds 5 has a nonzero spread, the same for --jobs 1 and 2"

# 2. the verdict of reproduce, in the text and the JSON, on reclaim-tlb at a
# small scale (tests/test_verdict.c checks an agreeing, a same-direction and
# a disagreeing metric through `mmsim reproduce` of a scenario with fixed
# answers; the seeds' verdicts change with their models).
RT=(reclaim-tlb --set workers=4 --set vm_bytes=32M --set memcg_limit=8M --set swap=64M
    --set duration=20ms --set swap_device=zram)
"$BIN" reproduce "${RT[@]}" --json rt.json > rt.txt || fail "reproduce reclaim-tlb"
grep -q '^verdict: reclaim-tlb (before -> after' rt.txt || fail "no verdict table: $(cat rt.txt)"
grep -q '^reclaim-tlb: [0-9] of 5 published metrics agree' rt.txt || fail "no verdict summary"
grep -q '"verdict": {' rt.json || fail "JSON: no verdict"
grep -q '"summary": "[0-9] of 5 published metrics agree' rt.json || fail "JSON: no summary"
# every published metric has one verdict in the JSON, as in the text
[ "$(grep -c '"sign_holds"' rt.json)" -eq 5 ] || fail "JSON: expected 5 judged metrics"
grep -A8 '^verdict: reclaim-tlb' rt.txt | grep '^TLB shootdowns ' |
	grep -q -E '  (agrees|same direction|disagrees|not judged)$' || fail "no verdict for TLB shootdowns"
echo "ok: reproduce prints the verdict, and its JSON carries it"

# 3. --baseline and diff
"$BIN" run "${DS[@]}" --baseline unqueued --quiet > bl.txt || fail "--baseline"
grep -q 'before-unqueued  *after-unqueued$' bl.txt || fail "--baseline: columns: $(head -1 bl.txt)"
bad run "${DS[@]}" --baseline nope
bad run "${DS[@]}" --baseline before --variant after
"$BIN" run "${DS[@]}" --seed 1 --json d1.json --quiet > /dev/null || fail "d1"
"$BIN" run "${DS[@]}" --seed 2 --set unmap=dontneed --json d2.json --quiet > /dev/null || fail "d2"
"$BIN" diff d1.json d2.json > diff.txt || fail "diff exited $?"
grep -q '^param unmap: "munmap" -> "dontneed"$' diff.txt || fail "diff: params: $(cat diff.txt)"
# named and printed as run's tables: labels, the table's decimals, the lock
# table's kernel names and time units; rows zero in both left out, and said so
grep -q '^lruvec lock wait, summed (s)  *before  *[0-9]*\.[0-9][0-9]  ' diff.txt ||
	fail "diff: no metric row as run's table prints it: $(cat diff.txt)"
grep -q '^locks: after ' diff.txt || fail "diff: no lock table"
grep -q '^&lruvec->lru_lock  .* [0-9.]* [mu]\?s ' diff.txt || fail "diff: no &lruvec->lru_lock row in the lock table's units"
grep -q -E '[0-9]e[-+][0-9]' diff.txt && fail "diff: a raw float: $(grep -E '[0-9]e[-+][0-9]' diff.txt)"
grep -q '^link socket 1 -> 0 busy' diff.txt && fail "diff: a metric zero in both files printed"
grep -q '^[0-9]* rows zero or unset in both runs left out$' diff.txt || fail "diff: no line for the rows left out"
"$BIN" diff d1.json d1.json > same.txt || fail "diff of a file with itself"
grep -q '(+0.0%)' same.txt || fail "diff with itself: expected zero changes"
grep -E ' (unqueued|before|after) ' same.txt | grep -v '^locks: ' | grep -v -E '\+0(\.0+)? \((\+0\.0%|n/a)\)$' &&
	fail "diff with itself: a nonzero change"
grep -E '^&' same.txt | grep -v -E '\+0 ns \(\+0\.0%\)$' && fail "diff with itself: a nonzero lock change"
"$BIN" run spinlock --set cpus=4 --set iterations=20 --json sp.json --quiet > /dev/null || fail "sp"
bad diff d1.json sp.json
grep -q 'scenario deferred-split and scenario spinlock' err.txt || fail "diff: $(cat err.txt)"
echo '{"scenario": "deferred-split", "variants": [' > broken.json
bad diff d1.json broken.json
echo '[1, 2]' > array.json
bad diff array.json d1.json
echo '{"scenario": "deferred-split", "variants": [{"name": 3}]}' > novar.json
bad diff d1.json novar.json
bad diff d1.json missing.json
bad diff d1.json
echo "ok: --baseline, diff, and diff's bad input"

# 4. sensitivity, and the [ranges] of a profile
"$BIN" sensitivity "${DS[@]}" --jobs 2 --json sens.json > sens.txt || fail "sensitivity exited $?"
grep -q '^lruvec_lock_wait_s falls  *[0-9]* of [0-9]*' sens.txt || fail "sensitivity: $(cat sens.txt)"
grep -q '^mem.node_write_gbps=50 ' sens.txt || fail "sensitivity: no range point"
grep -q '^unmap=dontneed ' sens.txt || fail "sensitivity: no unpublished point"
grep -q '"conclusions": \[' sens.json || fail "sensitivity: JSON"
total=$(grep -o '"points_total": [0-9]*' sens.json | awk '{ print $2 }')
"$BIN" sensitivity "${DS[@]}" --jobs 1 --json s1.json > /dev/null || fail "sensitivity --jobs 1"
cmp sens.json s1.json || fail "sensitivity: --jobs 1 and --jobs 2 differ"
# two shards hold every point once
"$BIN" sensitivity "${DS[@]}" --shard 1/2 --json h1.json > /dev/null || fail "shard 1/2"
"$BIN" sensitivity "${DS[@]}" --shard 2/2 --json h2.json > /dev/null || fail "shard 2/2"
n1=$(grep -c '"kind": "\(default\|range\|unpublished\)"' h1.json)
n2=$(grep -c '"kind": "\(default\|range\|unpublished\)"' h2.json)
[ $((n1 + n2)) -eq "$total" ] || fail "shards: $n1 + $n2 points, expected $total"
bad sensitivity deferred-split --vary threads=1,2
bad sensitivity nope
# a scenario without a published change: its metrics at every point
"$BIN" sensitivity spinlock --set cpus=4 --set iterations=20 --jobs 2 > sp.txt || fail "spinlock"
grep -q '^sched.start_jitter_us=100 ' sp.txt || fail "sensitivity spinlock: $(cat sp.txt)"
if command -v gnuplot > /dev/null; then
	"$BIN" sensitivity "${DS[@]}" --plot tornado.svg > /dev/null || fail "--plot"
	grep -q '<svg' tornado.svg || fail "tornado.svg is not an SVG"
fi
# the chart's title names the run's --set (read from the gnuplot script)
cat > fakegp <<'EOF2'
#!/bin/sh
cp "$1" captured.gp
out=$(sed -n 's/^set output "\(.*\)"$/\1/p' "$1" | head -1)
: > "$out"
EOF2
chmod +x fakegp
MMSIM_GNUPLOT="$PWD/fakegp" "$BIN" sensitivity "${DS[@]}" --plot t2.svg > /dev/null ||
	fail "--plot with a stand-in gnuplot"
grep -q '^set multiplot .* title "mmsim sensitivity deferred-split, skylake-sp-2s, seed 1\\n--set threads=8 --set rounds=4 --set region=1M"' captured.gp ||
	fail "the tornado's title lacks the run's --set: $(grep '^set multiplot' captured.gp)"
"$BIN" profiles skylake-sp-2s | grep -q '^mem.node_write_gbps  *50..68 ' ||
	fail "profiles: no range shown"
# a range must hold its value, name an assumed value, and read LO..HI, reason
sed 's/^mem.node_write_gbps = 50..68,/mem.node_write_gbps = 61..68,/' \
	"$2/profiles/skylake-sp-2s.ini" > r1.ini
bad run deferred-split --profile r1.ini
grep -q 'expected a range holding its value' err.txt || fail "range: $(cat err.txt)"
sed 's/^\[ranges\]/[ranges]\ntopology.sockets = 1..4, a test/' "$2/profiles/skylake-sp-2s.ini" > r2.ini
bad run deferred-split --profile r2.ini
grep -q 'does not say "assumption"' err.txt || fail "range: $(cat err.txt)"
sed 's/^mem.node_write_gbps = 50..68,.*/mem.node_write_gbps = 68..50, x/' \
	"$2/profiles/skylake-sp-2s.ini" > r3.ini
bad run deferred-split --profile r3.ini
sed 's/^mem.node_write_gbps = 50..68,.*/mem.node_write_gbps = 50..68/' \
	"$2/profiles/skylake-sp-2s.ini" > r4.ini
bad run deferred-split --profile r4.ini
echo "ok: sensitivity, its shards, chart and JSON; [ranges] checked"
