#!/usr/bin/env bash
# bench/record.sh: the cost of recording, sp-record next to perf record
# (issue 15, "Recorder cost").
#
# A benchmark, not a test: it prints measurements, and verdicts on the
# issue's targets, and never fails on them.  Three workloads (WORKLOADS),
# each built -O2 -fomit-frame-pointer by ninja (tests/build.ninja):
#   tree15    recurse 10       one thread, samples 15 frames deep
#   threads8  threads-O2 8     8 busy threads, 3 frames each
#   deep200   recurse 200      one thread, samples 205 frames deep
# each spinning for MS ms of wall time, run unprofiled, under sp-record,
# perf record --call-graph fp and perf record --call-graph dwarf (8 KiB
# stack dumps; its perf script timed too), at each rate in RATES.  REPS
# rounds, interleaved so that noise on a shared machine spreads over all
# columns; every column is the median over the rounds.  Per workload: the
# table, the marginal recorder CPU per extra sample between rates, the
# ratios perf / sp-record and a verdict line on the issue's targets.
# Table on stdout and in build/bench/record.txt.  Knobs (environment):
# MS=1000 REPS=3 RATES="1000 10000 20000" WORKLOADS="tree15 threads8 deep200"
# (also java and node, the JIT runtimes of issue 28: tests/workloads/
# Osr.java on two threads under OpenJDK with -XX:+PreserveFramePointer, its
# loops replaced on the stack; tests/workloads/spin.js under node
# --perf-basic-prof, whose map is removed after each run)
# CONFIGS="sp sp--no-jitter sp--call-graph=fp fp dwarf" (sp--no-jitter:
# the sampling intervals fixed, as perf's, so that the jitter's cost is
# the difference with sp, printed per rate below each table;
# sp--call-graph=fp: the kernel's frame-pointer walks, no stack copy, the
# cheapest mode, next to perf's fp; the workloads keep no frame pointers,
# so both walk short: the cost is what it measures); spOPTION adds a configuration of sp-record with
# that option: CONFIGS="sp sp-s32768 fp" sets the default copy size against
# a fixed one; the verdicts read sp, the default).  CONFIGS="sp old fp" with SP_OLD=PATH
# adds the sp-record at PATH, built from another commit: a change to the
# recorder measured before and after in one interleaved run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MS=${MS:-1000} REPS=${REPS:-3} RATES=${RATES:-"1000 10000 20000"}
WORKLOADS=${WORKLOADS:-"tree15 threads8 deep200"}
BIN=build/bin W=build/tests OUTDIR=build/bench
die() { echo "bench/record.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash

# wl_args NAME: the workload's program in $W and its arguments.
wl_args() {
	case $1 in
	tree15) echo "recurse 10 $MS" ;;
	threads8) echo "threads-O2 8 $MS" ;;
	deep200) echo "recurse 200 $MS" ;;
	java) echo "java -XX:+PreserveFramePointer -cp ${T:-}/bin Osr $MS 2" ;;
	node) echo "node --perf-basic-prof --no-logfile-per-isolate --logfile=${T:-}/v8.log $PWD/tests/workloads/spin.js $MS" ;;
	*) die "unknown workload '$1' (WORKLOADS: tree15 threads8 deep200 java node)" ;;
	esac
}
wl_desc() {
	case $1 in
	tree15) echo "one thread, 15 frames a sample: bottom, 10 down, main, 2 in libc, _start" ;;
	threads8) echo "8 spinning threads on $(nproc) CPUs, 3 frames a sample" ;;
	deep200) echo "one thread, 205 frames a sample" ;;
	java) echo "OpenJDK, 2 threads in OSR'd loops, interpreted and compiled frames, -XX:+PreserveFramePointer" ;;
	node) echo "node --perf-basic-prof, one thread in V8's JIT code" ;;
	esac
}
# The issue's CPU target: recorder CPU per sample for a 15-frame stack (and
# so for threads8's 3 frames), for a 200-frame stack.
wl_cpu_target() { case $1 in deep200|java|node) echo 10 ;; *) echo 3 ;; esac; }

# --- prerequisites -------------------------------------------------------------
[[ -x $BIN/sp-record && -x $BIN/sp-dump && -x $W/recurse && -x $W/threads-O2 ]] ||
    die "$BIN/sp-record, sp-dump, $W/recurse or threads-O2 is missing: run ./configure.sh && ninja"
for wl in $WORKLOADS; do wl_args "$wl" >/dev/null; done
[[ " ${CONFIGS:-} " != *" old "* || -x ${SP_OLD:-} ]] ||
    die "CONFIGS has old: set SP_OLD to the path of the other sp-record"
[[ $MS =~ ^[1-9][0-9]*$ && $REPS =~ ^[1-9][0-9]*$ ]] || die "MS and REPS are positive integers"
need_perf
CC=${CC:-cc}
have "$CC" || die "$CC is missing (it builds two helpers): apt-get install gcc"
MAXRATE_FILE=/proc/sys/kernel/perf_event_max_sample_rate
[[ -r $MAXRATE_FILE ]] || die "$MAXRATE_FILE is unreadable: no perf_event support?"

# --- rates --------------------------------------------------------------------------
# A rate above the kernel's maximum runs at the maximum; the table says so.
# cap RATE: the rate a requested RATE runs at.
MAX0=$(cat $MAXRATE_FILE) NOTES=()
cap() { echo $(( $1 < MAX0 ? $1 : MAX0 )); }
for r in $RATES; do
	[[ $r =~ ^[1-9][0-9]*$ ]] || die "RATES: '$r' is not a rate in Hz"
	(( r <= MAX0 )) || NOTES+=("rate $r Hz capped to perf_event_max_sample_rate = $MAX0")
done
RUN_RATES=$(for r in $RATES; do cap "$r"; done | sort -nu | tr '\n' ' ')
TOP_RATE=${RUN_RATES% }; TOP_RATE=${TOP_RATE##* }

# --- scratch space --------------------------------------------------------------
# tmpfs when it has room, so that neither profiler waits on the disk (perf
# dwarf writes ~8.5 KB a sample: 170 MB/s per busy CPU at 20 kHz).  What
# runs from here on runs with HOME=$T: perf's build-id cache (~/.debug)
# stays in here, is removed with it, and no ~/.perfconfig applies (git,
# which may need ~/.gitconfig, has run before).
need_kb=$(( TOP_RATE * $(nproc) * MS * 9 / 1000 + 65536 ))
if [[ -w /dev/shm ]] && (( $(df -Pk /dev/shm | awk 'NR==2 {print $4}') > need_kb )); then
	T=$(mktemp -d /dev/shm/sp-bench.XXXXXX)
else
	T=$(mktemp -d)
fi
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
(( $(df -Pk "$T" | awk 'NR==2 {print $4}') > need_kb )) ||
    die "$T needs $((need_kb / 1024)) MiB free (perf.data at $TOP_RATE Hz); try a smaller MS"
note "scratch $T ($(stat -f -c %T "$T")); workloads $WORKLOADS, $MS ms each; rates $RUN_RATES"
# Private copies: a rebuild in the tree during the run cannot change them.
BUILT=$(stat -c %y $BIN/sp-record | cut -d. -f1)
mkdir "$T/bin"
cp $BIN/sp-record $BIN/sp-dump $W/recurse $W/threads-O2 "$T/bin/"
# The JIT runtimes: linked in beside them (the JVM finds its libraries
# from the resolved path), Osr.class built here.
for wl in $WORKLOADS; do
	case $wl in
	java)	have java && have javac || die "java: no java or javac (apt-get install openjdk-17-jdk-headless)"
		ln -s "$(readlink -f "$(command -v java)")" "$T/bin/java"
		javac -d "$T/bin" tests/workloads/Osr.java || die "javac Osr.java failed" ;;
	node)	have node || die "node: no node (apt-get install nodejs)"
		ln -s "$(readlink -f "$(command -v node)")" "$T/bin/node" ;;
	esac
done
# node's perf maps: those the runs leave are removed (not others').
ls /tmp/perf-*.map 2>/dev/null | sort >"$T/maps0" || true
trap 'comm -13 "$T/maps0" <(ls /tmp/perf-*.map 2>/dev/null | sort) | xargs -r rm -f; rm -rf "$T"' EXIT
BIN=$T/bin W=$T/bin
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg) DATE0=$(date -u +%FT%TZ)
HEAD=$(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty tree)')
export HOME=$T

# --- the work counter and the run helper ------------------------------------------
# The workloads spin for MS ms of wall time and print nothing: a profiler's
# cost to them is less work done, not a longer run.  work.so, preloaded
# into the workload alone, counts its clock_gettime calls (recurse and
# threads-O2 make one per 10000 turns of their spin loop) and writes the
# count to $SP_BENCH_WORK at exit.  Its clock_gettime is an atomic
# increment and a tail jump to libc's: no frame of its own in a stack.
"$CC" -O2 -fPIC -shared -o "$T/work.so" bench/work.c || die "cannot build the work counter"
# rusage [-p] OUT [NAME=VALUE...] CMD [ARG...]: runs CMD, NAME=VALUE added
# to its environment (only), and writes to OUT "wall_s cpu_s self_s peak_kb":
# CMD's wall time; the user+sys CPU of CMD and of every descendant it
# reaped (wait4's rusage, us resolution); rusage's own CPU until then (its
# exec, fork and wait); with -p CMD's own peak RSS, VmHWM read while CMD is
# stopped at its exit (ptrace, PTRACE_EVENT_EXIT: the memory is still
# there; only CMD's first thread is traced, and none of its children), ?
# when that stop was not seen, - without -p.  wait4's ru_maxrss would not
# do: it is the largest of CMD's and its reaped descendants'.  Exit
# status: CMD's.
"$CC" -O2 -o "$T/rusage" bench/rusage.c || die "cannot build the rusage helper"

# --- how one run is measured ------------------------------------------------------
# The target is rusage running the workload with work.so preloaded: the
# workload's wall time and user+sys CPU, and rusage's own CPU.  A profiler
# runs it as its command, so sp-record gets --children to follow the fork
# (its default with a command; perf record follows children by default):
# both profile the same process tree.  rusage -p around the profiler gives
# the user+sys CPU of the profiler plus every descendant it reaped, i.e.
#   recorder CPU = outer - target - wrapper (the inner rusage) - floor,
# and the profiler's own peak RSS.  The floor is what the same formula
# gives unprofiled (median per workload): what the inner rusage spends
# after it read its own CPU (writing its file, exiting), ~1 ms on a VM
# where an exit is slow.  The kernel work of taking a sample
# (interrupt, stack copy into the ring) is charged to the interrupted
# target, so it shows in the slowdown and not in recorder CPU.  perf's
# cpu-clock also samples the target in kernel mode (kernel callchains),
# sp-record by default only in user mode (one [kernel] frame), so perf has
# somewhat more bytes per sample.
# set_target WL: TARGET is the wrapped command for workload WL.
set_target() {
	local -a a
	read -ra a <<<"$(wl_args "$1")"
	TARGET=("$T/rusage" "$T/tgt" "LD_PRELOAD=$T/work.so" "SP_BENCH_WORK=$T/work"
	    "$W/${a[0]}" "${a[@]:1}")
}

# timed OUT CMD...: runs CMD under rusage -p (standard output to
# /dev/null, errors to $T/log).
timed() {
	local out=$1
	shift
	"$T/rusage" -p "$out" "$@" >/dev/null 2>"$T/log" || { cat "$T/log" >&2; die "failed: $*"; }
}

# run_one FILE CMD...: runs CMD, whose command is the target; FILE gets
# "wall_s target_cpu_s recorder_cpu_s work peak_kb".
run_one() {
	local file=$1 cpu peak
	shift
	rm -f "$T/tgt" "$T/work"
	timed "$T/outer" "$@"
	read -r _ cpu _ peak <"$T/outer"
	[[ -s $T/work && -s $T/tgt ]] || die "the workload left no work count or times: $*"
	awk -v o="$cpu" -v k="$peak" -v w="$(cat "$T/work")" '{ printf "%s %s %.6f %s %s\n",
	    $1, $2, o - $2 - $3, w, k }' "$T/tgt" >"$file"
}

# Counters of a spool.  "samples" is the sample count the spool holds.
spc() { "$BIN/sp-dump" --stats --json "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2; }

# perf_counts FILE: "samples lost".  perf report --stats prints a section per
# event ("cpu-clock stats:"): SAMPLE events, and LOST_SAMPLES events, which is
# the kernel's own count of dropped samples that perf reads at the end
# (perf >= 6.0); the sum of PERF_RECORD_LOST records can miss the last ones.
# (sp-record's lost_events is that sum of PERF_RECORD_LOST counts.)
perf_counts() {
	perf report -i "$1" --stats 2>/dev/null | awk '
	    /stats:$/ && !/Aggregated/ { ev = 1 }
	    ev && $1 == "SAMPLE" { s += $3 }  ev && $1 == "LOST_SAMPLES" { l += $3 }
	    !ev && $1 == "LOST" { chunks += $3 }
	    END { print s + 0, (l == "" && chunks > 0) ? "?" : l + 0 }'
}

# measure WL NAME RATE: one run of one configuration of workload WL (with
# TARGET set for it); appends to $T/WL.NAME.RATE "wall target_cpu rec_cpu
# work peak_kb post_cpu samples lost bytes work/wall_s work/target_cpu_s".
measure() {
	local f=$T/$1.$2.$3 rate=$3 post=0 samples=0 lost=0 bytes=0 now
	# The kernel lowers its maximum when samples take too long.
	now=$(cat $MAXRATE_FILE)
	if (( rate > now )); then
		echo "the kernel lowered perf_event_max_sample_rate to $now: $2 on $1 ran at it, not $rate Hz" >>"$T/notes"
		rate=$now
	fi
	case $2 in
	base)	run_one "$f.run" "${TARGET[@]}" ;;
	sp*)	run_one "$f.run" "$BIN/sp-record" -q --children -F "$rate" ${2#sp} \
		    -o "$T/x.spl" -- "${TARGET[@]}"
		samples=$(spc "$T/x.spl" samples) lost=$(spc "$T/x.spl" lost_events)
		bytes=$(stat -c %s "$T/x.spl"); rm -f "$T/x.spl" ;;
	old)	run_one "$f.run" "$SP_OLD" -q --children -F "$rate" \
		    -o "$T/x.spl" -- "${TARGET[@]}"
		samples=$(spc "$T/x.spl" samples) lost=$(spc "$T/x.spl" lost_events)
		bytes=$(stat -c %s "$T/x.spl"); rm -f "$T/x.spl" ;;
	fp|dwarf)
		run_one "$f.run" perf record -e cpu-clock -F "$rate" --call-graph "$2" \
		    -o "$T/x.data" -- "${TARGET[@]}"
		# perf unwinds dwarf stacks at report time: part of its cost.  At
		# sp-record's depth limit (perf's default, 127, would cut deep200).
		if [[ $2 == dwarf ]]; then
			timed "$T/post" perf script --max-stack 1024 -i "$T/x.data"
			post=$(cut -d' ' -f1 "$T/post")
		fi
		read -r samples lost < <(perf_counts "$T/x.data")
		bytes=$(stat -c %s "$T/x.data"); rm -f "$T/x.data" ;;
	esac
	awk -v p="$post" -v n="$samples" -v l="$lost" -v b="$bytes" '{ printf "%s %s %s %s %s %.6g %.6g\n",
	    $0, p, n, l, b, $4 / ($1 > 0 ? $1 : 1e-3), $4 / ($2 > 0 ? $2 : 1e-3) }' "$f.run" >>"$f"
}

# --- runs -----------------------------------------------------------------------------
start=$SECONDS CONFIGS=${CONFIGS:-"sp sp--no-jitter sp--call-graph=fp fp dwarf"}
note "warm-up (page cache, perf's build-id cache; not measured)"
for wl in $WORKLOADS; do
	set_target "$wl"
	measure "$wl" fp 1000 && measure "$wl" sp 1000
done
rm -f "$T"/*.fp.* "$T"/*.sp.*
for rep in $(seq "$REPS"); do
	for wl in $WORKLOADS; do
		note "round $rep/$REPS: $wl"
		set_target "$wl"
		measure "$wl" base 0
		for r in $RUN_RATES; do
			for c in $CONFIGS; do measure "$wl" "$c" "$r"; done
		done
	done
done
MAX1=$(cat $MAXRATE_FILE)
[[ $MAX1 == "$MAX0" ]] || NOTES+=("the kernel lowered perf_event_max_sample_rate" \
    "from $MAX0 to $MAX1 during the runs (samples took too long)")
[[ -s $T/notes ]] && mapfile -t -O "${#NOTES[@]}" NOTES < <(sort -u "$T/notes")

# --- table ------------------------------------------------------------------------------
# med FILE COL: median of column COL over the runs.
med() { awk -v c="$2" '{ print $c }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'; }
fmt() { printf "%-11s %6s %7s %15s %7s %8s %8s %6s %11s %8s %8s\n" "$@"; }
label() { case $1 in base) echo unprofiled ;; sp) echo sp-record ;;
    sp*) echo "sp ${1#sp}" ;; old) echo "sp SP_OLD" ;; fp) echo "perf fp" ;;
    dwarf) echo "perf dwarf" ;; esac; }
# row WL C R FLOOR: "samples lost lost% rec_us post_us B/smp slow slow_lo
# slow_hi slow_cpu peak_MiB rec_s post_s" from the medians of WL's runs of
# C at R, the recorder CPU less FLOOR s.  Ratios of medians, so the row
# reads consistently; slow_lo-slow_hi is the range of the runs' own
# slowdowns (the noise).
row() {
	local f=$T/$1.$2.$3 b=$T/$1.base.0
	awk -v bw="$(med "$b" 10)" -v bc="$(med "$b" 11)" -v n="$(med "$f" 7)" -v l="$(med "$f" 8)" \
	    -v rec="$(med "$f" 3)" -v floor="$4" -v post="$(med "$f" 6)" -v y="$(med "$f" 9)" \
	    -v w="$(med "$f" 10)" -v c="$(med "$f" 11)" -v k="$(med "$f" 5)" '
	    NR == 1 || $10 < lo { lo = $10 }  NR == 1 || $10 > hi { hi = $10 }
	    END { d = n > 0 ? n : 1; rec -= floor
		printf "%d %s %.1f %.2f %.1f %.1f %.2f %.2f %.2f %.2f %.1f %.6f %.6f\n", n, l,
		    (l == "?" ? 0 : 100 * l / (d + l)), rec * 1e6 / d, post * 1e6 / d, y / d,
		    bw / w, bw / hi, bw / lo, bc / c, (k == "?" ? -1 : k / 1024), rec, post }' "$f"
}

# summary WL CPU_TARGET_US: below WL's rows, from $T/WL.sum ("rate config
# samples lost lost% rec_us post_us B/smp slow peak_MiB rec_s post_s"):
# - the marginal CPU per extra sample between consecutive rates,
#   (cpu2 - cpu1) / (samples2 - samples1): the profiler's fixed costs
#   (start-up, CFI of the modules, build-ids) cancel out;
# - perf / sp-record at each rate: CPU per sample (for perf dwarf record
#   + perf script), bytes per sample, peak RSS;
# - the verdict on issue 15's targets (printed, never enforced).  The CPU
#   target is judged on the marginal cost up to 10 kHz (the steady state,
#   whatever MS), or on the CPU per sample when only one rate ran or the
#   marginal is not positive (noise).
summary() {
	awk -v wl="$1" -v t="$2" -v r10="$(cap 10000)" -v r20="$(cap 20000)" '
	    { n[$1, $2] = $3; l[$1, $2] = $4; lp[$1, $2] = $5; rec[$1, $2] = $11; post[$1, $2] = $12
	      cpu[$1, $2] = $6 + ($2 == "dwarf" ? $7 : 0); b[$1, $2] = $8; slow[$1, $2] = $9; k[$1, $2] = $10 }
	    $2 == "sp" { r[++nr] = $1; if ($1 == r10) has10 = nr; if ($1 == r20) has20 = 1
		if ($10 > peak) peak = $10 }
	    function m(a, b, c, x) { if (n[b, c] <= n[a, c]) return "-"
		return sprintf("%.2f", (x[b, c] - x[a, c]) * 1e6 / (n[b, c] - n[a, c])) }
	    function q(x, r, c) { return x[r, "sp"] > 0 ? sprintf("%.1fx", x[r, c] / x[r, "sp"]) : "-" }
	    function ok(c) { return c ? "met" : "NOT met" }
	    function vs(a, b, f) { return sprintf(f, a, b) }
	    END {
		for (i = 2; i <= nr; i++)
			printf "  marginal rec_us per extra sample %s->%s Hz: sp-record %s, perf fp %s, perf dwarf %s (post_us %s)\n",
			    r[i - 1], r[i], m(r[i - 1], r[i], "sp", rec), m(r[i - 1], r[i], "fp", rec),
			    m(r[i - 1], r[i], "dwarf", rec), m(r[i - 1], r[i], "dwarf", post)
		for (i = 1; i <= nr; i++) if ((r[i], "sp--no-jitter") in n)
			printf "  jitter at %s Hz: rec_us %.2f vs %.2f fixed, slowdown %.2f vs %.2f, %d vs %d samples\n",
			    r[i], cpu[r[i], "sp"], cpu[r[i], "sp--no-jitter"],
			    slow[r[i], "sp"], slow[r[i], "sp--no-jitter"], n[r[i], "sp"], n[r[i], "sp--no-jitter"]
		for (i = 1; i <= nr; i++)
			printf "  perf/sp at %s Hz: fp CPU %s, B %s, RSS %s; dwarf CPU (rec+post) %s, B %s, RSS %s\n",
			    r[i], q(cpu, r[i], "fp"), q(b, r[i], "fp"), q(k, r[i], "fp"),
			    q(cpu, r[i], "dwarf"), q(b, r[i], "dwarf"), q(k, r[i], "dwarf")
		i = has10 ? has10 : nr; c = i > 1 ? m(r[i - 1], r[i], "sp", rec) : "-"
		pc = sprintf("per sample at %s Hz %.2f", r[i], cpu[r[i], "sp"])
		if (c != "-" && c + 0 > 0)	# sprintf made c a string: compare c + 0
			v = sprintf("CPU/smp <= %d us: %s (marginal %s->%s Hz %s; %s)", t, ok(c + 0 <= t),
			    r[i - 1], r[i], c, pc)
		else	# one rate, or noise larger than the difference
			v = sprintf("CPU/smp <= %d us: %s (%s%s)", t, ok(cpu[r[i], "sp"] <= t), pc,
			    c == "-" ? "" : "; marginal " c ", noise")
		if (wl == "threads8") {
			v = v "; no loss at " r10 " Hz: "
			if (has10) v = v ok(l[r10, "sp"] == 0) " (" l[r10, "sp"] " lost)"
			else v = v "n/a (rate not run)"
		}
		v = v "; loss at " r20 " Hz below perf dwarf'"'"'s: "
		if (has20) v = v ok(lp[r20, "sp"] < lp[r20, "dwarf"] || l[r20, "sp"] == 0) \
		    vs(lp[r20, "sp"], lp[r20, "dwarf"], " (%.1f %% vs %.1f %%)")
		else v = v "n/a (rate not run)"
		v = v "; slowdown at " r10 " Hz <= 1.05 x perf fp'"'"'s: "
		if (has10) v = v ok(slow[r10, "sp"] <= 1.05 * slow[r10, "fp"]) \
		    vs(slow[r10, "sp"], slow[r10, "fp"], " (%.2f vs %.2f)")
		else v = v "n/a (rate not run)"
		printf "  verdict: %s; peak RSS < 16 MiB: %s (%.1f)\n", v, ok(peak < 16), peak }' "$T/$1.sum"
}

mkdir -p "$OUTDIR"
{
	echo "# bench/record.sh  $DATE0  $(uname -r)  $(nproc) CPUs  HEAD $HEAD"
	echo "# each workload spins $MS ms (wall), -O2 -fomit-frame-pointer; medians of $REPS rounds; $(perf --version); sp-record built $BUILT"
	echo "#   sp-record -q --children -F R;  perf record -e cpu-clock -F R --call-graph fp | dwarf (8 KiB), + perf script --max-stack 1024"
	echo "# rec_us: recorder CPU per sample (less the method's floor); post_us: perf script CPU per sample;
#   B/smp: file bytes per sample; slow: work per wall second unprofiled / profiled (work: spin loops
#   done, counted by work.so), and its range over the runs; slow_cpu: the same per target CPU second;
#   peak_MiB: the profiler's own peak RSS (VmHWM at its exit; perf record's, not perf script's)"
	for wl in $WORKLOADS; do
		b=$T/$wl.base.0 floor=$(med "$T/$wl.base.0" 3)
		echo
		echo "$wl: $(wl_args "$wl"): $(wl_desc "$wl")"
		fmt config Hz samples "lost (%)" rec_us post_us B/smp slow "slow range" \
		    slow_cpu peak_MiB
		fmt unprofiled - - - - - - 1.00 - 1.00 -
		: >"$T/$wl.sum"
		for r in $RUN_RATES; do
			for c in $CONFIGS; do
				read -r n lost lostp recu postu bps slow slo shi slowc peak rec post < \
				    <(row "$wl" "$c" "$r" "$floor")
				echo "$r $c $n $lost $lostp $recu $postu $bps $slow $peak $rec $post" >>"$T/$wl.sum"
				[[ $peak == -1.0 ]] && peak='?'
				[[ $c == dwarf ]] || postu=-
				fmt "$(label "$c")" "$r" "$n" "$lost ($lostp)" "$recu" "$postu" "$bps" \
				    "$slow" "$slo-$shi" "$slowc" "$peak"
			done
		done
		summary "$wl" "$(wl_cpu_target "$wl")"
		echo "  method floor (subtracted from rec_us): outer - target - wrapper for the unprofiled runs =" \
		    "$(awk -v f="$floor" 'BEGIN { printf "%.3f", f * 1000 }') ms (median; range $(awk '
		    NR == 1 || $3 < lo { lo = $3 }  NR == 1 || $3 > hi { hi = $3 }
		    END { printf "%.3f-%.3f", lo * 1000, hi * 1000 }' "$b") ms)"
	done
	echo
	for n in "${NOTES[@]}"; do echo "Note: $n"; done
	echo "Took $((SECONDS - start)) s; load average $LOAD0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
	echo "(a shared machine: expect run-to-run noise of several %, see slow range)."
} | tee "$OUTDIR/record.txt"
