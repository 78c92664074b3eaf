#!/usr/bin/env bash
# Rewrite tests/golden/*.txt from the current build after a deliberate change.
# Usage: scripts/update_golden.sh [MMSIM_BIN]   (default build/mmsim)
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/mmsim}
while read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	"$bin" $args --jobs 1 2>/dev/null | grep -v '^host time:' > "tests/golden/$name.txt"
	echo "wrote tests/golden/$name.txt"
done < tests/golden/cases.txt
