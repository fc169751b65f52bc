#!/usr/bin/env bash
# The recorder on hostile ELF: it reads the CFI of every file the target
# maps, as root, so a file's headers must not make it allocate what they
# claim.  A program whose .debug_frame is a zlib bomb (a few MiB that
# inflate to 2 GiB, tests/elfmut.c frame-bomb) is recorded with bounded
# memory; that section is refused and counted, and the recording goes on.
. "$(dirname "$0")/lib.bash"
REC=${RECORD:-$BIN/sp-record}
DUMP=$BIN/sp-dump
W=build/tests

build/glibc/elfmut frame-bomb $W/tree-O2-dbgframe "$TMP/bomb" 2048
chmod +x "$TMP/bomb"
check "the bomb is a few MiB" test "$(stat -c %s "$TMP/bomb")" -lt $((32 << 20))
if need /usr/bin/time time; then
	run /usr/bin/time -f %M -o "$TMP/rss" $REC -q -o "$TMP/bomb.spl" -- "$TMP/bomb" 300
	check "recording the bomb: exit 0" test "$RC" -eq 0
	rss=$(tail -1 "$TMP/rss")
	check "recording the bomb: peak RSS $rss KiB, under 64 MiB (it was 2 GiB)" \
	    test "${rss:-999999999}" -lt 65536
else
	skip "the recorder's peak RSS on the bomb" "/usr/bin/time is missing (apt-get install time)"
	run $REC -q -o "$TMP/bomb.spl" -- "$TMP/bomb" 300
	check "recording the bomb: exit 0" test "$RC" -eq 0
fi
stats=$($DUMP --stats "$TMP/bomb.spl")
check "the bomb's .debug_frame is refused and counted" \
    grep -qE '^ +cfi_sections_refused [1-9]' <<<"$stats"
check "the recording goes on: samples taken" \
    test "$(sed -n 's/^sample  *\([0-9]*\) .*/\1/p' <<<"$stats")" -gt 0
run $REC -q -o "$TMP/plain.spl" -- $W/tree-O2-dbgframe 100
check "the same program unharmed: nothing refused" \
    grep -qE '^ +cfi_sections_refused 0$' <<<"$($DUMP --stats "$TMP/plain.spl")"
done_testing
