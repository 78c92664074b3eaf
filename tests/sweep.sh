#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mmsim sweep, merge, --shard, --emit-jobs and --plot, end to end.
# Usage: bash tests/sweep.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
#
# Checks: the rows of a small spinlock sweep (header, count, grid order);
# the same CSV for --jobs 1 and --jobs 2; four shards merged give the
# unsharded CSV byte for byte (also through --emit-jobs); bad input gets
# one "mmsim: error:" line and exit 2; the SVG is well-formed when gnuplot
# and xmllint exist; without gnuplot --plot fails cleanly, CSV written.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# The sanitizer build's own notes ("==PID==WARNING: ASan ...") are not mmsim's.
errlines() { grep -v '^==[0-9]*==' err.txt > err1.txt; mv err1.txt err.txt; }

GRID=(spinlock --vary cpus=2,4,8,16,32,64 --seeds 3 --set iterations=30)

# 1. the rows
"$BIN" sweep "${GRID[@]}" --csv all.csv || fail "sweep exited $?"
# --set iterations=30 is a column of its own, after the varied keys
[ "$(head -1 all.csv)" = "scenario,cpus,iterations,seed,variant,metric,value" ] || fail "header: $(head -1 all.csv)"
# 6 points x 3 seeds x 1 variant x 6 metrics, plus the header
[ "$(wc -l < all.csv)" -eq 109 ] || fail "expected 109 lines, got $(wc -l < all.csv)"
# grid order, then seed, then metric
order=$(tail -n +2 all.csv | cut -d, -f2 | uniq | tr '\n' ' ')
[ "$order" = "2 4 8 16 32 64 " ] || fail "grid order: $order"
[ "$(tail -n +2 all.csv | cut -d, -f3 | sort -u)" = 30 ] || fail "the iterations column: not 30 in every row"
[ "$(tail -n +2 all.csv | cut -d, -f2,4 | uniq | wc -l)" -eq 18 ] || fail "expected 18 runs"
[ "$(tail -n +2 all.csv | cut -d, -f4 | sort -u | wc -l)" -eq 18 ] || fail "expected 18 distinct seeds"
metrics=$(head -7 all.csv | tail -6 | cut -d, -f6 | tr '\n' ' ')
[ "$metrics" = "runtime_s acquisitions contentions lock_wait_total_s lock_wait_avg_ns lock_hold_avg_ns " ] ||
	fail "metric order: $metrics"
[ "$(grep -c ',acquisitions,' all.csv)" -eq 18 ] || fail "acquisitions rows"
grep -q '^spinlock,64,30,[0-9]*,qspinlock,acquisitions,1920$' all.csv || fail "64 cpus x 30 iterations"
echo "ok: rows"

# 1b. every --set and --cost of the run is a column (canonical values; a key
# given twice in --cost is refused, as in --set), and the seeds are those of the run
# without them: the columns say what the rows were run with, nothing more
"$BIN" sweep spinlock --vary cpus=2,4 --set hold_ns=1000 --set iterations=7 \
	--cost cache.remote_transfer_ns=120 --csv fx.csv || fail "sweep with --set and --cost exited $?"
[ "$(head -1 fx.csv)" = "scenario,cpus,hold_ns,iterations,cache.remote_transfer_ns,seed,variant,metric,value" ] ||
	fail "--set/--cost columns: $(head -1 fx.csv)"
[ "$(tail -n +2 fx.csv | cut -d, -f3,4,5 | sort -u)" = "1us,7,120" ] ||
	fail "--set/--cost values: $(tail -n +2 fx.csv | cut -d, -f3,4,5 | sort -u | tr '\n' ' ')"
"$BIN" sweep spinlock --vary cpus=2,4 --set iterations=7 --csv nf.csv || fail "sweep exited $?"
[ "$(tail -n +2 fx.csv | cut -d, -f2,6 | uniq)" = "$(tail -n +2 nf.csv | cut -d, -f2,4 | uniq)" ] ||
	fail "the fixed columns changed the seeds"
echo "ok: --set and --cost as columns"

# 2. --jobs does not change a byte
"$BIN" sweep "${GRID[@]}" --jobs 1 --csv j1.csv || fail "jobs 1"
"$BIN" sweep "${GRID[@]}" --jobs 2 --csv j2.csv || fail "jobs 2"
cmp j1.csv j2.csv || fail "--jobs 1 and --jobs 2 differ"
cmp j1.csv all.csv || fail "--jobs 1 and the default differ"
echo "ok: --jobs 1 == --jobs 2"

# 3. four shards merged == the unsharded run
for i in 1 2 3 4; do
	"$BIN" sweep "${GRID[@]}" --shard $i/4 --csv s$i.csv || fail "shard $i"
done
"$BIN" merge s1.csv s2.csv s3.csv s4.csv --csv merged.csv || fail "merge"
cmp merged.csv all.csv || fail "merged shards differ from the unsharded CSV"
"$BIN" merge s1.csv s2.csv s3.csv s4.csv > merged2.csv || fail "merge to stdout"
cmp merged2.csv all.csv || fail "merge to stdout differs"
# the commands --emit-jobs prints, run, then merged
"$BIN" sweep "${GRID[@]}" --csv em.csv --emit-jobs 4 > jobs.txt || fail "emit-jobs"
[ "$(wc -l < jobs.txt)" -eq 4 ] || fail "expected 4 commands"
while read -r cmd; do eval "$cmd" || fail "job: $cmd"; done < jobs.txt
"$BIN" merge em.part-*-of-4.csv --csv em.csv || fail "merge of emitted jobs"
cmp em.csv all.csv || fail "emitted jobs merged differ"
echo "ok: 4 shards merged == unsharded"

# 4. bad input: one line, exit 2
bad() {
	local want=$1; shift
	"$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	errlines
	[ $rc -eq 2 ] || fail "$* exited $rc, expected 2"
	[ "$(wc -l < err.txt)" -eq 1 ] || fail "$*: expected one line: $(cat err.txt)"
	grep -q "^mmsim: error: .*$want" err.txt || fail "$*: $(cat err.txt), expected $want"
}
bad "cpus=: expected KEY=V1,V2" sweep spinlock --vary cpus=
bad "cpus=2,,4: an empty" sweep spinlock --vary cpus=2,,4
bad "unknown parameter nope for scenario spinlock: expected one of cpus" sweep spinlock --vary nope=1,2
bad "shard 5/4: expected I/N with 1 <= I <= N" sweep spinlock --vary cpus=2 --shard 5/4
bad "has 11000 runs: expected at most 10000" sweep spinlock --vary cpus=1,2,3,4,5,6,7,8,9,10 \
	--vary iterations=1,2,3,4,5,6,7,8,9,10,11 --seeds 100
bad "expected at least one --vary" sweep spinlock
bad "cpus=100: expected at most the 80 CPUs" sweep spinlock --vary cpus=2,100
bad "x.pdf: expected a file name ending in .svg or .png" sweep spinlock --vary cpus=2 --plot x.pdf
bad "given twice" sweep spinlock --vary cpus=2,2
bad "cache.remote_transfer_ns=abc: cache.remote_transfer_ns = abc: expected a non-negative integer" \
	sweep spinlock --vary cache.remote_transfer_ns=100,abc
bad "no profile key cache.nope" sweep spinlock --vary cache.nope=1
bad "also given with --cost" sweep spinlock --vary cache.remote_transfer_ns=1,2 \
	--cost cache.remote_transfer_ns=5
bad "appears twice" merge s1.csv s1.csv
echo "a,b" > notcsv.csv
bad "notcsv.csv: its first line is not a sweep header" merge all.csv notcsv.csv
echo "ok: bad input"

# 4b. a profile value as an axis: its own column; the slower the cross-socket
# transfer, the longer 80 vCPUs take on one lock; and the same runtime as a
# run with --cost at that value and the point's seed (a seed changes the run:
# docs/design.md, "What a seed changes").
"$BIN" sweep spinlock --vary cache.remote_transfer_ns=50,300 --set iterations=50 --csv pv.csv ||
	fail "sweep over a profile key exited $?"
[ "$(head -1 pv.csv)" = "scenario,cache.remote_transfer_ns,iterations,seed,variant,metric,value" ] ||
	fail "profile axis header: $(head -1 pv.csv)"
fast=$(grep '^spinlock,50,.*,runtime_s,' pv.csv | cut -d, -f7)
slow=$(grep '^spinlock,300,.*,runtime_s,' pv.csv | cut -d, -f7)
awk -v a="$fast" -v b="$slow" 'BEGIN { exit !(b > a) }' ||
	fail "remote transfer 300 ns ran $slow s, not longer than 50 ns: $fast s"
seed300=$(grep '^spinlock,300,.*,runtime_s,' pv.csv | cut -d, -f4)
"$BIN" run spinlock --set iterations=50 --cost cache.remote_transfer_ns=300 --seed "$seed300" \
	--csv c300.csv --quiet > /dev/null ||
	fail "run --cost exited $?"
[ "$(grep ',runtime_s,' c300.csv | cut -d, -f4)" = "$slow" ] ||
	fail "--cost 300 ran $(grep ',runtime_s,' c300.csv), the sweep point $slow"
echo "ok: a profile value as an axis"

# 5. the chart
if command -v gnuplot > /dev/null && command -v xmllint > /dev/null; then
	"$BIN" sweep "${GRID[@]}" --jobs 2 --csv p.csv --plot p.svg || fail "--plot"
	xmllint --noout p.svg || fail "p.svg is not well-formed"
	grep -q '<svg' p.svg || fail "p.svg has no <svg>"
	cmp p.csv all.csv || fail "--plot changed the CSV"
	ls p.svg.* p.tmp.* 2> /dev/null && fail "temporary files left"
	echo "ok: --plot writes a well-formed SVG"
else
	echo "SKIP: gnuplot or xmllint is not installed; the SVG is not checked"
fi

# 5b. what the chart says, read from the gnuplot script (a stand-in gnuplot
# keeps it): the legend below the plots, not on the data; the y axes named by
# the metrics' titles; a log axis for the metric whose values span more than
# two decades (summed lock wait, 8 -> 64 CPUs: about 140x) and linear ones
# elsewhere; every value tick placed and labelled by mmsim, none in gnuplot's
# 5e+07 form; the run's --set and --cost in the title
cat > fakegp <<'EOF2'
#!/bin/sh
cp "$1" captured.gp
out=$(sed -n 's/^set output "\(.*\)"$/\1/p' "$1" | head -1)
: > "$out"
EOF2
chmod +x fakegp
MMSIM_GNUPLOT="$T/fakegp" "$BIN" sweep spinlock --vary cpus=8,16,64 --set iterations=30 \
	--cost cache.remote_transfer_ns=100 --csv fg.csv --plot fg.svg || fail "--plot with a stand-in gnuplot"
[ -s captured.gp ] || fail "no gnuplot script"
grep -q '^set key below' captured.gp || fail "the legend is not below the plots"
grep -Eq '^set key.*(top|left|right|inside)' captured.gp && fail "a legend on the data: $(grep '^set key' captured.gp)"
grep -q '^set multiplot .*\\n--set iterations=30 --cost cache.remote_transfer_ns=100"' captured.gp ||
	fail "the title lacks --set and --cost: $(grep '^set multiplot' captured.gp)"
grep -q '^set ylabel "lock wait, summed (s)"$' captured.gp || fail "no y axis titled by its metric"
[ "$(grep -c '^set ylabel' captured.gp)" -eq 6 ] || fail "expected 6 charts"
[ "$(grep -c '^set ytics (' captured.gp)" -eq 6 ] || fail "a chart's ticks are gnuplot's own"
[ "$(grep -c '^set logscale y 10' captured.gp)" -eq 1 ] || fail "expected one log y axis"
grep -A2 '^set ylabel "lock wait, summed (s)"' captured.gp | grep -q '^set logscale y 10' ||
	fail "the summed lock wait (two decades and more) is not on a log axis"
grep '^set ytics (' captured.gp | grep -Eo '"[^"]*"' | grep -E '[0-9][eE][-+]?[0-9]' &&
	fail "a tick label with an exponent"
grep -q '"1,500" 1500' captured.gp || fail "no thousands separator: $(grep '^set ytics' captured.gp)"
grep -q '^set bmargin [0-9]' captured.gp || fail "no bottom margin for the legend under the x axis's title"
echo "ok: --plot's legend, axes, ticks and title"

# 5c. no empty CSV cell: a metric a variant did not set is NA; the chart it
# would have had is not drawn, and one line says which and why
MMSIM_GNUPLOT="$T/fakegp" "$BIN" sweep deferred-split --vary threads=2,4 --set rounds=2 \
	--set region=1M --variant before --variant after --csv na.csv --plot na.svg \
	> out.txt 2> err.txt || fail "sweep without deferred-split's unqueued: $(cat err.txt)"
errlines
grep -q ',$' na.csv && fail "an empty CSV cell: $(grep ',$' na.csv | head -1)"
[ "$(grep -c ',queueing_cost_pct,NA$' na.csv)" -eq 4 ] || fail "queueing cost without unqueued is not NA"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "expected one note: $(cat err.txt)"
grep -q '^mmsim: note: --plot na.svg: no chart of queueing cost (% of runtime): it is computed against variant unqueued, which this sweep does not run (add --variant unqueued)$' err.txt ||
	fail "no note for the chart not drawn: $(cat err.txt)"
grep -q '^set ylabel "queueing cost' captured.gp && fail "a chart of a metric no run set"
"$BIN" merge na.csv | cmp -s - na.csv || fail "merge of a CSV with NA changed it"
echo "ok: no empty CSV cell; a chart not drawn is named, with why"

# 6. without gnuplot: one line, exit 2, the CSV still written
MMSIM_GNUPLOT=/nonexistent/gnuplot "$BIN" sweep spinlock --vary cpus=2,4 --set iterations=10 \
	--csv ng.csv --plot ng.svg > out.txt 2> err.txt
rc=$?
errlines
[ $rc -eq 2 ] || fail "no gnuplot: exit $rc, expected 2"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "no gnuplot: $(cat err.txt)"
grep -q "^mmsim: error: --plot ng.svg: cannot run gnuplot (/nonexistent/gnuplot)" err.txt ||
	fail "no gnuplot: $(cat err.txt)"
[ "$(wc -l < ng.csv)" -eq 13 ] || fail "no gnuplot: the CSV was not written"
[ -e ng.svg ] && fail "no gnuplot: a picture was left"
echo "ok: --plot without gnuplot"
exit 0
