#!/usr/bin/env bash
# Runs the test suites, each as one edge of a ninja manifest written for the
# run (build/test-logs/suites.ninja), so that independent suites share the
# cores; ends with the skipped checks and their reasons, the failed ones, and
# one line "N passed, N failed" (", N skipped" when something was skipped).
# Exit status 1 when anything failed.
#
#   tests/run.sh              every suite (ninja test runs this)
#   tests/run.sh SUITE...     only those, e.g. unit cli/fold/ux regress/cfi
#   tests/run.sh --list       the suites' names, in the order they start
#
# The suites come from the files alone:
#   lint              the test scripts' lint (lint_checks below), and its self-test
#   unit, unit-asan   Criterion, build/glibc/unit and build/asan/unit, per test
#   regress/T         fuzz/corpus/T replayed by build/asan/regress-T (the spool
#                     readers' targets also replay tests/bad)
#   cli/TOOL/TOPIC    tests/cli/TOOL/TOPIC.sh, the tools as a user runs them
#                     (TOOL: a tool's folder, all/, project/, or a64/: the
#                     arm64 leaf analysis against the cross compiler's CFI)
#   cli/TOOL/TOPIC-asan  the same again with the variables of its "# asan:"
#                     line
#   rates/NAME        tests/rates/NAME.sh: rates, ratios and loss, with the
#                     release binaries, one at a time after all the others
# TEST_JOBS suites run at once (default: the number of CPUs).  Each suite
# writes build/test-logs/ID.out and ID.res (ID: the name with - for /) and
# keeps its scratch files in build/test-tmp/ID; build/test-times keeps each
# suite's last duration, so that the longest start first.
set -u
cd "$(dirname "$0")/.." || exit 1
# Hermetic: no debuginfod server of the machine's (Debian's profile sets
# one) is asked by a suite that did not start its own.
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
logs=build/test-logs
times=build/test-times
# The fuzz targets that read spools also replay tests/bad.
bad_readers=" snapshot replay tail roundtrip sym "

sid() { echo "${1//\//-}"; }	# SUITE: its file name

# asan_vars SCRIPT: the VAR=PATH words of its "# asan:" line, if any.
asan_vars() { sed -n 's/^# asan: //p' "$1" | head -1; }

# suites: every suite's name, the longest kinds first (the order used
# before build/test-times knows better).
suites() {
	local s n
	for s in tests/cli/*/*.sh; do
		n=${s#tests/}
		[ -n "$(asan_vars "$s")" ] && echo "${n%.sh}-asan"
	done
	for s in tests/cli/*/*.sh; do n=${s#tests/}; echo "${n%.sh}"; done
	echo unit-asan
	echo unit
	for s in fuzz/corpus/*/; do s=${s%/}; echo "regress/${s##*/}"; done
	echo lint
	for s in tests/rates/*.sh; do [ -e "$s" ] && echo "rates/$(basename "$s" .sh)"; done
}

# --- one suite: build/test-logs/ID.out (its output) and ID.res ------------------
# ID.res holds "label TEXT", "counts PASSED FAILED SKIPPED", "failed NAME" and
# "skipped NAME: REASON" lines, "details LINE" (what to show of a failure),
# and "seconds N".

# tally_script F: F.res from the PASS, FAIL and SKIP lines of F.out; a
# script that did not reach done_testing has failed.
tally_script() {
	awk '
	/^PASS / { p++ }
	/^FAIL / { f++; print "failed " substr($0, 6) }
	/^SKIP / { s++; print "skipped " substr($0, 6) }
	{ last = $0 }
	END {
		if (last != "DONE") { f++; print "failed the script stopped before its end (no DONE line)" }
		print "counts", p + 0, f + 0, s + 0
	}' "$1.out" >"$1.res"
	grep -A5 '^FAIL' "$1.out" | grep -v '^DONE$\|^--$' | head -40 |
	    sed 's/^/details /' >>"$1.res"
}

script() {	# F SUITE SCRIPT [VAR=VALUE...]
	local f=$1 suite=$2 s=$3
	shift 3
	env TEST_SUITE="$(sid "$suite")" "$@" bash "$s" >"$f.out" 2>&1
	tally_script "$f"
}

criterion() {	# F BINARY
	local f=$1 rc leaks
	rm -f "$f.tap"
	"$2" --tap="$f.tap" --jobs=2 >"$f.out" 2>&1
	rc=$?
	# LeakSanitizer reports as a test's process exits, and Criterion
	# passes the test all the same: a report anywhere fails the suite.
	leaks=$(grep -c '^==[0-9]*==ERROR: LeakSanitizer' "$f.out")
	# Criterion's TAP: "ok - s::t (0.00s)", "ok - s::t # SKIP why",
	# "not ok - s::t ...".
	cat "$f.tap" 2>/dev/null | awk -v rc="$rc" -v leaks="$leaks" '
	/^ok / && / # SKIP / { s++; r = $0; sub(/^ok - /, "", r); sub(/ *# SKIP */, ": ", r)
		print "skipped " r; next }
	/^ok / { p++ }
	/^not ok / { f++; r = $0; sub(/^not ok - /, "", r); print "failed " r }
	END {
		if (rc != 0 && f == 0) { f = 1; print "failed exit status " rc " outside any test"
			print "details exit status " rc " outside any test" }
		if (leaks > 0) { f++; print "failed LeakSanitizer reported " leaks " leak(s) (see the log)" }
		print "counts", p + 0, f + 0, s + 0
	}' >"$f.res"
	grep -A6 '^not ok ' "$f.tap" 2>/dev/null | head -40 | sed 's/^/details /' >>"$f.res"
}

regress() {	# F TARGET
	local f=$1 t=$2 dirs=(fuzz/corpus/$2)
	[[ $bad_readers == *" $t "* ]] && dirs+=(tests/bad)
	if [ ! -x "build/asan/regress-$t" ]; then
		echo "no build/asan/regress-$t: fuzz/corpus/$t has no fuzz/fuzz_$t.c, so no replay target" >"$f.out"
		printf 'counts 0 1 0\nfailed %s\n' "$(cat "$f.out")" >"$f.res"
	elif "build/asan/regress-$t" "${dirs[@]}" >"$f.out" 2>&1; then
		printf 'label regress/%s (%s)\ncounts 1 0 0\n' "$t" \
		    "$(grep -o '[0-9]* files' "$f.out" | head -1)" >"$f.res"
	else
		printf 'counts 0 1 0\nfailed the replay of %s\n' "${dirs[*]}" >"$f.res"
		tail -20 "$f.out" | sed 's/^/details /' >>"$f.res"
	fi
}

# report SUITE: its line, and what failed.
report() {
	local f=$logs/$(sid "$1")
	awk -v name="$1" -v logf="$f.out" '
	$1 == "label" { name = substr($0, 7) }
	$1 == "counts" { p = $2; n = $3; s = $4 }
	$1 == "details" { d = d "    " substr($0, 9) "\n" }
	END {
		printf "%-28s %4d passed, %d failed%s\n", name, p, n, s ? ", " s " skipped" : ""
		if (n) printf "%s    (all of it: %s)\n", d, logf
	}' "$f.res"
}

one() {		# SUITE
	local suite=$1 f s t0=$SECONDS
	f=$logs/$(sid "$suite")
	rm -rf "build/test-tmp/$(sid "$suite")"
	case $suite in
	lint)		(lint_suite) >"$f.out" 2>&1; tally_script "$f" ;;
	unit)		criterion "$f" build/glibc/unit ;;
	unit-asan)	ASAN_OPTIONS=detect_leaks=1 criterion "$f" build/asan/unit ;;
	regress/*)	regress "$f" "${suite#regress/}" ;;
	cli/*-asan)	s=tests/cli/${suite#cli/}
			s=${s%-asan}.sh
			# shellcheck disable=SC2046  # the words of the "# asan:" line
			script "$f" "$suite" "$s" $(asan_vars "$s") ;;
	cli/*|rates/*)	script "$f" "$suite" "tests/$suite.sh" ;;
	*)		echo "tests/run.sh: no suite $suite (see tests/run.sh --list)" >&2
			return 2 ;;
	esac
	echo "seconds $((SECONDS - t0))" >>"$f.res"
	report "$suite"
}

# --- the lint ---------------------------------------------------------------------
# lint_checks FILE...: "FILE:LINE: STATEMENT" for each statement that runs
# check and goes on with &&: what follows the && is not asserted (lib.bash).
# Only the statement's own words count: quoted text, $( ) and comments are
# set aside, so a && in a check's name, an eval'd string or a command
# substitution is not one.
lint_checks() {
	awk '
	function flush() {
		if (bare ~ /(^|[;&|({!]|[ \t](then|do|else))[ \t]*check[ \t][^;]*&&/)
			printf "%s:%d: %s\n", FILENAME, start, text
		bare = text = ""; start = 0
	}
	# The innermost open construct: single or double quotes, $( (s) or a
	# parenthesis inside one (p).  Only words outside them all are kept.
	function top() { return n ? st[n] : "" }
	function push(x) { st[++n] = x }
	FNR == 1 { n = 0; bare = text = ""; start = 0 }
	{
		line = $0
		if (!start) start = FNR
		text = text (text == "" ? "" : " ") line
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1); t = top()
			if (t == "\047") { if (c == "\047") n--; continue }
			if (c == "\\") { i++; continue }
			if (c == "$" && substr(line, i + 1, 1) == "(") { push("s"); i++; continue }
			if (t == "\"") { if (c == "\"") n--; continue }
			if (c == "\047" || c == "\"") { push(c); continue }
			if (t != "" && c == "(") { push("p"); continue }
			if (t != "" && c == ")") { n--; continue }
			if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;]/)) break
			if (t == "") bare = bare c
		}
		# A line ends the statement unless a construct or a \ carries it on.
		if (n == 0 && substr(line, length(line)) != "\\") flush()
		else if (n == 0) bare = bare " "
	}
	END { flush() }' "$@"
}

lint_suite() {
	TEST_SUITE=lint
	. tests/cli/lib.bash
	cat >"$TMP/bad.sh" <<-'EOF'
	check "one line" has a "$X" && has b "$X"
	check "continued" \
	    test "$RC" -eq 0 && has "x" "$OUT"
	for f in a b; do check "in a loop $f" true && true; done
	[ -n "$x" ] || check "after ||" test 1 && false
	EOF
	cat >"$TMP/good.sh" <<-'EOF'
	check "a name with && in it" true
	check "eval asserts both" eval 'test "$RC" -eq 0 && has x "$OUT"'
	check "a comment" true	# && not code
	check "a quoted \$( )" test "$(echo "a && b")" = x
	check "a quote over two lines" test "a
	b && c" = x
	check "two lines" \
	    test 1 -eq 1
	x=$(check_this) && y
	if check "in an if" true; then :; fi
	has "check x && y" "$Z" && check "only after" true
	EOF
	run lint_checks "$TMP/bad.sh"
	check "the lint finds each planted check ... && ... (lines 1 2 4 5)" \
	    test "$(cut -d: -f2 "$TMP/out" | xargs)" = "1 2 4 5"
	run lint_checks "$TMP/good.sh"
	check "the lint lets the planted good forms pass" test -z "$OUT"
	shopt -s nullglob
	run lint_checks tests/cli/*/*.sh tests/rates/*.sh tests/soak.sh
	if [ "$RC" -eq 0 ] && [ -z "$OUT" ]; then
		pass "no test script says check ... && ..."
	else
		mapfile -t found <<<"$OUT$ERR"
		fail "no test script says check ... && ... (one check per condition)" "${found[@]}"
	fi
	done_testing
}

# --- the whole run ------------------------------------------------------------------
# order SUITE...: the rates suites last, the others longest first by
# build/test-times (a suite it does not know yet first).
order() {
	printf '%s\n' "$@" | awk -v times="$times" '
	BEGIN { while ((getline l < times) > 0) { split(l, w, " "); t[w[1]] = w[2] } }
	{ printf "%d %d %s\n", /^rates\//, ($0 in t) ? -t[$0] : -1e9, $0 }' |
	    sort -s -k1,1n -k2,2n | cut -d' ' -f3
}

manifest() {	# SUITE...: the ninja file that runs them
	local s others=""
	cat <<-EOF
	# Written by tests/run.sh for one run: one edge per suite.
	ninja_required_version = 1.10
	builddir = $logs
	rule suite
	  command = bash tests/run.sh --one \$name
	  description = \$name
	# Rates and losses run one at a time, after everything else.
	pool timing
	  depth = 1
	EOF
	for s in "$@"; do
		if [[ $s == rates/* ]]; then
			printf 'build %s: suite ||%s\n  name = %s\n  pool = timing\n' \
			    "$logs/$(sid "$s").res" "$others" "$s"
		else
			printf 'build %s: suite\n  name = %s\n' "$logs/$(sid "$s").res" "$s"
			others="$others $logs/$(sid "$s").res"
		fi
	done
}

# untracked: files in the source tree that git does not know or ignore.
untracked() { git ls-files --others --exclude-standard 2>/dev/null | sort; }

summary() {	# SUITE...
	local s f p=0 n=0 k=0 left a b c
	: >"$logs/skipped" && : >"$logs/failed"
	for s in "$@"; do
		f=$logs/$(sid "$s").res
		if [ ! -s "$f" ]; then
			echo "$s: its runner stopped before writing a result" >>"$logs/failed"
			n=$((n + 1))
			continue
		fi
		read -r _ a b c < <(grep '^counts ' "$f")
		p=$((p + a)) n=$((n + b)) k=$((k + c))
		sed -n "s|^skipped |$s: |p" "$f" >>"$logs/skipped"
		sed -n "s|^failed |$s: |p" "$f" >>"$logs/failed"
		sed -n "s|^seconds |$s |p" "$f"
	done >"$logs/times"
	# V8 (node --perf-basic-prof) writes isolate-*.log where it runs, a
	# test may write ./x.spl: what a suite leaves belongs under build/.
	if [ -f "$logs/untracked" ]; then
		left=$(untracked | comm -13 "$logs/untracked" - | head -20 | xargs)
		if [ -z "$left" ]; then
			p=$((p + 1))
			printf '%-28s %4d passed, %d failed\n' "tree (nothing left in it)" 1 0
		else
			echo "tree: the suites left files in the source tree: $left" >>"$logs/failed"
			n=$((n + 1))
			printf '%-28s %4d passed, %d failed\n' "tree (nothing left in it)" 0 1
		fi
	fi
	# This run's durations replace the last ones, the others stay.
	cat "$times" "$logs/times" 2>/dev/null |
	    awk '{ t[$1] = $2 } END { for (s in t) print s, t[s] }' |
	    sort >"$times.new" && mv "$times.new" "$times"
	if [ -s "$logs/skipped" ]; then
		echo "skipped:"
		sed 's/^/  /' "$logs/skipped"
	fi
	if [ -s "$logs/failed" ]; then
		echo "failed:"
		sed 's/^/  /' "$logs/failed"
	fi
	if [ "$k" -gt 0 ]; then
		echo "$p passed, $n failed, $k skipped"
	else
		echo "$p passed, $n failed"
	fi
	[ "$n" -eq 0 ]
}

main() {	# [SUITE...]
	local all s
	mapfile -t all < <(suites)
	if [ $# -eq 0 ]; then
		set -- "${all[@]}"
	else
		for s in "$@"; do
			printf '%s\n' "${all[@]}" | grep -qxF -- "$s" ||
			    { echo "tests/run.sh: no suite $s (see tests/run.sh --list)" >&2; exit 2; }
		done
	fi
	rm -rf "$logs"
	[ $# -eq ${#all[@]} ] && rm -rf build/test-tmp	# a whole run starts clean
	mkdir -p "$logs"
	git rev-parse --is-inside-work-tree >/dev/null 2>&1 && untracked >"$logs/untracked"
	mapfile -t all < <(order "$@")
	manifest "${all[@]}" >"$logs/suites.ninja"
	# -k 0: a runner that dies does not stop the others (summary counts it).
	ninja -f "$logs/suites.ninja" -k 0 -j "${TEST_JOBS:-$(nproc)}"
	summary "$@"
}

case ${1:-} in
--one)		one "$2"; exit 0 ;;	# an edge of suites.ninja; the summary judges
--list)		mapfile -t all < <(suites); order "${all[@]}"; exit 0 ;;
--lint)		shift; lint_checks "$@"; exit 0 ;;
-*)		echo "usage: tests/run.sh [SUITE...] | --list" >&2; exit 2 ;;
*)		main "$@" ;;
esac
