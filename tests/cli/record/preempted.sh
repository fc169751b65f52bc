#!/usr/bin/env bash
# sp-record --off-cpu keeps preemption (a thread still runnable, waiting
# for a CPU) apart from blocked time.  The workload contend has one
# sleeper (a thread in nanosleep, again and again) and three spinners
# that never block; two busy loops beside it oversubscribe the machine's
# CPUs, so the spinners are preempted all the time.  --off-cpu must give
# the sleeper at least 90 % of its time (before the change it had 20-43
# %: the rest was the spinners' preemption), --preempted the spinners'
# time waiting for a CPU, which contend measured itself (wall less CPU
# time), within 5 %; --both puts each under its own root, and pprof,
# speedscope and the Chrome trace carry the distinction.  A recording
# that could not keep them apart (a kernel before 4.17: mkspool writes
# one as sp-record does there) makes sp-fold say so.
. "$(dirname "$0")/../lib.bash"

# ns FOLDED [RE]: the nanoseconds of FOLDED's stacks (that match RE), in
# whole digits (lib.bash's fold_total prints 9.6e+09); share FOLDED RE:
# their percent of the whole.
ns() {
	RE=${2-} awk '{ s = $0; sub(/ [0-9]+$/, "", s); if (s ~ ENVIRON["RE"]) n += $NF }
	    END { printf "%.0f", n }' "$1"
}
share() { awk -v n="$(ns "$1" "$2")" -v t="$(ns "$1")" 'BEGIN { printf "%.1f", t ? 100 * n / t : 0 }'; }

run "$FOLD" --help
check "sp-fold --help names --preempted" has "--preempted" "$OUT"
check "sp-fold's man page explains --preempted" grep -qF 'preempted' sp-fold/sp-fold.1
run "$FOLD" --off-cpu --preempted /dev/null
check "--off-cpu with --preempted: exit 2, said" \
    test "$RC" -eq 2 -a -n "$(grep -F 'exclude each other' <<<"$ERR")"

# A recording that did not keep them apart (a kernel before 4.17, or an
# sp-record from before): mkspool writes one as sp-record does there, and
# one as it does since.
build/glibc/mkspool offcpu "$TMP/old.spl" 32
build/glibc/mkspool offcpu "$TMP/apart.spl" 96
run "$FOLD" --off-cpu "$TMP/old.spl"
check "a recording without preemption apart: sp-fold --off-cpu says its time includes preemption" \
    test "$RC" -eq 0 -a -n "$(grep -F 'off-CPU time includes preemption' <<<"$ERR")" -a "${OUT##* }" = 5
run "$FOLD" --preempted "$TMP/old.spl"
check "and --preempted says why it has none" \
    test "$RC" -eq 0 -a -z "$OUT" -a -n "$(grep -F 'no preempted samples (this recording counts preemption as off-CPU time' <<<"$ERR")"
run "$FOLD" "$TMP/apart.spl"
check "with preemption apart: no such warning, [off-cpu] 5 ns and [preempted] 7 ns" \
    test "$RC" -eq 0 -a -z "$(grep -F 'includes preemption' <<<"$ERR")" -a \
    "$(ns <(echo "$OUT") '^\[off-cpu\]')" = 5 -a "$(ns <(echo "$OUT") '^\[preempted\]')" = 7
run "$DUMP" "$TMP/old.spl"
check "sp-dump: off-cpu without preempted-apart" \
    test -n "$(grep '^recording: .*off-cpu' <<<"$OUT")" -a -z "$(grep 'preempted-apart' <<<"$OUT")"

# The kernel marks a preemption since 4.17 (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT).
if ! awk -v r="$(uname -r)" 'BEGIN { split(r, v, /[.-]/); exit !(v[1] > 4 || (v[1] == 4 && v[2] >= 17)) }'; then
	skip "preemption kept apart" "Linux $(uname -r) is older than 4.17: it does not mark preemptions"
	done_testing
	exit 0
fi

busy=()
trap 'for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done' EXIT
for i in 1 2; do
	( while :; do :; done ) &
	busy+=($!)
done
run "$REC" --off-cpu -o "$TMP/c.spl" -- $W/contend 4 3
for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
busy=()
check "sp-record --off-cpu -- contend 4 3 beside two busy loops: exit 0" test "$RC" -eq 0
measured=$(grep '^contend sleeper' <<<"$OUT")
check "contend measured itself ($measured)" test -n "$measured"
pre=$(counter "$TMP/c.spl" off_cpu_preempted)
sw=$(counter "$TMP/c.spl" off_cpu_samples)
check "the summary tells blocked and preempted switches apart" \
    grep -qE 'switches off CPU .*: [0-9]+ blocked, [0-9.]+ s; [0-9]+ preempted, [0-9.]+ s waiting for a CPU' <<<"$ERR"
check "preempted switches: $pre of $sw, none unmatched ($(counter "$TMP/c.spl" off_cpu_unmatched))" \
    test "${pre:-0}" -gt 100 -a "${sw:-0}" -gt "${pre:-0}" -a "$(counter "$TMP/c.spl" off_cpu_unmatched)" = 0
check "the counter off_cpu_preempted_apart says the kernel told them apart" \
    test "$(counter "$TMP/c.spl" off_cpu_preempted_apart)" = 1
run "$DUMP" "$TMP/c.spl"
check "the RECORDING record says preempted-apart" grep -q '^recording: .*off-cpu,preempted-apart' <<<"$OUT"
check "sp-dump shows preempted samples" grep -q '^sample .* preempted [0-9.]* s:' <<<"$OUT"
"$SYM" -q -o "$TMP/c.sym.spl" "$TMP/c.spl"

"$FOLD" --off-cpu "$TMP/c.sym.spl" >"$TMP/off.fold" 2>"$TMP/off.err"
"$FOLD" --preempted "$TMP/c.sym.spl" >"$TMP/pre.fold" 2>"$TMP/pre.err"
run "$FOLD" "$TMP/c.sym.spl"
echo "$OUT" >"$TMP/both.fold"
sleeper=$(share "$TMP/off.fold" ';sleeper;')
check "--off-cpu: the sleeper has ${sleeper} % of the time off CPU, $(ns "$TMP/off.fold" ';sleeper;') of $(ns "$TMP/off.fold") ns (at least 90 %)" \
    awk -v s="$sleeper" 'BEGIN { exit !(s >= 90) }'
spin=$(share "$TMP/pre.fold" ';spin(;|$)')
check "--preempted: the spinners have ${spin} % of the time preempted, $(ns "$TMP/pre.fold" ';spin(;|$)') of $(ns "$TMP/pre.fold") ns (at least 90 %)" \
    awk -v s="$spin" 'BEGIN { exit !(s >= 90) }'
# "contend sleeper W C spinners W C": the spinners' wall less CPU time.
want=$(awk '{ printf "%.0f", $6 - $7 }' <<<"$measured")
got=$(ns "$TMP/pre.fold" ';spin(;|$)')
check "--preempted: the spinners waited ${got} ns for a CPU, they measured ${want:-?} ns (within 5 %)" \
    awk -v g="$got" -v w="${want:-0}" 'BEGIN { exit !(w > 0 && g > 0.95 * w && g < 1.05 * w) }'
check "--both: blocked stacks under [off-cpu], preempted ones under [preempted], said" \
    test "$(ns "$TMP/both.fold" '^\[off-cpu\];')" = "$(ns "$TMP/off.fold")" -a \
    "$(ns "$TMP/both.fold" '^\[preempted\];')" = "$(ns "$TMP/pre.fold")" -a \
    -n "$(grep -F 'preempted ones under [preempted]' <<<"$ERR")"
check "--off-cpu and --preempted: no root of their own" \
    test -z "$(grep -F '[off-cpu]' "$TMP/off.fold" "$TMP/pre.fold")" -a \
    -z "$(grep -F '[preempted]' "$TMP/off.fold" "$TMP/pre.fold")"

# --- the outputs --------------------------------------------------------------
need go golang-go
if command -v go >/dev/null; then
	export HOME=$TMP PPROF_TMPDIR=$TMP
	"$FOLD" --pprof -o "$TMP/c.pb.gz" "$TMP/c.sym.spl" 2>/dev/null
	go tool pprof -raw "$TMP/c.pb.gz" >"$TMP/raw" 2>&1
	check "pprof sample types: samples/count cpu/nanoseconds off_cpu/nanoseconds preempted/nanoseconds" \
	    grep -q 'samples/count cpu/nanoseconds off_cpu/nanoseconds preempted/nanoseconds' "$TMP/raw"
	go tool pprof -sample_index=preempted -top -nodecount=100000 \
	    "$TMP/c.pb.gz" >"$TMP/top" 2>"$TMP/pp.err"
	pspin=$(awk '$NF == "spin" { print $5 }' "$TMP/top" | tr -d '%')
	check "go tool pprof -sample_index=preempted: spin cum ${pspin:-?} %, sp-fold --preempted $spin %" \
	    awk -v p="${pspin:-x}" -v w="$spin" 'BEGIN { exit !(p != "x" && p - w < 0.2 && w - p < 0.2) }'
	"$FOLD" --pprof --off-cpu -o "$TMP/off.pb.gz" "$TMP/c.sym.spl" 2>/dev/null
	go tool pprof -raw "$TMP/off.pb.gz" >"$TMP/raw" 2>&1
	check "pprof of --off-cpu: off_cpu/nanoseconds alone" \
	    test -n "$(grep 'off_cpu/nanoseconds' "$TMP/raw")" -a -z "$(grep 'preempted/' "$TMP/raw")"
else
	skip "pprof's preempted sample type" "go is not installed and could not be (apt-get install golang-go)"
fi
"$FOLD" --speedscope -o "$TMP/c.json" "$TMP/c.sym.spl" 2>/dev/null
scope=$(python3 - "$TMP/c.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
pre = [p for p in d["profiles"] if p["name"].endswith(" preempted")]
spin = [p for p in pre if p["name"].startswith("contend-spin")]
print(len(spin), sum(sum(p["weights"]) for p in pre),
      all(p["unit"] == "nanoseconds" for p in pre))
EOF
)
read -r nspin wsum unit_ok <<<"$scope"
check "speedscope: a preempted profile per spinner ($nspin of 3), weighing the preempted nanoseconds (${wsum:-?} of $(ns "$TMP/pre.fold"))" \
    test "${nspin:-0}" -ge 3 -a "${wsum:-0}" = "$(ns "$TMP/pre.fold")" -a "${unit_ok:-}" = True
"$FOLD" --chrome-trace -o "$TMP/c.trace.json" "$TMP/c.sym.spl" 2>/dev/null
read -r pret offt < <(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
print(sum(e["dur"] for e in x if e.get("cat") == "preempted" and e["name"] == "[preempted]"),
      sum(e["dur"] for e in x if e.get("cat") == "off-cpu"))' "$TMP/c.trace.json")
pref=$(awk '{ n += $NF } END { printf "%.0f", n / 1000 }' "$TMP/pre.fold")
offf=$(awk '{ n += $NF } END { printf "%.0f", n / 1000 }' "$TMP/off.fold")
check "--chrome-trace: [preempted] spans last ${pret:-?} us, the preempted time ${pref} us (within 2 %)" \
    awk -v a="${pret:-0}" -v b="$pref" 'BEGIN { exit !(b > 0 && a > 0.98 * b && a < 1.02 * b) }'
check "--chrome-trace: [off-cpu] spans last ${offt:-?} us, the blocked time ${offf} us (within 2 %)" \
    awk -v a="${offt:-0}" -v b="$offf" 'BEGIN { exit !(b > 0 && a > 0.98 * b && a < 1.02 * b) }'
done_testing
