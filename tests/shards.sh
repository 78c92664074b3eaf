#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sweep --slurm, --submit and --merge without a cluster (tests/cluster.sh
# runs them on a real Slurm and GNU parallel).
# Usage: bash tests/shards.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
#
# Checks: --slurm DIR writes jobs.txt equal to --emit-jobs' lines and an
# array script that, run as task I, runs shard I; the merge script merges;
# --submit calls sbatch with the array, then the merge with
# --dependency=afterok:ID (a stand-in sbatch records its arguments);
# --merge N names a missing part and its runs, exits 1, writes nothing;
# a part of another sweep or with a cut row is bad input (exit 2); bad
# option combinations get one "mmsim: error:" line and exit 2.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
errlines() { grep -v '^==[0-9]*==' err.txt > err1.txt; mv err1.txt err.txt; }

G=(spinlock --vary cpus=2,4,8 --seeds 2 --set iterations=20)
"$BIN" sweep "${G[@]}" --csv ref.csv || fail "the unsharded sweep exited $?"

# 1. the files of --slurm, run by hand as Slurm would run them
"$BIN" sweep "${G[@]}" --csv s.csv --emit-jobs 3 --slurm job > out.txt || fail "--slurm exited $?"
grep -q "^wrote $T/job/jobs.txt (3 shard commands)" out.txt || fail "--slurm said: $(cat out.txt)"
"$BIN" sweep "${G[@]}" --csv s.csv --emit-jobs 3 > emitted.txt || fail "--emit-jobs exited $?"
cmp job/jobs.txt emitted.txt || fail "jobs.txt differs from --emit-jobs' lines"
grep -qx '#SBATCH --array=1-3' job/array.sbatch || fail "array.sbatch: no --array=1-3"
grep -qx "#SBATCH --chdir=$T" job/array.sbatch || fail "array.sbatch: no --chdir=$T"
grep -qx "#SBATCH --output=$T/job/logs/shard-%a.out" job/array.sbatch || fail "array.sbatch: --output"
grep -q -- "--merge 3 --csv s.csv$" job/merge.sbatch || fail "merge.sbatch: $(tail -1 job/merge.sbatch)"
[ -d job/logs ] || fail "no job/logs"
for i in 1 2 3; do
	SLURM_ARRAY_TASK_ID=$i bash job/array.sbatch > task$i.out 2>&1 || fail "task $i: $(cat task$i.out)"
done
SLURM_ARRAY_TASK_ID=4 bash job/array.sbatch > task4.out 2>&1 && fail "task 4 of 3 succeeded"
grep -q "no shard 4 in $T/job/jobs.txt" task4.out || fail "task 4: $(cat task4.out)"
bash job/merge.sbatch || fail "merge.sbatch exited $?"
cmp s.csv ref.csv || fail "the merge of the array's parts differs from the unsharded sweep"
echo "ok: --slurm's scripts, run as tasks 1..3 and the merge == unsharded"

# 2. --submit through a stand-in sbatch that records its arguments
cat > sbatch <<'EOF'
#!/bin/bash
echo "$*" >> sbatch.log
n=$(wc -l < sbatch.log)
echo "$((100 + n));cluster"
EOF
chmod +x sbatch
MMSIM_SBATCH=$T/sbatch "$BIN" sweep "${G[@]}" --csv s.csv --emit-jobs 3 --slurm job --submit > ids.txt ||
	fail "--submit exited $?"
[ "$(cat ids.txt)" = "$(printf 'array 101\nmerge 102')" ] || fail "--submit printed: $(cat ids.txt)"
[ "$(sed -n 1p sbatch.log)" = "--parsable $T/job/array.sbatch" ] || fail "sbatch 1: $(sed -n 1p sbatch.log)"
[ "$(sed -n 2p sbatch.log)" = "--parsable --dependency=afterok:101 --kill-on-invalid-dep=yes $T/job/merge.sbatch" ] ||
	fail "sbatch 2: $(sed -n 2p sbatch.log)"
MMSIM_SBATCH=/nonexistent/sbatch "$BIN" sweep "${G[@]}" --csv s.csv --emit-jobs 3 --slurm job --submit > out.txt 2> err.txt
rc=$?
errlines
[ $rc -eq 2 ] || fail "no sbatch: exit $rc, expected 2"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "no sbatch: $(cat err.txt)"
grep -q "^mmsim: error: --submit: cannot run /nonexistent/sbatch" err.txt || fail "no sbatch: $(cat err.txt)"
printf '#!/bin/sh\necho "sbatch: error: no partition" >&2\nexit 1\n' > sbatch
MMSIM_SBATCH=$T/sbatch "$BIN" sweep "${G[@]}" --csv s.csv --emit-jobs 3 --slurm job --submit > out.txt 2> err.txt
rc=$?
errlines
[ $rc -eq 1 ] || fail "sbatch failing: exit $rc, expected 1"
grep -q "^sbatch: error: no partition" err.txt || fail "sbatch's own error was not shown: $(cat err.txt)"
grep -q "^mmsim: error: --submit: .*sbatch $T/job/array.sbatch failed (status 1)" err.txt ||
	fail "sbatch failing: $(cat err.txt)"
echo "ok: --submit: the array, then the merge with afterok; no sbatch, a failing sbatch"

# 3. --merge N: a missing part is named with its runs; nothing written
rm s.csv s.part-2-of-3.csv
"$BIN" sweep "${G[@]}" --csv s.csv --merge 3 > out.txt 2> err.txt
rc=$?
errlines
[ $rc -eq 1 ] || fail "a missing part: exit $rc, expected 1"
grep -q '^mmsim: shard 2/3 (s.part-2-of-3.csv): missing: its runs 2-3 of 6, cpus=4 seed [0-9]*, cpus=4 seed [0-9]*$' err.txt ||
	fail "a missing part: $(cat err.txt)"
grep -q '^mmsim: error: sweep spinlock --merge 3: the parts of shards 2 are missing or short (1 of 3), nothing written: rerun only those shards (Slurm: sbatch --array=2 DIR/array.sbatch)' err.txt ||
	fail "a missing part: $(cat err.txt)"
[ -e s.csv ] && fail "a missing part: s.csv written"
sed -n 2p job/jobs.txt | bash || fail "rerunning shard 2"
"$BIN" sweep "${G[@]}" --csv s.csv --merge 3 || fail "--merge after the rerun exited $?"
cmp s.csv ref.csv || fail "after the rerun, the merge differs"
echo "ok: --merge names a missing part and its runs; the rerun completes it"

# 3b. plain merge over a glob: a part that is not there is named
rm s.part-2-of-3.csv
"$BIN" merge s.part-*-of-3.csv --csv m.csv > out.txt 2> err.txt
rc=$?
errlines
[ $rc -eq 1 ] || fail "merge without part 2: exit $rc, expected 1"
grep -qx 'mmsim: shard 2/3: s.part-2-of-3.csv is not among the files' err.txt ||
	fail "merge without part 2: $(cat err.txt)"
grep -q '^mmsim: error: merge: the parts of shards 2 are missing (1 of 3), nothing written' err.txt ||
	fail "merge without part 2: $(cat err.txt)"
[ -e m.csv ] && fail "merge without part 2 wrote m.csv"
sed -n 2p job/jobs.txt | bash || fail "rerunning shard 2"
"$BIN" merge s.part-*-of-3.csv --csv m.csv || fail "merge after the rerun exited $?"
cmp m.csv ref.csv || fail "merge after the rerun differs"
echo "ok: merge over a glob names a missing part"

# 4. parts that are not this sweep's: bad input
bad() {
	local want=$1; shift
	"$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	errlines
	[ $rc -eq 2 ] || fail "$* exited $rc, expected 2: $(cat err.txt)"
	[ "$(wc -l < err.txt)" -eq 1 ] || fail "$*: expected one line: $(cat err.txt)"
	grep -q "^mmsim: error: .*$want" err.txt || fail "$*: $(cat err.txt), expected $want"
}
cp s.part-3-of-3.csv keep.csv
bad "merge s.part-1-of-3.csv: its header is not this sweep's: expected scenario,cpus,iterations,hold_ns,seed" \
	sweep spinlock --vary cpus=2,4,8 --seeds 2 --set iterations=20 --set hold_ns=1000 --csv s.csv --merge 3
bad "merge s.part-1-of-3.csv: the row spinlock,2,.* is not one of this shard's runs" \
	sweep spinlock --vary cpus=2,4,8 --seeds 2 --set iterations=20 --seed 7 --csv s.csv --merge 3
head -c -3 keep.csv > s.part-3-of-3.csv
bad "merge s.part-3-of-3.csv: the last line is incomplete" sweep "${G[@]}" --csv s.csv --merge 3
head -n -1 keep.csv > s.part-3-of-3.csv
bad "merge s.part-3-of-3.csv: the row .* is not one of this shard's runs" sweep "${G[@]}" --csv s.csv --merge 3
cp keep.csv s.part-3-of-3.csv

# 5. options that do not go together
bad "--slurm job: expected --emit-jobs N with it" sweep "${G[@]}" --slurm job
bad "--submit: expected --slurm DIR with it" sweep "${G[@]}" --emit-jobs 2 --submit
bad "--merge 3 with --shard: expected one of them" sweep "${G[@]}" --merge 3 --shard 1/3
bad "--merge 3 with --emit-jobs: expected one of them" sweep "${G[@]}" --merge 3 --emit-jobs 3
bad "--merge 3 with --csv -: expected --csv FILE" sweep "${G[@]}" --merge 3 --csv -
bad "--merge 3 with --plot x.svg" sweep "${G[@]}" --merge 3 --plot x.svg
bad "--merge=0: expected an integer (K, M, G, T: x1000 each) from 1 to 10000" sweep "${G[@]}" --merge 0
mkdir -p "sp ace"
bad "--slurm sp ace/j: .* has a space, quote" sweep "${G[@]}" --emit-jobs 2 --slurm "sp ace/j"
bad "--slurm nodir/j: cannot make the directory" sweep "${G[@]}" --emit-jobs 2 --slurm nodir/j
bad "merge s.part-1-of-3.csv: shard 1 of 3 comes after shard 3: expected each part once, in the order 1..3" \
	merge s.part-3-of-3.csv s.part-1-of-3.csv
echo "ok: bad input"
exit 0
