#!/usr/bin/env bash
# Soak (ninja soak; not part of ninja test): sp-record at 1 kHz with
# --children on a workload that starts threads, forks and dlopens without
# pause, for SOAK_SECONDS (default 1800).  Every SOAK_INTERVAL seconds
# (default 30) it prints the recorder's resident memory and open file
# descriptors from /proc; at the end it checks that after the warm-up
# (the first 3 minutes, or half the run if that is shorter) RSS grew less
# than 10% and the descriptors did not grow (a file open for a moment at
# one reading is not growth), and that the recording
# ended cleanly.
. "$(dirname "$0")/cli/lib.bash"
REC=${RECORD:-$BIN/sp-record}
DUMP=$BIN/sp-dump
W=build/tests
secs=${SOAK_SECONDS:-1800}
step=${SOAK_INTERVAL:-30}
warm=180
[ "$warm" -gt $((secs / 2)) ] && warm=$((secs / 2))

$REC -q --children -F 1000 -o "$TMP/soak.spl" -- $W/churn mixed $W "$secs" \
    >"$TMP/soak.out" 2>"$TMP/soak.err" &
rp=$!
series=$TMP/series
: >"$series"
t=0
echo "# t_s rss_kb fds (sp-record pid $rp, $secs s, warm-up $warm s)"
while kill -0 $rp 2>/dev/null && [ "$t" -lt "$secs" ]; do
	sleep "$step"
	t=$((t + step))
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$rp/status 2>/dev/null)
	fds=$(ls /proc/$rp/fd 2>/dev/null | wc -l)
	[ -n "$rss" ] || break
	echo "$t $rss $fds" | tee -a "$series"
done
wait $rp
RC=$?
ERR=$(cat "$TMP/soak.err") OUT=$(cat "$TMP/soak.out")
check "the recorder ran to the end and exited 0 (no crash)" test "$RC" -eq 0
check "the workload ran its rounds" grep -qE '^rounds=[1-9]' "$TMP/soak.out"
run $DUMP --check "$TMP/soak.spl"
check "the soak spool checks clean" has "finished" "$OUT"
echo "# spool: $(stat -c %s "$TMP/soak.spl") bytes; $OUT"
read -r base_rss base_fds < <(awk -v w="$warm" '$1 >= w { print $2, $3; exit }' "$series")
read -r max_rss max_fds < <(awk -v w="$warm" '$1 >= w {
	if ($2 > r) r = $2; if ($3 > f) f = $3 } END { print r + 0, f + 0 }' "$series")
check "samples after the warm-up exist" test -n "${base_rss:-}"
check "RSS after the warm-up grew less than 10% (${base_rss:-?} -> $max_rss KiB)" \
    test "$((max_rss * 10))" -lt "$(( ${base_rss:-0} * 11 ))"
# A reading may catch a file the recorder has open for a moment (a maps
# file, a new library's build-id); a leak stays.  So the last three
# readings must be back at the warm-up's count, and no reading more than
# two above it.
last_fds=$(awk -v w="$warm" '$1 >= w { a = b; b = c; c = $3; n++ }
	END { m = c; if (n > 1 && b < m) m = b; if (n > 2 && a < m) m = a; print m + 0 }' "$series")
check "open descriptors did not grow after the warm-up (${base_fds:-?} -> $last_fds at the end, at most $max_fds)" \
    test "$last_fds" -le "${base_fds:-0}" -a "$max_fds" -le "$(( ${base_fds:-0} + 2 ))"
done_testing
