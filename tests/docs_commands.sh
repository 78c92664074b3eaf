#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every mmsim command that README.md and docs/ quote, through the real parser.
#
#   tests/docs_commands.sh MMSIM SOURCE_DIR
#
# A command is a line of a fenced code block that starts with `mmsim ` or
# `./build/mmsim ` (a trailing backslash continues it; a comment after two
# spaces and `#`, and a pipe or a redirection after the command, are cut
# off).  Each one goes through `mmsim --dry-run`, which parses it as the
# command would (its options, scenarios, variants, --set keys and values,
# --cost keys, profiles) and runs nothing; an unknown command, option, key
# or value fails the test.  The small ones, which print and change nothing
# (help, list, show, profiles NAME, version, man, completion), are run for
# real too and must exit 0 with some output.  A block whose info string is
# `synopsis` (usage lines with placeholders, such as SCENARIO) is skipped.
set -u
mmsim=$1
src=$2
fail=0
nr=0
nr_run=0

# Checks of the checker: the dry run must refuse what the real command refuses.
expect_rc() {
	local want=$1
	shift
	"$mmsim" --dry-run "$@" >/dev/null 2>&1
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: mmsim --dry-run $*: exit $rc, expected $want"
		fail=1
	fi
}
expect_rc 0 run deferred-split --set rounds=10
expect_rc 2 run deferred-split --set nosuch=1
expect_rc 2 run deferred-split --set rounds=0
expect_rc 2 run deferred-split --cost mem.nosuch=10
expect_rc 2 run deferred-split --nosuch
expect_rc 2 run nosuch
expect_rc 2 nosuch
expect_rc 2 run deferred-split --profile nosuch
expect_rc 2 run deferred-split --variant nosuch
expect_rc 2 sweep deferred-split --vary threads=8,0
expect_rc 2 show nosuch
expect_rc 2 profiles nosuch
expect_rc 2 live nosuch

files=("$src/README.md")
while IFS= read -r -d '' f; do
	files+=("$f")
done < <(find "$src/docs" -name '*.md' -print0 | sort -z)

# file:line<TAB>command, one per line, continuations joined
extract() {
	awk '
	FNR == 1 { fence = 0; skip = 0; cont = "" }
	/^[ \t]*```/ {
		if (!fence) { fence = 1; skip = ($0 ~ /^[ \t]*```[ \t]*synopsis/) }
		else { fence = 0; skip = 0 }
		next
	}
	!fence || skip { next }
	cont != "" {
		line = $0; sub(/^[ \t]+/, "", line)
		cmd = cmd " " line
		if (cmd ~ /\\$/) { sub(/[ \t]*\\$/, "", cmd); next }
		print where "\t" cmd; cont = ""; next
	}
	/^[ \t]*(\.\/build\/)?mmsim[ \t]/ {
		where = FILENAME ":" FNR
		cmd = $0; sub(/^[ \t]+/, "", cmd)
		if (cmd ~ /\\$/) { sub(/[ \t]*\\$/, "", cmd); cont = "1"; next }
		print where "\t" cmd
	}' "$@"
}

# the docs' commands run from the source tree's root (docs/examples/ files by their path)
cd "$src" || exit 1
while IFS=$'\t' read -r where cmd; do
	where=${where#"$src"/}
	line=$cmd
	line=$(printf '%s' "$line" | sed -E 's/[[:space:]]{2,}#.*$//; s/[[:space:]]+#[[:space:]].*$//')
	line=$(printf '%s' "$line" | sed -E 's/[[:space:]]+(\||>|2>|&&|;).*$//')
	line=${line#./build/mmsim}
	line=${line#mmsim}
	case $line in
	*'$('* | *'`'* | *'<('*)
		echo "FAIL: $where: cannot check a command with a substitution: $cmd"
		fail=1
		continue ;;
	esac
	if ! eval "args=($line)" 2>/dev/null; then
		echo "FAIL: $where: cannot split: $cmd"
		fail=1
		continue
	fi
	nr=$((nr + 1))
	if ! out=$("$mmsim" --dry-run "${args[@]}" 2>&1 >/dev/null); then
		echo "FAIL: $where: $cmd"
		echo "      $out"
		fail=1
		continue
	fi
	# The small ones, for real.
	small=0
	case "${args[0]:-}" in
	help | list | show | version | man | completion)
		small=1 ;;
	profiles)
		small=1
		for a in "${args[@]}"; do
			[ "$a" = --from-host ] && small=0
		done ;;
	esac
	for a in "${args[@]}"; do
		[ "$a" = --help ] || [ "$a" = -h ] && small=1
	done
	if [ "$small" = 1 ]; then
		nr_run=$((nr_run + 1))
		if ! out=$("$mmsim" "${args[@]}" 2>&1) || [ -z "$out" ]; then
			echo "FAIL: $where: $cmd: exit $? or no output"
			fail=1
		fi
	fi
done < <(extract "${files[@]}")

if [ "$nr" -lt 10 ]; then
	echo "FAIL: only $nr commands found in README.md and docs/ (expected at least 10)"
	fail=1
fi
echo "docs_commands: $nr commands parsed, $nr_run of them run, in ${#files[@]} files"
exit $fail
