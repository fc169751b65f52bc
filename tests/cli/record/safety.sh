#!/usr/bin/env bash
# sp-record keeps what it would replace until a new recording has really
# started; its summary leads with what a person asks first and says what
# to change; its refusals name what failed (issue 12).  Root, the real
# kernel.  RECORD=path picks the binary (an older one fails these checks).
# asan: RECORD=build/asan/sp-record/sp-record
. "$(dirname "$0")/../lib.bash"

# files_in DIR: what DIR holds, hidden files too, one line.
files_in() { ls -A "$1" | tr '\n' ' '; }
rm -rf "${TMP:?}"/*	# no spool of an earlier run may pass for this one's

# --- a failed start leaves an existing spool as it was, and no file ------------
K=$TMP/keep
rm -rf "$K"
mkdir -p "$K"
head -c 5000 /dev/urandom >"$TMP/keep.orig"
# fails CASE STATUS MESSAGE ARGS...: sp-record -o keep.spl ARGS fails with
# STATUS and MESSAGE; keep.spl keeps its bytes; nothing else is left.
fails() {
	local name=$1 st=$2 msg=$3
	shift 3
	cp "$TMP/keep.orig" "$K/keep.spl"
	run $REC -o "$K/keep.spl" "$@"
	check "$name: exit $st ($RC)" test "$RC" -eq "$st"
	check "$name: says why" has "$msg" "$ERR"
	check "$name: the existing spool keeps its bytes" cmp -s "$TMP/keep.orig" "$K/keep.spl"
	check "$name: no new or temporary file is left ($(files_in "$K"))" \
	    test "$(files_in "$K")" = "keep.spl "
	rm -f "$K/keep.spl"
	run $REC -o "$K/keep.spl" "$@"
	check "$name: without an existing spool none is left ($(files_in "$K"))" \
	    test -z "$(files_in "$K")"
}
fails "-p 999999" 1 "no such process: 999999" -p 999999
fails "-- nonexistentcmd" 1 "cannot run nonexistentcmd: No such file or directory" -- nonexistentcmd
fails "-- /etc/passwd" 1 "cannot run /etc/passwd: Permission denied" -- /etc/passwd
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
fails "-F 1000000" 2 "sampling rate 1000000 Hz is above the permitted $max Hz" -F 1000000 -- true
if [ "$(id -u)" -eq 0 ] && ! head -c1 /proc/1/maps >/dev/null 2>&1; then
	fails "-p 1 (its maps refused)" 1 "pid 1: open /proc/1/maps: Permission denied" -p 1
	check "-p 1: the refusal is not blamed on perf_event_paranoid" \
	    test -z "$(grep -F perf_event_paranoid <<<"$ERR")"
else
	skip "-p 1 (its maps refused)" "needs root and a pid 1 whose /proc/1/maps root cannot read"
fi

# A recording that starts replaces the spool, with nothing left beside it.
cp "$TMP/keep.orig" "$K/keep.spl"
run $REC -q -o "$K/keep.spl" -- $W/tree 200
check "a started recording replaces the spool (exit $RC)" test "$RC" -eq 0
run $DUMP --check "$K/keep.spl"
check "... with the new one, finished" has "finished" "$OUT"
check "... and nothing else is left ($(files_in "$K"))" test "$(files_in "$K")" = "keep.spl "

# Killed at once when the name appears: a readable prefix is there.
rm -f "$K/now.spl"
setsid $REC -q -o "$K/now.spl" -- $W/tree 3000 >/dev/null 2>&1 &
rp=$!
for _ in $(seq 2000); do [ -e "$K/now.spl" ] && break; sleep 0.001; done
kill -9 $rp
kill -9 -- -$rp 2>/dev/null
wait $rp 2>/dev/null
run $DUMP --check "$K/now.spl"
check "killed the moment its name appears, the spool reads back ($RC)" test "$RC" -eq 0

# A symlink: its target is replaced, the link stays; a dangling one is
# created through.  A FIFO and /dev/null are written, never replaced.
L=$TMP/links
rm -rf "$L"
mkdir -p "$L/d"
echo old >"$L/d/target.spl"
ln -s d/target.spl "$L/link.spl"
ln -s d/new.spl "$L/dangling.spl"
run $REC -q -o "$L/link.spl" -- true
check "through a symlink: exit 0" test "$RC" -eq 0
check "the link stays a link" test -L "$L/link.spl"
run $DUMP --check "$L/d/target.spl"
check "its target holds the new spool" has "finished" "$OUT"
run $REC -q -o "$L/dangling.spl" -- true
run $DUMP --check "$L/d/new.spl"
check "a dangling link's target is created" has "finished" "$OUT"
check "nothing else is left ($(files_in "$L") / $(files_in "$L/d"))" \
    test "$(files_in "$L") $(files_in "$L/d")" = "d dangling.spl link.spl  new.spl target.spl "
run $REC -q -o "$L/link.spl" -p 999999
check "a failed start leaves the link's target as it was" has "finished" "$($DUMP --check "$L/d/target.spl")"
mkfifo "$L/fifo"
$DUMP --check - <"$L/fifo" >"$TMP/fifo.out" 2>&1 &
dp=$!
run $REC -q -o "$L/fifo" -- true
wait $dp
check "a FIFO is written to (the reader checks the spool)" grep -q finished "$TMP/fifo.out"
check "and stays a FIFO" test -p "$L/fifo"
run $REC -q -o /dev/null -- true
check "-o /dev/null: exit 0" test "$RC" -eq 0
check "/dev/null stays a character device" test -c /dev/null
run $REC -q -o "$L/d" -- true
check "a directory is refused (exit 1)" test "$RC" -eq 1
check "... by name" has "$L/d: Is a directory" "$ERR"

# --- the summary ------------------------------------------------------------------
run $REC -o "$TMP/sum.spl" -- $W/threads-O2 4 300
check "summary: duration, processes and threads" \
    grep -qE '^sp-record: wrote .*/sum\.spl \(event [a-z-]+\): [0-9]+\.[0-9] s, 1 process, 5 threads$' <<<"$ERR"
check "summary: samples, rate, lost with its share, complete stacks" \
    grep -qE '^  [1-9][0-9]* samples \([0-9]+/s\), 0 lost \(0\.0 %\), [0-9.]+ % of stacks complete$' <<<"$ERR"
check "summary: spool size and bytes per sample" \
    grep -qE '^  spool [0-9.]+ (bytes|KiB|MiB), [0-9.]+ bytes per sample$' <<<"$ERR"
check "summary: no raw counter lines" test -z "$(grep -E '^  [a-z_]+ +[0-9]+$' <<<"$ERR")"
check "summary: no verdict when nothing is off" \
    test -z "$(grep '^sp-record: ' <<<"$ERR" | grep -v '^sp-record: wrote ')"
check "the spool counts the processes (1)" test "$(counter "$TMP/sum.spl" processes)" = 1
check "and the threads (main and 4)" test "$(counter "$TMP/sum.spl" threads)" = 5

# A process asleep all along (a command would be sampled as it starts).
sleep 30 &
sp=$!
# Asleep, not still starting: a sample of its exec would be counted.
running $sp "$(readlink -f "$(command -v sleep)")" S
run $REC -d 0.3 -o "$TMP/idle.spl" -p $sp
check "an idle process: 0 samples are shown" grep -qE '^  0 samples \(0/s\), 0 lost \(0\.0 %\)$' <<<"$ERR"
check "with the verdict" grep -q '^sp-record: no samples: the target was idle$' <<<"$ERR"
kill $sp
wait $sp 2>/dev/null

run $REC --no-children -o "$TMP/kids.spl" -- sh -c "$W/tree 300 2>/dev/null; true"
n=$(counter "$TMP/kids.spl" untracked_samples)
check "children not followed: the verdict counts their samples ($n)" \
    has "sp-record: $n samples from child processes not followed: add --children" "$ERR"
check "... and they were many" test "${n:-0}" -gt 50
run $REC -o "$TMP/kids2.spl" -- sh -c "$W/tree 300 2>/dev/null; true"
check "by default (children followed) no such verdict" test -z "$(grep -F 'add --children' <<<"$ERR")"

run $REC -s 512 -o "$TMP/short.spl" -- $W/recurse 50 300
check "stacks cut by a small copy: the verdict names -s/--stack" \
    grep -qE '^sp-record: [0-9]+ % of stacks truncated: raise -s/--stack \(now 512 bytes, at most 65528\)$' <<<"$ERR"
run $REC -m 3 -o "$TMP/deep.spl" -- $W/recurse 50 300
check "stacks cut by -m: the verdict names -m/--max-frames" \
    grep -qE '^sp-record: [0-9]+ % of stacks truncated: raise -m/--max-frames \(now 3\)$' <<<"$ERR"
run $REC -o "$TMP/nocfi.spl" -- $W/tree-nocfi 300
check "stacks through code with neither CFI nor frame pointers: the verdict says so" \
    grep -qE '^sp-record: [0-9]+ % of stacks truncated: code with neither CFI nor frame pointers \(build it with -fno-omit-frame-pointer, or keep its \.eh_frame\)$' <<<"$ERR"

# Losses: -F max with 8 busy threads usually overflows the rings here; the
# verdict is checked when the spool says 1 % or more was lost.
run $REC -F max -o "$TMP/lossy.spl" -- $W/churn busy 8 1000
s=$(counter "$TMP/lossy.spl" samples) lost=$(counter "$TMP/lossy.spl" lost_events)
if [ $(( ${lost:-0} * 100 )) -ge $(( ${s:-0} + ${lost:-0} )) ] && [ "${lost:-0}" -gt 0 ]; then
	check "lost events ($lost of $((s + lost))): the verdict says how much and what to do" \
	    grep -qE '^sp-record: [0-9]+ % of samples lost \(the rings overflowed\): lower -F, or leave sp-record a CPU of its own$' <<<"$ERR"
	check "... and the summary counts them" \
	    grep -qE "^  $s samples \([0-9]+/s\), $lost lost \([0-9.]+ %\)" <<<"$ERR"
else
	skip "the lost-events verdict" "-F max lost under 1 % here ($lost of $((s + lost)))"
fi

run $REC -q -o "$TMP/quiet.spl" -- sleep 0.1
check "-q: silent, verdicts too" test -z "$ERR"

# --- the same pid twice; a list given with spaces ------------------------------------
$W/tree 5000 2>/dev/null &
tp=$!
running $tp "$W/tree"
run $REC -d 1 -o "$TMP/twice.spl" -p $tp,$tp
check "-p PID,PID of a live process records it (exit $RC)" test "$RC" -eq 0
check "... without calling it exited" test -z "$(grep -F exited <<<"$ERR")"
check "... as one process" test "$(counter "$TMP/twice.spl" processes)" = 1
run $REC -d 1 -o "$TMP/twice2.spl" -p $tp -p $tp
check "-p PID -p PID: the same" test "$RC" -eq 0
run $REC -o "$TMP/spaces.spl" -p $tp 17045 17046
check "-p PID PID: a usage error (exit $RC)" test "$RC" -eq 2
check "... naming the unexpected argument and the comma-separated form" \
    test "$ERR" = "sp-record: unexpected argument '17045': a list of pids is comma-separated (-p $tp,17045,17046)"
run $REC -o "$TMP/both.spl" -p $tp -- sleep 1
check "-p PID -- CMD: both, refused (exit $RC)" test "$RC" -eq 2
check "... saying so" has "give either -p PID or -- CMD, not both" "$ERR"
check "no spool was left by the refusals" test ! -e "$TMP/spaces.spl" -a ! -e "$TMP/both.spl"
kill $tp 2>/dev/null
wait $tp 2>/dev/null

# --- -d takes fractions ---------------------------------------------------------------
run $REC -d 0.5 -o "$TMP/half.spl" -- sleep 5
check "-d 0.5 is accepted (not a usage error: $RC)" test "$RC" -ne 2
secs=$(grep -oE '\): [0-9.]+ s,' <<<"$ERR" | grep -oE '[0-9.]+')
check "... and stops after half a second (${secs:-?} s by its clock)" \
    awk -v s="${secs:-99}" 'BEGIN { exit !(s >= 0.5 && s < 2) }'
run $REC -d 0 -o "$TMP/zero.spl" -- true
check "-d 0 is refused (exit 2)" test "$RC" -eq 2
check "... with the range" has "-d seconds must be a number above 0 and at most 31536000" "$ERR"
done_testing
