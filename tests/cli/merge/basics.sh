#!/usr/bin/env bash
# sp-merge on spools of real processes recorded under two host names (UTS
# and PID namespaces, so both processes have the same PID): sample counts,
# per-thread counts and stacks preserved, hosts kept apart, symbolized
# inputs, truncated and garbage inputs, --skip-bad.
. "$(dirname "$0")/../lib.bash"
# asan: MERGE=build/asan/sp-merge/sp-merge

# rec HOST FILE: records tree-O2 for 1 s on a "host" of that name.
rec() {
	unshare -u -p -f --mount-proc sh -c \
	    "hostname $1 && $REC -q -d 1 -o $2 -- $W/tree-O2" >/dev/null 2>&1
	$DUMP --check "$2" >/dev/null 2>&1
}
# samples FILE: the sample count that sp-dump --check reports.
samples() { $DUMP --check "$1" 2>&1 | sed -n "s/.* \([0-9]*\) samples.*/\1/p" | head -1; }
# per_thread FILE LABEL: "LABEL PID TID COUNT" per thread; LABEL "host"
# takes the merged spool's host id of each thread.
per_thread() {
	$DUMP --json "$1" | awk -v label="$2" '
	/"kind":"thread"/ { match($0, /"id":[0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, /"host":[0-9]+/); host[id] = substr($0, RSTART + 7, RLENGTH - 7) }
	/"kind":"sample"/ {
		match($0, /"thread":[0-9]+/); t = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"pid":[0-9]+,"tid":[0-9]+/); pt = substr($0, RSTART, RLENGTH)
		n[(label == "host" ? host[t] : label) " " pt]++ }
	END { for (k in n) print k, n[k] }' | sort
}
# stacks FILE...: every sample's frames, sorted.
stacks() { for f in "$@"; do $DUMP --json "$f" | grep '"kind":"sample"' |
    grep -o '"frames":.*'; done | sort; }

if ! unshare -u -p -f true 2>/dev/null; then
	echo "SKIP merge: needs root for unshare -u -p (UTS and PID namespaces)"
	done_testing
	exit 0
fi
rec hosta "$TMP/a.spl"
check "recorded a spool on host a" test $? -eq 0
rec hostb "$TMP/b.spl"
check "recorded a spool on host b" test $? -eq 0
na=$(samples "$TMP/a.spl") nb=$(samples "$TMP/b.spl")
pa=$($DUMP --json "$TMP/a.spl" | grep -m1 -o '"pid":[0-9]*')
pb=$($DUMP --json "$TMP/b.spl" | grep -m1 -o '"pid":[0-9]*')
check "both recordings have samples and the same pid ($pa)" \
    test "${na:-0}" -gt 0 -a "${nb:-0}" -gt 0 -a -n "$pa" -a "$pa" = "$pb"

run $MERGE -o "$TMP/m.spl" "$TMP/a.spl" "$TMP/b.spl"
check "merges two spools" test "$RC" -eq 0
run $DUMP --check "$TMP/m.spl"
check "the merged spool passes sp-dump --check" test "$RC" -eq 0
check "sample count is the sum ($na + $nb)" test "$(samples "$TMP/m.spl")" -eq $((na + nb))
check "per-thread counts kept, each input on its own host" test \
    "$(per_thread "$TMP/m.spl" host)" = \
    "$( (per_thread "$TMP/a.spl" 1; per_thread "$TMP/b.spl" 2) | sort)"
check "equal pids from two hosts stay two threads" test \
    "$($DUMP --json "$TMP/m.spl" | grep '"kind":"thread"' | grep -c "$pa,")" -ge 2
check "every sample keeps its stack" \
    test "$(stacks "$TMP/m.spl" | md5sum)" = "$(stacks "$TMP/a.spl" "$TMP/b.spl" | md5sum)"

run sh -c "$MERGE '$TMP/a.spl' - <'$TMP/b.spl' | $DUMP --check"
check "reads standard input and writes a pipe" test "$RC" -eq 0
check "and the piped spool has both inputs' samples" has "$((na + nb)) samples" "$OUT"

run $MERGE -o "$TMP/aa.spl" "$TMP/a.spl" "$TMP/a.spl"
check "one host merged with itself: one set of threads" test "$RC" -eq 0 -a \
    "$($DUMP --json "$TMP/aa.spl" | grep -c '"kind":"thread"')" -eq \
    "$($DUMP --json "$TMP/a.spl" | grep -c '"kind":"thread"')"

# Symbolized and raw inputs together: symbols survive the remapping.
$SYM -q -o "$TMP/as.spl" "$TMP/a.spl"
run $MERGE -o "$TMP/ms.spl" "$TMP/as.spl" "$TMP/b.spl"
check "merges a symbolized and a raw spool" test "$RC" -eq 0
run $DUMP --check "$TMP/ms.spl"
check "the mixed merge passes --check" test "$RC" -eq 0
check "the symbolized input's stacks keep their names" test \
    "$(stacks "$TMP/ms.spl" | md5sum)" = "$(stacks "$TMP/as.spl" "$TMP/b.spl" | md5sum)"

# Folding the merge is folding each input and adding the counts, line by
# line (the issue's known answer), on symbolized spools.
$SYM -q -o "$TMP/bs.spl" "$TMP/b.spl"
run $MERGE -o "$TMP/mss.spl" "$TMP/as.spl" "$TMP/bs.spl"
$FOLD "$TMP/as.spl" >"$TMP/fa.txt"
$FOLD "$TMP/bs.spl" >"$TMP/fb.txt"
$FOLD "$TMP/mss.spl" >"$TMP/fm.txt"
# fold_sum adds the counts of equal stacks.
check "fold(merge(a, b)) = fold(a) + fold(b), line by line ($(wc -l <"$TMP/fm.txt") lines)" \
    test "$(fold_sum "$TMP/fm.txt" | md5sum)" = \
    "$(fold_sum "$TMP/fa.txt" "$TMP/fb.txt" | md5sum)" -a -s "$TMP/fm.txt"
check "and the folded lines carry names, not addresses" grep -q "work_a" "$TMP/fm.txt"

# A truncated input: its intact prefix is merged, with a warning.
head -c $(($(stat -c %s "$TMP/a.spl") / 2)) "$TMP/a.spl" >"$TMP/cut.spl"
nc=$(samples "$TMP/cut.spl")
run $MERGE -o "$TMP/mc.spl" "$TMP/cut.spl" "$TMP/b.spl"
check "a truncated input merges" test "$RC" -eq 0
check "and says so with its name" has "cut.spl: truncated" "$ERR"
check "its prefix's samples are merged ($nc + $nb)" \
    test "$(samples "$TMP/mc.spl")" -eq $((nc + nb))
run $DUMP --check "$TMP/mc.spl"
check "the result passes --check" test "$RC" -eq 0

# One cut inside its header is not a spool (tests/cli/all/spool-errors.sh); with
# --skip-bad it adds nothing, and the output has the next input's header.
head -c 10 "$TMP/a.spl" >"$TMP/tiny.spl"
run $MERGE --skip-bad -o "$TMP/mt.spl" "$TMP/tiny.spl" "$TMP/b.spl"
check "--skip-bad skips an input cut in its header" test "$RC" -eq 0 -a \
    "$(samples "$TMP/mt.spl")" -eq "$nb"
check "and the output has the next input's header" \
    has "host hostb," "$($DUMP "$TMP/mt.spl" | head -1)"

# A garbage file is refused with its name, or skipped with --skip-bad.
head -c 4096 "$W/tree-O2" >"$TMP/garbage.spl"
run $MERGE -o "$TMP/mg.spl" "$TMP/a.spl" "$TMP/garbage.spl"
check "a garbage input is refused" test "$RC" -eq 1
check "with its name" has "sp-merge: $TMP/garbage.spl: " "$ERR"
run $MERGE --skip-bad -o "$TMP/mg.spl" "$TMP/garbage.spl" "$TMP/a.spl" "$TMP/b.spl"
check "--skip-bad carries on" test "$RC" -eq 0
check "and says what it skipped" has "garbage.spl: skipped" "$ERR"
check "the others are merged" test "$(samples "$TMP/mg.spl")" -eq $((na + nb))
run $MERGE -o "$TMP/mg.spl" "$TMP/no-such.spl"
check "a missing input is refused" test "$RC" -eq 1
check "and named" has "no-such.spl" "$ERR"

# Time order within a host: two recordings on this host that overlap in
# time, and host a's.  Expected: host a's samples first (the first input's
# host), then this host's two interleaved as sort -n orders their times.
times() { $DUMP --json "$1" 2>/dev/null | grep '"kind":"sample"' |
    grep -o '"time":[0-9]*' | cut -d: -f2; }
sorted() { times "$1" | sort -c -n 2>/dev/null; }
# within_30s CONDITION: waits until the eval'd CONDITION holds (30 s at most).
within_30s() {
	local i
	for ((i = 0; i < 300; i++)); do eval "$1" && return 0; sleep 0.1; done
	return 1
}
# They overlap by construction, not by a sleep: the second starts once the
# first has samples (sp-record writes its spool as it goes), and the first
# is stopped (SIGINT: it finishes its spool) once it has a sample later
# than the second's first, however slowly a loaded machine runs them.
$REC -q -o "$TMP/c1.spl" -- $W/tree-O2 60000 >/dev/null 2>&1 &
p1=$!
within_30s '[ -n "$(times "$TMP/c1.spl" | head -1)" ]'
$REC -q -d 1 -o "$TMP/c2.spl" -- $W/tree-O2 >/dev/null 2>&1 &
p2=$!
within_30s '[ -n "$(times "$TMP/c2.spl" | head -1)" ]'
c2first=$(times "$TMP/c2.spl" | head -1)
within_30s '[ "$(times "$TMP/c1.spl" | tail -1)" -gt "${c2first:-0}" ]'
kill -INT $p1
wait $p1 $p2
check "two overlapping recordings on this host, each in time order" \
    eval 'sorted "$TMP/c1.spl" && sorted "$TMP/c2.spl"'
run $MERGE -o "$TMP/mt.spl" "$TMP/a.spl" "$TMP/c1.spl" "$TMP/c2.spl"
check "merges them with host a's" test "$RC" -eq 0
times "$TMP/mt.spl" >"$TMP/mt.times"
na1=$(samples "$TMP/a.spl")
check "host a's samples come first, in their order" test \
    "$(head -n "$na1" "$TMP/mt.times" | md5sum)" = "$(times "$TMP/a.spl" | md5sum)"
check "then this host's, in time order across both inputs" test \
    "$(tail -n +$((na1 + 1)) "$TMP/mt.times" | md5sum)" = \
    "$( (times "$TMP/c1.spl"; times "$TMP/c2.spl") | sort -n | md5sum)"
c1last=$(times "$TMP/c1.spl" | tail -1)
c2first=$(times "$TMP/c2.spl" | head -1)
check "and the two overlap, so they interleave ($c2first < $c1last)" \
    test "$c2first" -lt "$c1last"
run $DUMP --check "$TMP/mt.spl"
check "the time-ordered merge passes --check" test "$RC" -eq 0
check "per-thread counts kept in the time-ordered merge" test \
    "$(per_thread "$TMP/mt.spl" x)" = \
    "$( (per_thread "$TMP/a.spl" x; per_thread "$TMP/c1.spl" x; per_thread "$TMP/c2.spl" x) | sort)"

run $MERGE --help
check "--help exits 0" test "$RC" -eq 0
check "--help prints the usage" has "usage: sp-merge" "$OUT"
run $MERGE
check "no input is a usage error" test "$RC" -eq 2
done_testing
