#!/usr/bin/env bash
# bench/sym-big.sh: offline symbolization of a large real C++ program with
# DWARF, sp-sym next to addr2line and llvm-symbolizer (issue 29 §5).
#
# A benchmark, not a test: it prints measurements and never fails on them.
#
# The program: cppcheck 2.10, Debian bookworm's source package
# (cppcheck 2.10-2, pinned below by version and sha256), fetched with
# `apt-get source` through the machine's own apt sources (the private
# sources.list ./configure.sh writes from them; /etc/apt is not touched),
# unpacked with Debian's patches applied (dpkg-source -x), and built
# with its own Makefile at -O2 -g (not Debian's rules: no -dbgsym split,
# no compressed debug sections).  Why cppcheck: a C++ code base of some
# 100 translation units that builds in about 15 to 25 minutes on 2 cores
# (an estimate on a shared machine; the build is niced), whose debug
# information runs to hundreds of MB (templates and the standard
# library in every unit), and whose own work, analysing C++ sources, is
# CPU-bound with deep, inlined C++ stacks: a profile of it lands on tens
# of thousands of distinct addresses.  cmake was the other candidate; its
# bundled libraries double the build, and its configure-time work is
# mostly waiting on compilers.
#
# The build is kept in build/bench/sym-big/ (a stamp names the version
# and flags) and reused by later runs.  Then cppcheck analyses a few of
# its own sources (WORK, below) under sp-record -F RATE; the spool's
# file-backed frames become ELF addresses of their modules (bench/lib.bash
# spool_addrs), and the same addresses are resolved, REPS rounds,
# interleaved (each round runs every tool once), by
#   sp-sym            the whole spool (every frame, and the spool rewritten),
#                     with its cache of inflated DWARF, and with --no-cache
#   addr2line -f -i -e MODULE              one run per module, on stdin
#   llvm-symbolizer --no-demangle -f -i -e MODULE   the same (LLVM's;
#                     mangled names, as addr2line without -C and sp-sym
#                     write them)
# and with BASE=FILE another sp-sym binary too (before and after in one
# run).  Per tool the median user+sys CPU seconds over the rounds,
# addresses per second, and the ratios of sp-sym's addresses per second
# over each peer's.  The machine's load (uptime) before and after.
# Table on stdout and in build/bench/sym-big.txt.
#
# Knobs: REPS=5 RATE=4999 BASE=FILE; KEEP=1 keeps the scratch directory;
# JOBS=2 for the build.  Needs root or kernel.perf_event_paranoid <= 2
# for sp-record; installs dpkg-dev, g++, make, binutils and llvm when
# missing (as root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${REPS:-5} RATE=${RATE:-4999} JOBS=${JOBS:-2}
BIN=build/bin OUTDIR=build/bench CACHE=build/bench/sym-big
PKG=cppcheck VER=2.10-2 DIR=cppcheck-2.10
CXXFLAGS_BIG="-O2 -g"
declare -A SUM=(
	[cppcheck_2.10-2.dsc]=30c7932e1cc8ef4a5afb85a55957dc9183195d3114da4a2cbf0a8f244dea1edd
	[cppcheck_2.10.orig.tar.gz]=785dcbf711048dfe43ae920b6eff2eeebb4a096e88188a40e173ca4c030f57c3
	[cppcheck_2.10-2.debian.tar.xz]=b6c2a11ef138e20d59e10a1637fb622fd44e34fe617c003fb540e08965f79ca8
)
die() { echo "bench/sym-big.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash

[[ -x $BIN/sp-record && -x $BIN/sp-sym && -x $BIN/sp-dump ]] ||
    die "$BIN/sp-record, sp-sym or sp-dump is missing: run ./configure.sh && ninja"
need addr2line binutils || die "addr2line is missing: apt-get install binutils"
need dpkg-source dpkg-dev || die "dpkg-source is missing: apt-get install dpkg-dev"
need g++ g++ || die "g++ is missing: apt-get install g++"
need make make || die "make is missing: apt-get install make"
need_llvm_symbolizer
LOAD0=$(uptime)

# --- the program ---------------------------------------------------------------
# fetch: the pinned source package into $CACHE/src, through a private apt
# state over ./configure.sh's sources.list (the machine's own sources, as
# deb and deb-src).
fetch() {
	local apt=$CACHE/apt f sum
	local list=build/deps/apt/sources.list
	[[ -s $list ]] || die "$list is missing: run ./configure.sh (it writes it from the machine's apt sources)"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$CACHE/src"
	local o=(-o "Dir::Etc::SourceList=$PWD/$list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$PWD/$apt/lists" -o Dir::State::Status=/var/lib/dpkg/status
		-o "Dir::Cache=$PWD/$apt/cache" -o "Dir::Cache::Archives=$PWD/$apt/cache/archives"
		-o APT::Sandbox::User=root)
	note "fetching $PKG $VER (apt-get source)"
	apt-get "${o[@]}" update >"$CACHE/fetch.log" 2>&1 || true
	(cd "$CACHE/src" && apt-get "${o[@]}" source --download-only "$PKG=$VER") \
	    >>"$CACHE/fetch.log" 2>&1 || die "apt-get source $PKG=$VER failed (see $CACHE/fetch.log)"
	rm -rf "$apt"
	for f in "${!SUM[@]}"; do
		sum=$(sha256sum "$CACHE/src/$f" | cut -d' ' -f1)
		[[ $sum == "${SUM[$f]}" ]] || die "$f: sha256 $sum, expected ${SUM[$f]}"
	done
}

# build: cppcheck at -O2 -g in $CACHE/$DIR, once (the stamp says which).
build() {
	local stamp="$PKG $VER $CXXFLAGS_BIG"
	[[ -x $CACHE/$DIR/cppcheck && $(cat "$CACHE/stamp" 2>/dev/null) == "$stamp" ]] && return 0
	[[ -s $CACHE/src/${PKG}_$VER.dsc ]] || fetch
	rm -rf "${CACHE:?}/$DIR" "$CACHE/stamp"
	(cd "$CACHE" && dpkg-source -x "src/${PKG}_$VER.dsc" "$DIR") >"$CACHE/unpack.log" 2>&1 ||
	    die "dpkg-source -x failed (see $CACHE/unpack.log)"
	note "building $PKG $VER with CXXFLAGS='$CXXFLAGS_BIG' ($JOBS jobs, niced; 15-25 minutes on 2 cores)"
	local t0=$SECONDS
	nice -n 19 make -C "$CACHE/$DIR" -j"$JOBS" cppcheck CXXFLAGS="$CXXFLAGS_BIG" \
	    >"$CACHE/build.log" 2>&1 || die "the build failed (see $CACHE/build.log)"
	echo "$stamp" >"$CACHE/stamp"
	note "built in $((SECONDS - t0)) s"
}
build
EXE=$PWD/$CACHE/$DIR/cppcheck
dbg=0
for h in $(readelf -SW "$EXE" | sed -n 's/.*\] *\.debug_[a-z_]* *[A-Z_]* *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p'); do
	dbg=$((dbg + 16#$h))
done
dbg=$((dbg >> 20))
note "cppcheck: $(($(stat -c %s "$EXE") >> 20)) MiB, debug sections $dbg MiB"

# --- the addresses ----------------------------------------------------------------
T=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] && note "kept $T" || rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$OUTDIR"
# cppcheck checks one of its own sources: some 12 s of C++ analysis.
WORK=(lib/token.cpp)
note "recording cppcheck on ${WORK[*]} at $RATE Hz"
(cd "$CACHE/$DIR" && "$OLDPWD/$BIN/sp-record" -q -F "$RATE" -o "$T/big.spl" -- \
    ./cppcheck -q --std=c++11 -Ilib "${WORK[@]}") >/dev/null 2>&1 ||
    die "sp-record of cppcheck failed"
frames=$($BIN/sp-dump --stats --json "$T/big.spl" |
    grep -o '"frame":{"count":[0-9]*' | grep -o '[0-9]*$')
naddr=$(spool_addrs "$T/big.spl" "$T")
note "$frames frames in the spool, $naddr distinct addresses in file-backed modules"

# --- timing -------------------------------------------------------------------------
# sp-sym's cache of inflated DWARF (the compressed debug files of the
# libraries cppcheck maps, where they are installed) is a fresh one of
# the scratch directory's: the first round fills it.  sp-sym-nocache
# inflates on every run, as the peers do.
export STACKPULSE_CACHE_DIR=$T/cache
tools=(sp-sym sp-sym-nocache addr2line llvm-symbolizer)
[[ -z ${BASE:-} ]] || tools+=(base)
run() {
	case $1 in
	sp-sym) cpu $BIN/sp-sym -q "$T/big.spl" -o "$T/sym.spl" ;;
	sp-sym-nocache) cpu $BIN/sp-sym --no-cache -q "$T/big.spl" -o "$T/sym2.spl" ;;
	base) cpu "$BASE" -q "$T/big.spl" -o "$T/base.spl" ;;
	addr2line) cpu peer "$T" addr2line -f -i -e ;;
	llvm-symbolizer) cpu peer "$T" llvm-symbolizer --no-demangle -f -i -e ;;
	esac
}
note "timing: $REPS rounds, each tool once a round"
for ((r = 0; r < REPS; r++)); do
	for t in "${tools[@]}"; do
		run "$t" >>"$T/times.$t"
	done
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s <= 0) s = 0.001; printf "%.0f", n / s }'; }
declare -A med n
for t in "${tools[@]}"; do
	med[$t]=$(median "$T/times.$t")
	n[$t]=$naddr
done
n[sp-sym]=$frames n[sp-sym-nocache]=$frames n[base]=$frames
ratio() {
	awk -v a="$(rate "${n[$1]}" "${med[$1]}")" -v b="$(rate "${n[$2]}" "${med[$2]}")" \
	    'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }'
}
named=$($BIN/sp-dump --stats --json "$T/sym.spl" |
    grep -o '"symbol":{"count":[0-9]*' | grep -o '[0-9]*$' || true)
{
	printf 'bench/sym-big.sh: %s, %s %s -O2 -g (%s MiB of debug sections), HEAD %s\n' \
	    "$(date -u +%FT%TZ)" "$PKG" "$VER" "$dbg" "$(git rev-parse --short HEAD 2>/dev/null || echo ?)"
	printf 'load before: %s\n' "$LOAD0"
	printf '%-34s %10s %10s %14s  %s\n' tool addresses cpu_s addresses/s "all rounds"
	for t in "${tools[@]}"; do
		printf '%-34s %10s %10s %14s  %s\n' "$t$([[ $t == base ]] && echo " ($BASE)")" \
		    "${n[$t]}" "${med[$t]}" "$(rate "${n[$t]}" "${med[$t]}")" "$(tr '\n' ' ' <"$T/times.$t")"
	done
	printf 'sp-sym named %s frames (SYMBOL records); medians of %s interleaved rounds\n' "$named" "$REPS"
	printf 'ratios, sp-sym addresses/s over the peer'"'"'s: addr2line %s, llvm-symbolizer %s\n' \
	    "$(ratio sp-sym addr2line)" "$(ratio sp-sym llvm-symbolizer)"
	printf 'ratios, sp-sym --no-cache over the peer'"'"'s: addr2line %s, llvm-symbolizer %s\n' \
	    "$(ratio sp-sym-nocache addr2line)" "$(ratio sp-sym-nocache llvm-symbolizer)"
	[[ -z ${BASE:-} ]] || printf 'ratios, BASE over the peer'"'"'s: addr2line %s, llvm-symbolizer %s; sp-sym over BASE %s\n' \
	    "$(ratio base addr2line)" "$(ratio base llvm-symbolizer)" "$(ratio sp-sym base)"
	printf 'load after: %s\n' "$(uptime)"
} | tee "$OUTDIR/sym-big.txt"
