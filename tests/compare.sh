#!/usr/bin/env bash
# `mmsim compare` on this machine, for every experiment with a live form
# (those `mmsim live --help` lists): every metric of the experiment (as
# `mmsim show` lists them) gets a live value or "unavailable" with the
# reason under it, and a simulated value or the reason there is none.
# Live runs need root (system-wide tracepoints, memory cgroups, zram):
# without it the test says so and is skipped.  reclaim-tlb runs with
# --apply, which adds a zram swap device when the machine has no swap and
# removes it at the end (it writes no THP setting).
# Usage (ctest): compare.sh MMSIM_BIN SOURCE_DIR
set -u
bin=$1
fail=0
if [ "$(id -u)" != 0 ]; then
	echo "compare: skipped: live runs need root (tracepoints, memory cgroups, zram)"
	exit 0
fi
export MMSIM_LIVE_STATE=/tmp/mmsim-compare-test-state.$$

# One small run per experiment with a live form: NAME ARGS...
cases=$(cat <<'CASES'
deferred-split --set region=4M --set rounds=5
reclaim-tlb --apply --set vm_bytes=32M --set memcg_limit=16M --set duration=1s
khugepaged-cold --set task_size=4M --set accesses=1M
CASES
)

# the experiments with a live form, from live's own help (the registry)
live_names=$("$bin" live --help | awk '/^  [a-z]/ && !/^  --/ { print $1 }')
[ -n "$live_names" ] || { echo "compare: mmsim live --help lists no experiment"; exit 1; }

for name in $live_names; do
	args=$(printf '%s\n' "$cases" | awk -v n="$name" '$1 == n { $1 = ""; print }')
	if [ -z "$args" ]; then
		echo "compare $name: no case in tests/compare.sh (add a small run of it)"
		fail=$((fail + 1))
		continue
	fi
	metrics=$("$bin" show "$name" | awk '/^metrics:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	# shellcheck disable=SC2086
	out=$(timeout 600 "$bin" compare "$name" $args 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		# a requirement this machine lacks: one line that says what
		echo "compare $name: exit $rc: $(printf '%s\n' "$out" | grep 'mmsim: error' | head -1)"
		fail=$((fail + 1))
		continue
	fi
	table=$(printf '%s\n' "$out" | awk '/^live and simulated/ { on = 1; next } on && /^$/ { exit } on')
	nr=0 live=0 sim=0
	for m in $metrics; do
		nr=$((nr + 1))
		row=$(printf '%s\n' "$table" | awk -v m="$m" '$1 == m { print; exit }')
		if [ -z "$row" ]; then
			echo "compare $name: no row for metric $m"
			fail=$((fail + 1))
			continue
		fi
		# the row and the reason lines under it, up to the next metric's row
		after=$(printf '%s\n' "$table" | awk -v m="$m" '$1 == m { on = 1; next } on && /^[a-z]/ { exit } on')
		lv=$(echo "$row" | awk '{ print $2 }')
		sv=$(echo "$row" | awk '{ print $3 }')
		if [[ $lv =~ ^-?[0-9] ]]; then
			live=$((live + 1))
		elif [ "$lv" = unavailable ] && printf '%s\n' "$after" | grep -q '^    (live: .\+)'; then
			echo "compare $name: $m: live unavailable $(printf '%s\n' "$after" | grep -m1 '^    (live:' | sed 's/^ *//')"
		else
			echo "compare $name: $m: live '$lv' is neither a value nor unavailable with a reason"
			fail=$((fail + 1))
		fi
		if [[ $sv =~ ^-?[0-9] ]]; then
			sim=$((sim + 1))
		elif printf '%s\n' "$after" | grep -q '^    (simulated: .\+)'; then
			echo "compare $name: $m: simulated unavailable $(printf '%s\n' "$after" | grep -m1 '^    (simulated:' | sed 's/^ *//')"
		else
			echo "compare $name: $m: simulated '$sv' is neither a value nor says why not"
			fail=$((fail + 1))
		fi
	done
	echo "compare $name: $nr metrics: $live with a live value, $sim with a simulated value"
	# a live run that recorded its lock waits lengthened each contended hold by
	# the recorder's sample: the simulated side carries it, timed on this
	# machine (needs the getppid tracepoint to time it)
	if printf '%s\n' "$out" | grep -q '^  counted by: ' &&
	   [ -r /sys/kernel/tracing/events/syscalls/sys_enter_getppid/id ] &&
	   printf '%s\n' "$out" | grep -q '^simulated side'; then
		printf '%s\n' "$out" | grep '^simulated side' | grep -q -- '--cost lock.contention_trace_ns=[1-9]' &&
		printf '%s\n' "$out" | grep -q 'its lock:contention_end sample' || {
			echo "compare $name: the live run recorded lock waits and the simulated side does not carry the recorder's sample"
			fail=$((fail + 1))
		}
	fi
	[ "$nr" -gt 0 ] || { echo "compare $name: mmsim show lists no metric"; fail=$((fail + 1)); }
done
# --report functions: the live run's samples beside the simulated side's
# virtual CPU time, function by function; handle_mm_fault is a row of both
# (the live side needs kernel symbols and cpu-clock samples: root)
out=$(timeout 600 "$bin" compare deferred-split --set region=4M --set rounds=20 --report functions 2>&1)
rc=$?
row=$(printf '%s\n' "$out" | awk '/^functions, live and simulated/ { on = 1; next } on && $1 == "handle_mm_fault" { print; exit }')
if [ $rc -ne 0 ] || [ -z "$row" ]; then
	echo "compare --report functions: exit $rc, no handle_mm_fault row"
	fail=$((fail + 1))
elif printf '%s\n' "$out" | grep -q '^  live sampled by: '; then
	echo "$row" | awk '{ exit !($2 ~ /^[0-9.]+%$/ && $4 ~ /^[0-9.]+%$/ && $2 + 0 > 10 && $4 + 0 > 10) }' || {
		echo "compare --report functions: handle_mm_fault: $row"
		fail=$((fail + 1))
	}
else
	echo "compare --report functions: live unavailable: $(printf '%s\n' "$out" | grep -m1 'functions: live unavailable')"
fi
rm -f "$MMSIM_LIVE_STATE"
echo "compare: $fail failed"
[ "$fail" -eq 0 ]
