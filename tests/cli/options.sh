#!/usr/bin/env bash
# Every tool answers --version, and refuses an option it does not know (or
# one missing its value) in one line that names it and points to --help.
. "$(dirname "$0")/lib.bash"
for t in sp-dump sp-flame sp-fold sp-merge sp-record sp-sym; do
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
run $BIN/sp-record -o
check "a missing value is named" \
    test "$RC" -eq 2 -a "$ERR" = "sp-record: option '-o' needs a value (see sp-record --help)"
run $BIN/sp-sym --output
check "a missing value of a long option is named" \
    test "$RC" -eq 2 -a "$ERR" = "sp-sym: option '--output' needs a value (see sp-sym --help)"
done_testing
