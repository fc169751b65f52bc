#!/usr/bin/env bash
# bench/record.sh: the cost of recording, sp-record next to perf record.
#
# A benchmark, not a test: it prints measurements and never fails on them.
# One fixed-work target (sha256sum over an MB-MiB file of zeros) is run
# unprofiled, under sp-record, and under perf record with DWARF call graphs
# (8 KiB and 32 KiB user stack dumps), at each rate in RATES; REPS runs each,
# interleaved so that noise on a shared machine spreads over all columns.
# Every column is the median over the REPS runs.  Table on stdout and in
# build/bench/record.txt.  Knobs (environment): MB=1024 REPS=3
# RATES="1000 10000".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MB=${MB:-1024} REPS=${REPS:-3} RATES=${RATES:-"1000 10000"}
BIN=build/bin OUTDIR=build/bench
die() { echo "bench/record.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash

# --- prerequisites -------------------------------------------------------------
[[ -x $BIN/sp-record && -x $BIN/sp-dump ]] ||
    die "$BIN/sp-record or sp-dump is missing: run ./configure.sh && ninja"
need_perf
command -v sha256sum >/dev/null || die "sha256sum is missing: apt-get install coreutils"
MAXRATE_FILE=/proc/sys/kernel/perf_event_max_sample_rate
[[ -r $MAXRATE_FILE ]] || die "$MAXRATE_FILE is unreadable: no perf_event support?"

# --- scratch space --------------------------------------------------------------
# tmpfs when it has room, so that neither profiler waits on the disk (at
# 10 kHz perf writes ~300 MB/s).  perf runs with HOME=$T: its build-id cache
# (~/.debug) stays in here, is removed with it, and no ~/.perfconfig applies.
need_kb=$(( (MB + 4096) * 1024 ))
if [[ -w /dev/shm ]] && (( $(df -Pk /dev/shm | awk 'NR==2 {print $4}') > need_kb )); then
	T=$(mktemp -d /dev/shm/sp-bench.XXXXXX)
else
	T=$(mktemp -d)
fi
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
(( $(df -Pk "$T" | awk 'NR==2 {print $4}') > need_kb )) ||
    die "$T needs $((need_kb / 1024)) MiB free (input + perf.data at 10 kHz); try MB=256"
note "scratch $T ($(stat -f -c %T "$T")); input ${MB} MiB of zeros"
head -c "${MB}M" /dev/zero >"$T/big"
# Private copies: a rebuild in the tree during the run cannot change them.
BUILT=$(stat -c %y $BIN/sp-record | cut -d. -f1)
cp $BIN/sp-record $BIN/sp-dump "$T/" && BIN=$T
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# --- how one run is measured ------------------------------------------------------
# The target is a bash that runs sha256sum under its `time` keyword (the
# target's wall time and user+sys CPU, from wait4's rusage, ms resolution)
# and then `times` (the wrapper shell's own CPU).  A profiler runs this
# wrapper as its command, so sp-record needs --children to follow the fork
# (perf record follows children by default): both profile the same process
# tree.  Around the profiler, the `time` keyword of this script gives the
# user+sys CPU of the profiler plus every descendant it reaped, i.e.
#   recorder CPU = outer - target - wrapper shell.
# Unprofiled, the same formula must give ~0: that is the method's floor.
# The kernel work of taking a sample (interrupt, stack copy into the ring)
# is charged to the interrupted target, so it shows in the slowdown and
# not in recorder CPU.  perf's cpu-clock also samples the target in kernel
# mode (kernel callchains), sp-record by default only in user mode, so perf
# has somewhat more samples per target CPU second.
TARGET=(bash -c 'TIMEFORMAT="%3R %3U %3S"
{ time sha256sum "$1" >/dev/null 2>&3; } 3>&2 2>"$2"; times >>"$2"' target "$T/big" "$T/tgt")

secs() { awk '{ for (i = 1; i <= NF; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } }
    END { printf "%.3f", s }'; }	# "0m1.5s 0m0.2s" -> 1.700

# run_one FILE CMD...: runs CMD; FILE gets "wall_s target_cpu_s recorder_cpu_s".
run_one() {
	local file=$1 TIMEFORMAT='%3lU %3lS' outer tgt self
	shift
	{ time "$@" >"$T/log" 2>&1; } 2>"$T/outer" ||
	    { cat "$T/log" >&2; die "failed: $*"; }
	outer=$(secs <"$T/outer")
	tgt=$(sed -n 1p "$T/tgt" | awk '{ printf "%.3f", $2 + $3 }')
	self=$(sed -n 2p "$T/tgt" | tr -d s | secs)
	echo "$(sed -n 1p "$T/tgt" | cut -d' ' -f1) $tgt $(awk -v o="$outer" \
	    -v t="$tgt" -v s="$self" 'BEGIN { printf "%.3f", o - t - s }')" >"$file"
}

# Counters of a spool.  "samples" is the sample count the spool holds.
spc() { $BIN/sp-dump --stats --json "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2; }

# perf_counts FILE: "samples lost".  perf report --stats prints a section per
# event ("cpu-clock stats:"): SAMPLE events, and LOST_SAMPLES events, which is
# the kernel's own count of dropped samples that perf reads at the end
# (perf >= 6.0); the sum of PERF_RECORD_LOST records can miss the last ones.
# (sp-record's lost_events is that sum of PERF_RECORD_LOST counts.)
perf_counts() {
	HOME=$T perf report -i "$1" --stats 2>/dev/null | awk '
	    /stats:$/ && !/Aggregated/ { ev = 1 }
	    ev && $1 == "SAMPLE" { s += $3 }  ev && $1 == "LOST_SAMPLES" { l += $3 }
	    !ev && $1 == "LOST" { chunks += $3 }
	    END { print s + 0, (l == "" && chunks > 0) ? "?" : l + 0 }'
}

# measure NAME RATE: one run of one configuration; appends
# "wall target_cpu rec_cpu post_cpu samples lost bytes trunc bad_fp" to
# $T/NAME.RATE (the last two: sp-record's truncated_stacks, unwind_bad_fp).
measure() {
	local name=$1 rate=$2 f=$T/$1.$2 post=0 samples=0 lost=0 bytes=0 trunc=0 badfp=0
	local TIMEFORMAT='%3lU %3lS' stack
	case $name in
	base)	run_one "$f.run" "${TARGET[@]}" ;;
	sp)	run_one "$f.run" $BIN/sp-record -q --children -F "$rate" \
		    -o "$T/x.spl" -- "${TARGET[@]}"
		samples=$(spc "$T/x.spl" samples) lost=$(spc "$T/x.spl" lost_events)
		trunc=$(spc "$T/x.spl" truncated_stacks) badfp=$(spc "$T/x.spl" unwind_bad_fp)
		bytes=$(stat -c %s "$T/x.spl"); rm -f "$T/x.spl" ;;
	perf8|perf32)
		stack=dwarf; [[ $name == perf32 ]] && stack=dwarf,32768
		run_one "$f.run" env HOME="$T" perf record -e cpu-clock -F "$rate" \
		    --call-graph "$stack" -o "$T/x.data" -- "${TARGET[@]}"
		# perf unwinds at report time: its post-processing is part of the cost.
		{ time HOME=$T perf script -i "$T/x.data" >/dev/null 2>"$T/log"; } 2>"$T/post" ||
		    { cat "$T/log" >&2; die "perf script failed"; }
		post=$(secs <"$T/post")
		read -r samples lost < <(perf_counts "$T/x.data")
		bytes=$(stat -c %s "$T/x.data"); rm -f "$T/x.data" ;;
	esac
	echo "$(cat "$f.run") $post $samples $lost $bytes $trunc $badfp" >>"$f"
}

# --- rates --------------------------------------------------------------------------
MAX0=$(cat $MAXRATE_FILE) RUN_RATES="" NOTES=()
for r in $RATES; do
	if (( r > MAX0 )); then
		NOTES+=("rate $r Hz capped to perf_event_max_sample_rate = $MAX0")
		r=$MAX0
	fi
	RUN_RATES+=" $r"
done

# --- runs -----------------------------------------------------------------------------
start=$SECONDS
note "warm-up (page cache, perf's build-id cache; not measured)"
measure perf8 1000 && measure sp 1000 && rm -f "$T"/perf8.* "$T"/sp.*
for rep in $(seq "$REPS"); do
	note "round $rep/$REPS"
	measure base 0
	for r in $RUN_RATES; do
		for c in sp perf8 perf32; do measure "$c" "$r"; done
	done
done
MAX1=$(cat $MAXRATE_FILE)
[[ $MAX1 == "$MAX0" ]] || NOTES+=("the kernel lowered perf_event_max_sample_rate" \
    "from $MAX0 to $MAX1 during the runs (samples took too long)")

# --- table ------------------------------------------------------------------------------
# med FILE COL: median of column COL over the runs.
med() { awk -v c="$2" '{ print $c }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'; }
# range FILE COL: "min-max" of column COL, to show the run-to-run noise.
range() { awk -v c="$2" 'NR == 1 || $c < lo { lo = $c } NR == 1 || $c > hi { hi = $c }
    END { printf "%.2f-%.2f", lo, hi }' "$1"; }
fmt() { printf "%-15s %6s %6s %11s %5s %7s %13s %7s %7s %7s %8s %6s %5s\n" "$@"; }
label() { case $1 in base) echo unprofiled ;; sp) echo sp-record ;;
    perf8) echo "perf dwarf 8K" ;; perf32) echo "perf dwarf 32K" ;; esac; }

BASE_WALL=$(med "$T/base.0" 1)
mkdir -p "$OUTDIR"
{
	echo "# bench/record.sh  $(date -u +%FT%TZ)  $(uname -r)  $(nproc) CPUs  HEAD $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty tree)')"
	echo "# target: sha256sum over ${MB} MiB on $(stat -f -c %T "$T"); medians of $REPS runs; $(perf --version); sp-record built $BUILT"
	echo "# wall: target wall s; slow: wall / unprofiled; rec/post/cpu_us: recorder CPU us per sample
#   (post = perf script; cpu = rec + post); B/smp: file bytes per sample"
	echo "# xB, xCPU: perf / sp-record at the same rate (CPU = record + post-processing)"
	fmt config Hz wall_s "wall range" slow samples "lost(%)" rec_us post_us cpu_us \
	    "B/smp" xB xCPU
	fmt unprofiled - "$BASE_WALL" "$(range "$T/base.0" 1)" 1.00 - - - - - - - -
	for r in $RUN_RATES; do
		for c in sp perf8 perf32; do
			f=$T/$c.$r
			read -r wall rec post n lost bytes < <(echo "$(med "$f" 1) $(med "$f" 3) \
			    $(med "$f" 4) $(med "$f" 5) $(med "$f" 6) $(med "$f" 7)")
			# Medians of per-run ratios would mix runs; ratios of medians are
			# what the columns show, so the row reads consistently.
			read -r slow recu postu cpuu bps lostp < <(awk -v w="$wall" \
			    -v b="$BASE_WALL" -v r="$rec" -v p="$post" -v n="$n" \
			    -v l="$lost" -v y="$bytes" 'BEGIN { n = n > 0 ? n : 1
			    printf "%.2f %.1f %.1f %.1f %.1f %.1f\n", w / b, r * 1e6 / n,
			    p * 1e6 / n, (r + p) * 1e6 / n, y / n, (l == "?" ? 0 : 100 * l / (n + l)) }')
			if [[ $c == sp ]]; then sp_bps=$bps sp_cpu=$cpuu; xb=1.00 xc=1.00
			else read -r xb xc < <(awk -v a="$bps" -v b="$sp_bps" -v c="$cpuu" \
			    -v d="$sp_cpu" 'BEGIN { printf "%.1f %.1f\n", a / b, c / d }'); fi
			[[ $c == sp ]] && postu=-
			fmt "$(label $c)" "$r" "$wall" "$(range "$f" 1)" "$slow" "$n" "$lost ($lostp)" "$recu" \
			    "$postu" "$cpuu" "$bps" "$xb" "$xc"
			echo "$r $c $xb $xc $slow $(med "$f" 8) $n $(med "$f" 9)" >>"$T/summary"
		done
	done
	echo
	echo "Summary (perf / sp-record, medians):"
	while read -r r c xb xc slow trunc n badfp; do
		case $c in
		sp) echo "  $r Hz: sp-record slows the target ${slow}x;" \
		    "truncated_stacks $trunc of $n samples (unwind_bad_fp $badfp)" ;;
		*) echo "  $r Hz: $(label "$c"): ${xb}x the bytes per sample, ${xc}x the CPU" \
		    "per sample (record + perf script); target slowed ${slow}x" ;;
		esac
	done <"$T/summary"
	floor=$(med "$T/base.0" 3)
	echo "Method floor: recorder CPU computed for the unprofiled run = ${floor} s (should be ~0)."
	for n in "${NOTES[@]}"; do echo "Note: $n"; done
	echo "Took $((SECONDS - start)) s; load average $LOAD0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
	echo "(a shared machine: expect run-to-run noise of several %, see wall range)."
} | tee "$OUTDIR/record.txt"
