#!/usr/bin/env bash
# sp-record -D/--delay: the targets are followed from the start and sampled
# only once the delay has passed (perf record --delay).  A sample's time
# is CLOCK_MONOTONIC, like the header's start_mono_ns, which is taken
# before the command starts or the targets are attached; so a sample of
# a -D 600 recording lies at least 600 ms after that start.
. "$(dirname "$0")/../lib.bash"
# asan: RECORD=build/asan/sp-record/sp-record

# count, first: of the numbers on standard input; before MS: how many are
# below MS.
count() { wc -l | tr -d ' '; }
first() { sort -n | head -1; }
before() { awk -v ms="$1" '$1 < ms { n++ } END { print n + 0 }'; }

# --- a command: 1.2 s of CPU from its start, the first 0.6 s not sampled ----
run $REC -o "$TMP/full.spl" -- $W/tree 1200
check "without --delay: records tree" test "$RC" -eq 0
sample_ms "$TMP/full.spl" >"$TMP/full.ms"
full=$(count <"$TMP/full.ms")
cpu_full=$(grep -o 'cpu_ms=[0-9]*' "$TMP/err" | cut -d= -f2)
# The complement of the next check, which it makes able to fail.  The
# window is the delay's 600 ms: under load the exec alone took 290 ms.
early=$(before 600 <"$TMP/full.ms")
check "without --delay: samples in the first 600 ms ($early of $full)" \
    test "$early" -gt 0

run $REC -D 600 -o "$TMP/d600.spl" -- $W/tree 1200
check "-D 600: records tree" test "$RC" -eq 0
cpu_d=$(grep -o 'cpu_ms=[0-9]*' "$TMP/err" | cut -d= -f2)
sample_ms "$TMP/d600.spl" >"$TMP/d600.ms"
n=$(count <"$TMP/d600.ms")
f=$(first <"$TMP/d600.ms")
check "-D 600: samples, all 600 ms or more after the start ($n, the first at ${f:-none} ms)" \
    test "$n" -gt 0 -a "${f:-0}" -ge 600
# About half as many: tree runs 1.2 s of the clock either way.  Per ms of
# the CPU time tree got (its cpu_ms), as the two runs can get very
# different shares of a loaded machine (270 samples without the delay,
# 279 with, seen); and wide bounds, as a run's share can change within it.
half=$(awk -v n="$n" -v c="${cpu_d:-0}" -v f="$full" -v cf="${cpu_full:-0}" \
    'BEGIN { if (c * f * cf == 0) print -1; else printf "%.2f", n / c / (f / cf) }')
check "-D 600: fewer samples than without, about half per CPU ms ($n in ${cpu_d:-?} ms vs $full in ${cpu_full:-?} ms: $half)" \
    awk -v r="$half" 'BEGIN { exit !(r >= 0.15 && r <= 0.85) }'

# While waiting the side-band records still flow: the exec and its
# mappings are in the spool, the samples resolve into tree.
check "-D 600: the exec during the delay is recorded" \
    grep -q '^exec .* tree$' <($DUMP "$TMP/d600.spl")
intree=$(samples_json "$TMP/d600.spl" | grep -c '"tree+0x')
check "-D 600: the samples are in tree's frames ($intree of $n)" \
    test "$((intree * 100))" -ge "$((n * 90))" -a "$n" -gt 0
run $DUMP --check "$TMP/d600.spl"
check "-D 600: the spool checks clean" has "finished" "$OUT"
run $REC -D 0 -o "$TMP/d0.spl" -- $W/tree 300
check "-D 0 is no delay" test "$(sample_ms "$TMP/d0.spl" | before 600)" -gt 0

# --- threads started during the delay --------------------------------------
# threads 4 1200: four spinners, started at once, for 1.2 s.
run $REC -D 600 -o "$TMP/thr.spl" -- $W/threads 4 1200
check "-D 600 threads: records" test "$RC" -eq 0
f=$(sample_ms "$TMP/thr.spl" | first)
check "-D 600 threads: no thread sampled before 600 ms (the first at ${f:-none} ms)" \
    test -n "$f" -a "${f:-0}" -ge 600
tids=$(samples_json "$TMP/thr.spl" | grep -o '"tid":[0-9]*' | sort -u | wc -l)
check "-D 600 threads: the threads started while waiting are sampled after ($tids tids)" \
    test "$tids" -ge 4
forks=$($DUMP "$TMP/thr.spl" | grep -c '^fork ')
check "-D 600 threads: their starts are recorded ($forks)" test "$forks" -ge 4

# --- a child forked during the delay, with --children ------------------------
# forker 2 900: a child that spins 900 ms from the start, then another.
run $REC --children -D 300 -o "$TMP/fork.spl" -- $W/forker 2 900
kid=$(grep -o 'child=[0-9]*' "$TMP/out" | head -1 | cut -d= -f2)
n=$(samples_json "$TMP/fork.spl" | grep -c "\"pid\":${kid:-x},")
check "--children -D 300: the child forked while waiting is followed and sampled ($n)" \
    test "$n" -gt 0
f=$(sample_ms "$TMP/fork.spl" | first)
check "--children -D 300: nothing sampled before 300 ms (the first at ${f:-none} ms)" \
    test -n "$f" -a "${f:-0}" -ge 300

# --- attach ------------------------------------------------------------------
$W/tree 4000 2>/dev/null &
bg=$!
running $bg "$W/tree"
run $REC -p $bg -d 1 -o "$TMP/att.spl"
early=$(sample_ms "$TMP/att.spl" | before 600)
check "-p without --delay: samples in the first 600 ms ($early)" test "$early" -gt 0
run $REC -p $bg --delay 600 -d 1.5 -o "$TMP/attd.spl"
check "-p --delay 600: records" test "$RC" -eq 0
sample_ms "$TMP/attd.spl" >"$TMP/attd.ms"
n=$(count <"$TMP/attd.ms")
f=$(first <"$TMP/attd.ms")
check "-p --delay 600: samples, all 600 ms or more after the start ($n, the first at ${f:-none} ms)" \
    test "$n" -gt 0 -a "${f:-0}" -ge 600
kill $bg 2>/dev/null
wait $bg 2>/dev/null

# A target that exits while sp-record waits ends the recording (its exit
# record comes through the side-band events), with no samples, said so.
$W/tree 1000 2>/dev/null &
bg=$!
sleep 0.1
t0=$SECONDS
run timeout 30 $REC -p $bg --delay 10000 -o "$TMP/gone.spl"
check "-p --delay 10000, the target exits first: the recording ends then ($((SECONDS - t0)) s)" \
    test "$RC" -eq 0 -a $((SECONDS - t0)) -lt 8
check "and no samples are recorded" test "$(sample_ms "$TMP/gone.spl" | count)" -eq 0
check "the summary says the delay had not passed" \
    has "no samples: the recording ended before its --delay of 10000 ms had passed" "$ERR"
check "the target's exit is recorded" grep -q '^exit ' <($DUMP "$TMP/gone.spl")
wait $bg 2>/dev/null

# -d counts from the start, the delay included.
run $REC -D 3000 -d 0.5 -o "$TMP/short.spl" -- $W/tree 2000
check "-d 0.5 ends a -D 3000 recording first, with no samples" \
    test "$RC" -eq 143 -a "$(sample_ms "$TMP/short.spl" | count)" -eq 0

# --- bad values ----------------------------------------------------------------
for v in -1 abc 1.5 31536000001; do
	run $REC -D "$v" -o "$TMP/x.spl" -- true
	check "-D $v: exit 2, naming the option and the range" test "$RC" -eq 2 -a \
	    "$ERR" = "sp-record: -D milliseconds must be a number from 0 to 31536000000, not '$v'"
done
run $REC --delay=-5 -o "$TMP/x.spl" -- true
check "--delay=-5: exit 2 with the same message" test "$RC" -eq 2 -a \
    "$ERR" = "sp-record: -D milliseconds must be a number from 0 to 31536000000, not '-5'"
check "no spool is left by a refused option" test ! -e "$TMP/x.spl"
run $REC --help
check "help documents --delay" has "-D, --delay MSECS" "$OUT"
check "the man page documents --delay" grep -q -- '\\-\\-delay' sp-record/sp-record.1
done_testing
