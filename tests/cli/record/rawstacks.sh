#!/usr/bin/env bash
# The offline unwinding harness: sp-record --raw-stacks keeps each sample's
# registers and stack bytes; build/glibc/unwreplay unwinds them again
# without the process and must find exactly the frames the recorder wrote.
. "$(dirname "$0")/../lib.bash"
REPLAY=build/glibc/unwreplay

val() { grep "^$1=" <<<"$OUT" | cut -d= -f2; }

run $REC --raw-stacks -o "$TMP/plain.spl" -- $W/tree-O2 300
check "--raw-stacks records" test "$RC" -eq 0
run $DUMP --stats --json "$TMP/plain.spl"
s=$(grep -o '"samples":[0-9]*' <<<"$OUT" | head -1 | cut -d: -f2)
r=$(grep -o '"rawstack":{"count":[0-9]*' <<<"$OUT" | grep -o '[0-9]*$')
# Not for a sample without user registers: one in the kernel's exec, whose
# registers are still the old image's, has none (unwind_no_regs).
nr=$(counter "$TMP/plain.spl" unwind_no_regs)
check "one raw stack per sample with user registers ($r for $s samples, ${nr:-0} without)" \
    test "${r:-0}" -eq "$(( ${s:-1} - ${nr:-0} ))"
run $DUMP --check "$TMP/plain.spl"
check "a spool with raw stacks checks clean" has "finished" "$OUT"
run $REC -q -o "$TMP/none.spl" -- $W/tree-O2 100
run $DUMP --stats --json "$TMP/none.spl"
check "without the option there are none" \
    test "$(grep -c '"rawstack"' <<<"$OUT")" -eq 0

# With --off-cpu, a switch's sample is written at its switch in: raw
# stacks are of CPU samples only, each after its own sample.
run $REC -q --off-cpu --raw-stacks -o "$TMP/off.spl" -- $W/offcpu 1 4
s=$(counter "$TMP/off.spl" samples) o=$(counter "$TMP/off.spl" off_cpu_samples)
run $DUMP --stats --json "$TMP/off.spl"
r=$(grep -o '"rawstack":{"count":[0-9]*' <<<"$OUT" | grep -o '[0-9]*$')
# (The first "samples" sp-dump --stats gives counts SAMPLE records,
# switches among them.)
cpu=$(( ${s:-0} - ${o:-0} ))
check "--off-cpu: one raw stack per CPU sample, none per switch ($r for $cpu CPU samples and $o switches)" \
    test "${r:-0}" -le "$cpu" -a "${r:-0}" -ge "$(( cpu * 99 / 100 ))" -a "${o:-0}" -gt 0 -a "$cpu" -gt 0
run $REPLAY "$TMP/off.spl"
check "--off-cpu: the replay finds the recorded frames ($(val equal) of $(val samples))" \
    test "$(val samples)" -gt 50 -a "$(val equal)" = "$(val samples)"

# Each workload: the replay equals the recording, sample by sample.
# (Of their CPU time where they can: under load, 300 ms of the clock gave
# tree 37 samples.  THREADS_CPU_SPIN: threads' too.)
export THREADS_CPU_SPIN=1
for w in "tree-O2 300 cpu" "threads-O2 2 300" "sigspin 300" "asmleaf 20000" \
    "recurse 200 300c" "jit 600" "tree 300 cpu"; do
	set -- $w
	name=$1
	run $REC -q -s 16384 --raw-stacks -o "$TMP/$name.spl" -- $W/$w
	run $REPLAY "$TMP/$name.spl"
	s=$(val samples) e=$(val equal) c=$(val complete)
	check "$name: replayed samples ($s)" test "${s:-0}" -gt 50
	if [ "$name" = jit ]; then
		# Offline there is no JIT code to analyse, so the leaf's
		# caller comes from the frame pointer: not equal, but the
		# walk still completes.
		ns=$(val no_stack)
		check "$name: replays complete ($c of $s; $ns with no stack copied)" \
		    test "$(((c + ns) * 100))" -ge "$((s * 99))"
		continue
	fi
	check "$name: the replay finds the recorded frames ($e of $s)" \
	    test "${e:-0}" -eq "$s"
	# A sample the kernel copied no stack for (one in a page fault, as
	# ld.so maps libraries or stdio first writes) cannot be unwound;
	# the recorder counts it apart, and so does the replay.
	ns=$(val no_stack)
	check "$name: at least 99% complete ($c of $s; $ns with no stack copied, as the recorder counted $(counter "$TMP/$name.spl" unwind_no_stack))" \
	    test "$(((c + ns) * 100))" -ge "$((s * 99))" -a \
	    "$ns" = "$(counter "$TMP/$name.spl" unwind_no_stack)"
done
run $REPLAY -p 2 "$TMP/tree-O2.spl"
warm=$(val cache_hits) cold=$(val first_pass_cache_hits)
# Within one process (the cache's slots depend on table addresses): the
# rows of the first pass serve the second.  A direct-mapped cache loses
# some rows to collisions, so not every step hits.
check "a warm pass is served from the row cache ($warm vs $cold hits of $(val cfi_steps) steps)" \
    test "$warm" -ge "$cold" -a "$((warm * 100))" -ge "$(( $(val cfi_steps) * 75 ))"
run $REPLAY "$TMP/nonexistent.spl"
check "the harness names a missing spool" has "nonexistent.spl" "$ERR"
done_testing
