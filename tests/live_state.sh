#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The live state file is untrusted input (docs/input.md, "The live state
# file"): `mmsim live` starts by undoing what a killed run left, and a
# damaged or hostile file must not make it write, kill, remove or unmount
# anything mmsim did not make.  Each line below names something else; the
# run must leave every one alone, say so, restore the one valid setting,
# and run.  The THP settings are a fake sysfs tree (MMSIM_LIVE_SYS_ROOT).
# Usage: bash tests/live_state.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
sleeper=
holder=
cleanup() {
	[ -n "$sleeper" ] && kill "$sleeper" 2> /dev/null
	[ -n "$holder" ] && kill "$holder" 2> /dev/null
	mountpoint -q "$T/mnt" 2> /dev/null && umount "$T/mnt"
	rm -rf "$T" /tmp/mmsim-live-statesh-$$
}
trap cleanup EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

. "$2/tests/lib/fake_thp.sh"
fake_thp "$T/sys"
export MMSIM_LIVE_SYS_ROOT=$T/sys MMSIM_LIVE_STATE=$T/state

echo precious > victim
sleep 600 & sleeper=$!
mkdir -p "cg/mmsim-live-999999" && echo "$sleeper" > cg/mmsim-live-999999/cgroup.procs
mkdir -p /tmp/mmsim-live-statesh-$$ && echo precious > lock.data
mkdir mnt
mounted=0
[ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1M mmsim-statesh mnt 2> /dev/null && mounted=1

# pid 1 is alive but is not an mmsim run: the file is stale, not "in progress"
cat > state <<EOS
pid 1 1
memcg $T/cg/mmsim-live-999999
zram 9999 1048576
tmpdir /tmp/mmsim-live-statesh-$$/../../$T
tracefs $T/mnt
setting $T/victim always
setting $thp/../../../../../../victim x
setting $thp/enabled never;reboot
setting $thp/defrag never
EOS
"$BIN" live deferred-split --set threads=1 --set rounds=1 --set region=1M > out.txt 2> err.txt
rc=$?
[ "$rc" = 0 ] || fail "live exited $rc: $(grep -v '^==' err.txt | head -3)"
grep -qx precious victim || fail "a file outside the THP settings was written"
grep -qx precious lock.data || fail "a file outside mmsim's folders was removed"
kill -0 "$sleeper" 2> /dev/null || fail "a process of another cgroup was killed"
[ -d cg/mmsim-live-999999 ] || fail "a folder that is not a memory cgroup was removed"
if [ "$mounted" = 1 ]; then
	mountpoint -q mnt || fail "a mount that is not mmsim's tracefs was unmounted"
fi
grep -q '\[madvise\]' "$thp/enabled" || fail "'never;reboot' was written"
grep -qx never "$thp/defrag" || fail "the valid setting was not restored"
for what in memcg "zram 9999" tmpdir tracefs setting; do
	grep -q "left alone: $what" err.txt || fail "no warning for the $what line: $(cat err.txt)"
done
[ ! -e state ] || fail "the state file was left"
echo "ok: a hostile state file changes nothing"

# a state file of a live run in progress (this very shell is not one: a
# process named mmsim started at the recorded time is needed) is refused
"$BIN" live deferred-split --apply --set threads=1 --set rounds=200 --set region=16M > /dev/null 2>&1 &
run=$!
for _ in $(seq 100); do [ -s state ] && break; sleep 0.05; done
if [ -s state ] && kill -0 "$run" 2> /dev/null; then
	"$BIN" live deferred-split --set threads=1 --set rounds=1 --set region=1M > out.txt 2> err.txt
	rc=$?
	wait "$run"
	[ "$rc" = 2 ] && grep -q "in progress" err.txt || fail "a running live run's state file: exit $rc"
	echo "ok: a running run blocks the next"
else
	wait "$run"
	echo "skipped: the run ended before its state file could be read"
fi

# one lock for the state file ($MMSIM_LIVE_STATE.lock): while another
# process holds it, a live run and a calibrate (as root: it may change the
# machine) are refused with one line, exit 2, before they read or change
# anything; the state file of a killed run waits for the next one
cat > state <<EOS
pid 1 1
setting $thp/defrag always
EOS
echo never > "$thp/defrag"
# the subshell becomes the sleep that holds the lock: killing it lets go
( exec 9> state.lock && flock 9 && exec sleep 600 ) & holder=$!
for _ in $(seq 100); do flock -n state.lock true || break; sleep 0.05; done
flock -n state.lock true && fail "the test could not take the lock"
refused() {
	local rc
	timeout 60 "$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	grep -v '^==[0-9]*==' err.txt > err1.txt
	[ "$rc" = 2 ] || fail "$1 while the lock is held: exit $rc ($(head -c 300 err1.txt))"
	[ "$(wc -l < err1.txt)" = 1 ] || fail "$1 while the lock is held: $(cat err1.txt)"
	grep -q "^mmsim: error: .*another live run or calibrate is in progress (it holds $T/state.lock)" err1.txt ||
		fail "$1 while the lock is held: $(cat err1.txt)"
	[ -s state ] || fail "$1 while the lock is held read the state file"
	grep -qx never "$thp/defrag" || fail "$1 while the lock is held restored a setting"
}
refused live deferred-split --set threads=1 --set rounds=1 --set region=1M
refused compare deferred-split --set threads=1 --set rounds=1 --set region=1M
if [ "$(id -u)" = 0 ]; then
	refused calibrate --quick --out cal.ini
	grep -q '^calibrate: ' err.txt && fail "calibrate measured while the lock is held"
	[ -e cal.ini ] && fail "a refused calibrate wrote its profile"
fi
kill "$holder"; wait "$holder" 2> /dev/null; holder=
"$BIN" live deferred-split --set threads=1 --set rounds=1 --set region=1M > out.txt 2> err.txt ||
	fail "live after the lock was let go: exit $? ($(head -3 err.txt))"
grep -qx always "$thp/defrag" || fail "the run after the lock did not restore the setting"
[ ! -e state.lock ] || fail "the lock file was left"
echo "ok: the state file's lock refuses a second live run, compare and calibrate"
