#!/usr/bin/env bash
# bench/unwind.sh: the cost and the reach of the DWARF unwinder, next to
# perf's (perf record --call-graph dwarf + perf script).
#
# A benchmark, not a test: it prints measurements and never fails on them.
# Each workload (with and without frame pointers, deep, threaded) is
# recorded four times at RATE Hz: by sp-record --raw-stacks with 64 KiB and
# with the default 32 KiB stack copies, then replayed offline by the -O2
# musl build of the replay harness (build/musl/unwreplay -p PASSES: the
# last pass, warm, is the steady state); and by perf record -e cpu-clock
# --call-graph dwarf with its default 8 KiB and with 32 KiB stack dumps,
# then perf script, timed.  Table on stdout and in build/bench/unwind.txt.
# Knobs (environment): RATE=1000 CPU_MS=2500 PASSES=3 MAXSTACK=1024.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RATE=${RATE:-1000} CPU_MS=${CPU_MS:-2500} PASSES=${PASSES:-3}
MAXSTACK=${MAXSTACK:-1024}
BIN=build/bin OUTDIR=build/bench REPLAY=build/musl/unwreplay W=build/tests
die() { echo "bench/unwind.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash

# --- prerequisites -------------------------------------------------------------
[[ -x $BIN/sp-record && -x $REPLAY ]] ||
    die "$BIN/sp-record or $REPLAY is missing: run ./configure.sh && ninja"
for w in tree-O2 tree recurse threads-O2; do
	[[ -x $W/$w ]] || die "$W/$w is missing: run ninja"
done
need_perf
need_rate "$RATE"

# --- scratch space --------------------------------------------------------------
# tmpfs when it can, so that neither profiler waits on the disk.  perf runs
# with HOME=$T: its build-id cache (~/.debug) stays in here, is removed
# with it, and no ~/.perfconfig applies.
if [[ -w /dev/shm ]] && (( $(df -Pk /dev/shm | awk 'NR==2 {print $4}') > 1048576 )); then
	T=$(mktemp -d /dev/shm/sp-bench.XXXXXX)
else
	T=$(mktemp -d)
fi
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
# Private copies: a rebuild in the tree during the run cannot change them
# (the replay opens the workloads' files again and checks their build-ids).
BUILT=$(stat -c %y $BIN/sp-record | cut -d. -f1)
mkdir "$T/w"
cp $BIN/sp-record $REPLAY "$T/" && BIN=$T REPLAY=$T/unwreplay
cp $W/tree-O2 $W/tree $W/recurse $W/threads-O2 "$T/w/" && W=$T/w
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# name|label|command: ~CPU_MS of CPU each.  tree takes CPU ms; recurse and
# threads take wall ms, and get less CPU on a loaded machine.
WORKLOADS=(
	"tree-O2|tree -O2 -fomit-frame-pointer|$W/tree-O2 $CPU_MS cpu"
	"tree|tree -O0 frame pointers|$W/tree $CPU_MS cpu"
	"recurse|recurse 200 -O2 no fp (deep)|$W/recurse 200 $CPU_MS"
	"threads-O2|threads-O2 x2 -O2 no fp|$W/threads-O2 2 $((CPU_MS / 2))"
)

# --- sp-record: record, then replay the unwinder -----------------------------------
# kv FILE KEY: a value of unwreplay's key=value output.
kv() { sed -n "s/^$2=//p" "$1"; }

# measure_sp NAME STACK CMD...: appends one row of numbers to $T/rows.
measure_sp() {
	local name=$1 stack=$2 f=$T/$1.sp$2
	shift 2
	"$BIN"/sp-record -q --raw-stacks -s "$stack" -F "$RATE" -o "$T/x.spl" -- \
	    "$@" >"$T/log" 2>&1 || { cat "$T/log" >&2; die "sp-record failed: $*"; }
	$REPLAY -p "$PASSES" "$T/x.spl" >"$f" 2>"$T/log" ||
	    { cat "$T/log" >&2; die "unwreplay failed"; }
	rm -f "$T/x.spl"
	local n hits steps
	n=$(kv "$f" samples) hits=$(kv "$f" cache_hits) steps=$(kv "$f" cfi_steps)
	# name tool samples complete frames ns_frame_med p99 ns_smp_med p99
	# cpu_us_per_sample hit% differ modules_without_file complete_default
	echo "$name sp$stack $n $(kv "$f" complete) $(kv "$f" frames)" \
	    "$(kv "$f" ns_per_frame_median) $(kv "$f" ns_per_frame_p99)" \
	    "$(kv "$f" ns_per_sample_median) $(kv "$f" ns_per_sample_p99)" \
	    "$(awk -v m="$(kv "$f" pass_cpu_ns_per_sample)" 'BEGIN { printf "%.2f", m / 1000 }')" \
	    "$(awk -v h="$hits" -v s="$steps" 'BEGIN { printf "%.1f", s ? 100 * h / s : 0 }')" \
	    "$(kv "$f" differ) $(kv "$f" modules_without_file) -" >>"$T/rows"
}

# --- perf: record, then perf script (where perf unwinds) ----------------------------
# perf_chains: reads perf script output, prints "samples complete frames".
# A sample is a paragraph: a header line, then its callchain, leaf first,
# one "ADDR SYMBOL+OFF (MODULE)" line per frame.  The stack is complete
# when its last (outermost) line is _start (the executable's, or ld.so's
# during start-up) or clone/clone3 (a thread's first frame, below
# start_thread).  Frames counted: user frames (no kernel addresses).  perf
# shows a function inlined at a frame's PC as an "(inlined)" line with the
# PC of the line after it: that is no frame of its own.  An "(inlined)"
# line with a PC of its own is a real frame shown under an inline name
# (a leaf whose symbol is spin.constprop.0 shows as "spin (inlined)").
perf_chains() {
	awk 'BEGIN { RS = ""; FS = "\n" }
	{
		n++
		last = ""
		for (i = 2; i <= NF; i++) {
			split($i, a, " ")
			if (a[1] ~ /^ffffffff/)
				continue
			if ($i ~ /\(inlined\)$/ && i < NF) {
				split($(i + 1), b, " ")
				if (b[1] == a[1])
					continue
			}
			fr++
		}
		if (NF >= 2) {
			split($NF, a, " ")
			last = a[2]
			sub(/\+0x[0-9a-f]+$/, "", last)
		}
		if (last ~ /^(_start|(__)?clone3?|__GI___clone3?)$/)
			c++
	}
	END { print n + 0, c + 0, fr + 0 }'
}

# measure_perf NAME STACK CMD...: appends one row of numbers to $T/rows.
measure_perf() {
	local name=$1 stack=$2 TIMEFORMAT='%3U %3S' n c fr post c127
	shift 2
	HOME=$T perf record -q -e cpu-clock -F "$RATE" --call-graph "$stack" \
	    -o "$T/x.data" -- "$@" >"$T/log" 2>&1 || { cat "$T/log" >&2; die "perf record failed: $*"; }
	# perf unwinds (with libdw or libunwind) here, at report time.
	{ time HOME=$T perf script --max-stack "$MAXSTACK" -i "$T/x.data" \
	    >"$T/x.txt" 2>"$T/log"; } 2>"$T/post" || { cat "$T/log" >&2; die "perf script failed"; }
	post=$(awk '{ print $1 + $2 }' "$T/post")
	read -r n c fr < <(perf_chains <"$T/x.txt")
	# What a user sees at perf script's default depth limit (untimed).
	read -r _ c127 _ < <(HOME=$T perf script -i "$T/x.data" 2>/dev/null | perf_chains)
	rm -f "$T/x.data" "$T/x.txt"
	echo "$name perf${stack#dwarf} $n $c $fr - - - - $(awk -v p="$post" -v n="$n" \
	    'BEGIN { printf "%.2f", n ? p * 1e6 / n : 0 }') - - - $c127" >>"$T/rows"
}

# --- runs -----------------------------------------------------------------------------
start=$SECONDS
note "warm-up (page cache, perf's build-id cache; not measured)"
HOME=$T perf record -q -e cpu-clock -F "$RATE" --call-graph dwarf -o "$T/x.data" -- \
    "$W/tree-O2" 100 cpu >/dev/null 2>&1 && HOME=$T perf script -i "$T/x.data" >/dev/null 2>&1
rm -f "$T/x.data"
for wl in "${WORKLOADS[@]}"; do
	IFS='|' read -r name label cmd <<<"$wl"
	note "$name: $cmd"
	# shellcheck disable=SC2086 # cmd is a word list
	{ measure_sp "$name" 65528 $cmd; measure_sp "$name" 32768 $cmd
	  measure_perf "$name" dwarf $cmd; measure_perf "$name" dwarf,32768 $cmd; }
done

# --- table ------------------------------------------------------------------------------
fmt() { printf "%-11s %-13s %7s %7s %6s %6s %6s %7s %7s %8s %5s\n" "$@"; }
label() { case $1 in sp65528) echo "sp 64K" ;; sp32768) echo "sp 32K" ;;
    perf) echo "perf dwarf 8K" ;; perf,32768) echo "perf dwarf 32K" ;; esac; }
mkdir -p "$OUTDIR"
{
	echo "# bench/unwind.sh  $(date -u +%FT%TZ)  $(uname -r)  $(nproc) CPUs  HEAD $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty tree)')"
	echo "# $RATE Hz, ~$CPU_MS ms of CPU per workload; sp: $REPLAY -p $PASSES (last, warm pass), sp-record built $BUILT;"
	echo "#   $(perf --version): perf record -e cpu-clock --call-graph dwarf[,32768], perf script --max-stack $MAXSTACK"
	echo "# compl%: stacks reaching _start / clone3; frm/smp: user frames per sample;"
	echo "# ns/frm, ns/smp: unwind time per frame and per sample (median, p99);"
	echo "# cpu_us/smp: CPU per sample of the post-processing: sp: the replay's last pass (spool decoding,
#   unwinding, comparison); perf: perf script (unwinding, symbolization, text); user+sys"
	echo "# hit%: unwind-row cache hits / CFI steps"
	fmt workload tool samples "compl%" frm/smp "ns/frm" p99 "ns/smp" p99 cpu_us/smp "hit%"
	while read -r name tool n c fr nfm nfp nsm nsp cpu hit differ nofile c127; do
		read -r pc fps < <(awk -v n="$n" -v c="$c" -v f="$fr" 'BEGIN { n = n ? n : 1
		    printf "%.1f %.1f\n", 100 * c / n, f / n }')
		fmt "$name" "$(label "$tool")" "$n" "$pc" "$fps" "$nfm" "$nfp" "$nsm" "$nsp" "$cpu" "$hit"
		echo "$name $tool $pc $cpu $(awk -v n="$n" -v c="$c127" \
		    'BEGIN { printf "%.1f", c == "-" ? -1 : 100 * c / (n ? n : 1) }')" >>"$T/sum"
		[[ $differ == - || $differ == 0 ]] ||
		    echo "$name $(label "$tool"): the replay differs from the recorded stack in $differ samples" >>"$T/notes"
		[[ $nofile == - || $nofile == 0 ]] ||
		    echo "$name $(label "$tool"): $nofile modules without a usable file in the replay" >>"$T/notes"
	done <"$T/rows"
	echo
	echo "Ratios (perf / sp-record 64K, same workload): complete-stack share, CPU per sample"
	for wl in "${WORKLOADS[@]}"; do
		IFS='|' read -r name label cmd <<<"$wl"
		awk -v w="$name" -v l="$label" '$1 == w { pc[$2] = $3; cpu[$2] = $4; d[$2] = $5 }
		    END { s = cpu["sp65528"] > 0 ? cpu["sp65528"] : 1
		    printf "  %s: complete %s%% (sp 64K) %s%% (sp 32K) vs %s%% (perf 8K) %s%% (perf 32K)\n" \
		        "    (perf script default --max-stack: %s%% / %s%%); CPU/sample perf 8K %.0fx, perf 32K %.0fx\n",
		        l, pc["sp65528"], pc["sp32768"], pc["perf"], pc["perf,32768"], d["perf"],
		        d["perf,32768"], cpu["perf"] / s, cpu["perf,32768"] / s }' "$T/sum"
	done
	[[ -f $T/notes ]] && sed 's/^/Note: /' "$T/notes"
	echo "Took $((SECONDS - start)) s; load average $LOAD0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
	echo "(a shared machine: per-sample times are wall clock around each unwind and vary by"
	echo "several % from run to run; p99 includes preemptions)."
} | tee "$OUTDIR/unwind.txt"
