#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `mmsim calibrate` (issue 29, docs/calibrate.md), run against the real
# binary on this machine:
#   - --quick writes a whole profile that loads, and a scenario runs on it;
#   - every key has a source: the file's own keys say measured, derived,
#     inferred, fitted or a model setting; the included builtin's keys keep
#     their citations;
#   - bad options, an unwritable --out and a machine that cannot be
#     measured (a /sys without CPUs) exit 2 with one line, leave no file,
#     and measure nothing.
# Usage: bash tests/calibrate.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# --quick: a whole profile, within its 20 s (more under the sanitizers)
start=$(date +%s)
# (as root it takes /run/mmsim-live.state.lock: while another live run or
# calibrate on this machine holds it, it is refused; wait for that one)
for try in $(seq 60); do
	timeout 300 "$BIN" calibrate --quick --out p.ini 2> log.txt
	rc=$?
	[ "$rc" = 2 ] && grep -q 'is in progress (it holds' log.txt && [ "$try" -lt 60 ] || break
	sleep 5
done
[ "$rc" = 0 ] || fail "calibrate --quick: exit $rc ($(tail -3 log.txt))"
echo "calibrate --quick: $(( $(date +%s) - start )) s"
[ -s p.ini ] || fail "no profile written"
ls p.ini.tmp* 2>/dev/null && fail "a temporary file is left"
head -1 p.ini | grep -q 'SPDX' || fail "the profile does not start with its header"
grep -q '^include = ' p.ini || fail "the profile does not include a builtin"
"$BIN" profiles p.ini > shown.txt || fail "the profile does not load: $(cat shown.txt)"
"$BIN" run deferred-split --profile p.ini --set threads=2 --set rounds=2 > run.txt ||
	fail "run deferred-split on the profile: $(tail -3 run.txt)"

# every key of the file has a source that says how it was obtained
awk '/^\[sources\]/ { s = 1; next } /^\[/ { s = 0 } s && /=/' p.ini > sources.txt
[ "$(wc -l < sources.txt)" -ge 20 ] || fail "only $(wc -l < sources.txt) keys measured"
while IFS= read -r line; do
	case "$line" in
	*"= measured: "*|*"= derived: "*|*"= inferred: "*|*"= fitted: "*|*"= model setting: "*|*"= \`mmsim calibrate\`"*) ;;
	*) fail "a key without a measured, derived, inferred or fitted source: $line" ;;
	esac
done < sources.txt
awk '/^\[/ { sec = substr($0, 2, length($0) - 2); next }
     sec != "" && sec != "sources" && /^[a-z_0-9]+ = / { print sec "." $1 }' p.ini > keys.txt
while IFS= read -r k; do
	grep -q "^$k = " sources.txt || fail "$k is set without a source"
done < keys.txt
grep -q 'measured: .*median of [0-9]* runs, spread .*, 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]$' sources.txt ||
	fail "no source in the form measured: METHOD, median of N runs, spread, date"
# every key of the loaded profile (the builtin's included) has a source
grep -q 'no source given' shown.txt && fail "a key without a source: $(grep 'no source given' shown.txt | head -1)"
# on x86, the model's STLB chase beside the machine's, in the profile's notes:
# each rung N from 4096 pages as MODEL/MACHINE cycles (either may be a little
# below 0: a difference of two chases, the machine's under the tests' load)
if [ "$(uname -m)" = x86_64 ] && grep -q 'note: STLB reach: ' p.ini; then
	line=$(grep 'model check (not fitted): a chase of a line a page' p.ini) ||
		fail "no model check of the STLB chase: $(grep -i 'model check' log.txt)"
	echo "$line" | grep -Eq ' 4096 -?[0-9]+/-?[0-9]+, 8192 -?[0-9]+/-?[0-9]+, 16384 -?[0-9]+/-?[0-9]+, 65536 -?[0-9]+/-?[0-9]+$' ||
		fail "the model check's rungs: $line"
fi
# with two CPUs or more, the transfer from the first CPU to each other one,
# one entry a CPU (up to 64), and the count near the nearest
n=$(nproc)
if [ "$n" -ge 2 ]; then
	line=$(grep 'note: line transfer from CPU [0-9]* to each other CPU' p.ini) ||
		fail "no transfer map in the notes"
	want=$(( n - 1 > 64 ? 64 : n - 1 ))
	got=$(echo "$line" | sed 's/.*measured): //; s/;.*//' | tr ' ' '\n' | grep -c '^[0-9]*:[0-9]*$')
	[ "$got" -eq "$want" ] || fail "the transfer map has $got CPUs, expected $want: $line"
	echo "$line" | grep -Eq '; [1-9][0-9]* of '"$want"' within 1.5x the nearest$' ||
		fail "the transfer map's count: $line"
fi

# bad input: one error line, exit 2, no file, nothing measured
expect_bad() {
	local rc
	timeout 20 "$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	grep -v '^==[0-9]*==' err.txt > err1.txt
	[ $rc -eq 2 ] || fail "$*: exit $rc, expected 2 ($(head -c 300 err1.txt))"
	[ "$(wc -l < err1.txt)" -eq 1 ] || fail "$*: $(wc -l < err1.txt) lines on stderr: $(head -c 600 err1.txt)"
	grep -q '^mmsim: error: ' err1.txt || fail "$*: not an mmsim error: $(cat err1.txt)"
	grep -q '^calibrate: ' err.txt && fail "$*: measured before failing"
	[ -s out.txt ] && fail "$*: wrote to stdout"
	return 0
}
expect_bad calibrate --bogus --out b.ini
[ -e b.ini ] && fail "a bad option left b.ini"
expect_bad calibrate --quick --out
expect_bad calibrate --out "$T/no/such/dir/c.ini"
expect_bad calibrate --out "$T"
mkdir -p nosys/sys/devices/system/cpu
MMSIM_CALIBRATE_SYS_ROOT="$T/nosys" expect_bad calibrate --quick --out d.ini
grep -q 'cannot be measured' err1.txt || fail "no CPUs: $(cat err1.txt)"
[ -e d.ini ] && fail "an unmeasurable machine left d.ini"
ls ./*.tmp* 2>/dev/null && fail "a temporary file is left"
# --dry-run parses the options and measures nothing
timeout 20 "$BIN" --dry-run calibrate --quick --out e.ini > out.txt 2> err.txt || fail "--dry-run calibrate: exit $?"
grep -q '^calibrate: ' err.txt && fail "--dry-run calibrate measured"
[ -e e.ini ] && fail "--dry-run calibrate wrote e.ini"
timeout 20 "$BIN" --dry-run calibrate --frobnicate > out.txt 2> err.txt
[ $? -eq 2 ] || fail "--dry-run calibrate --frobnicate: not exit 2"
echo "calibrate: ok"
