#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The 16-CPU checks of issue #29, as one script for the device machine
# (../shared/tools/device-pack.sh packs mmsim, stress-ng and perf into
# .device/; then the device tool with carry [".device"] and the command
#   bash .device/on-device.sh bash scripts/device/check-16.sh
# ).  Everything it measures goes under $OUT; the simulated side is run
# afterwards on the development machine with the profile it writes:
#   1. calibrate (the line transfer, IPIs, the tracepoint sample's cost)
#   2. deferred-split at 16 threads, 20 rounds of 16 MiB of 16K mTHP, live,
#      three runs untraced (MMSIM_LIVE_LOCKS=off) and three traced by the
#      lock recorder (docs/experiments/deferred-split.md, "Against a real
#      kernel")
#   3. validate deferred-split and reclaim-tlb at 1, 4 and 16 threads
#      (reclaim-tlb 10 s a run), on that profile
# Each step has its own time limit, so the script ends within about 9
# minutes and keeps what finished.  `--small` (for the development machine):
# 2 threads, 1 and 2 for validate, 2 s reclaim runs.
set -u
OUT=${OUT:-/tmp/check-16}
mkdir -p "$OUT"
small=0
[ "${1:-}" = --small ] && small=1
T=16 TH=1,4,16 DUR=10s
[ "$small" = 1 ] && T=2 TH=1,2 DUR=2s
log() { echo "$(date -u +%T) $*" | tee -a "$OUT/log.txt"; }
command -v mmsim > /dev/null || PATH=$PWD/build:$PATH

log "machine: $(nproc) CPUs, $(uname -r)"
cat /proc/cpuinfo | grep -m1 "model name" >> "$OUT/log.txt"
log "1. calibrate"
timeout 150 mmsim calibrate --out "$OUT/host.ini" 2> "$OUT/calibrate.txt" ||
	log "calibrate: exit $?"
for mode in untraced traced; do
	for i in 1 2 3; do
		log "2. deferred-split $T threads, $mode, run $i"
		if [ "$mode" = untraced ]; then export MMSIM_LIVE_LOCKS=off; else unset MMSIM_LIVE_LOCKS; fi
		timeout 60 mmsim live deferred-split --apply --set threads=$T --set rounds=20 \
			--set region=16M --set workers=threads --json "$OUT/ds-$mode-$i.json" \
			> "$OUT/ds-$mode-$i.txt" 2>&1 || log "live: exit $?"
	done
done
unset MMSIM_LIVE_LOCKS
log "3. validate"
prof=()
[ -s "$OUT/host.ini" ] && prof=(--profile "$OUT/host.ini")
timeout 300 mmsim validate deferred-split reclaim-tlb "${prof[@]}" --threads "$TH" --repeat 3 \
	--set duration=$DUR --json "$OUT/validate.json" > "$OUT/validate.txt" 2>&1 ||
	log "validate: exit $?"
log "done"
