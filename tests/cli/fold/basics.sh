#!/usr/bin/env bash
# sp-fold on a real recording of tree-O2: the sp-sym | sp-fold pipeline,
# the 60/40 split of the workload, totals against sp-dump, filters,
# truncated and corrupt input, and --pprof read by `go tool pprof`.
. "$(dirname "$0")/../lib.bash"
# asan: FOLD=build/asan/sp-fold/sp-fold

# every line is "stack count"
wellformed() { ! grep -qvE '^[^ ].* [0-9]+$' "$1"; }

$REC -q -o "$TMP/tree.spl" -- $W/tree-O2 1500 cpu 2>"$TMP/rec.err" ||
    fail "record tree-O2" "$(cat "$TMP/rec.err")"
SAMPLES=$($DUMP --stats --json "$TMP/tree.spl" |
    sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
echo "figures: $SAMPLES samples recorded"

# --- the pipeline -----------------------------------------------------------
$SYM -q "$TMP/tree.spl" | $FOLD >"$TMP/sym.folded" 2>"$TMP/err"
RC=$?
OUT=$(head -5 "$TMP/sym.folded") ERR=$(cat "$TMP/err")
check "sp-sym | sp-fold exits 0" test "$RC" -eq 0
check "folded lines are 'stack count'" wellformed "$TMP/sym.folded"
check "folded lines are distinct" test "$(sed 's/ [0-9]*$//' \
    "$TMP/sym.folded" | sort | uniq -d | wc -l)" -eq 0
T=$(fold_total <"$TMP/sym.folded")
check "folded total $T equals sp-dump's $SAMPLES samples" test "$T" -eq "$SAMPLES"
check "root first: main;run;work_a;leaf_a" grep -q 'main;run;work_a;leaf_a' "$TMP/sym.folded"
A=$(fold_count "$TMP/sym.folded" ';work_a(;|$)')
B=$(fold_count "$TMP/sym.folded" ';work_b(;|$)')
echo "figures: work_a $A work_b $B"
PA=$(( A + B > 0 ? 100 * A / (A + B) : 0 ))
check "work_a/work_b split 60/40 +-5 (work_a ${PA}%)" test "$PA" -ge 55 -a "$PA" -le 65

# --- raw spool: module+offset frames, same total ----------------------------
run $FOLD "$TMP/tree.spl"
check "raw spool folds" test "$RC" -eq 0
check "raw frames print as tree-O2+0xOFFSET" has "tree-O2+0x" "$OUT"
check "raw total equals" test "$(fold_total <"$TMP/out")" -eq "$SAMPLES"

# --- filters and roots ---------------------------------------------------------
$SYM -q -o "$TMP/sym.spl" "$TMP/tree.spl"
PID=$($DUMP "$TMP/sym.spl" | awk '/^thread /{ print $4; exit }')
run $FOLD --pid "$PID" "$TMP/sym.spl"
check "--pid $PID keeps every sample" test "$(fold_total <"$TMP/out")" -eq "$SAMPLES"
run $FOLD --pid 1 "$TMP/sym.spl"
check "--pid 1 keeps none" test "$RC" -eq 0 -a -z "$OUT"
run $FOLD --comm tree-O2 "$TMP/sym.spl"
check "--comm tree-O2 keeps every sample" test "$(fold_total <"$TMP/out")" -eq "$SAMPLES"
run $FOLD --per-process "$TMP/sym.spl"
check "--per-process roots are tree-O2-$PID" test -z "$(grep -v "^tree-O2-$PID;" "$TMP/out")"
run $FOLD --per-thread "$TMP/sym.spl"
check "--per-thread roots are tree-O2-$PID/$PID" has "tree-O2-$PID/$PID;" "$OUT"
# The first and the second half: together the whole.
H1=$($FOLD --to 0.75 "$TMP/sym.spl" | fold_total)
H2=$($FOLD --from 0.75 "$TMP/sym.spl" | fold_total)
check "--to 0.75 ($H1) + --from 0.75 ($H2) = all" test $((H1 + H2)) -eq "$SAMPLES"
run $FOLD --max-depth 3 "$TMP/sym.spl"
check "--max-depth 3 ends cut stacks in [deeper]" has ";[deeper] " "$OUT"
check "--max-depth 3: at most 4 frames" test -z "$(awk -F';' 'NF > 4' "$TMP/out")"
run $FOLD --lines "$TMP/sym.spl"
check "--lines: work_a:FILE:LINE" grep -qE ';work_a:[^;]*tree\.c:[0-9]+' "$TMP/out"
run $FOLD --user-only --kernel-only "$TMP/sym.spl"
check "--user-only --kernel-only is a usage error" test "$RC" -eq 2
run $FOLD --max-depth x "$TMP/sym.spl"
check "--max-depth x is a usage error" test "$RC" -eq 2

# --- kernel frames end in _[k] -------------------------------------------------
# Expected: kernel-mode frames per sample, walked by awk through sp-dump's
# frame, node and sample records (mode 1 = kernel, docs/spool-format.md).
kframes() { $DUMP --json "$1" | awk '
	function num(k,  m) { match($0, "\"" k "\":[0-9]+"); m = substr($0, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0 }
	/"kind":"frame"/ { mode[num("id")] = num("mode") }
	/"kind":"node"/ { par[num("id")] = num("parent"); fr[num("id")] = num("frame") }
	/"kind":"sample"/ { for (n = num("stack"); n; n = par[n]) k += mode[fr[n]] == 1 }
	END { print k + 0 }'; }
# marked: frames ending in _[k] in folded text, weighted by count.
marked() { awk '{ c = $NF; sub(/ [0-9]+$/, ""); n += c * gsub(/_\[k\](;|$)/, "") } END { print n + 0 }'; }
if $REC -q --kernel -o "$TMP/kern.spl" -- dd if=/dev/zero of=/dev/null \
    bs=64k count=100000 2>/dev/null; then
	K=$(kframes "$TMP/kern.spl")
	$SYM -q -o "$TMP/kern-sym.spl" "$TMP/kern.spl"
	MK=$($FOLD "$TMP/kern-sym.spl" | marked)
	check "every kernel frame of a symbolized spool ends in _[k] ($MK of $K)" \
	    test "$K" -gt 0 -a "$MK" -eq "$K"
	check "and of a raw one" test "$($FOLD "$TMP/kern.spl" | marked)" -eq "$K"
	check "user frames are not marked" test "$($FOLD --user-only \
	    "$TMP/kern-sym.spl" | marked)" -eq 0 -a -n "$($FOLD --user-only "$TMP/kern-sym.spl")"
	check "--kernel-only: only marked frames" test -z "$($FOLD --kernel-only \
	    "$TMP/kern-sym.spl" | sed 's/ [0-9]*$//' | tr ';' '\n' | grep -v '_\[k\]$')"
else
	echo "SKIP kernel frames: sp-record --kernel could not record here"
fi

# --- damaged input -----------------------------------------------------------
SIZE=$(stat -c %s "$TMP/sym.spl")
head -c $((SIZE * 2 / 3)) "$TMP/sym.spl" >"$TMP/cut.spl"
run $FOLD "$TMP/cut.spl"
CUT=$(fold_total <"$TMP/out")
check "a truncated spool folds its prefix ($CUT samples), exit 0" \
    test "$RC" -eq 0 -a "$CUT" -gt 0 -a "$CUT" -lt "$SAMPLES"
check "and says so" has "truncated at offset 0x" "$ERR"
head -c 300 /etc/services >"$TMP/text.spl"
run $FOLD "$TMP/text.spl"
check "not a spool: exit 1 with offset and reason" test "$RC" -eq 1
check "message names file and offset" has "sp-fold: $TMP/text.spl: offset 0x0:" "$ERR"
run $FOLD "$TMP/missing.spl"
check "missing file: exit 1" test "$RC" -eq 1

# --- pprof, read by go tool pprof ----------------------------------------------
need go golang-go
run $FOLD --pprof -o "$TMP/tree.pb.gz" "$TMP/sym.spl"
check "--pprof writes a gzip file" test "$RC" -eq 0 -a \
    "$(head -c 2 "$TMP/tree.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b
if command -v go >/dev/null; then
	export HOME=$TMP PPROF_TMPDIR=$TMP
	PP="go tool pprof -sample_index=samples -nodecount=100000 -nodefraction=0 -edgefraction=0"
	$PP -traces "$TMP/tree.pb.gz" >"$TMP/traces" 2>"$TMP/pp.err"
	RC=$? OUT=$(head -20 "$TMP/traces") ERR=$(cat "$TMP/pp.err")
	TT=$(awk '/^ *[0-9]+ /{ n += $1 } END { print n + 0 }' "$TMP/traces")
	check "go tool pprof -traces total ($TT) = sp-fold's ($SAMPLES)" test "$TT" -eq "$SAMPLES"
	$PP -top "$TMP/tree.pb.gz" >"$TMP/top" 2>"$TMP/pp.err"
	RC=$? OUT=$(head -20 "$TMP/top") ERR=$(cat "$TMP/pp.err")
	TOP=$(sed -n 's/.* of \([0-9]*\) total.*/\1/p' "$TMP/top")
	check "go tool pprof -top total ($TOP) = sp-fold's" test "${TOP:-0}" -eq "$SAMPLES"
	CA=$(awk '$6 == "work_a" { print $4 }' "$TMP/top")
	CB=$(awk '$6 == "work_b" { print $4 }' "$TMP/top")
	check "pprof cum work_a ($CA) = folded ($A)" test "${CA:-x}" = "$A"
	check "pprof cum work_b ($CB) = folded ($B)" test "${CB:-x}" = "$B"
	$PP -raw "$TMP/tree.pb.gz" >"$TMP/raw" 2>&1
	OUT=$(head -20 "$TMP/raw")
	BID=$(readelf -n $W/tree-O2 | awk '/Build ID/ { print $3 }')
	check "mapping carries tree-O2's build-id (readelf)" grep -q "$BID" "$TMP/raw"
	run $FOLD --pprof --per-thread -o "$TMP/thr.pb.gz" "$TMP/sym.spl"
	$PP -tags "$TMP/thr.pb.gz" >"$TMP/tags" 2>&1
	OUT=$(cat "$TMP/tags")
	check "--per-thread labels: tid $PID has all samples" \
	    grep -A1 -q "tid: Total $SAMPLES" "$TMP/tags"
	check "--per-thread labels: tid is $PID, comm tree-O2" \
	    test "$(grep -A1 "tid: Total" "$TMP/tags" | tail -1 | awk '{ print $NF }')" = "$PID" -a \
	    -n "$(grep -A1 "comm: Total" "$TMP/tags" | grep tree-O2)"
else
	echo "SKIP go tool pprof checks: go is not installed and could not be (apt-get install golang-go)"
fi
done_testing
