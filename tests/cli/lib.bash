# Helpers for the CLI tests: each check prints PASS or FAIL with its name;
# tests/run.sh counts them.  A script ends with `done_testing`.
#
# tests/run.sh runs each tests/cli/TOOL/TOPIC.sh as the suite cli/TOOL/TOPIC;
# a script with a line "# asan: VAR=PATH..." is run once more as
# cli/TOOL/TOPIC-asan with those variables set (the ASan+UBSan builds of the
# tools it tests).  Each suite has its own scratch directory,
# build/test-tmp/TEST_SUITE (set by run.sh); a script run by hand uses its
# path under tests/ (cli-record-basics, rates-record, soak).
set -u
OUT= ERR= RC=
if [ -z "${TEST_SUITE:-}" ]; then
	TEST_SUITE=$(realpath --relative-to="$(dirname "${BASH_SOURCE[0]}")/.." "$0")
	TEST_SUITE=${TEST_SUITE%.sh}
	TEST_SUITE=${TEST_SUITE//\//-}
fi
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
BIN=build/bin
TMP=build/test-tmp/$TEST_SUITE
# The tools and the test workloads (W).  A suite's "# asan:" line points
# some tools at their ASan builds through these variables (RECORD for
# sp-record); a suite that must use a given build says so itself.
REC=${RECORD:-$BIN/sp-record}
SYM=${SYM:-$BIN/sp-sym}
FOLD=${FOLD:-$BIN/sp-fold}
FLAME=${FLAME:-$BIN/sp-flame}
DUMP=${DUMP:-$BIN/sp-dump}
MERGE=${MERGE:-$BIN/sp-merge}
TOP=${TOP:-$BIN/sp-top}
REPORT=${REPORT:-$BIN/sp-report}
W=build/tests
mkdir -p "$TMP"
# sp-sym's cache of inflated DWARF: the tests' own, not the user's (the
# suite that tests the cache sets its own).
export STACKPULSE_CACHE_DIR=${STACKPULSE_CACHE_DIR-$PWD/build/test-tmp/dwarf-cache}

# run CMD...: runs it, keeping stdout, stderr and status in OUT, ERR, RC.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# counter SPOOL NAME: the value of a summary counter (empty without one).
counter() {
	${DUMP:-$BIN/sp-dump} --stats --json "$1" |
	    grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2
}

# samples_json SPOOL: the sample lines of sp-dump --json.
samples_json() { ${DUMP:-$BIN/sp-dump} --json "$1" | grep '"kind":"sample"'; }
# sample_pids SPOOL: the distinct pids of the spool's samples, one a line.
sample_pids() { samples_json "$1" | grep -o '"pid":[0-9]*' | cut -d: -f2 | sort -u; }
# sample_ms SPOOL: each sample's time in ms after the recording's start
# (the header's start_mono_ns; both CLOCK_MONOTONIC).
sample_ms() {
	${DUMP:-$BIN/sp-dump} --json "$1" | awk '
	/"kind":"header"/ { match($0, /"start_mono_ns":[0-9]+/)
		s = substr($0, RSTART + 16, RLENGTH - 16) + 0 }
	/"kind":"sample"/ { match($0, /"time":[0-9]+/)
		printf "%d\n", (substr($0, RSTART + 7, RLENGTH - 7) - s) / 1e6 }'
}

# fold_count FOLDED RE [RE2]: the samples of the folded stacks in the file
# FOLDED ("STACK COUNT" lines; - for stdin) whose STACK matches the ERE RE;
# given RE2, "N K": N as before and K, those of them that match RE2 too.
# The patterns come through the environment, where awk's -v would take
# their backslashes for escapes.
fold_count() {
	RE=$2 RE2=${3-} awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
	    if (s ~ ENVIRON["RE"]) { n += c; if (ENVIRON["RE2"] != "" && s ~ ENVIRON["RE2"]) k += c } }
	    END { if (ENVIRON["RE2"] == "") print n + 0; else print n + 0, k + 0 }' "$1"
}

# fold_total [FILE...]: the sum of the counts of folded stacks (the
# last field of each line), of the files or stdin.
fold_total() { awk '{ t += $NF } END { print t + 0 }' "$@"; }

# checked_samples TEXT: the samples sp-dump --check counted, from its
# line ("...: ok: N records, M samples, ..."); empty when it has none.
checked_samples() { grep -o '[0-9]* samples' <<<"$1" | head -1 | cut -d' ' -f1; }

# fold_sum [FILE...]: the folded stacks of the files (or stdin), equal
# stacks merged into one line with the sum of their counts, sorted (C).
fold_sum() {
	awk '{ c = $NF; sub(/ [0-9]+$/, ""); n[$0] += c }
	    END { for (s in n) print s " " n[s] }' "$@" | LC_ALL=C sort
}

# named FOLDED RE: some sample of FOLDED has a stack that matches RE.
named() { test "$(fold_count "$1" "$2")" -gt 0; }

# reach_start FOLDED RE [ROOT]: "N K": N samples of the folded stacks that
# match RE (those through main, say), K of them whose outermost frame is
# _start, the walk's end; ROOT, an ERE, is what precedes _start in the
# folded text (with --per-process --modules: the process, then the
# module and its backquote).
reach_start() { fold_count "$1" "$2" "^${3-}_start(;|\$)"; }

# HEX_AWK: awk functions for awk "$HEX_AWK"'PROGRAM' (mawk has no
# strtonum): hex(H), H hexadecimal with or without 0x; frame_off(F, M),
# the offset of the frame F ("M+0xOFF", as sp-dump names it) in the
# module M, -1 for a frame elsewhere.
HEX_AWK='
function hex(h,  v, i) {
	v = 0; h = tolower(h); sub(/^0x/, "", h)
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v + 0
}
function frame_off(f, m) { return index(f, m "+0x") == 1 ? hex(substr(f, length(m) + 4)) : -1 }
'

# fn_range BINARY NAME: "START END" of the function NAME in BINARY, ELF
# addresses in decimal (nm -S); NAME.SUFFIX (.constprop.0, .isra.0) where
# BINARY has no NAME itself.  Nothing for a function nm does not know.
fn_range() {
	nm -S "$1" | awk -v f="$2" "$HEX_AWK"'
	NF == 4 && ($4 == f || (!p && index($4, f ".") == 1)) {
		p = sprintf("%.0f %.0f", hex($1), hex($1) + hex($2)); if ($4 == f) exit }
	END { if (p != "") print p }'
}

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1"
	shift
	printf '    %s\n' "$@"
}

# check NAME COND...: COND is one command; passes when it succeeds.  Returns
# the verdict, but `check NAME A && B` still asserts only A: B's result is
# lost (tests/run.sh's lint refuses that form).  One check per condition.
check() {
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name" "rc=${RC:-?}" "stdout: ${OUT:0:300}" "stderr: ${ERR:0:300}"
		return 1
	fi
}

# need CMD PACKAGE: succeeds when CMD is on PATH, installing PACKAGE with
# apt-get first (as root) where it is not; a fresh machine's package lists
# may be missing or old, so a failed install is retried after apt-get update.
# Output of apt goes to $TMP/apt.log.  Suites run side by side, so apt
# waits for another suite's apt to release the dpkg lock.
need() {
	local apt=(apt-get -o DPkg::Lock::Timeout=600 -qq)
	command -v "$1" >/dev/null && return 0
	[[ $EUID -eq 0 ]] && command -v apt-get >/dev/null || return 1
	DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y "$2" >>"$TMP/apt.log" 2>&1 ||
		{ "${apt[@]}" update >>"$TMP/apt.log" 2>&1 &&
		DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y "$2" >>"$TMP/apt.log" 2>&1; }
	command -v "$1" >/dev/null
}

# spinner_threads: threads-O2's four spinners for 4 s in the background,
# for -t TID: its pid in tp once its threads run, a spinner's tid in t1.
spinner_threads() {
	local i
	$W/threads-O2 4 4000 >/dev/null 2>&1 &
	tp=$!
	running $tp $W/threads-O2
	for i in $(seq 50); do
		[ "$(ls /proc/$tp/task 2>/dev/null | wc -l)" -ge 5 ] && break
		sleep 0.1
	done
	t1=$(ls /proc/$tp/task | sort -n | sed -n 3p)
}

# On a terminal: tmux with a server of the suite's own, named by $sock,
# and the session $pane.
# tm ARGS...: tmux on that server.
tm() { tmux -L "$sock" "$@"; }
# screen FILE: the pane as it is now, as text.
screen() { tm capture-pane -p -t "$pane" >"$1"; }
# until_screen PATTERN SECONDS: waits for PATTERN (an ERE) on the pane;
# fails after SECONDS (a bound on a hang, not a timing to judge).
until_screen() {
	local i
	for i in $(seq $(( $2 * 10 ))); do
		tm capture-pane -p -t "$pane" 2>/dev/null | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}

# skip NAME REASON: a check that cannot run here; counted apart, never a
# pass, and listed with its reason at the end of tests/run.sh.
skip() { echo "SKIP $1: $2"; }

has() { grep -qF -- "$1" <<<"$2"; }

# running PID EXE [STATE]: waits up to 10 s until PID runs EXE (the link
# /proc/PID/exe) and, given STATE, is in that state (S: asleep).  A command
# started with & may not have reached exec when the next line runs; on a
# loaded machine 0.3 s was not always enough.
running() {
	local i st exe
	exe=$(readlink -f "$2")
	for i in $(seq 100); do
		if [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$exe" ]; then
			st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)
			[ -z "${3:-}" ] || [ "${st%% *}" = "$3" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}

# cargo_bin: where cargo is (PATH, else rustup's ~/.cargo/bin/cargo), or
# nothing.
cargo_bin() {
	command -v cargo || { [ -x "$HOME/.cargo/bin/cargo" ] && echo "$HOME/.cargo/bin/cargo"; }
}

# build_rtree CARGO DIR: tests/workloads/rtree, a Rust release binary
# without dependencies, built offline by CARGO in a copy at DIR (cargo
# writes Cargo.lock) through `run`: DIR/target/release/rtree.
build_rtree() {
	rm -rf "$2" && cp -r tests/workloads/rtree "$2"
	run env CARGO_TARGET_DIR="$2/target" PATH="$(dirname "$1"):$PATH" \
	    "$1" build --release --offline --quiet --manifest-path "$2/Cargo.toml"
}

# split_ok A B: A of A+B samples is 60 % (the tree workload's 3:2 split)
# within 5 points or 4 standard deviations, whichever is wider.  A share of
# n samples is binomial, sd sqrt(0.6 * 0.4 / n): with a fixed 5 points, a
# run of 466 samples failed one time in 30 by chance alone (seen under
# load); 4 sd fails one time in 15,000, and a real skew (50 %, 70 %) over
# the usual thousand samples still fails.
split_ok() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = a + b; if (n == 0) exit 1
		d = 4 * sqrt(0.24 / n); if (d < 0.05) d = 0.05
		exit !(a / n >= 0.6 - d && a / n <= 0.6 + d) }'
}

# rect_hues SVG: one line "NAME<TAB>HUE<TAB>CHROMA" per frame of an
# sp-flame SVG: its name, the hue of its rect's fill in degrees (HSL, one
# decimal) and the largest less the smallest of r, g, b (0: grey).
rect_hues() { grep -o '<title>[^<]*</title><rect [^>]*fill="rgb([0-9,]*)"' "$1" |
    awk '{ n = $0; sub(/^<title>/, "", n); sub(/ \([0-9.]+ samples.*/, "", n)
	c = $0; sub(/.*rgb\(/, "", c); sub(/\).*/, "", c); split(c, v, ",")
	r = v[1]; g = v[2]; b = v[3]
	mx = r; if (g > mx) mx = g; if (b > mx) mx = b
	mn = r; if (g < mn) mn = g; if (b < mn) mn = b
	d = mx - mn; h = 0
	if (d > 0 && mx == r) h = 60 * (g - b) / d
	else if (d > 0 && mx == g) h = 60 * ((b - r) / d + 2)
	else if (d > 0) h = 60 * ((r - g) / d + 4)
	if (h < 0) h += 360
	printf "%s\t%.1f\t%d\n", n, h, d }'; }
# speedscope_schema: the path of speedscope's file-format-schema.json,
# after installing the npm package into build/ if need be (suites that run
# side by side take turns); nothing when npm cannot.
speedscope_schema() {
	local s=build/node_modules/speedscope/dist/release/file-format-schema.json
	if [ ! -s "$s" ] && command -v npm >/dev/null; then
		(flock 9 && { [ -s "$s" ] || timeout 120 npm install --prefix build \
		    --no-audit --no-fund speedscope >"$TMP/npm.log" 2>&1; }) \
		    9>build/.npm.lock
	fi
	[ -s "$s" ] && echo "$s"
}

done_testing() { echo DONE; }
