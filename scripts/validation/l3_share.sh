#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# page_fault3 (one task, on CPU 0) beside a neighbour on CPU 1 that streams
# through 2 to 64 MiB (or spins: alu), then page_fault3 at two tasks, with
# the line transfer before and after (the host may move the vCPUs while it
# runs: a set counts when both ends agree).  Root, from the repository:
#   gcc -O2 -pthread -o /tmp/l3_share scripts/validation/l3_share.c
#   bash scripts/validation/l3_share.sh /tmp/l3_share
# One line, ops a task a second in millions (docs/validation.md).
set -u
bin=${1:?usage: l3_share.sh PATH-TO-l3_share}
pf3() {
	./build/mmsim live page_fault3 --set tasks="$1" --json /tmp/l3_share.json > /dev/null 2>&1 &&
	python3 -c "import json; print('%.2f' % (json.load(open('/tmp/l3_share.json'))['variants'][0]['metrics']['ops_per_task_s'] / 1e6))"
}
beside() {
	if [ "$1" = alu ]; then taskset -c 1 sh -c 'while :; do :; done' & else taskset -c 1 "$bin" stream "$1" & fi
	local p=$!
	sleep 0.5
	pf3 1
	kill $p
	wait $p 2> /dev/null
}
x0=$("$bin" pingpong)
line="1T $(pf3 1) alu $(beside alu)"
for m in 2 8 16 32 64; do line="$line ${m}M $(beside $m)"; done
line="$line 2T $(pf3 2) 1T $(pf3 1)"
echo "line transfer ${x0}..$("$bin" pingpong) ns: $line"
rm -f /tmp/l3_share.json
