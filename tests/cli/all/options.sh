#!/usr/bin/env bash
# Every tool answers --version, and refuses an option it does not know (or
# one missing its value) in one line that names it and points to --help;
# a number or pid out of range is refused in one line of the same form
# (sp/tool/tool.h), naming the option, the range and the value.
. "$(dirname "$0")/../lib.bash"
for t in sp-dump sp-flame sp-fold sp-merge sp-record sp-report sp-sym; do
	bin=$BIN/$t
	id=$(readelf -n "$bin" | sed -n 's/^ *Build ID: //p')
	run $bin --version
	check "$t --version: exit 0" test "$RC" -eq 0
	check "$t --version: names the tool and the version" \
	    grep -qE "^$t \(stackpulse\) [0-9]+\.[0-9]+\.[0-9]+$" "$TMP/out"
	check "$t --version: the spool format" grep -qx "spool format 1" "$TMP/out"
	check "$t --version: the binary's own build-id" \
	    test -n "$id" -a "$(sed -n 's/^build-id //p' "$TMP/out")" = "$id"
	run $bin --no-such-option
	check "$t --no-such-option: exit 2" test "$RC" -eq 2
	check "$t --no-such-option: one line naming it and --help" \
	    test "$ERR" = "$t: option '--no-such-option' is not known (see $t --help)"
	run $bin -Z
	check "$t -Z: one line naming it" \
	    test "$RC" -eq 2 -a "$ERR" = "$t: option '-Z' is not known (see $t --help)"
	check "$t --help names --version" has "--version" "$(cd "$TMP" && "$OLDPWD/$bin" --help)"
done
# One letter, one meaning where a user types both (issue 29 §3): the
# letters sp-record and sp-top give a meaning (-d duration, -k kernel, -s
# stack, -c children, -g call graph, -t thread, -w and -i sp-top's) mean
# nothing else elsewhere; those options are long-only there.  One
# exception, which the issue names: sp-report -i, its interactive view
# (sp-top -i is its refresh interval).
for a in "sp-sym -d" "sp-sym -k" "sp-sym -s" "sp-sym -m" "sp-fold -d" "sp-fold -k" \
    "sp-fold -c" "sp-fold -g" "sp-fold -T" "sp-flame -d" "sp-flame -s" "sp-flame -t" \
    "sp-flame -w" "sp-flame -i" "sp-flame -c" "sp-flame -m" "sp-dump -s" "sp-dump -c" \
    "sp-merge -s" "sp-report -d" "sp-report -s" "sp-report -c" "sp-report -w"; do
	t=${a% *} opt=${a#* }
	run $BIN/$t $opt x
	check "$t $opt: long-only, refused (exit 2, '$ERR')" \
	    test "$RC" -eq 2 -a "$ERR" = "$t: option '$opt' is not known (see $t --help)"
done
for a in "sp-fold -p" "sp-fold -t" "sp-sym -b" "sp-report -p" "sp-report -t" "sp-report -n" \
    "sp-top -t"; do
	t=${a% *} opt=${a#* }
	check "$t --help keeps $opt, which means what sp-record's does" \
	    has "  $opt, " "$($BIN/$t --help)"
done
run $BIN/sp-record -o
check "a missing value is named" \
    test "$RC" -eq 2 -a "$ERR" = "sp-record: option '-o' needs a value (see sp-record --help)"
run $BIN/sp-sym --output
check "a missing value of a long option is named" \
    test "$RC" -eq 2 -a "$ERR" = "sp-sym: option '--output' needs a value (see sp-sym --help)"
# bad VALUE TOOL ARGS...: exit 2 and the one line "TOOL: VALUE".
bad() {
	local want=$1 t=$2
	shift 2
	run $BIN/$t "$@"
	check "$t $*: exit 2, '$want'" test "$RC" -eq 2 -a "$ERR" = "$t: $want"
}
bad "-F must be a number from 1 to 10000000, not 'abc'" sp-record -F abc -- true
bad "--max-frames must be a number from 1 to 65536, not '0'" sp-record -m 0 -- true
bad "-p must be a number from 1 to 2147483647, not '12x'" sp-record -p 1,12x
long=1$(printf '0%.0s' {1..40})5
bad "-p must be a number from 1 to 2147483647, not '$long'" sp-record -p 7,$long,8
bad "-d seconds must be a number above 0 and at most 31536000 (fractions too: 0.5), not '0'" \
    sp-record -d 0 -- true
bad "--perf-maps-for must be a number from 1 to 2147483647, not '0'" \
    sp-sym --perf-maps-for 5,0 /dev/null
DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_TIMEOUT=5x \
    bad "DEBUGINFOD_TIMEOUT seconds must be a number from 1 to 3600, not '5x'" \
    sp-sym /dev/null
bad "--max-depth must be a number from 0 to 4294967295, not '-1'" sp-fold --max-depth -1
bad "--from must be a number from 0 to 1000000000 (fractions too: 0.5), not '1e10'" \
    sp-fold --from 1e10
bad "--width must be a number from 100 to 100000, not '99'" sp-flame --width 99
bad "--minwidth must be a number from 0 to 1000 (fractions too: 0.5), not 'nan'" \
    sp-flame --minwidth nan
# A tool that would read standard input refuses a terminal instead of
# waiting for bytes nobody types (spi_tool_input); script(1) gives it one.
tty_refused() {
	local t=$1 what=$2
	shift 2
	RC=0
	timeout 20 script -qec "$(printf '%q ' "$BIN/$t" "$@")" /dev/null \
	    </dev/null >"$TMP/out" 2>&1 || RC=$?
	OUT=$(tr -d '\r' <"$TMP/out") ERR=
	check "$t $*: a terminal on standard input is refused (exit 2)" \
	    test "$RC" -eq 2
	check "$t $*: says so and how to call it" has \
	    "$t: no $what given and standard input is a terminal; usage: $t " "$OUT"
}
if command -v script >/dev/null; then
	tty_refused sp-dump spool
	tty_refused sp-fold spool
	tty_refused sp-sym spool -
	tty_refused sp-flame input
	tty_refused sp-merge spool -
else
	skip "a terminal on standard input" "script(1) is not installed"
fi
done_testing
