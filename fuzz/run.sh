#!/usr/bin/env bash
# Runs the libFuzzer targets that `ninja fuzz` built, each for SECONDS,
# FUZZ_JOBS of them at a time (default: the CPUs), and prints each
# target's executions and new coverage; exits 1 at the first crash, leak
# or timeout, after printing its log's end.  New inputs go to a scratch
# directory, build/fuzz/work-T; the seed corpus fuzz/corpus/T is read
# only.  A crashing input is left at build/fuzz/T-crash-*: copy it into
# fuzz/corpus/T once it is fixed.
#   bash fuzz/run.sh SECONDS [TARGET...]    (.ci/run: 40; ninja fuzz-long: 600)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
jobs=${FUZZ_JOBS:-$(nproc)}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for bin in build/fuzz/fuzz-*; do targets+=("${bin##*/fuzz-}"); done
fi
[ -x "build/fuzz/fuzz-${targets[0]}" ] || { echo "fuzz: build/fuzz/fuzz-${targets[0]}: run ninja fuzz first" >&2; exit 2; }

one() {
	local t=$1 work=build/fuzz/work-$1
	rm -rf "$work" && mkdir -p "$work"
	"build/fuzz/fuzz-$t" -max_total_time="$secs" -print_final_stats=1 \
	    -artifact_prefix="build/fuzz/$t-" "$work" "fuzz/corpus/$t" \
	    >"build/fuzz/$t.log" 2>&1
}

failed=0
running=0
for t in "${targets[@]}"; do
	echo "fuzz $t: ${secs}s"
	one "$t" &
	pids[$!]=$t
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n -p done_pid
		rc=$?
		running=$((running - 1))
		[ "$rc" -eq 0 ] || { failed=1; bad=${pids[$done_pid]}; break; }
	fi
done
while [ "$failed" -eq 0 ] && [ "$running" -gt 0 ]; do
	wait -n -p done_pid
	rc=$?
	running=$((running - 1))
	[ "$rc" -eq 0 ] || { failed=1; bad=${pids[$done_pid]}; }
done
if [ "$failed" -ne 0 ]; then
	kill $(jobs -p) 2>/dev/null
	wait
	tail -40 "build/fuzz/$bad.log"
	echo "fuzz $bad: FAILED (see build/fuzz/$bad.log)"
	exit 1
fi
for t in "${targets[@]}"; do
	printf 'fuzz %-10s %s runs, %s coverage features\n' "$t" \
	    "$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$t.log")" \
	    "$(grep -o 'ft: [0-9]*' "build/fuzz/$t.log" | tail -1 | cut -d' ' -f2)"
done
