#!/usr/bin/env bash
# sp-record as a normal user with perf_event_paranoid at 2 (the default
# of most distributions), set here and restored on exit: one's own child
# and one's own running process are recorded with user frames that name
# the workload's functions (nm); --kernel degrades to user frames only,
# as sp-record(1) says; another user's process is refused with the cause
# and the fix.  record/basics.sh checks the same as nobody when the host is
# already at 2; this test makes it so, and checks the frames.
. "$(dirname "$0")/../lib.bash"
U=spunpriv


if [ "$(id -u)" -ne 0 ]; then
	fail "the unprivileged test needs root to set perf_event_paranoid"
	done_testing
	exit 0
fi
old=$(cat /proc/sys/kernel/perf_event_paranoid)
trap 'echo "$old" >/proc/sys/kernel/perf_event_paranoid' EXIT
echo 2 >/proc/sys/kernel/perf_event_paranoid
check "perf_event_paranoid is 2 for the test (was $old)" \
    test "$(cat /proc/sys/kernel/perf_event_paranoid)" -eq 2
# A group of that name left without its user (seen once: useradd then
# refuses to make it) is taken as the user's group.
g=()
getent group $U >/dev/null && g=(-g $U)
id -u $U >/dev/null 2>&1 || useradd --no-create-home --shell /usr/sbin/nologin "${g[@]}" $U
uid=$(id -u $U)
check "a normal user $U exists (uid $uid)" test -n "$uid" -a "${uid:-0}" -ne 0
as_user() { setpriv --reuid=$U --regid="$(id -g $U)" --clear-groups "$@"; }
d=$TMP/home
rm -rf "$d"
mkdir -p "$d" && cp $W/tree "$d/" && chown -R $U "$d"

# Its own child, without --kernel: no warning, user frames.
run as_user $REC -o "$d/own.spl" -- "$d/tree" 300
check "a normal user records their own child (exit 0)" test "$RC" -eq 0
check "without --kernel no warning at the start" \
    test -z "$(grep -F 'kernel sampling' <<<"$ERR")"
check "the summary says kernel time was not sampled, the cause and the fix" \
    grep -qx 'sp-record: kernel time not sampled: perf_event_paranoid is 2; run as root or with CAP_PERFMON' <<<"$ERR"
check "and so does the spool (user time only, kernel_enabled 0)" \
    test "$($DUMP "$d/own.spl" | grep -cE '^recording: .*[ ,]user time only, command ')/$(counter "$d/own.spl" kernel_enabled)" = 1/0
s=$(counter "$d/own.spl" samples)
cpu_ms=$(grep -o 'cpu_ms=[0-9]*' "$TMP/err" | cut -d= -f2)
check "samples for its CPU time ($s for ${cpu_ms}ms)" \
    test "${s:-0}" -gt 0 -a "$(( ${s:-0} * 2 ))" -ge "${cpu_ms:-1}"
# The frames name tree's functions, as nm lists them.
run $BIN/sp-sym -q -o "$d/own-sym.spl" "$d/own.spl"
nm "$d/tree" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >"$TMP/tree.nm"
$DUMP --json "$d/own-sym.spl" | grep '"kind":"sample"' |
    grep -o '"frames":\[[^]]*' | cut -c11- | tr ',' '\n' | tr -d '"' |
    sort -u >"$TMP/own.frames"
named=$(comm -12 "$TMP/tree.nm" "$TMP/own.frames" | tr '\n' ' ')
check "frames name tree's functions by nm, down to main ($named)" \
    grep -qw main <<<"$named"

# --kernel: sp-record(1) says it warns, records user frames only and
# notes kernel_enabled 0.
run as_user $REC --kernel -o "$d/k.spl" -- "$d/tree" 300
check "--kernel as a normal user still records (exit 0)" test "$RC" -eq 0
check "it warns that kernel sampling is denied, naming the cause" \
    has "kernel sampling is denied (perf_event_paranoid or missing CAP_PERFMON): recording user frames only" "$ERR"
check "the summary says kernel_enabled 0" test "$(counter "$d/k.spl" kernel_enabled)" -eq 0
check "user samples are there" test "$(counter "$d/k.spl" samples)" -gt 0
check "no kernel frame is in the spool" \
    test "$($DUMP "$d/k.spl" | grep -c 'kernel\.kallsyms\|\[kernel\]')" -eq 0
run $REC --kernel -o "$TMP/root-k.spl" -- $W/tree 300
check "(as root the same run has kernel_enabled 1)" \
    test "$(counter "$TMP/root-k.spl" kernel_enabled)" -eq 1

# Its own process, started apart and attached to by pid.
setpriv --reuid=$U --regid="$(id -g $U)" --clear-groups "$d/tree" 3000 2>/dev/null &
mine=$!
running $mine "$d/tree"
run as_user $REC -d 1 -o "$d/mine.spl" -p $mine
check "a normal user attaches to their own running process (exit 0)" test "$RC" -eq 0
check "and samples it" test "$(counter "$d/mine.spl" samples)" -gt 0
kill $mine 2>/dev/null
wait $mine 2>/dev/null

# Another user's process: refused, with the cause and the fix.
sleep 5 &
other=$!
rm -f "$d/other.spl"
run as_user $REC -o "$d/other.spl" -p $other
check "attaching to root's process fails with status 1" test "$RC" -eq 1
check "the message names the pid, the owner and the cause" \
    has "not permitted to profile pid $other: it belongs to uid 0, and profiling another user's process needs root or CAP_PERFMON (perf_event_paranoid is 2)" "$ERR"
check "and the fix" has "run sp-record as root or as that user" "$ERR"
check "and no sample was recorded" \
    test ! -s "$d/other.spl" -o "$(counter "$d/other.spl" samples 2>/dev/null)" = 0
kill $other 2>/dev/null
wait $other 2>/dev/null

# The whole machine (-a): refused, with the cause and the fix, no file.
rm -f "$d/all.spl"
run as_user $REC -a -d 0.2 -o "$d/all.spl"
check "-a as a normal user fails with status 1" test "$RC" -eq 1
check "the message says why and what to do" \
    has "not permitted to record every process: perf_event_paranoid is 2; run as root or with CAP_PERFMON" "$ERR"
check "and no spool is left" test ! -e "$d/all.spl"
done_testing
