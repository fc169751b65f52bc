#!/usr/bin/env bash
# sp-dump as a user runs it, on spools from mkspool and tests/bad.
. "$(dirname "$0")/../lib.bash"
build/glibc/mkspool ref "$TMP/ref.spl" 100
build/glibc/mkspool cut "$TMP/cut.spl" 100

run $DUMP --check "$TMP/ref.spl"
check "check accepts a finished spool" test "$RC" -eq 0
check "check says ok" has "ok: " "$OUT"
check "check gives the sample count" has "100 samples, finished" "$OUT"

run $DUMP "$TMP/ref.spl"
check "text shows the header" has "host testhost, kernel 6.1.0-test" "$OUT"
check "text shows modules" has "module 1: pid 4242 [0x400000-0x402000)" "$OUT"
check "text shows threads" has "thread 2: pid 4242 tid 4243 comm ref-main" "$OUT"
check "text shows samples with frames leaf first" \
    grep -qzP 'sample 0\.000999 pid 4242 tid 4242 cpu 0: 3 frames\n    #0   ref\+0x1300\n    #1   ref\+0x1200\n    #2   main\n' "$TMP/out"
check "text shows the truncated marker" has "[truncated]" "$OUT"
check "text shows process events" has "exit 0.001099 pid 4242 tid 4243" "$OUT"
check "text shows summary counters" has "    lost_events 3" "$OUT"
text=$(tail -n +2 "$TMP/out")	# all but the line naming the file

run sh -c "$DUMP - <'$TMP/ref.spl'"
check "reads standard input with -" \
    test "$RC" -eq 0 -a "$(tail -n +2 "$TMP/out")" = "$text"
run sh -c "cat '$TMP/ref.spl' | $DUMP"
check "reads a pipe when no file is given" \
    test "$RC" -eq 0 -a "$(tail -n +2 "$TMP/out")" = "$text"

run $DUMP --json "$TMP/ref.spl"
check "json: every line is one object" test "$(grep -cv '^{.*}$' "$TMP/out")" -eq 0
check "json: one object per sample" test "$(grep -c '"kind":"sample"' "$TMP/out")" -eq 100
check "json: strings, frames and nodes too" \
    has '"kind":"frame","id":6,"module":0,"mode":2' "$OUT"

run $DUMP --stats --json "$TMP/ref.spl"
check "stats json has samples and bytes" has '{"samples":100,"bytes":' "$OUT"
check "stats json has bytes per sample" has '"bytes_per_sample":' "$OUT"
check "stats json has the counters by name" has '"lost_events":3' "$OUT"
check "stats json is one line" test "$(wc -l <"$TMP/out")" -eq 1
run $DUMP --stats "$TMP/ref.spl"
check "stats text" has "bytes per sample:" "$OUT"
check "stats counts sample records" grep -qE '^sample +100 ' "$TMP/out"

run $DUMP --check "$TMP/cut.spl"
check "an unfinished spool is recovered" test "$RC" -eq 0
check "recovery is reported on stderr" has "truncated at offset" "$ERR"

# Every cut of the reference spool after its header reads back; a cut
# inside the header (216 bytes) leaves no spool: exit 1, and why.
size=$(stat -c %s "$TMP/ref.spl")
bad=0 short=0
for ((cut = 0; cut < size; cut += 7)); do
	head -c "$cut" "$TMP/ref.spl" >"$TMP/part.spl"
	run $DUMP --check "$TMP/part.spl"
	if [ "$cut" -lt 216 ]; then
		short=$((short + 1))
		why="incomplete header ($cut of 216 bytes)"
		[ "$cut" -gt 0 ] || why="empty file"
		want="sp-dump: $TMP/part.spl: offset $(printf 0x%x "$cut"): not a spool: $why"
		[ "$RC" -eq 1 ] && [ "$ERR" = "$want" ] || bad=$((bad + 1))
	else
		[ "$RC" -eq 0 ] && has truncated "$ERR" || bad=$((bad + 1))
	fi
done
check "every 7th prefix is recovered, or not a spool before 216 bytes ($size bytes, $short short)" \
    test "$bad" -eq 0 -a "$short" -eq 31

# Every file in tests/bad is rejected with its offset and reason.
n=0
for f in tests/bad/*.spl; do
	run $DUMP --check "$f"
	want="sp-dump: $f: $(cat "${f%.spl}.expect")"
	if [ "$RC" -eq 1 ] && [ "$ERR" = "$want" ]; then n=$((n + 1)); else
		fail "bad file $f" "rc=$RC" "got: $ERR" "want: $want"; fi
done
check "all $n files of tests/bad rejected as expected" test "$n" -ge 15

run $DUMP --check "$TMP/missing.spl"
check "a missing file is named, exit 1" \
    test "$RC" -eq 1 -a "$ERR" = "sp-dump: $TMP/missing.spl: No such file or directory"
run $DUMP --check /etc/passwd
check "a text file is not a spool" has "offset 0x0: not a spool: bad magic" "$ERR"
run $DUMP --bogus
check "usage error exits 2" test "$RC" -eq 2
check "an unknown option is named in one line" \
    test "$ERR" = "sp-dump: option '--bogus' is not known (see sp-dump --help)"
run $DUMP --help
check "help exits 0 on stdout" test "$RC" -eq 0
for opt in --check --stats --json --verbose; do
	check "man page documents $opt" grep -q -- "${opt//-/\\\\-}" sp-dump/sp-dump.1
	check "help documents $opt" has "$opt" "$OUT"
done

# A static musl binary that runs in an empty chroot.
run file -L "$DUMP"
check "sp-dump is statically linked" has "statically linked" "$OUT"
root=$TMP/chroot
rm -rf "$root" && mkdir -p "$root"
cp "$DUMP" "$TMP/ref.spl" "$root/"
run chroot "$root" /sp-dump --check /ref.spl
check "sp-dump runs in an empty chroot" has "100 samples, finished" "$OUT"
check "the chroot held only the binary and the spool" \
    test "$(ls "$root" | wc -l)" -eq 2
done_testing
