#!/usr/bin/env bash
# bench/fold.sh: folding throughput, sp-fold next to perf script + collapse.
#
# A benchmark, not a test: it prints measurements and never fails on them.
# perf records two tree workloads (frame pointers, -O0) with call graphs
# at RATE Hz for SECS of CPU time each; its sample count PN sets the size
# of a synthetic symbolized spool (tests/mkfold.c: 8 threads, 2000
# distinct stacks of 24 frames, named functions) so both sides fold the
# same number of samples; a second spool of BIG samples (default 5 M)
# shows sp-fold at scale.  Then, REPS times each, interleaved:
#   sp-fold SPOOL > folded          (PN samples, and BIG samples)
#   sp-fold --pprof -o x.pb.gz SPOOL
#   perf script -i perf.data | awk  (stackcollapse-perf-style folding)
# Columns: median wall time, samples per wall second, user+sys CPU,
# samples per CPU second, peak RSS (/usr/bin/time; for the pipeline, the
# largest of its processes).  On a loaded machine wall time measures the
# load: compare samples per CPU second.
# Knobs (environment): RATE=20000 SECS=10 REPS=3 BIG=5000000.
# Table on stdout and in build/bench/fold.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RATE=${RATE:-20000} SECS=${SECS:-10} REPS=${REPS:-3} BIG=${BIG:-5000000}
BIN=build/bin OUTDIR=build/bench
die() { echo "bench/fold.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash

# --- prerequisites -------------------------------------------------------------
[[ -x $BIN/sp-fold && -x build/glibc/mkfold && -x build/tests/tree ]] ||
    die "run ./configure.sh && ninja build/bin/sp-fold build/glibc/mkfold build/tests/tree"
need_perf
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install time"

if [[ -w /dev/shm ]]; then T=$(mktemp -d /dev/shm/sp-fold-bench.XXXXXX); else T=$(mktemp -d); fi
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
cp $BIN/sp-fold build/glibc/mkfold "$T/"

# --- the perf recording ---------------------------------------------------------------
# Two tree processes so that two CPUs' worth of samples come in.
note "perf record -F $RATE -g, 2 x tree for ${SECS}s of CPU"
HOME=$T perf record -q -e cpu-clock -F "$RATE" -g -o "$T/perf.data" -- \
    bash -c "build/tests/tree $((SECS * 1000)) cpu & build/tests/tree $((SECS * 1000)) cpu; wait" \
    >/dev/null 2>"$T/rec.err" || { cat "$T/rec.err" >&2; die "perf record failed"; }
PN=$(HOME=$T perf script -i "$T/perf.data" -F comm 2>/dev/null | wc -l)
N=$PN
note "perf samples: $PN; synthetic spools: $N and $BIG samples"
"$T/mkfold" "$T/x.spl" "$N"
"$T/mkfold" "$T/big.spl" "$BIG"

# The collapse, after stackcollapse-perf: a header line starts each sample
# (comm first), then one line per frame "addr sym+off (dso)", leaf first,
# then an empty line.  Folded root first, counted in a hash, printed at the
# end.
cat >"$T/collapse.awk" <<'EOF'
/^[^ \t]/ { comm = $1; n = 0; next }
/^[ \t]/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[n++] = s; next }
/^$/ {
	if (comm == "") next
	line = comm
	for (i = n - 1; i >= 0; i--) line = line ";" f[i]
	count[line]++
	comm = ""
}
END { for (l in count) print l, count[l] }
EOF

# measure NAME CMD: one run, appends "wall cpu maxrss_kb" to $T/NAME.
measure() {
	local name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >"$T/$name.out"
	awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' "$T/time" >>"$T/$name"
}

for ((i = 0; i < REPS; i++)); do
	note "round $((i + 1))/$REPS"
	measure spfold "$T/sp-fold" "$T/x.spl"
	measure spbig "$T/sp-fold" "$T/big.spl"
	measure sppprof "$T/sp-fold" --pprof -o "$T/x.pb.gz" "$T/big.spl"
	measure perf bash -c "HOME=$T perf script -i $T/perf.data 2>/dev/null | awk -f $T/collapse.awk"
done
SPF=$(awk '{ n += $NF } END { print n }' "$T/spfold.out")
PCF=$(awk '{ n += $NF } END { print n }' "$T/perf.out")
[[ $SPF -eq $N ]] || note "sp-fold folded $SPF samples, expected $N"
BGF=$(awk '{ n += $NF } END { print n }' "$T/spbig.out")
[[ $BGF -eq $BIG ]] || note "sp-fold folded $BGF samples, expected $BIG"
[[ $PCF -eq $PN ]] || note "the collapse folded $PCF samples, perf has $PN"

med() { sort -n -k"$2" "$T/$1" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
mkdir -p "$OUTDIR"
{
	echo "fold $(date -u +%F) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "perf: tree x2, -F $RATE -g, $PN samples, $(stat -c %s "$T/perf.data") bytes;" \
	    "spools: mkfold, $N samples $(stat -c %s "$T/x.spl") bytes, $BIG samples" \
	    "$(stat -c %s "$T/big.spl") bytes"
	printf '%-30s %9s %7s %11s %7s %11s %9s\n' "folder" "samples" "wall_s" \
	    "smp/wall_s" "cpu_s" "smp/cpu_s" "maxrss_MB"
	for k in spfold spbig sppprof perf; do
		case $k in
		spfold) label="sp-fold (text)"; n=$N ;;
		spbig) label="sp-fold (text)"; n=$BIG ;;
		sppprof) label="sp-fold --pprof"; n=$BIG ;;
		perf) label="perf script | awk collapse"; n=$PN ;;
		esac
		w=$(med $k 1) c=$(med $k 2) m=$(med $k 3)
		awk -v l="$label" -v n="$n" -v w="$w" -v c="$c" -v m="$m" 'BEGIN {
			printf "%-30s %9d %7.2f %11.0f %7.2f %11.0f %9.1f\n", l, n, w,
			    (w > 0 ? n / w : 0), c, (c > 0 ? n / c : 0), m / 1024 }'
	done
	awk -v pw="$(med perf 1)" -v pc="$(med perf 2)" -v sw="$(med spfold 1)" \
	    -v sc="$(med spfold 2)" -v pn="$PN" -v n="$N" 'BEGIN {
		printf "sp-fold over perf script + collapse, equal samples: " \
		    "%.1fx per wall second, %.1fx per CPU second\n",
		    (n / sw) / (pn / pw), (sc > 0 ? (n / sc) / (pn / pc) : 0) }'
} | tee "$OUTDIR/fold.txt"
