#!/usr/bin/env bash
# bench/merge.sh: sp-merge's peak memory against the number of samples.
#
# A benchmark, not a test: it prints measurements and never fails on them.
# Two synthetic symbolized spools of this host (tests/mkfold.c: 8 threads,
# 4096 named functions; input a has 2000 distinct stacks, input b 3000),
# BASE samples each at scale 1, are merged at scales 1, 4 and 16 (so the
# samples grow 16-fold while the definitions stay the same), then once
# more at scale 1 with 8 times the stacks (the definitions grow).  Both
# inputs come from one host, so sp-merge interleaves them by time: the
# k-way path, one pending record per input.  Each merge is checked with
# sp-dump --check (the sample count must be the sum).  Columns: samples
# merged, bytes in and out, wall and user+sys CPU time, samples per CPU
# second, peak RSS (/usr/bin/time).
# Knobs (environment): BASE=500000.
# Table on stdout and in build/bench/merge.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BASE=${BASE:-500000}
BIN=build/bin OUTDIR=build/bench
die() { echo "bench/merge.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }

[[ -x $BIN/sp-merge && -x $BIN/sp-dump && -x build/glibc/mkfold ]] ||
    die "run ./configure.sh && ninja build/bin/sp-merge build/bin/sp-dump build/glibc/mkfold"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install time"
if [[ -w /dev/shm ]]; then T=$(mktemp -d /dev/shm/sp-merge-bench.XXXXXX); else T=$(mktemp -d); fi
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# run LABEL SAMPLES_EACH STACKS_A STACKS_B: one merge, one table row.
run() {
	local label=$1 n=$2 sa=$3 sb=$4 got
	note "$label: mkfold 2 x $n samples ($sa and $sb stacks)"
	build/glibc/mkfold "$T/a.spl" "$n" "$sa"
	build/glibc/mkfold "$T/b.spl" "$n" "$sb"
	note "$label: sp-merge"
	/usr/bin/time -f "%e %U %S %M" -o "$T/time" \
	    $BIN/sp-merge -q -o "$T/m.spl" "$T/a.spl" "$T/b.spl" 2>/dev/null
	got=$($BIN/sp-dump --check "$T/m.spl" 2>&1 |
	    sed -n 's/.* \([0-9]*\) samples.*/\1/p')
	[[ $got -eq $((2 * n)) ]] || note "$label: merged $got samples, expected $((2 * n))"
	awk -v l="$label" -v n=$((2 * n)) -v in_b=$(($(stat -c %s "$T/a.spl") + $(stat -c %s "$T/b.spl"))) \
	    -v out_b="$(stat -c %s "$T/m.spl")" '{
		c = $2 + $3
		printf "%-22s %10d %9.1f %9.1f %7.2f %7.2f %11.0f %9.1f\n", l, n,
		    in_b / 1048576, out_b / 1048576, $1, c, (c > 0 ? n / c : 0), $4 / 1024 }' "$T/time"
	rm -f "$T/a.spl" "$T/b.spl" "$T/m.spl"
}

mkdir -p "$OUTDIR"
{
	echo "merge $(date -u +%F) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-22s %10s %9s %9s %7s %7s %11s %9s\n' "run" "samples" "in_MB" \
	    "out_MB" "wall_s" "cpu_s" "smp/cpu_s" "maxrss_MB"
	for s in 1 4 16; do
		run "${s}x samples" $((BASE * s)) 2000 3000
	done
	run "1x, 8x stacks" "$BASE" 16000 24000
} | tee "$OUTDIR/merge.txt"
