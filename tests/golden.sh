#!/usr/bin/env bash
# Golden transcripts: the exact output of small runs (tests/golden/cases.txt).
# Usage (ctest): golden.sh MMSIM_BIN SOURCE_DIR
set -u
bin=$1 src=$2 fail=0 n=0
while read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin" $args --jobs 1 2>/dev/null | grep -v "^host time:" > /tmp/golden.$$.out
	if ! diff -u "$src/tests/golden/$name.txt" /tmp/golden.$$.out > /tmp/golden.$$.diff; then
		echo "golden $name: output differs:"
		head -40 /tmp/golden.$$.diff
		echo "golden $name: if the change is deliberate, rewrite the transcripts with"
		echo "  scripts/update_golden.sh BUILD/mmsim   (then review git diff tests/golden)"
		fail=$((fail + 1))
	fi
done < "$src/tests/golden/cases.txt"
rm -f /tmp/golden.$$.diff /tmp/golden.$$.out
echo "golden: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
