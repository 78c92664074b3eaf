#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The generated parts of the docs are what their scripts print.
#
#   tests/docs_generated.sh MMSIM SOURCE_DIR
#
# - docs/costs.md is exactly what scripts/gen_costs.py prints from profiles/.
# - docs/index.md lists every page of docs/, and every relative link resolves.
# - Every experiment page has the same five sections, in order.
# - Every experiment page (docs/experiments/*.md, and README.md's example)
#   has well-formed generated blocks, each exactly what
#   scripts/gen_experiment_tables.py renders from the saved runs
#   (docs/experiments/reproduce.json, spinlock.json).  The published-scale
#   runs take minutes, so they are not rerun here; spinlock's takes well
#   under a second, so its block is also checked against a fresh run of this
#   build (its saved JSON must match it, host time aside).
set -u
mmsim=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 >/dev/null; then
	echo "docs_generated: no python3, nothing checked"
	exit 0
fi

if ! python3 "$src/scripts/gen_costs.py" "$src" > "$tmp/costs.md"; then
	echo "FAIL: scripts/gen_costs.py failed"
	fail=1
elif ! diff -u "$src/docs/costs.md" "$tmp/costs.md" > "$tmp/costs.diff"; then
	head -20 "$tmp/costs.diff"
	echo "FAIL: docs/costs.md is not what scripts/gen_costs.py prints: run scripts/gen_costs.py --write"
	fail=1
fi

gen="$src/scripts/gen_experiment_tables.py"
# Each page opens and closes its blocks, and every block names a run.
for page in "$src"/docs/experiments/*.md "$src/README.md"; do
	nb=$(grep -c '^<!-- generated:begin [a-z0-9-]* -->$' "$page")
	ne=$(grep -c '^<!-- generated:end -->$' "$page")
	if [ "$nb" != "$ne" ]; then
		echo "FAIL: ${page#"$src"/}: $nb generated:begin against $ne generated:end"
		fail=1
	fi
done
sections="## What it models
## The published table and the simulated one
## Defaults and the evidence for each
## Why each difference exists
## Sensitivity"
for page in "$src"/docs/experiments/*.md; do
	name=$(basename "$page" .md)
	if [ "$(grep '^## ' "$page")" != "$sections" ]; then
		echo "FAIL: ${page#"$src"/}: its sections are not the five every experiment page has, in order"
		fail=1
	fi
	if ! grep -q "^<!-- generated:begin $name -->$" "$page"; then
		echo "FAIL: ${page#"$src"/}: no generated block for $name"
		fail=1
	fi
done

if ! python3 "$gen" --mmsim "$mmsim" --check; then
	echo "FAIL: a generated block differs from the saved runs"
	fail=1
fi
if ! python3 "$gen" --mmsim "$mmsim" > "$tmp/blocks.md" || ! grep -q '^| metric |' "$tmp/blocks.md"; then
	echo "FAIL: scripts/gen_experiment_tables.py printed no table"
	fail=1
fi

# spinlock, from a fresh run of this build
if ! "$mmsim" run spinlock --json "$tmp/spinlock.json" --quiet > /dev/null; then
	echo "FAIL: mmsim run spinlock"
	fail=1
elif ! python3 "$gen" --mmsim "$mmsim" --json "$tmp/spinlock.json" --check spinlock; then
	echo "FAIL: docs/experiments/spinlock.md's block is not this build's run:" \
	     "./build/mmsim run spinlock --json docs/experiments/spinlock.json, then --write"
	fail=1
fi

# `mmsim profiles NAME` gives every value the source docs/costs.md gives it
# (an inherited one "as NAME: ...", in both).
if ! python3 - "$mmsim" "$src/docs/costs.md" <<'EOF'
import re, subprocess, sys
md = open(sys.argv[2]).read()
bad = 0
for prof in re.findall(r'^## ([a-z0-9-]+)$', md, re.M):
    part = md.split("## %s\n" % prof, 1)[1].split("\n## ", 1)[0]
    out = subprocess.run([sys.argv[1], "profiles", prof], capture_output=True,
                         text=True).stdout.splitlines()
    for key, src in re.findall(r'^\| (\w+\.\w+) \| .*? \| .*? \| .*? \| (.*) \|$', part, re.M):
        line = next((l for l in out if l.startswith(key + " ")), "")
        if not line.endswith("; " + src.replace("\\|", "|")):
            print("FAIL: mmsim profiles %s: %s: %r, docs/costs.md: %r" % (prof, key, line, src))
            bad += 1
sys.exit(1 if bad else 0)
EOF
then
	fail=1
fi

# docs/index.md lists every page of docs/.
while IFS= read -r page; do
	rel=${page#"$src"/docs/}
	[ "$rel" = index.md ] && continue
	if ! grep -qF "]($rel)" "$src/docs/index.md"; then
		echo "FAIL: docs/index.md does not list docs/$rel"
		fail=1
	fi
done < <(find "$src/docs" -name '*.md' | sort)

# Every relative link of README.md and docs/ names a file that exists.
while IFS= read -r page; do
	dir=$(dirname "$page")
	while IFS= read -r target; do
		target=${target%%#*}
		[ -z "$target" ] && continue
		if [ ! -e "$dir/$target" ]; then
			echo "FAIL: ${page#"$src"/}: a link to $target, which does not exist"
			fail=1
		fi
	done < <(grep -o '](\([^)]*\))' "$page" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:')
done < <(find "$src/README.md" "$src/docs" -name '*.md' | sort)

# The script refuses what it cannot use.
if python3 "$gen" --mmsim "$mmsim" --nosuch > /dev/null 2>&1; then
	echo "FAIL: scripts/gen_experiment_tables.py took an unknown option"
	fail=1
fi

[ "$fail" = 0 ] && echo "docs_generated: costs.md and the experiment pages' blocks match their sources; the index lists every page"
exit $fail
