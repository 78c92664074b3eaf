#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A sharded sweep through a real Slurm and through GNU parallel, end to end.
# Usage: bash tests/cluster.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
#
# Starts a single-node Slurm with scripts/slurm-local.sh (in a directory of
# its own, on free ports; stopped and removed at exit), then:
#   1. `sweep --emit-jobs 4 --slurm DIR --submit`: a 4-task array and its
#      merge (afterok); the merged CSV equals the unsharded sweep's bytes;
#   2. the same sweep's --emit-jobs lines through `parallel -j 2`, then
#      `--merge 4`: the same bytes; a part that lacks a run is named (the
#      shard and the run), and rerunning only that line completes it;
#   3. a 3-task array whose task 2 is killed (scancel) while it runs: the
#      merge job is removed (its dependency can never be met), `--merge 3`
#      names shard 2 and its run, `sbatch --array=2` reruns only it, and
#      the merged CSV equals the unsharded sweep's bytes.
# It needs root (slurmd and munged run as root) and Debian's slurmctld,
# slurmd, slurm-client, munge and parallel (make deps installs them).  If
# anything cannot start, it says why and fails: it never passes silently.
set -u
BIN=$1
SRC=$2
T=$(mktemp -d /tmp/mmsim-cluster.XXXXXX)
chmod 0755 "$T"
export MMSIM_SLURM_DIR=$T/slurm
fail() {
	echo "FAIL: $*"
	for f in "$MMSIM_SLURM_DIR"/log/*.log; do
		[ -e "$f" ] && { echo "--- the end of $f:"; tail -n 15 "$f"; }
	done
	exit 1
}
cleanup() {
	[ -d "$MMSIM_SLURM_DIR" ] && bash "$SRC/scripts/slurm-local.sh" down > /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1

[ "$(id -u)" = 0 ] || fail "not root: the local Slurm's slurmd and munged run as root (CI runs make test as root)"
for p in munged slurmctld slurmd sbatch squeue scontrol scancel parallel; do
	command -v "$p" > /dev/null || [ -x "/usr/sbin/$p" ] ||
		fail "$p is not installed: expected Debian's slurmctld slurmd slurm-client munge parallel (make deps)"
done
parallel --version 2> /dev/null | grep -q "GNU parallel" ||
	fail "parallel is not GNU parallel (moreutils has one too): expected Debian's parallel package"

# Two free TCP ports for slurmctld and slurmd.
port_busy() { grep -qi ":$(printf %04X "$1") " /proc/net/tcp /proc/net/tcp6 2> /dev/null; }
for ((PORT = 17817 + ($$ % 500) * 2; ; PORT += 2)); do
	port_busy $PORT || port_busy $((PORT + 1)) || break
done
export MMSIM_SLURM_PORT=$PORT
bash "$SRC/scripts/slurm-local.sh" up || fail "the local Slurm did not start (its reason is above)"
export SLURM_CONF=$MMSIM_SLURM_DIR/slurm.conf

# Wait until job $1 (all its array tasks) has left the queue; at most $2 s.
wait_gone() {
	local i
	for ((i = 0; i < $2 * 4; i++)); do
		[ -z "$(squeue -h -j "$1" 2> /dev/null)" ] && return 0
		sleep 0.25
	done
	squeue
	fail "job $1 still queued after $2 s"
}
# The state of job $1 (an array task as JOBID_TASK), e.g. COMPLETED.
job_state() {
	scontrol show job -o "$1" 2> /dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2
}

G1=(spinlock --vary cpus=2,4,8,16 --seeds 2 --set iterations=30)
"$BIN" sweep "${G1[@]}" --jobs 2 --csv ref1.csv || fail "the unsharded sweep exited $?"
[ "$(wc -l < ref1.csv)" -eq 49 ] || fail "ref1.csv: expected 49 lines, got $(wc -l < ref1.csv)"
# The reference of part 3, a sweep with one long run, beside the rest.
# The long run is shard 2 of 3: about 7 s on the project's idle VM with the
# sanitizer build that ctest runs (0.3-0.5 s with the release build), time enough to
# see the task RUNNING and kill it; if it ends first, the test says so and
# fails.
G3=(spinlock --set cpus=8 --vary iterations=10,150000,20)
"$BIN" sweep "${G3[@]}" --csv ref3.csv > ref3.out 2>&1 &
ref3_pid=$!

# 1. a Slurm array, submitted by mmsim, merged by the dependent job
"$BIN" sweep "${G1[@]}" --csv sl.csv --emit-jobs 4 --slurm arr --submit > ids.txt ||
	fail "--submit exited $?: $(cat ids.txt)"
jid=$(awk '$1 == "array" { print $2 }' ids.txt)
mid=$(awk '$1 == "merge" { print $2 }' ids.txt)
[ -n "$jid" ] && [ -n "$mid" ] || fail "--submit printed no job ids: $(cat ids.txt)"
grep -q '^#SBATCH --array=1-4$' arr/array.sbatch || fail "array.sbatch has no --array=1-4"
[ "$(wc -l < arr/jobs.txt)" -eq 4 ] || fail "jobs.txt: expected 4 shard commands"
wait_gone "$jid" 300
wait_gone "$mid" 120
for i in 1 2 3 4; do
	[ "$(job_state "${jid}_$i")" = COMPLETED ] ||
		fail "array task $i: $(job_state "${jid}_$i"): $(cat arr/logs/shard-$i.out)"
done
[ "$(job_state "$mid")" = COMPLETED ] || fail "merge job: $(job_state "$mid"): $(cat arr/logs/merge.out)"
cmp sl.csv ref1.csv || fail "the Slurm array's merged CSV differs from the unsharded sweep"
echo "ok: Slurm array of 4 tasks (job $jid), merged by job $mid after it == unsharded"

# 2. GNU parallel, then the merge
"$BIN" sweep "${G1[@]}" --csv gp.csv --emit-jobs 4 | parallel --will-cite -j 2 ||
	fail "parallel: a shard failed ($?)"
"$BIN" sweep "${G1[@]}" --csv gp.csv --merge 4 || fail "--merge 4 after parallel exited $?"
cmp gp.csv ref1.csv || fail "GNU parallel's merged CSV differs from the unsharded sweep"
# A part that lacks a run, as a shard whose run failed leaves it: the
# merge names the shard and that run, writes nothing; rerunning only
# that shard's line completes it.
rm gp.csv
seed=$(grep '^spinlock,4,' gp.part-2-of-4.csv | head -1 | cut -d, -f4)	# scenario,cpus,iterations,seed
[ -n "$seed" ] || fail "gp.part-2-of-4.csv has no run with cpus=4"
grep -v "^spinlock,4,30,$seed," gp.part-2-of-4.csv > short.csv && mv short.csv gp.part-2-of-4.csv
"$BIN" sweep "${G1[@]}" --csv gp.csv --merge 4 > out.txt 2> err.txt
rc=$?
grep -v '^==[0-9]*==' err.txt > err1.txt
[ $rc -eq 1 ] || fail "--merge with a short part exited $rc, expected 1: $(cat err1.txt)"
grep -q "^mmsim: shard 2/4 (gp.part-2-of-4.csv): lacks 1 of its 2 runs (2-3 of 8): cpus=4 seed $seed$" err1.txt ||
	fail "--merge did not name shard 2 and its run: $(cat err1.txt)"
grep -q "^mmsim: error: .*shards 2 are missing or short" err1.txt || fail "no error line: $(cat err1.txt)"
[ -e gp.csv ] && fail "--merge wrote a CSV with a shard short"
sed -n 2p <("$BIN" sweep "${G1[@]}" --csv gp.csv --emit-jobs 4) | parallel --will-cite ||
	fail "rerunning shard 2 failed"
"$BIN" sweep "${G1[@]}" --csv gp.csv --merge 4 || fail "--merge after the rerun exited $?"
cmp gp.csv ref1.csv || fail "after rerunning shard 2, the merged CSV differs"
echo "ok: GNU parallel -j 2 then --merge 4 == unsharded; a short part named and rerun"

# 3. kill array task 2 while it runs; rerun only it
"$BIN" sweep "${G3[@]}" --csv k.csv --emit-jobs 3 --slurm kill --submit > ids.txt ||
	fail "--submit exited $?: $(cat ids.txt)"
jid=$(awk '$1 == "array" { print $2 }' ids.txt)
mid=$(awk '$1 == "merge" { print $2 }' ids.txt)
for ((i = 0; i < 1200; i++)); do
	st=$(job_state "${jid}_2")
	[ "$st" = RUNNING ] || [ "$st" = COMPLETED ] || [ "$st" = FAILED ] && break
	sleep 0.1
done
[ "$st" = RUNNING ] || fail "array task 2 was $st, not RUNNING, when it was to be killed"
# RUNNING comes before the batch shell has started mmsim: a cancel in that
# window can reach the shell but miss the mmsim it forks next (proctrack/
# linuxproc finds a job's processes by scanning), and that mmsim then runs
# to the end and writes its part.  So wait for the line the batch script
# prints just before it runs the shard's command, and a second more, then
# cancel.  (Scanning /proc for the mmsim itself was too slow under a
# loaded ctest run.)
for ((i = 0; i < 300; i++)); do
	grep -q "^shard 2 of 3 on " kill/logs/shard-2.out 2> /dev/null && break
	sleep 0.1
done
grep -q "^shard 2 of 3 on " kill/logs/shard-2.out 2> /dev/null ||
	fail "array task 2 printed no start line within 30 s: $(cat kill/logs/shard-2.out 2> /dev/null)"
sleep 1
[ "$(job_state "${jid}_2")" = RUNNING ] ||
	fail "array task 2 ended ($(job_state "${jid}_2")) before it could be killed: its run is too short for this host"
scancel "${jid}_2" || fail "scancel ${jid}_2 exited $?"
wait_gone "$jid" 300
wait_gone "$mid" 60
st=$(job_state "${jid}_2")
[ "$st" = CANCELLED ] || fail "array task 2 ended $st, expected CANCELLED"
[ "$(job_state "${jid}_1")" = COMPLETED ] || fail "array task 1: $(job_state "${jid}_1")"
[ "$(job_state "${jid}_3")" = COMPLETED ] || fail "array task 3: $(job_state "${jid}_3")"
[ -e k.csv ] && fail "the merge ran although task 2 was killed"
[ -e k.part-2-of-3.csv ] && fail "the killed task left its part"
"$BIN" sweep "${G3[@]}" --csv k.csv --merge 3 > out.txt 2> err.txt
rc=$?
grep -v '^==[0-9]*==' err.txt > err1.txt
[ $rc -eq 1 ] || fail "--merge without part 2 exited $rc, expected 1: $(cat err1.txt)"
grep -q "^mmsim: shard 2/3 (k.part-2-of-3.csv): missing: its run 1 of 3, iterations=150000 seed [0-9]*$" err1.txt ||
	fail "--merge did not name shard 2 and its run: $(cat err1.txt)"
jid2=$(sbatch --parsable --array=2 kill/array.sbatch) || fail "sbatch --array=2 exited $?"
mid2=$(sbatch --parsable --dependency=afterok:"$jid2" kill/merge.sbatch) || fail "sbatch merge exited $?"
wait_gone "$jid2" 300
wait_gone "$mid2" 120
[ "$(job_state "$mid2")" = COMPLETED ] || fail "the second merge: $(job_state "$mid2"): $(cat kill/logs/merge.out)"
wait $ref3_pid || fail "the unsharded sweep of part 3 exited $?: $(cat ref3.out)"
cmp k.csv ref3.csv || fail "after rerunning only task 2, the merged CSV differs from the unsharded sweep"
echo "ok: array task 2 killed while running (job ${jid}_2), rerun alone (job $jid2), merged == unsharded"
exit 0
