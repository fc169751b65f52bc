#!/usr/bin/env bash
# bench/offcpu.sh: what sp-record --off-cpu costs, next to perf recording
# the same switches (perf record -e context-switches -c 1, with frame
# pointers -g and with --call-graph dwarf: the stacks at each switch, as
# sp-record takes them; perf's own --off-cpu needs a perf built with BPF
# skeletons, which Debian's is not).  The workload is tests/workloads/offcpu
# at DIVISORS (1: ~430 switches a second of its threads, 10: ~4,000,
# 50: ~15,000).  For each recorder and rate: switches recorded a second,
# its CPU time per switch (user + system, CPU samples included; the
# workload runs already and is attached with -p), peak RSS,
# output bytes per switch, events lost.  REPS rounds (default 3),
# interleaved; medians.  See README.md.
#
#   bash bench/offcpu.sh                 # ~1.5 minutes on 2 cores
#   REPS=5 SECS=5 DIVISORS="1 10 50" bash bench/offcpu.sh
set -u
cd "$(dirname "$0")/.." || exit 1
die() { echo "bench/offcpu: $*" >&2; exit 1; }
note() { echo "bench/offcpu: $*" >&2; }
. bench/lib.bash
REPS=${REPS:-3} SECS=${SECS:-4} DIVISORS=${DIVISORS:-1 10 50}
W=build/tests
T=$(mktemp -d /tmp/sp-bench-offcpu.XXXXXX)
trap 'rm -rf "$T"' EXIT
[ -x build/bin/sp-record ] && [ -x $W/offcpu ] || die "build first: ./configure.sh && ninja"
need_perf
need /usr/bin/time time || die "GNU time is missing: apt-get install time"

# one NAME DIVISOR CMD...: records SECS of offcpu at DIVISOR, running
# already (so that the times are the recorder's alone), with CMD, an
# argument OUT standing for its output file and PID for offcpu's pid.
one() {
	local name=$1 div=$2 out=$T/$1.data a args=() op
	shift 2
	$W/offcpu $((SECS + 2)) "$div" >/dev/null & op=$!
	sleep 0.5
	for a in "$@"; do
		case $a in OUT) args+=("$out") ;; PID) args+=("$op") ;; *) args+=("$a") ;; esac
	done
	/usr/bin/time -f "%U %S %M" -o "$T/time" "${args[@]}" >/dev/null 2>"$T/err"
	kill $op 2>/dev/null; wait $op 2>/dev/null
	read -r u s m <"$T/time"
	if [ "$name" = sp ]; then
		n=$(rec_count sp "$out" off_cpu_samples) l=$(rec_count sp "$out" lost_events)
	else
		n=$(rec_count perf "$out" SAMPLE) l=$(rec_count perf "$out" LOST)
	fi
	echo "$name $div $u $s $m $(stat -c %s "$out") ${n:-0} ${l:-0}" >>"$T/rows"
	rm -f "$out"
}

note "$REPS rounds of $SECS s at divisors $DIVISORS, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
	for d in $DIVISORS; do
		one sp "$d" build/bin/sp-record -q --off-cpu -d "$SECS" -o OUT -p PID
		one perf-fp "$d" perf record -q -e context-switches -c 1 -g -o OUT \
		    -p PID -- sleep "$SECS"
		one perf-dwarf "$d" perf record -q -e context-switches -c 1 \
		    --call-graph dwarf -o OUT -p PID -- sleep "$SECS"
	done
done
printf '%-11s %4s %10s %9s %12s %8s %12s %7s\n' recorder div switches/s cpu_s us/switch rss_MiB bytes/switch lost
for d in $DIVISORS; do
	for name in sp perf-fp perf-dwarf; do
		awk -v n="$name" -v d="$d" -v secs="$SECS" '$1 == n && $2 == d {
			c[++k] = $3 + $4; m[k] = $5 / 1024; sw[k] = $7 / secs
			us[k] = ($7 > 0) ? 1e6 * ($3 + $4) / $7 : 0
			b[k] = ($7 > 0) ? $6 / $7 : 0; l[k] = $8 }
		function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((k + 1) / 2)] }
		END { if (k) printf "%-11s %4d %10.0f %9.2f %12.1f %8.1f %12.1f %7d\n", n, d,
			med(sw, k), med(c, k), med(us, k), med(m, k), med(b, k), med(l, k) }' "$T/rows"
	done
done
note "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
