#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Workload files on the command line (docs/workloads.md): `list` shows the
# shipped ones, `show` and `help run NAME` their parameters, and a bad
# file is refused with one line naming FILE:LINE and exit 2, before work.
#
#   tests/workload_cli.sh MMSIM SOURCE_DIR
set -u
mmsim=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {	# check WHAT CONDITION...
	local what=$1
	shift
	if ! "$@"; then
		echo "FAIL: $what"
		fail=1
	fi
}

out=$("$mmsim" list)
check "list shows page_fault1" grep -q '^page_fault1  *will-it-scale page_fault1' <<<"$out"
check "list shows case-anon-cow-seq" grep -q '^case-anon-cow-seq ' <<<"$out"
out=$("$mmsim" show page_fault1)
check "show page_fault1 prints its parameters" grep -q '^  tasks .*tasks, one per CPU' <<<"$out"
check "show page_fault1 prints mode" grep -q '^  mode .*processes|threads' <<<"$out"
out=$("$mmsim" help run page_fault2)
check "help run page_fault2 prints fs" grep -q '^  fs .*file|shmem' <<<"$out"

printf '[workload]\nname = bad\nsummary = s\nsource = t\n[memory a]\nsize = 6K\n' >"$tmp/bad.ini"
"$mmsim" run "$tmp/bad.ini" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "run bad.ini exits 2 (got $rc)" test "$rc" = 2
check "run bad.ini prints one line" test "$(wc -l <"$tmp/err")" = 1
check "run bad.ini names FILE:LINE" grep -q "^mmsim: error: $tmp/bad.ini:6: size = 6K" "$tmp/err"
check "run bad.ini prints nothing else" test ! -s "$tmp/out"
"$mmsim" --dry-run run "$tmp/bad.ini" 2>/dev/null
check "--dry-run run bad.ini exits 2" test $? = 2
"$mmsim" --dry-run run page_fault1 --set tasks=8 --set mode=threads
check "--dry-run run page_fault1 --set exits 0" test $? = 0
"$mmsim" --dry-run run page_fault1 --set nosuch=1 2>/dev/null
check "--dry-run run page_fault1 --set nosuch=1 exits 2" test $? = 2
"$mmsim" run page_fault1 --set size=6K >/dev/null 2>"$tmp/err"
check "run page_fault1 --set size=6K exits 2 before work" test $? = 2
check "... naming the page" grep -q "not a multiple of the page" "$tmp/err"
# a file's run prints a repeat line that runs it again: the path, not the name
cat >"$tmp/mine.ini" <<'EOF2'
include = page_fault1

[workload]
name = mine
summary = page_fault1 again
source = a test
EOF2
"$mmsim" run "$tmp/mine.ini" --set tasks=1 --set duration=1ms --set size=64K >"$tmp/out" 2>&1
check "run FILE exits 0" test $? = 0
check "run FILE's repeat line names the file" grep -q "^repeat: mmsim run $tmp/mine.ini " "$tmp/out"
# An access step whose copy-on-write faults run out of memory (no swap, the
# cached file's pages mapped by both tasks): the kernel would OOM-kill; the
# model's run ends with one error line instead of faulting for ever.
cat >"$tmp/oom.ini" <<'INI'
[workload]
name = oom
summary = s
source = t
node_memory = 24M
[memory f]
kind = file
mapping = private
size = 16M
per = workload
sparse = yes
cached = yes
[task a]
count = 2
as = processes
repeat = 3
loop = mmap f
loop = fault f read
loop = access f write pattern=random accesses=2000 count
loop = munmap f
INI
timeout 60 "$mmsim" run "$tmp/oom.ini" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "an access that runs out of memory ends the run (rc $rc, not 124)" test "$rc" != 124 -a "$rc" != 0
check "the access's failure is named" grep -q "access: f write at offset [0-9]* faulted: ENOMEM" "$tmp/err"

# Large page cache folios through every file step, the model's invariant
# checks on: shared at 8192 KiB of readahead (PMD-mapped folios), private
# (copy-on-write of large folios, fork) on a smaller file.
for args in "--set mapping=shared" "--set mapping=private --set fsize=8M"; do
	# shellcheck disable=SC2086
	timeout 120 "$mmsim" run "$2/tests/fixtures/large-folios.ini" --cost mm.read_ahead_kb=8192 \
		$args --check >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "large-folios $args runs with --check (rc $rc)" test "$rc" = 0
	check "large-folios $args reports its faults" grep -q "^page faults" "$tmp/out"
done
check "large-folios maps PMD-sized page cache folios" \
	sh -c "timeout 60 '$mmsim' run '$2/tests/fixtures/large-folios.ini' --cost mm.read_ahead_kb=8192 | grep -q '^thp_file_mapped  *[1-9]'"

exit $fail
