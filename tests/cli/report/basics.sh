#!/usr/bin/env bash
# sp-report on real recordings: tree-O2, whose leaf_a and leaf_b split
# its time 3:2 under work_a and work_b (tests/workloads/tree.c), read
# raw (named on the way) and as sp-sym left it; threads-O2 for the thread
# sorts.  The table agrees with sp-fold's counts, the callers and callees
# of a function split as the program does, every line fits the width,
# the filters and the errors read as sp-fold's.
. "$(dirname "$0")/../lib.bash"
# asan: REPORT=build/asan/sp-report/sp-report

$REC -q -o "$TMP/tree.spl" -- $W/tree-O2 1500 cpu 2>"$TMP/rec.err" ||
    fail "record tree-O2" "$(cat "$TMP/rec.err")"
SAMPLES=$(counter "$TMP/tree.spl" samples)
$SYM -q -o "$TMP/sym.spl" "$TMP/tree.spl"
$FOLD "$TMP/sym.spl" >"$TMP/sym.folded"

# row NAME: "SELF TOTAL SAMPLES" of the table's row of function NAME.
row() { awk -v n="$1" '$4 == n { print $1, $2, $3; exit }' <<<"$OUT"; }

# --- the table --------------------------------------------------------------
run $REPORT "$TMP/tree.spl"
check "a raw spool: exit 0" test "$RC" -eq 0
check "the quality line: the samples, the event and the rate" \
    has "$SAMPLES samples of cpu-clock at 1000 Hz" "$OUT"
check "the quality line: lost and complete" \
    eval 'has "0 lost (0.0 %)" "$OUT" && has "% of stacks complete" "$OUT"'
check "the table's heading" has "Self%  Total%  Samples  Function" "$OUT"
read -r s t n < <(row spin)
want=$(fold_count "$TMP/sym.folded" ';spin$')
check "spin is named (the raw spool was named on the way): self $s %, $n samples" \
    test -n "$n"
check "spin's samples are sp-fold's leaf count ($n, $want)" test "${n:-0}" -eq "$want"
check "the hottest row is first (spin)" \
    test "$(sed -n '/Self%/{n;p;q}' <<<"$OUT" | awk '{ print $4 }')" = spin
run $REPORT --children "$TMP/tree.spl"
read -r s t n < <(row main)
# (Every sample but one in the loader or the exit, at most 0.5 %: one of
# 1511 was, 99.93 %.)
check "--children: main is in every sample but the start's and exit's (total $t %), the leaf of none (self $s %)" \
    awk -v t="${t:-0}" -v s="${s:-1}" 'BEGIN { exit !(t >= 99.5 && s == 0) }'
run $REPORT "$TMP/sym.spl"
check "a named spool gives the same table" \
    test "$(row spin)" = "$(run $REPORT "$TMP/tree.spl"; row spin)"
run $REPORT --no-sym "$TMP/tree.spl"
check "--no-sym on a raw spool: addresses (tree-O2+0x...)" has "tree-O2+0x" "$OUT"
run $REPORT --percent-limit 50 "$TMP/sym.spl"
check "--percent-limit 50: spin alone, the rest counted" \
    eval 'test "$(grep -cE "^ *[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+  " <<<"$OUT")" -eq 1 && has "more under 50 %" "$OUT"'
run $REPORT --children -n 3 --percent-limit 0 "$TMP/sym.spl"
check "--children: by total share, -n 3 rows and the rest counted" \
    eval 'sed -n "/Self%/{n;p;q}" <<<"$OUT" | awk "{ exit !(\$2 >= 99.5) }" && has "past 3 rows" "$OUT"'
run $REPORT --sort module "$TMP/sym.spl"
check "--sort module: tree-O2's row" has "  tree-O2" "$OUT"
# Every line fits the width: 80 by default off a terminal, or -w.
for w in 80 60; do
	run $REPORT -w $w --callers spin "$TMP/sym.spl"
	long=$(awk -v w=$w 'length($0) > w' <<<"$OUT" | wc -l)
	run $REPORT -w $w --percent-limit 0 "$TMP/sym.spl"
	long=$((long + $(awk -v w=$w 'length($0) > w' <<<"$OUT" | wc -l)))
	check "-w $w: no line is longer ($long are)" test "$long" -eq 0
done

# --- who calls it -------------------------------------------------------------
# leaf_a has 3/5 of spin's samples, leaf_b 2/5 (tree.c), within 6 points.
run $REPORT --callers spin "$TMP/sym.spl"
check "--callers spin: exit 0" test "$RC" -eq 0
a=$(awk '$4 == "leaf_a" { print $1; exit }' <<<"$OUT")
b=$(awk '$4 == "leaf_b" { print $1; exit }' <<<"$OUT")
check "--callers spin: leaf_a $a %, leaf_b $b % (60 / 40)" \
    awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { exit !(a > 54 && a < 66 && b > 34 && b < 46) }'
check "--callers spin: the paths into it, caller first" \
    has "leaf_a <- work_a <- run <- main" "$OUT"
run $REPORT --callees run "$TMP/sym.spl"
a=$(awk '$4 == "work_a" { print $1; exit }' <<<"$OUT")
check "--callees run: work_a $a % (60)" awk -v a="${a:-0}" 'BEGIN { exit !(a > 54 && a < 66) }'
check "--callees run: the paths out, to the leaf" has "work_a -> leaf_a -> spin" "$OUT"
run $REPORT --callees spin "$TMP/sym.spl"
check "--callees of a leaf: [self]" has "[self]" "$OUT"
run $REPORT --callers no_such_function "$TMP/sym.spl"
check "--callers of no sampled function: exit 1, said" \
    eval 'test "$RC" -eq 1 && has "no sampled function is named no_such_function" "$ERR"'
run $REPORT --callers a --callees b "$TMP/sym.spl"
check "--callers with --callees: exit 2" test "$RC" -eq 2

# --- threads, filters ---------------------------------------------------------
$REC -q -o "$TMP/th.spl" -- $W/threads-O2 3 600 2>/dev/null
run $REPORT --sort tid "$TMP/th.spl"
rows=$(grep -cE '^ *[0-9.]+ +[0-9.]+ +[0-9]+  [0-9]+/[0-9]+ ' <<<"$OUT")
check "--sort tid: a row a spinner thread at least ($rows rows)" test "$rows" -ge 3
run $REPORT --sort comm "$TMP/th.spl"
check "--sort comm: threads-O2's row" has "threads-O2" "$OUT"
cpu=$($DUMP "$TMP/tree.spl" | awk '/^sample / { for (i = 1; i <= NF; i++)
    if ($i == "cpu") c[$(i + 1) + 0]++ } END { for (k in c) print c[k], k }' |
    sort -rn | head -1)
run $REPORT --cpu "${cpu#* }" "$TMP/sym.spl"
check "--cpu ${cpu#* }: counts that CPU's ${cpu% *} samples" \
    has "counted: ${cpu% *} of them" "$OUT"
run $REPORT --pid 1 "$TMP/sym.spl"
check "a filter that leaves nothing: exit 1, said" \
    eval 'test "$RC" -eq 1 && has "no sample to report" "$ERR"'
run $REPORT --sort nothing "$TMP/sym.spl"
check "--sort with an unknown key: exit 2, the keys named" \
    eval 'test "$RC" -eq 2 && has "symbol, total, module" "$ERR"'
run sh -c "$REPORT - <'$TMP/sym.spl'"
check "- reads standard input" has "spin" "$OUT"
run $REPORT --help
check "--help: exit 0" test "$RC" -eq 0
for opt in --sort --children --callers --callees --percent-limit --max-rows \
    --width --pid --tid --comm --cpu --from --to --no-sym --bundle; do
	check "help and man page document $opt" eval \
	    'has "$opt" "$OUT" && grep -q -- "${opt//-/\\\\-}" sp-report/sp-report.1'
done
done_testing
