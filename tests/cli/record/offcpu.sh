#!/usr/bin/env bash
# sp-record --off-cpu: time off the CPU by stack.  The workload offcpu
# measures itself how much wall time its main thread spends in each of
# five functions (two spinning, one in nanosleep, one in a pipe read, one
# waiting for a mutex) and on the CPU; the recording must give each
# function's share within 5 points: on CPU (samples), off CPU
# (nanoseconds) and both together (nanoseconds, a CPU sample counting
# the period), for a command and for a process attached with -p.  pprof
# carries the off-CPU time as its own sample type, speedscope as a
# profile per thread, sp-flame names the unit.  The cost (switches a
# second, CPU per switch) is in the PASS lines.
# asan: REC=build/asan/sp-record/sp-record FOLD=build/asan/sp-fold/sp-fold NO_BROWSER=1
. "$(dirname "$0")/../lib.bash"
REC=${REC:-$BIN/sp-record} FOLD=${FOLD:-$BIN/sp-fold} SYM=$BIN/sp-sym
DUMP=$BIN/sp-dump FLAME=$BIN/sp-flame W=build/tests

run "$REC" --help
check "--help names --off-cpu" has "--off-cpu" "$OUT"
check "the man page explains --off-cpu" grep -qF 'off\-cpu' sp-record/sp-record.1
run "$FOLD" --help
check "sp-fold --help names --on-cpu, --off-cpu and --both" \
    test -n "$(grep -F -- --on-cpu <<<"$OUT")" -a \
    -n "$(grep -F -- --off-cpu <<<"$OUT")" -a -n "$(grep -F -- --both <<<"$OUT")"
run "$FOLD" --on-cpu --off-cpu /dev/null
check "--on-cpu with --off-cpu: exit 2, said" \
    test "$RC" -eq 2 -a -n "$(grep -F 'exclude each other' <<<"$ERR")"

# shares FOLDED MEASURED MODE: "name recorded expected" per function of
# the main thread, in percent.  MEASURED is the workload's line; MODE
# on (CPU time), off (wall - CPU of the functions that block: a spinning
# one's is preemption, which --off-cpu leaves out) or both (wall).
shares() {
	awk -v mode="$3" '
	NR == FNR {
		for (i = 4; i + 2 <= NF; i += 3) {
			w = $(i + 1); c = $(i + 2)
			v = mode == "on" ? c : mode == "off" ? ($i ~ /^spin/ ? 0 : w - c) : w
			want[$i] = v; wsum += v
		}
		next
	}
	{
		n = $NF; total += n
		for (f in want)
			if (index($0, ";run;" f ";") || index($0, ";run;" f " "))
				got[f] += n
	}
	END {
		for (f in want)
			printf "%s %.1f %.1f\n", f, total ? 100 * got[f] / total : 0,
			    wsum ? 100 * want[f] / wsum : 0
	}' "$2" "$1" | sort
}

# within5 SHARES NAMES...: each named function within 5 points.
within5() {
	local s=$1 f
	shift
	for f; do
		awk -v f="$f" '$1 == f { ok = $2 - $3 <= 5 && $3 - $2 <= 5 && $3 > 0 }
		    END { exit !ok }' <<<"$s" || return 1
	done
}

# --- a command ----------------------------------------------------------------
run "$REC" --off-cpu -o "$TMP/oc.spl" -- $W/offcpu 4
check "sp-record --off-cpu -- offcpu 4: exit 0" test "$RC" -eq 0
measured=$(grep '^offcpu wall_ns' <<<"$OUT")
echo "$measured" >"$TMP/measured"
check "the workload measured itself" test -n "$measured"
cost=$(grep -o 'sp-record used [0-9.]* s of CPU' <<<"$ERR" | awk '{ print $3 }')
run "$DUMP" "$TMP/oc.spl"
check "the RECORDING record says off-cpu" grep -q '^recording: .*off-cpu' <<<"$OUT"
sw=$(counter "$TMP/oc.spl" off_cpu_samples)
lost=$(counter "$TMP/oc.spl" lost_events)
unmatched=$(counter "$TMP/oc.spl" off_cpu_unmatched)
check "off-CPU samples written: $sw switches in 4 s ($((sw / 4))/s), sp-record used ${cost:-?} s of CPU ($(awk -v c="${cost:-0}" -v n="$sw" 'BEGIN { printf "%.0f", n ? c * 1e6 / n : 0 }') us a switch, CPU samples included)" \
    test "${sw:-0}" -gt 400
check "no switch lost its switch in ($unmatched), no event lost ($lost)" \
    test "${unmatched:-1}" -eq 0 -a "${lost:-1}" -eq 0
"$SYM" -q -o "$TMP/oc.sym.spl" "$TMP/oc.spl"

"$FOLD" --comm offcpu-main --on-cpu "$TMP/oc.sym.spl" >"$TMP/on.fold"
"$FOLD" --comm offcpu-main --off-cpu "$TMP/oc.sym.spl" >"$TMP/off.fold"
run "$FOLD" --comm offcpu-main "$TMP/oc.sym.spl"
echo "$OUT" >"$TMP/both.fold"
check "by default a spool with off-CPU samples folds both, in nanoseconds, said" \
    test -n "$(grep -F 'counts are nanoseconds' <<<"$ERR")" -a \
    -n "$(grep '^\[off-cpu\];' "$TMP/both.fold")"
check "--on-cpu: no [off-cpu] root, counts are samples" \
    test -z "$(grep -F '[off-cpu]' "$TMP/on.fold")" -a -s "$TMP/on.fold"
on=$(shares "$TMP/on.fold" "$TMP/measured" on)
off=$(shares "$TMP/off.fold" "$TMP/measured" off)
both=$(shares "$TMP/both.fold" "$TMP/measured" both)
echo "on CPU (recorded, measured %):" $on
echo "off CPU:" $off
echo "both:" $both
check "on CPU: spin_a and spin_b within 5 points ($(tr '\n' ' ' <<<"$on"))" \
    within5 "$on" spin_a spin_b
check "off CPU: nap, pipe_wait and lock_wait within 5 points ($(tr '\n' ' ' <<<"$off"))" \
    within5 "$off" nap pipe_wait lock_wait
check "both: every function's share of wall time within 5 points ($(tr '\n' ' ' <<<"$both"))" \
    within5 "$both" spin_a spin_b nap pipe_wait lock_wait
# The blocking calls are the leaves under each function.
check "off CPU, nap blocks in nanosleep, pipe_wait in read, lock_wait in a futex" \
    test -n "$(grep ';nap;.*nanosleep' "$TMP/off.fold")" -a \
    -n "$(grep ';pipe_wait;.*read' "$TMP/off.fold")" -a \
    -n "$(grep ';lock_wait;.*futex\|;lock_wait;.*lock_wait' "$TMP/off.fold")"
# Together the main thread's time adds up to its wall time.
wall=$(awk '{ print $3 }' "$TMP/measured")
sum=$(fold_total "$TMP/both.fold")
check "both: the main thread's nanoseconds ($sum) are its wall time ($wall) within 5 %" \
    awk -v s="$sum" -v w="$wall" 'BEGIN { exit !(w > 0 && s > 0.95 * w && s < 1.05 * w) }'

# --- the outputs ----------------------------------------------------------------
"$FOLD" --off-cpu "$TMP/oc.sym.spl" | "$FLAME" --countname ns >"$TMP/off.svg" 2>"$TMP/flame.err"
check "sp-flame --countname ns: frames say ns" grep -q '<title>nap ([0-9]* ns, ' "$TMP/off.svg"
run "$FOLD" --pprof -o "$TMP/oc.pb.gz" "$TMP/oc.sym.spl"
check "--pprof: exit 0" test "$RC" -eq 0
need go golang-go
if command -v go >/dev/null; then
	export HOME=$TMP PPROF_TMPDIR=$TMP
	go tool pprof -raw "$TMP/oc.pb.gz" >"$TMP/raw" 2>&1
	check "pprof sample types: samples/count, cpu/nanoseconds, off_cpu/nanoseconds" \
	    grep -q 'samples/count cpu/nanoseconds off_cpu/nanoseconds' "$TMP/raw"
	go tool pprof -sample_index=off_cpu -top -nodecount=100000 \
	    "$TMP/oc.pb.gz" >"$TMP/top" 2>"$TMP/pp.err"
	"$FOLD" --off-cpu "$TMP/oc.sym.spl" >"$TMP/offall.fold" 2>/dev/null
	offns=$(fold_total "$TMP/offall.fold")
	napns=$(awk '/;run;nap;/ { n += $NF } END { print n }' "$TMP/offall.fold")
	# -top prints cumulative time in its own unit; the flat share of
	# the total is comparable.
	pnap=$(awk '$NF == "nap" { print $5 }' "$TMP/top" | tr -d '%')
	want=$(awk -v a="$napns" -v b="$offns" 'BEGIN { printf "%.1f", 100 * a / b }')
	check "go tool pprof -sample_index=off_cpu: nap cum ${pnap:-?} %, sp-fold --off-cpu $want %" \
	    awk -v p="${pnap:-x}" -v w="$want" 'BEGIN { exit !(p != "x" && p - w < 0.2 && w - p < 0.2) }'
else
	skip "go tool pprof -sample_index=off_cpu" "go is not installed and could not be (apt-get install golang-go)"
fi
run "$FOLD" --speedscope -o "$TMP/oc.json" "$TMP/oc.sym.spl"
check "--speedscope: exit 0" test "$RC" -eq 0
scope=$(python3 - "$TMP/oc.json" "$TMP/off.fold" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
off = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]) if not l.startswith("#"))
# The main thread's: its tid is the pid.  (The helper thread is named
# offcpu-main too until it renames itself, and on a loaded machine it
# may go off CPU before that: a profile of its own, tid not the pid.)
def main_thread(p):
    m = re.search(r"\(pid (\d+), tid (\d+)\)", p["name"])
    return p["name"].startswith("offcpu-main") and m is not None and m.group(1) == m.group(2)
ps = [p for p in d["profiles"] if main_thread(p) and p["name"].endswith("off-CPU")]
# (Its time preempted, on a loaded machine, is a profile of its own.)
on = [p for p in d["profiles"] if main_thread(p) and not p["name"].endswith("off-CPU")
      and not p["name"].endswith(" preempted")]
# The weights of every thread named offcpu-main, as --comm folds them.
w = sum(sum(p["weights"]) for p in d["profiles"]
        if p["name"].startswith("offcpu-main") and p["name"].endswith("off-CPU"))
ok = len(ps) == 1 and len(on) == 1 and ps[0]["unit"] == "nanoseconds" and \
    ps[0]["startValue"] <= ps[0]["endValue"] and \
    len(ps[0]["samples"]) == len(ps[0]["weights"])
print("ok" if ok else "bad", len(ps), len(on), w, off)
EOF
)
check "speedscope: offcpu-main's main thread has a CPU profile and an off-CPU one, offcpu-main's weigh its off-CPU nanoseconds ($scope)" \
    awk '{ exit !($1 == "ok" && $4 == $5 && $4 > 0) }' <<<"$scope"
# Chrome's trace format: the main thread's track spends in nap what the
# folded stacks count (whole microseconds there).
"$FOLD" --chrome-trace --comm offcpu-main -o "$TMP/oc.trace.json" "$TMP/oc.sym.spl" 2>/dev/null
napf=$(awk '/;run;nap;/ { n += $NF } END { printf "%.0f", n / 1000 }' "$TMP/both.fold")
napt=$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(e["dur"] for e in ev if e["ph"] == "X" and e["name"] == "nap"))' "$TMP/oc.trace.json")
offt=$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(e["dur"] for e in ev if e["ph"] == "X" and e.get("cat") == "off-cpu"))' "$TMP/oc.trace.json")
offf=$(awk '/^\[off-cpu\];/ { n += $NF } END { printf "%.0f", n / 1000 }' "$TMP/both.fold")
check "--chrome-trace: nap spans last ${napt:-?} us, the folded nap ${napf} us (within 2 %)" \
    awk -v a="${napt:-0}" -v b="$napf" 'BEGIN { exit !(b > 0 && a > 0.98 * b && a < 1.02 * b) }'
check "--chrome-trace: [off-cpu] spans last ${offt:-?} us, the folded off-CPU time ${offf} us (within 2 %)" \
    awk -v a="${offt:-0}" -v b="$offf" 'BEGIN { exit !(b > 0 && a > 0.98 * b && a < 1.02 * b) }'

schema=$(speedscope_schema)
if [ -n "$schema" ] && python3 -c 'import jsonschema' 2>/dev/null; then
	run python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	    "$schema" "$TMP/oc.json"
	check "valid by speedscope's file-format-schema.json" test "$RC" -eq 0
else
	skip "speedscope schema" "speedscope (npm) could not be installed, or python3-jsonschema is not (apt-get install python3-jsonschema)"
fi
# In speedscope itself: the off-CPU profiles load beside the CPU ones.
PW=$PWD/build/node_modules/playwright-core
if [ -n "${NO_BROWSER:-}" ]; then
	skip "off-CPU profiles in speedscope in a browser" "NO_BROWSER is set (the ASan run of this script)"
elif [ -z "$schema" ] || ! command -v node >/dev/null || ! need chromium chromium ||
    { [ ! -d "$PW" ] && ! (flock 9 && timeout 120 npm install --prefix build \
    --no-audit --no-fund playwright-core >"$TMP/npm.log" 2>&1) 9>build/.npm.lock; }; then
	skip "off-CPU profiles in speedscope in a browser" "node, chromium, speedscope or playwright-core is missing and could not be installed"
else
	read -r first nprof < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["profiles"]
print(d[0]["name"].split(" (")[0], len(d))' "$TMP/oc.json")
	timeout 90 node tests/cli/fold/speedscope-browser.js "$PW" \
	    "$PWD/${schema%/*}/index.html" "$PWD/$TMP/oc.json" oc.sym.spl \
	    "$first" "$nprof" "$PWD/$TMP" || echo "(browser check exit status $?)"
	echo "screenshot: $TMP/speedscope.png"
fi

# --- attached with -p -------------------------------------------------------------
# The workload measures from SIGUSR1 (just before the attach) to SIGTERM
# (just after the recording): the windows differ by the attach's
# milliseconds, which shares do not feel.
$W/offcpu 60 >"$TMP/attached.out" &
op=$!
running $op $W/offcpu
sleep 0.2
kill -USR1 $op
run "$REC" --off-cpu -p $op -d 3 -o "$TMP/p.spl"
check "sp-record --off-cpu -p PID -d 3: exit 0" test "$RC" -eq 0
kill -TERM $op 2>/dev/null
wait $op 2>/dev/null
"$SYM" -q -o "$TMP/p.sym.spl" "$TMP/p.spl"
"$FOLD" --comm offcpu-main --off-cpu "$TMP/p.sym.spl" >"$TMP/p.fold"
off=$(shares "$TMP/p.fold" "$TMP/attached.out" off)
check "-p: off CPU, nap, pipe_wait and lock_wait within 5 points ($(tr '\n' ' ' <<<"$off"))" \
    within5 "$off" nap pipe_wait lock_wait

# --- spools without off-CPU samples --------------------------------------------------
"$REC" -q -o "$TMP/cpu.spl" -- $W/offcpu 1 >/dev/null
run "$DUMP" "$TMP/cpu.spl"
check "without --off-cpu: no off-cpu flag, no off-CPU sample" \
    test -z "$(grep '^recording: .*off-cpu' <<<"$OUT")" -a -z "$(grep 'off CPU' <<<"$OUT")"
run "$FOLD" --off-cpu "$TMP/cpu.spl"
check "sp-fold --off-cpu of such a spool: says how to record them" \
    test "$RC" -eq 0 -a -n "$(grep -F 'sp-record --off-cpu' <<<"$ERR")"
done_testing
