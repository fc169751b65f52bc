#!/usr/bin/env bash
# sp-record -a, every process on the machine: a workload sp-record did not
# start (tree, 3:2 between leaf_a and leaf_b) is named with its split
# while 300 processes a second start and exit beside it (churn spawn);
# every sample's frames are in modules of its own process (no sample
# misattributed); the short-lived processes are followed; -a -- CMD ends
# with CMD; -a with -p is refused.  The cost (CPU per sample, peak memory)
# is in the PASS lines.  tests/cli/record/unpriv.sh checks -a as a normal user.
# asan: REC=build/asan/sp-record/sp-record
. "$(dirname "$0")/../lib.bash"
REC=${REC:-$BIN/sp-record} SYM=$BIN/sp-sym FOLD=$BIN/sp-fold DUMP=$BIN/sp-dump

run "$REC" --help
check "--help names -a, --all-cpus" has "-a, --all-cpus" "$OUT"
check "the man page explains -a" grep -qF 'all\-cpus' sp-record/sp-record.1
run "$REC" -a -p 1
check "-a with -p: exit 2, -p is not needed" \
    test "$RC" -eq 2 -a -n "$(grep -F -- '-a records every process' <<<"$ERR")"

# A workload that sp-record did not start, and a service that starts 300
# short processes a second (each an exec of a dynamically linked binary).
$W/tree-O2 8000 2>/dev/null &
tp=$!
$W/churn spawn 300 7 $W/tree-gcc-O2-pie 0 >"$TMP/spawn.out" 2>/dev/null &
cp=$!
running $tp $W/tree-O2
run "$REC" -a -d 3 -o "$TMP/a.spl"
check "sp-record -a -d 3: exit 0" test "$RC" -eq 0
cost=$(grep -o 'sp-record used .*' <<<"$ERR")
check "the summary says what recording cost ($cost)" \
    grep -q 'sp-record used [0-9.]* s of CPU ([0-9]* us a sample), [0-9.]* MiB at most' <<<"$cost"
kill $tp $cp 2>/dev/null
wait $tp $cp 2>/dev/null
run "$DUMP" "$TMP/a.spl"
check "the RECORDING record says system-wide" \
    grep -q '^recording: .*system-wide' <<<"$OUT"
"$SYM" -o "$TMP/a.sym.spl" "$TMP/a.spl" 2>"$TMP/sym.err"
"$FOLD" --per-process --modules "$TMP/a.sym.spl" >"$TMP/a.fold"

# tree's stacks: those whose root (the process, --per-process) is tree-O2-PID.
a=$(fold_count "$TMP/a.fold" "^tree-O2-$tp;.*\`leaf_a")
b=$(fold_count "$TMP/a.fold" "^tree-O2-$tp;.*\`leaf_b")
main=$(fold_count "$TMP/a.fold" "^tree-O2-$tp;.*tree-O2\`main;")
read -r all start < <(reach_start "$TMP/a.fold" "^tree-O2-$tp(;|\$)" '[^; ]*;[^; ]*`')
if [ $((a + b)) -lt 150 ]; then
	skip "tree's split under -a" "$((a + b)) samples of tree in 3 s: the machine is too busy to judge a split"
else
	check "tree, not started by sp-record, is named with its 3:2 split ($a leaf_a, $b leaf_b)" \
	    split_ok "$a" "$b"
fi
check "tree's stacks are whole: main in $main of $all" \
    awk -v m="$main" -v n="$all" 'BEGIN { exit !(n > 0 && m >= 0.95 * n) }'
check "and reach _start through libc: $start of $all" \
    awk -v m="$start" -v n="$all" 'BEGIN { exit !(n > 0 && m >= 0.95 * n) }'

# Misattribution: a frame module`name under the root comm-PID must name a
# module that PID mapped (sp-dump's MODULE records), or one it inherited
# at its fork (a child that has not exec'd yet runs its parent's code in
# its parent's MODULEs), or the kernel.
# An anonymous mapping (JIT code) has no path: its frames are [anon]'s.
# A name may hold spaces, and a newline, which the JSON writes \u000a and
# the folded stacks \n (another suite's dlpaths maps "b\nnewline.so").
"$DUMP" --json "$TMP/a.spl" | grep '"kind":"module"' |
    sed -n -e 's/.*"pid":\([0-9]*\),.*"path":"\([^"]*\)".*/\1 \2/p' \
    -e 's/.*"pid":\([0-9]*\),.*"path":null.*/\1 [anon]/p' |
    awk '{ path = substr($0, length($1) + 2); gsub(/\\u000a/, "\\n", path)
	n = split(path, p, "/"); print $1, p[n] }' | sort -u >"$TMP/mods"
"$DUMP" "$TMP/a.spl" | sed -n 's/^fork [0-9.]* pid \([0-9]*\) tid [0-9]* (other \([0-9]*\)\/.*/\1 \2/p' |
    awk '$1 != $2' >"$TMP/parents"
awk 'FILENAME == ARGV[1] { ok[$0] = 1; next }
    FILENAME == ARGV[2] { par[$1] = $2; next }
    { k = split($1, f, ";"); pid = f[1]; sub(/.*-/, "", pid)
      for (i = 2; i <= k; i++) {
	j = index(f[i], "`"); if (j == 0) continue
	m = substr(f[i], 1, j - 1)
	if (m ~ /^\[kernel/) continue
	p = pid; d = 0
	while (p != "" && d < 64 && !((p " " m) in ok)) {
		p = (p in par) ? par[p] : ""; d++
	}
	if (p != "" && d < 64) continue
	bad++; if (bad <= 3) print "pid " pid ": " m " in " $1 > "/dev/stderr"
      } }
    END { print bad + 0 }' "$TMP/mods" "$TMP/parents" "$TMP/a.fold" >"$TMP/bad" 2>"$TMP/bad.why"
lines=$(wc -l <"$TMP/a.fold")
check "no sample is misattributed: every module a stack names is its own process's ($(cat "$TMP/bad") of $lines stacks not; $(head -1 "$TMP/bad.why"))" \
    test "$(cat "$TMP/bad")" -eq 0

# The short-lived processes: followed from their FORK, named at exec.
forks=$("$DUMP" "$TMP/a.spl" | grep -c "^fork [0-9.]* pid [0-9]* tid [0-9]* (other $cp/")
kids=$(grep -c '^tree-gcc-O2-pi' "$TMP/a.fold")
gone=$(counter "$TMP/a.spl" gone_process_samples)
s=$(counter "$TMP/a.spl" samples)
check "the service's short processes are followed: $forks forks of churn, $kids stacks named tree-gcc-O2-pie" \
    test "$forks" -ge 150 -a "$kids" -gt 0
check "samples of processes gone before they were read: ${gone:-?} of $s (under 1 %)" \
    awk -v g="${gone:-x}" -v s="$s" 'BEGIN { exit !(g ~ /^[0-9]+$/ && g * 100 <= s) }'
# They map libc after other processes' walks read its CFI: their stacks
# through main still reach _start (libc has no frame pointers).
read -r inmain whole < <(reach_start "$TMP/a.fold" '^tree-gcc-O2-pi.*`main;' '[^; ]*;[^; ]*`')
check "and their stacks through main reach _start: $whole of $inmain" \
    awk -v w="$whole" -v n="$inmain" 'BEGIN { exit !(n > 0 && w >= 0.95 * n) }'

# -a -- CMD: the command times the recording.
t0=$(date +%s.%N)
run "$REC" -a -o "$TMP/cmd.spl" -- sleep 1
t1=$(date +%s.%N)
check "-a -- sleep 1: exit 0, ends with the command ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }'))" \
    awk -v rc="$RC" -v a="$t0" -v b="$t1" 'BEGIN { exit !(rc == 0 && b - a < 10) }'
check "and its spool reads back" "$DUMP" --check "$TMP/cmd.spl"
# -C LIST, perf's: events on those CPUs only.  Alone (a command only
# times it) every process on them; with -p a target while it runs there.
# Each workload is pinned with taskset, so where its samples fall is
# known whatever the scheduler does.
ncpu=$(nproc)
if [ "$ncpu" -lt 2 ] || ! command -v taskset >/dev/null; then
	skip "-C" "one CPU, or no taskset: nothing to tell CPUs apart"
else
	run "$REC" -C 1 -o "$TMP/c1.spl" -- taskset -c 1 $W/tree-O2 300
	check "-C 1 -- CMD pinned to CPU 1: exit 0" test "$RC" -eq 0
	cpus=$($DUMP "$TMP/c1.spl" | awk '/^sample / { for (i = 1; i <= NF; i++)
	    if ($i == "cpu") c[$(i + 1)]++ } END { for (k in c) printf "%s%d ", k, c[k] }')
	check "-C 1: every sample was taken on CPU 1 ($cpus)" \
	    eval '[ -n "$cpus" ] && ! grep -qv "^1:" <<<"$(tr " " "\n" <<<"$cpus" | grep .)"'
	check "-C 1: the pinned command is sampled ($(sample_pids "$TMP/c1.spl" | wc -l) pids)" \
	    test "$($FOLD "$TMP/c1.spl" 2>/dev/null | grep -c 'tree-O2')" -gt 0
	taskset -c 0 $W/tree-O2 3000 2>/dev/null &
	p0=$!
	running $p0 $W/tree-O2
	run "$REC" -C 1 -p $p0 -d 1 -o "$TMP/cp.spl"
	check "-p PID -C 1, PID pinned to CPU 0: no sample of it ($(counter "$TMP/cp.spl" samples))" \
	    test "$RC" -eq 0 -a "$(counter "$TMP/cp.spl" samples)" -eq 0
	run "$REC" -C 0 -p $p0 -d 1 -o "$TMP/cp0.spl"
	check "-p PID -C 0: sampled there ($(counter "$TMP/cp0.spl" samples))" \
	    test "$RC" -eq 0 -a "$(counter "$TMP/cp0.spl" samples)" -gt 100
	kill $p0 2>/dev/null; wait $p0 2>/dev/null
fi
run "$REC" -C 4095 -d 1 -o "$TMP/cx.spl"
check "-C with a CPU not online: exit 2, named" \
    test "$RC" -eq 2 -a -n "$(grep -F 'CPU 4095 is not online' <<<"$ERR")"
run "$REC" -C 1-0 -d 1 -o "$TMP/cx.spl"
check "-C 1-0: exit 2, said" test "$RC" -eq 2 -a -n "$(grep -F 'not a list of CPUs' <<<"$ERR")"
done_testing
