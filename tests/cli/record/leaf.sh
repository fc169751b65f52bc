#!/usr/bin/env bash
# The leaf instruction analysis: leaves without CFI (hand-written assembly,
# JIT code) unwind into their real callers, in their prologues, bodies and
# epilogues alike.
. "$(dirname "$0")/../lib.bash"

# pairs SPOOL MODULE: "LEAF CALLER" offsets (decimal) of each sample's
# frames #0 and #1 in MODULE; a caller elsewhere prints as -1.
pairs() {
	$DUMP -v "$1" | awk -v m="$2" "$HEX_AWK"'
	/^sample/ { getline a; getline b; split(a, x); split(b, y)
		if (x[1] == "#0" && y[1] == "#1") print frame_off(x[2], m), frame_off(y[2], m) }'
}
# within_share PAIRS LEAF_LO LEAF_HI CALLER_LO CALLER_HI: "k n", n samples
# with a leaf in the range and k of them with a caller in the other.
within_share() {
	awk -v a="$2" -v b="$3" -v c="$4" -v d="$5" '
	$1 >= a && $1 < b { n++; if ($2 >= c && $2 < d) k++ }
	END { print k + 0, n + 0 }' "$1"
}

run $REC -o "$TMP/asm.spl" -- $W/asmleaf 40000
check "records the assembly leaves" test "$RC" -eq 0
s=$(counter "$TMP/asm.spl" samples)
t=$(counter "$TMP/asm.spl" truncated_stacks)
a=$(counter "$TMP/asm.spl" leaf_insn_analysed)
check "at least 99% of stacks are complete ($t of $s truncated)" \
    test "$((t * 100))" -le "${s:-0}" -a "${s:-0}" -gt 100
check "leaves without CFI were analysed ($a)" test "${a:-0}" -gt $((s / 2))
pairs "$TMP/asm.spl" asmleaf >"$TMP/asm.pairs"
for leaf in noframe frame; do
	read -r l1 l2 < <(fn_range $W/asmleaf leaf_$leaf)
	read -r c1 c2 < <(fn_range $W/asmleaf call_$leaf)
	read -r k n < <(within_share "$TMP/asm.pairs" "$l1" "$l2" "$c1" "$c2")
	check "leaf_$leaf: sampled ($n samples)" test "$n" -gt 20
	check "leaf_$leaf: at least 99% unwind into call_$leaf ($k of $n)" \
	    test "$((k * 100))" -ge "$((n * 99))"
done
# Prologue and epilogue samples are rarer; they must be right too.
read -r l1 l2 < <(fn_range $W/asmleaf leaf_noframe)
read -r c1 c2 < <(fn_range $W/asmleaf call_noframe)
read -r k n < <(awk -v a="$l1" -v b="$l1" '$1 >= a && $1 < a + 7 || $1 >= a + 16 && $1 < a + 24' \
    "$TMP/asm.pairs" | within_share /dev/stdin "$l1" "$l2" "$c1" "$c2")
check "leaf_noframe outside its loop: sampled ($n samples)" test "$n" -ge 10
check "leaf_noframe outside its loop: every sample unwinds into its caller ($k of $n)" \
    test "$k" -eq "$n"

# A return address saved above the CFA, as glibc's arm64
# _dl_runtime_resolve's CFI has it after the PLT's push
# (tests/workloads/pltpush.c): the caller's stack pointer is past its
# slot.  Taken as the CFA, the walk made no progress: 0 % complete.
run $REC -o "$TMP/plt.spl" -- $W/pltpush 1500
if [ "$RC" -eq 2 ] && has "x86-64 only" "$ERR"; then
	skip "return address above the CFA" "the workload is x86-64 assembly"
else
	check "return address above the CFA: records" test "$RC" -eq 0
	$SYM "$TMP/plt.spl" 2>/dev/null | $FOLD 2>/dev/null >"$TMP/plt.folded"
	read -r n k < <(fold_count "$TMP/plt.folded" ';resolve(;|$)' ';main;outer;resolve(;|$)')
	check "return address above the CFA: sampled ($n samples in resolve)" test "$n" -gt 100
	check "return address above the CFA: at least 99% unwind through outer into main ($k of $n)" \
	    test "$((k * 100))" -ge "$((n * 99))"
fi

# A JIT leaf (anonymous memory, no CFI): its caller is main, not skipped.
run $REC -o "$TMP/jit.spl" -- $W/jit 500
$DUMP -v "$TMP/jit.spl" | awk '/^sample/ { getline a; getline b
	if (a ~ /\[anon\]/) print b }' >"$TMP/jit.callers"
read -r m1 m2 < <(fn_range $W/jit main)
n=$(wc -l <"$TMP/jit.callers")
k=$(awk -v a="$m1" -v b="$m2" "$HEX_AWK"'{
	v = frame_off($2, "jit"); if (v >= 0 && v >= a && v < b) k++ } END { print k + 0 }' "$TMP/jit.callers")
check "JIT leaf: sampled ($n samples)" test "$n" -gt 50
check "JIT leaf: at least 99% unwind into main ($k of $n)" \
    test "$((k * 100))" -ge "$((n * 99))"
done_testing
