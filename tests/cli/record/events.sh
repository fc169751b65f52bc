#!/usr/bin/env bash
# Events other than time (issue 29 §3): sp-record -e EVENT and -c PERIOD,
# as perf's, and the kernel's frame-pointer stacks, --call-graph fp.
#
# tests/workloads/pagefaults.c knows its counts: each round touch_a
# faults in 3 * 16 fresh pages and touch_b 16, nap sleeps once (one
# context switch) and spin_c takes most of the CPU time.  So page faults
# split 75/25 between touch_a and touch_b, and every check of an event
# compares with what the program did.  A sample of an event that counts
# weighs the events it stands for; the outputs name the event: the
# summary, sp-dump, sp-report, pprof, speedscope, the folded text's
# header and the flame graph's title.  sp-flame also names off-CPU time
# from sp-fold's header by itself.
#
# The checks can fail: a weight of 1 for every sample (the recorder
# ignoring the period) puts the totals 16 times too low; a --call-graph
# fp that kept the DWARF walk would record stack copies (stack_bytes).
# Hardware events (cycles, instructions) need a PMU: where the machine
# has none, the check is that -e cycles is refused with a message that
# says so; tests/vm records them in the arm64 guest, which has one.
. "$(dirname "$0")/../lib.bash"
ROUNDS=300
PF=$W/pagefaults

# touched FILE: "A B NAPS" of the program's "touched a= b= naps=" line.
touched() { sed -n 's/.*touched a=\([0-9]*\) b=\([0-9]*\) naps=\([0-9]*\).*/\1 \2 \3/p' "$1"; }

# folded SPOOL: its folded stacks (symbolized), in $TMP/folded.
folded() { $SYM "$1" 2>/dev/null | $FOLD 2>/dev/null >"$TMP/folded"; }

# near X Y PCT: X within PCT % of Y (Y > 0).
near() { awk -v x="$1" -v y="$2" -v p="$3" 'BEGIN { exit !(y > 0 && x >= y * (1 - p / 100) && x <= y * (1 + p / 100)) }'; }

# --- -e page-faults -c 16: a sample every 16 faults, weighing 16 ---
run $REC -e page-faults -c 16 -o "$TMP/pf.spl" -- $PF $ROUNDS
check "-e page-faults -c 16 records" test "$RC" -eq 0
read -r ta tb naps <<<"$(touched "$TMP/err")"
check "the summary names the event and its count" \
    has "page-faults in the samples" "$ERR"
run $DUMP "$TMP/pf.spl"
check "sp-dump: the recording is of page-faults, every 16" \
    grep -q "recording: event page-faults, every 16, .*counts-events" "$TMP/out"
folded "$TMP/pf.spl"
a=$(fold_count "$TMP/folded" ';touch_a(;|$)')
b=$(fold_count "$TMP/folded" ';touch_b(;|$)')
lost=$(counter "$TMP/pf.spl" lost_events)
check "faults under touch_a ($a) are the ones it made ($ta) within 2 % (lost $lost)" near "$a" "$ta" 2
check "faults under touch_b ($b) are the ones it made ($tb) within 3 %" near "$b" "$tb" 3
check "the summary's event_count is the folded total" \
    test "$(counter "$TMP/pf.spl" event_count)" = "$(fold_total "$TMP/folded")"

# The outputs name the event.
run $REPORT "$TMP/pf.spl"
check "sp-report: the table counts page-faults" has "shares of page-faults" "$OUT"
check "sp-report: its column is Events" grep -q "Self%  Total%   Events" "$TMP/out"
check "sp-report: touch is the hottest function" \
    test "$(awk '/Self%/ { getline; print $4; exit }' "$TMP/out")" = touch
$SYM "$TMP/pf.spl" 2>/dev/null | $FOLD --pprof - >"$TMP/pf.pb" 2>/dev/null
check "pprof: the sample type is page-faults/count" \
    test "$(gzip -dc "$TMP/pf.pb" | grep -ac page-faults)" -ge 1
$SYM "$TMP/pf.spl" 2>/dev/null | $FOLD --speedscope - >"$TMP/pf.json" 2>/dev/null
sw=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum(sum(p["weights"]) for p in d["profiles"]), d["profiles"][0]["unit"])' "$TMP/pf.json")
check "speedscope: weights sum to the event count, unit none ($sw)" \
    test "$sw" = "$(counter "$TMP/pf.spl" event_count) none"
check "folded text: a header names the count" \
    test "$(head -1 "$TMP/folded")" = "# countname: page-faults"
$FLAME "$TMP/folded" >"$TMP/pf.svg" 2>/dev/null
check "sp-flame: the title names the event" grep -q "Flame Graph of page-faults<" "$TMP/pf.svg"
check "sp-flame: the frames count page-faults" \
    grep -q "<title>touch_a ([0-9]* page-faults, 7[0-9]\.[0-9]*%)" "$TMP/pf.svg"

# --- a software event without -c: every one (the kernel's frequency
# mode misweighs their bursts: perf -F 1000 made 178960 of 19258) ---
run $REC -e minor-faults -F 1000 -o "$TMP/minor.spl" -- $PF $ROUNDS
read -r ta tb naps <<<"$(touched "$TMP/err")"
folded "$TMP/minor.spl"
ab=$(fold_count "$TMP/folded" ';touch_[ab](;|$)')
lost=$(counter "$TMP/minor.spl" lost_events)
check "-e minor-faults: the faults under touch_a/b ($ab) are the program's ($((ta + tb))) within 2 % (lost $lost)" \
    near "$ab" "$((ta + tb))" 2

# --- context switches: one a nap ---
run $REC -e cs -c 1 -o "$TMP/cs.spl" -- $PF $ROUNDS
read -r ta tb naps <<<"$(touched "$TMP/err")"
folded "$TMP/cs.spl"
n=$(fold_count "$TMP/folded" ';nap(;|$)')
check "-e cs -c 1: switches under nap ($n) are its naps ($naps) within 2 %" near "$n" "$naps" 2

# --- task-clock: time, as cpu-clock ---
run $REC -e task-clock -o "$TMP/task.spl" -- $PF $ROUNDS
folded "$TMP/task.spl"
c=$(fold_count "$TMP/folded" ';spin_c(;|$)')
check "-e task-clock: spin_c has most of the time ($c of $(fold_total "$TMP/folded"))" \
    test "$((2 * c))" -gt "$(fold_total "$TMP/folded")"
check "-e task-clock: a clock's samples weigh 1, no header" \
    test "$(head -c1 "$TMP/folded")" != "#"

# --- a PMU event: recorded where there is one, refused by name where not ---
run $REC -e cycles -o "$TMP/cycles.spl" -- $PF 30
if [ "$RC" -eq 0 ]; then
	check "-e cycles: recorded on cycles" grep -q "event cycles" "$TMP/err"
else
	check "-e cycles without a PMU: the message says so" \
	    has "performance monitoring unit" "$ERR"
fi

# --- usage ---
run $REC -e bogus -- true
check "-e bogus: exit 2" test "$RC" -eq 2
check "-e bogus: the events known are listed" has "page-faults, minor-faults" "$ERR"
run $REC -e list
check "-e list: lists the events" grep -q "^  context-switches" "$TMP/out"
run $REC -c -- true
check "an old -c (--children): exit 2" test "$RC" -eq 2
check "an old -c: told the new spelling" has "follow child processes with --children" "$ERR"
run $REC --children -o "$TMP/ch.spl" -- true
check "--children still works" test "$RC" -eq 0
run $REC --off-cpu -e page-faults -- true
check "--off-cpu with an event that counts: refused" has "off-CPU samples weigh time" "$ERR"

# --- sp-flame knows off-CPU time from sp-fold's header ---
run $REC --off-cpu -o "$TMP/off.spl" -- $W/offcpu 1 4
$SYM "$TMP/off.spl" 2>/dev/null | $FOLD --off-cpu - >"$TMP/off.folded" 2>/dev/null
check "sp-fold --off-cpu: the header says ns" test "$(head -1 "$TMP/off.folded")" = "# countname: ns"
$FLAME "$TMP/off.folded" >"$TMP/off.svg" 2>/dev/null
check "sp-flame: off-CPU time in ns without --countname" grep -q "<title>nap ([0-9]* ns, " "$TMP/off.svg"
check "sp-flame: its title says off-CPU" grep -q ">Off-CPU Time (blocked)<" "$TMP/off.svg"

# --- --call-graph fp: the kernel's walk, no stack copy ---
run $REC --call-graph fp -o "$TMP/fp.spl" -- $W/tree 1500 cpu
check "--call-graph fp records" test "$RC" -eq 0
check "--call-graph fp: no stack copies" \
    test "$($DUMP --json "$TMP/fp.spl" | grep -o '"stack_bytes":[0-9]*' | head -1)" = '"stack_bytes":0'
folded "$TMP/fp.spl"
read -r n k <<<"$(fold_count "$TMP/folded" ';leaf_[ab];spin(;|$)' ';main;run;work_[ab];leaf_[ab];spin(;|$)')"
check "--call-graph fp: the walks reach main from the leaves ($k of $n)" \
    test "$n" -gt 50 -a "$((100 * k))" -ge "$((98 * n))"
la=$(fold_count "$TMP/folded" ';leaf_a;spin(;|$)')
check "--call-graph fp: leaf_a's share ($la of $n) is the program's 60 % within 6 points" \
    test "$((100 * la))" -ge "$((54 * n))" -a "$((100 * la))" -le "$((66 * n))"
# Never counted complete: a function without a frame record would be
# skipped without a trace (the kernel's walk cannot be checked); said why.
# (A sample in the exec has the kernel's stack alone, whole:
# exec_samples; one without a user chain is empty.)
t=$(counter "$TMP/fp.spl" truncated_stacks) s=$(counter "$TMP/fp.spl" samples)
e=$(( $(counter "$TMP/fp.spl" exec_samples) + $(counter "$TMP/fp.spl" empty_stacks) ))
check "--call-graph fp: no walk is claimed whole ($t of $s truncated, $e in the exec or empty)" \
    test "$((t + e))" -ge "$s" -a "$s" -gt 0 -a "$(counter "$TMP/fp.spl" unwind_fp_end)" -gt 0
check "--call-graph fp: the advice says why no walk is whole" has "frame-pointer walks (--call-graph fp) are never counted whole" "$ERR"
done_testing
