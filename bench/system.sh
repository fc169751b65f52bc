#!/usr/bin/env bash
# bench/system.sh: recording the whole machine, sp-record -a next to perf
# record -a, on a busy host: tree (one thread, not started by the
# recorder) beside a service that starts RATE processes a second (churn
# spawn: fork and exec of a dynamically linked binary).  For each recorder:
# its CPU time (user + system, per sample), peak RSS, output bytes per
# sample.  REPS rounds (default 3), interleaved; medians.  See README.md.
#
#   bash bench/system.sh                  # ~1 minute on 2 cores
#   REPS=5 SECS=5 RATE=300 bash bench/system.sh
set -u
cd "$(dirname "$0")/.." || exit 1
die() { echo "bench/system: $*" >&2; exit 1; }
note() { echo "bench/system: $*" >&2; }
. bench/lib.bash
REPS=${REPS:-3} SECS=${SECS:-4} RATE=${RATE:-300}
W=build/tests
T=$(mktemp -d /tmp/sp-bench-system.XXXXXX)
trap 'rm -rf "$T"' EXIT
[ -x build/bin/sp-record ] && [ -x $W/churn ] || die "build first: ./configure.sh && ninja"
need_perf
need /usr/bin/time time || die "GNU time is missing: apt-get install time"

# one NAME CMD...: records SECS seconds of the busy machine with CMD, an
# argument OUT standing for its output file.
one() {
	local name=$1 out=$T/$1.data a args=()
	shift
	for a in "$@"; do [ "$a" = OUT ] && args+=("$out") || args+=("$a"); done
	$W/tree-O2 $(( (SECS + 3) * 1000 )) 2>/dev/null & local tp=$!
	$W/churn spawn "$RATE" $((SECS + 2)) $W/tree-gcc-O2-pie 0 >/dev/null 2>&1 & local cp=$!
	sleep 0.5
	/usr/bin/time -f "%U %S %M" -o "$T/time" "${args[@]}" >/dev/null 2>"$T/err"
	kill $tp $cp 2>/dev/null; wait $tp $cp 2>/dev/null
	read -r u s m <"$T/time"
	[ "${name%%-*}" = sp ] && n=$(rec_count sp "$out" samples) || n=$(rec_count perf "$out" SAMPLE)
	echo "$name $u $s $m $(stat -c %s "$out") ${n:-0}" >>"$T/rows"
	rm -f "$out"
}

note "$REPS rounds of $SECS s at $RATE processes a second, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
	one sp build/bin/sp-record -q -a -d "$SECS" -o OUT
	one perf-fp perf record -q -a -e cpu-clock -F 1000 -g -o OUT -- sleep "$SECS"
	one perf-dwarf perf record -q -a -e cpu-clock -F 1000 --call-graph dwarf -o OUT -- sleep "$SECS"
done
printf '%-11s %9s %12s %10s %10s %9s\n' recorder cpu_s us/sample rss_MiB bytes/smp samples
for name in sp perf-fp perf-dwarf; do
	awk -v n="$name" '$1 == n { c[++k] = $2 + $3; us[k] = ($6 > 0) ? 1e6 * ($2 + $3) / $6 : 0
		m[k] = $4 / 1024; b[k] = ($6 > 0) ? $5 / $6 : 0; s[k] = $6 }
	function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((k + 1) / 2)] }
	END { if (k) printf "%-11s %9.2f %12.1f %10.1f %10.1f %9d\n", n, med(c, k), med(us, k),
		med(m, k), med(b, k), med(s, k) }' "$T/rows"
done
note "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
