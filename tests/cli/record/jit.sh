#!/usr/bin/env bash
# JIT code the recorder analyses once (issue 28, item 2): the leaf memo
# serves a pc's analysis again only while the code there is the code it
# was made from.
. "$(dirname "$0")/../lib.bash"

# --- code replaced in place --------------------------------------------------
# tests/workloads/jit.c's swap mode writes one of two spin loops at one
# address in turns, their loops at the same pcs and their frames of
# different sizes, with no new mapping and no new perf map entry.  A memo
# that served the first loop's analysis to the second cut about half its
# samples (71 % of stacks complete in a run here, against 100 %).
run $REC -o "$TMP/swap.spl" -- $W/jit 3200 swap
check "jit swap: recorded (exit $RC)" test "$RC" -eq 0
$SYM -q "$TMP/swap.spl" | $FOLD >"$TMP/swap.folded"
read -r n k < <(fold_count "$TMP/swap.folded" '\[anon\]' '^_start;.*;main;swap_round;\[anon\]')
hits=$(counter "$TMP/swap.spl" leaf_memo_hits)
echo "# jit swap: $k of $n samples in the JIT loops walked to main; $hits analyses from the memo"
check "jit swap: samples in the replaced loops" test "${n:-0}" -ge 200
check "jit swap: at least 97 % of them walked to main through swap_round ($k of $n)" \
    test "$((${k:-0} * 100))" -ge "$((${n:-0} * 97))"
check "jit swap: the memo served most analyses ($hits)" \
    test "$((${hits:-0} * 2))" -ge "${n:-1}"
done_testing
