#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Issue 31's input items, against the real binary: inputs that hung
# (FIFOs with no writer, an endless diff input), seeds of 2^63 and more,
# malformed merge rows, a closed stderr, small error messages, interrupted
# plots, and live mode's exit code after a late signal.  Each block failed
# on 0f0bb47.  FIFOs are made here with mkfifo; no /dev node is used.
# Usage: bash tests/inputs_hard.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
set -u
BIN=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
n=0
SPIN=(--set cpus=2 --set iterations=10)

# check_bad WANT OUT ERR RC: one error line containing WANT, exit 2, no stdout.
check_bad() {
	local want=$1 out=$2 err=$3 rc=$4 what=$5
	grep -v '^==[0-9]*==' "$err" > "$err.1"	# the sanitizer's own notes
	[ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2 ($(head -c 300 "$err.1"))"
	[ "$(wc -l < "$err.1")" -eq 1 ] || fail "$what: $(wc -l < "$err.1") lines on stderr: $(head -c 600 "$err.1")"
	grep -q '^mmsim: error: ' "$err.1" || fail "$what: not an mmsim error: $(cat "$err.1")"
	grep -qF -- "$want" "$err.1" || fail "$what: expected \"$want\" in: $(cat "$err.1")"
	[ -s "$out" ] && fail "$what: wrote to stdout"
	n=$((n + 1))
}

# expect_bad WANT ARGS...: the same, within 20 s.
expect_bad() {
	local want=$1 rc
	shift
	timeout 20 "$BIN" "$@" > out.txt 2> err.txt
	rc=$?
	check_bad "$want" out.txt err.txt $rc "$*"
}

"$BIN" run spinlock "${SPIN[@]}" --quiet --json a.json > /dev/null 2>&1 || fail "a small run failed"

# ---- item 4: an interrupted plot leaves no file and no gnuplot behind ----
# A fake gnuplot that takes 3 s and then writes the picture it was told to.
cat > fakegp <<'GP'
#!/bin/bash
echo $$ > "$GP_PID"
out=$(sed -n 's/^set output "\(.*\)"$/\1/p' "$1")
sleep 3
echo '<svg/>' > "$out"
GP
chmod +x fakegp
mkdir plot
for sig in INT TERM HUP; do
	rm -f gp.pid
	( cd plot && trap - INT && MMSIM_GNUPLOT="$T/fakegp" GP_PID="$T/gp.pid" exec "$BIN" sweep spinlock \
		--vary cpus=2,4 --set iterations=5 --csv s.csv --plot s.svg > /dev/null 2>&1 ) &
	pid=$!
	for _ in $(seq 100); do
		[ -s gp.pid ] && break
		sleep 0.1
	done
	[ -s gp.pid ] || fail "SIG$sig: the fake gnuplot did not start"
	gp=$(cat gp.pid)
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc -eq $((128 + $(kill -l $sig))) ] || fail "SIG$sig during the plot: exit $rc"
	[ -e /proc/$gp ] && [ "$(cut -d' ' -f3 /proc/$gp/stat 2> /dev/null)" != Z ] &&
		fail "SIG$sig: gnuplot ($gp) outlived mmsim"
	sleep 3.5	# past the fake gnuplot's write
	# the CSV is written whole before the plot starts; nothing else may be there
	[ "$(ls -A plot)" = s.csv ] || fail "SIG$sig during the plot left: $(ls -A plot)"
	rm -f plot/s.csv
done
echo "ok: item 4, interrupted plots"

# ---- item 5: what cannot be read in bounded time is refused -------------
# A FIFO with no writer, as --profile, as an include, in merge and in diff:
# each refused after the bounded wait (10 s), in parallel.
mkfifo p.ini inc.ini m.csv d.json
printf 'include = inc.ini\n' > top.ini
i=0
for args in "run spinlock --profile p.ini" "run spinlock --profile top.ini" "merge m.csv" \
	    "diff a.json d.json"; do
	i=$((i + 1))
	( timeout 40 "$BIN" $args > fifo$i.out 2> fifo$i.err; echo $? > fifo$i.rc ) &
done
wait
i=0
for want in "profile p.ini: nothing to read for 10 s" "top.ini:1: include: profile inc.ini: nothing to read" \
	    "merge m.csv: nothing to read for 10 s" "diff d.json: nothing to read for 10 s"; do
	i=$((i + 1))
	check_bad "$want" fifo$i.out fifo$i.err "$(cat fifo$i.rc)" "FIFO $i"
done
# a FIFO whose writer comes, and a pipe, still work
( sleep 1; cat "$SRC/profiles/desktop.ini" > p.ini ) &
"$BIN" run spinlock "${SPIN[@]}" --profile p.ini --json fifo.json > /dev/null 2>&1 ||
	fail "a profile from a FIFO with a writer: exit $?"
wait
grep -q '"profile": "p.ini"' fifo.json || fail "the FIFO's profile was not used"
"$BIN" run spinlock "${SPIN[@]}" --profile <(cat "$SRC/profiles/desktop.ini") > /dev/null 2>&1 ||
	fail "--profile <(...): exit $?"
# diff's input is capped as merge's is (an endless pipe grew without bound)
expect_bad "longer than 67108864 bytes" diff a.json <(yes)
expect_bad "longer than 268435456 bytes" merge <(yes)
# a directory says so
mkdir dir
expect_bad "profile dir/: a directory: expected a readable INI file" run spinlock --profile dir/
expect_bad "merge dir: a directory" merge dir
expect_bad "diff dir: a directory" diff a.json dir
echo "ok: item 5, FIFOs, pipes and directories"

# ---- item 7: with a standard descriptor closed, notes do not land in files
"$BIN" run spinlock "${SPIN[@]}" --quiet --trace t.json --trace-limit 1 --json c.json \
	> /dev/null 2>&-
for f in t.json c.json; do
	[ -s $f ] || fail "2>&-: no $f"
	[ "$(head -c 6 $f)" = "mmsim:" ] && fail "2>&-: $f starts with $(head -c 60 $f)"
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" $f 2> /dev/null ||
		fail "2>&-: $f is not JSON: $(head -c 80 $f)"
done
"$BIN" run spinlock "${SPIN[@]}" --quiet --json c2.json <&- >&- 2>&- || fail "0-2 closed: exit $?"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" c2.json || fail "0-2 closed: bad JSON"
echo "ok: item 7, closed standard descriptors"

# ---- item 8: seeds of 2^63 and more are written unsigned ---------------
"$BIN" run spinlock "${SPIN[@]}" --quiet --seed 9223372036854775808 --json - 2> /dev/null |
	grep -q '^  "seed": 9223372036854775808,$' || fail "seed 2^63 not written unsigned"
"$BIN" run spinlock "${SPIN[@]}" --quiet --seed 18446744073709551615 --json max.json > /dev/null 2>&1
grep -q '^  "seed": 18446744073709551615,$' max.json || fail "seed 2^64-1 not written unsigned"
"$BIN" run spinlock "${SPIN[@]}" --quiet --seed 9223372036854775809 --seeds 2 --json s2.json \
	> /dev/null 2>&1
grep -q '^  "seed": 9223372036854775809,$' s2.json || fail "--seeds: seed not unsigned"
grep -q '^    "first": 9223372036854775809,$' s2.json || fail "seeds.first not unsigned"
"$BIN" diff max.json s2.json > diff.txt 2> err.txt || fail "diff of big seeds: exit $?: $(cat err.txt)"
grep -q '^A: max.json (seed 18446744073709551615, ' diff.txt || fail "diff A seed: $(head -3 diff.txt)"
grep -q '^B: s2.json (seed 9223372036854775809, ' diff.txt || fail "diff B seed: $(head -3 diff.txt)"
echo "ok: item 8, unsigned seeds"

# ---- item 9: live mode exits 128+N for a signal after its workload ------
# The signal must land after the workload: stdout is an unbuffered one-page
# pipe that this test fills once the header is read, so that mmsim blocks
# writing its table (after the workload and the undo); then SIGTERM, or
# SIGINT.  Needs root, python3 and stdbuf; skipped without them.
if [ "$(id -u)" = 0 ] && command -v python3 > /dev/null && command -v stdbuf > /dev/null; then
	for sig in TERM INT; do
		MMSIM_LIVE_STATE="$T/live.state" python3 - "$BIN" $sig <<'PY' || fail "live, SIG$sig after the workload"
import fcntl, os, signal, subprocess, sys, time
binary, sig = sys.argv[1], getattr(signal, "SIG" + sys.argv[2])
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)                      # F_SETPIPE_SZ: one page
# unbuffered (stdbuf), so that the table's first line is written, and blocks, at once
env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
p = subprocess.Popen(["stdbuf", "-o0", binary, "live", "deferred-split", "--set", "region=16M",
                      "--set", "rounds=20"], stdout=w, stderr=subprocess.PIPE, env=env)
os.set_blocking(r, False)
head, t0 = b"", time.time()
while time.time() - t0 < 20:                    # the header, flushed before the workload
    try:
        chunk = os.read(r, 65536)
    except BlockingIOError:
        chunk = None
    if chunk:
        head += chunk
        last = time.time()
    elif head and time.time() - last > 0.2:
        break
    time.sleep(0.01)
if b"settings" not in head:
    if p.poll() == 2:                           # live mode's requirements are missing here
        print("skipped: live mode cannot run here:", p.stderr.read().decode()[:200]); sys.exit(0)
    sys.exit("no header: %r" % head[:200])
# fill the pipe, through a description of its own (O_NONBLOCK on w would be mmsim's too)
fill = os.open("/proc/self/fd/%d" % w, os.O_WRONLY | os.O_NONBLOCK)
try:
    while True:
        os.write(fill, b"#" * 512)
except BlockingIOError:
    pass
os.close(fill)
blocked = False
for _ in range(3000):                           # wait for write(1, ...) after the workload
    try:
        blocked = open("/proc/%d/syscall" % p.pid).read().startswith("1 0x1 ")
    except OSError:
        break
    if blocked or p.poll() is not None:
        break
    time.sleep(0.01)
if not blocked:
    sys.exit("mmsim did not block writing its table (exit %s)" % p.poll())
p.send_signal(sig)
os.set_blocking(r, True)
os.close(w)
out = head
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    out += chunk
rc = p.wait(timeout=30)
err = p.stderr.read().decode()
if rc != 128 + sig:
    sys.exit("exit %d, expected %d; stderr: %s" % (rc, 128 + sig, err[-300:]))
if "interrupted by SIG" not in err:
    sys.exit("no 'interrupted' note: %s" % err[-300:])
PY
	done
	echo "ok: item 9, live mode's exit code after a late signal"
else
	echo "skipped: item 9 (needs root, python3 and stdbuf)"
fi

# ---- item 10: a run past `ulimit -v` is refused with the estimate -------
# ASan cannot start under ulimit -v: this needs the release binary
# (MMSIM_RELEASE_BIN, as `make test` sets it, or SOURCE_DIR/build/mmsim).
REL=${MMSIM_RELEASE_BIN:-$SRC/build/mmsim}
if [ -x "$REL" ] && (ulimit -v 400000; "$REL" version > /dev/null 2>&1); then
	DS=(deferred-split --set threads=8 --set mthp=4K --set rounds=1)
	for j in 1 2; do
		(ulimit -v 400000; exec timeout 60 "$REL" run "${DS[@]}" --quiet --set region=4G --jobs $j) \
			> out.txt 2> err.txt
		check_bad "the address-space limit (ulimit -v) leaves this process" out.txt err.txt $? \
			"ulimit -v, --jobs $j"
	done
	(ulimit -v 400000; exec timeout 60 "$REL" sweep "${DS[@]}" --vary region=1M,4G) \
		> out.txt 2> err.txt
	check_bad "sweep point region=4G" out.txt err.txt $? "ulimit -v, sweep"
	(ulimit -v 400000; exec "$REL" run "${DS[@]}" --quiet --set region=64M > /dev/null 2>&1) ||
		fail "ulimit -v: a small run failed"
	echo "ok: item 10, ulimit -v"
else
	echo "skipped: item 10 (no release binary that starts under ulimit -v)"
fi

# ---- item 11: merge refuses malformed rows, naming the line ------------
"$BIN" sweep spinlock --set iterations=10 --vary cpus=2,4 --csv good.csv > /dev/null 2>&1 ||
	fail "a small sweep failed"
"$BIN" merge good.csv | cmp -s - good.csv || fail "merge of a good shard changed it"
printf 'scenario,cpus,iterations,seed,variant,metric,value\nspinlock,2,10,1,q,m,NA\n' > unset.csv
"$BIN" merge unset.csv > /dev/null 2>&1 || fail "NA (a metric not set) was refused"
bad_row() {
	{ head -3 good.csv; printf '%s\n' "$1"; } > bad.csv
	expect_bad "merge bad.csv:4: $2" merge bad.csv
}
bad_row 'spinlock,2,10,1,q,m' "6 fields: expected 7"
bad_row 'spinlock,2,10,1,q,m,1,2' "more than 7 fields: expected 7"
bad_row '"spinlock",2,10,1,q,m,1' "field 1 is quoted: expected"
bad_row 'spinlock,2,10,1,"q,m",1' "field 5 is quoted: expected"
bad_row 'spinlock,,10,1,q,m,1' "field 2 is empty: expected"
bad_row 'spinlock,2,10,x1,q,m,1' "seed x1: expected a decimal number"
bad_row 'spinlock,2,10,1,q,m,1.5x' "value 1.5x: expected a number"
bad_row 'spinlock,2,10,1,q,m,' "field 7 is empty: expected a value in every column"
bad_row 'deferred-split,2,10,1,q,m,1' "scenario deferred-split: expected spinlock"
bad_row '' "1 fields: expected 7"
echo "ok: item 11, malformed merge rows"

# ---- item 12: small ones -----------------------------------------------
# a repeated --cost key is refused as a repeated --set key is
expect_bad "--cost cache.l1_hit_ns=3: cache.l1_hit_ns given twice (first cache.l1_hit_ns=2): expected each key once" \
	run spinlock --cost cache.l1_hit_ns=2 --cost cache.l1_hit_ns=3
expect_bad "given twice (first cache.remote_transfer_ns=90): expected each key once" sweep spinlock \
	--vary cpus=2,4 --cost cache.remote_transfer_ns=90 --cost cache.remote_transfer_ns=120
# live and compare: a missing value is one, not an unknown option
expect_bad "--json: missing value: expected a FILE after it" live deferred-split --json
expect_bad "--set: missing value: expected KEY=VALUE after it" live deferred-split --set
expect_bad "--profile-out: missing value: expected a FILE after it" compare deferred-split --profile-out
expect_bad "unknown option '--bogus' for live: expected --set, --apply, --json" live deferred-split --bogus
expect_bad "--report: missing value: expected functions after it" live deferred-split --report
expect_bad "--report lines: expected functions" compare deferred-split --report lines
# every bad-input message has its "expected ..." part
sed 's/^mm.pte_op_ns = /mm.nope = /' "$SRC/profiles/desktop.ini" > unknown-src.ini
printf '[clock]\nturbo = 1\n' | cat "$SRC/profiles/desktop.ini" - > unknown-key.ini
sed '/^mhz = /p' "$SRC/profiles/desktop.ini" > twice.ini
expect_ex() { expect_bad "$@"; grep -q ': expected ' err.txt.1 || fail "$*: no \"expected\": $(cat err.txt.1)"; }
expect_ex "source for unknown field mm.nope: expected" profiles unknown-src.ini
expect_ex "unknown key clock.turbo: expected" profiles unknown-key.ini
expect_ex "given twice: expected each key once" profiles twice.ini
expect_ex "no profile key cache.nope: expected" run spinlock --cost cache.nope=1
expect_ex "--variant qspinlock: given twice: expected" run spinlock --variant qspinlock --variant qspinlock
expect_ex "--seed 2: given twice: expected" run spinlock --seed 1 --seed 2
expect_ex "--json b.json: given twice (first a.json): expected" run spinlock --json a.json --json b.json
expect_ex "--quiet: takes no value, got 1: expected --quiet alone" run spinlock --quiet=1
expect_ex "--set cpus=4: cpus given twice: expected" run spinlock --set cpus=2 --set cpus=4
expect_ex "--vary cpus=2,2: value 2 given twice: expected" sweep spinlock --vary cpus=2,2
expect_ex "is varied twice: expected" sweep spinlock --vary cpus=2,4 --vary cpus=8,16
expect_ex "reproduce spinlock: given twice: expected" reproduce spinlock spinlock
expect_ex "version x: takes no operand: expected none" version x
expect_ex "man x: takes no operand: expected none" man x
echo "ok: item 12, small messages"

echo "ok: $n bad inputs, one line and exit 2 each"
