#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every output option of every command against what its path can name
# (docs/input.md, "Output files"):
#   a character device     written in place, never replaced: /dev/null's
#                          twin takes the text (exit 0), /dev/full's fails
#                          with "No space left on device" (exit != 0); both
#                          stay character devices
#   a symbolic link        followed: the link stays, its target gets the text
#   a FIFO with a reader   written in place: the reader gets the text
#   a name over NAME_MAX   exit 2 before any work (nothing on stdout)
#   a missing directory    exit 2 before any work
# The device nodes are made here with mknod (root only; skipped otherwise),
# never the machine's own /dev.
# Usage: bash tests/output_paths.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
# live-json's run keeps its state file here, not in /run, which any other
# live run on the machine (another test, another checkout's) holds meanwhile
export MMSIM_LIVE_STATE=$T/live.state
fail() { echo "FAIL: $*"; exit 1; }
# The sanitizer build's own notes ("==PID==WARNING: ASan ...") are not mmsim's.
errtext() { grep -v '^==[0-9]*==' err.txt; }

SMALL=(--set cpus=4 --set iterations=10)
"$BIN" sweep spinlock --vary cpus=2,4 --set iterations=10 --csv shard.csv 2>/dev/null ||
	fail "making the merge input"
have_gnuplot=1
command -v "${MMSIM_GNUPLOT:-gnuplot}" > /dev/null || have_gnuplot=0

# One line per output option: a name, then the command with OUT for the path.
CASES=(
	"run-json|run spinlock ${SMALL[*]} --quiet --json OUT"
	"run-csv|run spinlock ${SMALL[*]} --quiet --csv OUT"
	"run-trace|run spinlock ${SMALL[*]} --quiet --trace OUT"
	"sensitivity-json|sensitivity spinlock ${SMALL[*]} --json OUT"
	"sweep-csv|sweep spinlock --vary cpus=2,4 --set iterations=10 --csv OUT"
	"merge-csv|merge shard.csv --csv OUT"
	"profiles-from-host|profiles --from-host OUT"
	"live-json|live deferred-split --set threads=1 --set rounds=1 --set region=1M --json OUT"
	"compare-profile-out|compare deferred-split --set threads=1 --set rounds=1 --set region=1M --profile-out OUT"
)
[ "$have_gnuplot" = 1 ] && CASES+=(
	"sweep-plot|sweep spinlock --vary cpus=2,4 --set iterations=10 --csv plot.csv --plot OUT"
	"sensitivity-plot|sensitivity spinlock ${SMALL[*]} --plot OUT"
)

run_case() {	# $1 the command with OUT, $2 the path; sets rc, leaves out.txt err.txt
	local cmd=${1//OUT/$2}
	# shellcheck disable=SC2086
	"$BIN" $cmd > out.txt 2> err.txt
	rc=$?
}

long=$(printf 'a%.0s' $(seq 1 300)).svg
n=0
for c in "${CASES[@]}"; do
	name=${c%%|*} cmd=${c#*|}
	rm -rf d && mkdir d
	if [ "$(id -u)" = 0 ]; then
		mknod d/null.svg c 1 3 && mknod d/full.svg c 1 7 || fail "mknod"
		run_case "$cmd" d/null.svg
		[ "$rc" = 0 ] || fail "$name: a /dev/null twin: exit $rc: $(errtext)"
		[ -c d/null.svg ] || fail "$name: the /dev/null twin was replaced"
		run_case "$cmd" d/full.svg
		[ "$rc" != 0 ] || fail "$name: a /dev/full twin: exit 0"
		errtext | grep -q "No space left on device" ||
			fail "$name: a /dev/full twin: $(errtext)"
		[ -c d/full.svg ] || fail "$name: the /dev/full twin was replaced"
	fi
	# a symbolic link to a regular file, and a dangling one
	echo old > d/target.svg && ln -s target.svg d/link.svg && ln -s new.svg d/dangling.svg
	run_case "$cmd" d/link.svg
	[ "$rc" = 0 ] || fail "$name: a link: exit $rc: $(errtext)"
	[ -L d/link.svg ] || fail "$name: the link was replaced"
	[ -s d/target.svg ] && ! grep -qx old d/target.svg || fail "$name: the link's target was not written"
	run_case "$cmd" d/dangling.svg
	[ "$rc" = 0 ] && [ -L d/dangling.svg ] && [ -s d/new.svg ] ||
		fail "$name: a dangling link: exit $rc, $(ls -l d)"
	# a FIFO with a reader
	mkfifo d/fifo.svg
	cat d/fifo.svg > got.txt &
	reader=$!
	run_case "$cmd" d/fifo.svg
	wait "$reader"
	[ "$rc" = 0 ] || fail "$name: a FIFO: exit $rc: $(errtext)"
	[ -p d/fifo.svg ] || fail "$name: the FIFO was replaced"
	[ -s got.txt ] || fail "$name: the FIFO's reader got nothing"
	# bad destinations: exit 2 before any work
	run_case "$cmd" "d/$long"
	[ "$rc" = 2 ] || fail "$name: a name over NAME_MAX: exit $rc"
	[ ! -s out.txt ] || fail "$name: a name over NAME_MAX: it ran first"
	errtext | grep -q "too long" || fail "$name: a name over NAME_MAX: $(errtext)"
	run_case "$cmd" nosuchdir/x.svg
	[ "$rc" = 2 ] || fail "$name: a missing directory: exit $rc"
	[ ! -s out.txt ] || fail "$name: a missing directory: it ran first"
	leftover=$(ls -A d | grep -v -x -e null.svg -e full.svg -e target.svg -e link.svg \
		-e dangling.svg -e new.svg -e fifo.svg)
	[ -z "$leftover" ] || fail "$name: left behind: $leftover"
	n=$((n + 1))
	echo "ok: $name"
done

# reproduce --plot DIR: a directory that cannot be written fails first
# (read-only by its mode for a user, by a read-only mount for root)
mkdir ro && chmod 555 ro
ro_dir=
if [ "$(id -u)" != 0 ]; then
	ro_dir=ro
elif mkdir romnt && mount -t tmpfs -o ro,size=1M mmsim-ro-test romnt 2>/dev/null; then
	ro_dir=romnt
fi
if [ -n "$ro_dir" ]; then
	"$BIN" reproduce deferred-split --plot "$ro_dir" > out.txt 2> err.txt
	rc=$?
	[ "$ro_dir" = romnt ] && umount romnt
	[ "$rc" = 2 ] && [ ! -s out.txt ] || fail "reproduce --plot into a read-only folder: exit $rc"
fi
"$BIN" reproduce deferred-split --plot nosuch/dir/charts > out.txt 2> err.txt
rc=$?
[ "$rc" = 2 ] && [ ! -s out.txt ] || fail "reproduce --plot under a missing folder: exit $rc"
echo "ok: reproduce --plot"
echo "output_paths: $n output options checked"
