#!/usr/bin/env bash
# docs/api.md's thread rules under ThreadSanitizer: build/tsan/threads
# (tests/threads.c, libsp built with -fsanitize=thread) records a program
# while another thread tails the spool and resolves it, then reads the
# spool's snapshot from four threads at once, two with a symbolizer each.
# ThreadSanitizer reports any data race it sees on stderr (and exits 66).
# The negative control shares one symbolizer between two threads without
# a lock, which the rules forbid: ThreadSanitizer must report that, or it
# is not watching.
. "$(dirname "$0")/../lib.bash"
T=build/tsan/threads
# A kernel with more mmap randomness than the sanitizer's runtime knows
# makes it die at start ("unexpected memory mapping"): said as a SKIP.
tsan_fatal() { grep -q "FATAL: ThreadSanitizer" <<<"$ERR"; }

run timeout -k 5 300 env TSAN_OPTIONS=halt_on_error=0 $T "$TMP/t.spl" $W/threads-O2 4 150
if tsan_fatal; then
	skip "the thread rules under ThreadSanitizer" "its runtime does not start here: $(grep -m1 FATAL <<<"$ERR")"
	done_testing
	exit 0
fi
check "a recorder, a tail and its symbolizer in two threads: exit 0" test "$RC" -eq 0
check "no data race reported" test -z "$(grep -F 'WARNING: ThreadSanitizer' <<<"$ERR")"
tail=$(sed -n 's/^tail \([0-9]*\) samples \([0-9]*\) frames$/\1 \2/p' <<<"$OUT")
snap=$($DUMP --stats --json "$TMP/t.spl" | grep -o '"sample":{"count":[0-9]*' | grep -o '[0-9]*$')
check "the tail read every sample of the spool (${tail%% *} of $snap)" \
    test "${tail%% *}" = "$snap"
check "the tail named frames (${tail##* })" test "${tail##* }" -gt "$snap"
# The two resolving readers agree with the tail; the two formatting ones
# with each other.
r=$(awk '$1 == "reader" { print $2, $3 }' <<<"$OUT" | sort)
check "four readers of one snapshot finished ($(echo $r))" test "$(wc -l <<<"$r")" -eq 4
check "each symbolizer named as many frames as the tail's" \
    test "$(awk '$1 % 2 == 1 { print $2 }' <<<"$r" | sort -u)" = "${tail##* }"
check "the two that format agree" \
    test "$(awk '$1 % 2 == 0 { print $2 }' <<<"$r" | sort -u | wc -l)" -eq 1

run timeout -k 5 300 env TSAN_OPTIONS=halt_on_error=0 $T --share-symbolizer "$TMP/s.spl" $W/threads-O2 2 100
check "one symbolizer shared without a lock: ThreadSanitizer reports the race" \
    grep -qF 'WARNING: ThreadSanitizer: data race' "$TMP/err"
done_testing
