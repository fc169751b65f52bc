#!/usr/bin/env bash
# sp-report -i on a terminal: tmux with a server of its own, at 80x24
# and 100x30, keys sent with send-keys, the screen read back with
# capture-pane.  The recording is tree-O2's (tests/workloads/tree.c:
# spin is the leaf of the work, under leaf_a 60 % and leaf_b 40 %, both
# under run).  The table shows what the text view computes, spin first;
# Enter opens a function's callers and callees, which split as the
# program does; the keys go back; the filters and options apply; q, a
# SIGINT and a SIGTERM give the terminal back as it was; a resize is
# followed.  Each screen is kept as a text capture and an ANSI one
# (capture-pane -e) under build/test-logs/screens/, the paths printed.
. "$(dirname "$0")/../lib.bash"
# asan: REPORT=build/asan/sp-report/sp-report

$REC -q -o "$TMP/tree.spl" -- $W/tree-O2 1500 cpu 2>"$TMP/rec.err" ||
    fail "record tree-O2" "$(cat "$TMP/rec.err")"

# --- off a terminal ------------------------------------------------------------
run $REPORT -i "$TMP/tree.spl"
check "-i off a terminal: exit 2" test "$RC" -eq 2
check "-i off a terminal: said, with the way out" \
    has "sp-report: -i needs a terminal: standard output is not one (drop -i to write the report as text)" "$ERR"

if ! need tmux tmux; then
	skip "sp-report -i on a terminal" "tmux is not installed and could not be (apt-get install tmux, as root)"
	done_testing
	exit 0
fi
shots=build/test-logs/screens
mkdir -p "$shots"
sock=sp-report-tui-$$ pane=rep starts=0
trap 'tm kill-server 2>/dev/null' EXIT

# start COLS ROWS CMD: CMD (a shell command) on a new terminal of that
# size; the terminal's settings before and after it go to tty.before and
# tty.after, then its status to rep.rc, then "[sp-report exited]" is
# shown.
start() {
	# A server of its own each time: the last one may still be going
	# away.
	tm kill-server 2>/dev/null
	sock=sp-report-tui-$$-$((++starts))
	rm -f "$TMP/rep.rc" "$TMP/tty.before" "$TMP/tty.after"
	tm -f /dev/null new-session -d -s $pane -x "$1" -y "$2" -c "$PWD" \
	    "stty -g >$TMP/tty.before; $3; rc=\$?; stty -g >$TMP/tty.after; echo \$rc >$TMP/rep.rc; echo '[sp-report exited]'; sleep 600"
}
# shot NAME: the screen as text (also in $TMP/screen) and with its
# colours, kept and named.
shot() {
	local f=$shots/$TEST_SUITE-$1
	tm capture-pane -p -t $pane >"$f.txt"
	tm capture-pane -p -e -t $pane >"$f.ansi"
	cp "$f.txt" "$TMP/screen"
	echo "screenshot: $f.txt (with its colours: $f.ansi)"
}
# ended: waits for the status of the command start ran, then prints it.
ended() {
	local i
	for i in $(seq 100); do [ -s "$TMP/rep.rc" ] && break; sleep 0.1; done
	cat "$TMP/rep.rc" 2>/dev/null
}
# selected: the selected row of the screen ('>' in its first column), '>'
# made a space.
selected() { sed -n 's/^>/ /p' "$TMP/screen" | head -1; }
# share NAME [FIELD]: field FIELD (1: self, the default) of the first row
# of function NAME on the screen.
share() { sed 's/^>/ /' "$TMP/screen" | awk -v n="$1" -v f="${2:-1}" '$4 == n { print $f; exit }'; }
# until_line N PATTERN SECONDS: waits for line N of the screen to match.
until_line() {
	local i
	for i in $(seq $(( $3 * 10 ))); do
		tm capture-pane -p -t $pane | sed -n "$1p" | grep -qE -- "$2" && return 0
		sleep 0.1
	done
	return 1
}
# until_table SECONDS: waits for the table: its heading, and no function's
# callers or callees.
until_table() {
	local i
	for i in $(seq $(( $1 * 10 ))); do
		tm capture-pane -p -t $pane >"$TMP/now"
		grep -qE "$TABLE" "$TMP/now" && ! grep -qE '^Call(ers|ees) of ' "$TMP/now" &&
		    return 0
		sleep 0.1
	done
	return 1
}
near() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { exit !(a > b - 6 && a < b + 6) }'; }
TABLE='^  Self%  Total%  Samples  Function +Module$'
# restored: the checks that the terminal is as it was after sp-report.
restored() {
	check "$1: the terminal's settings are as before (stty -g)" \
	    cmp -s "$TMP/tty.before" "$TMP/tty.after"
	check "$1: the normal screen is back, the cursor shown" \
	    test "$(tm display -p -t $pane '#{alternate_on} #{cursor_flag}')" = "0 1"
	check "$1: what follows is on the normal screen" until_screen '^\[sp-report exited\]' 5
}

# --- 80x24: the table, a function's callers and callees, back -------------------
run $REPORT "$TMP/tree.spl"
text_self=$(awk '$4 == "spin" { print $1; exit }' <<<"$OUT")
start 80 24 "$REPORT -i $TMP/tree.spl"
check "80x24: the table within 20 s" until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  ' 20
shot table-80x24
check "80x24: the quality line on top" \
    grep -q '^tree.spl: [0-9]* samples of cpu-clock at 1000 Hz' "$TMP/screen"
check "80x24: the table's heading" grep -qE "$TABLE" "$TMP/screen"
check "80x24: the first row, selected, is spin ($(selected))" \
    test "$(grep -A1 -E "$TABLE" "$TMP/screen" | sed -n '2s/^>/ /p' | awk '{ print $4 }')" = spin
s=$(share spin)
check "80x24: spin's self share $s % is the text view's ($text_self %)" \
    test -n "$s" -a "$s" = "$text_self"
check "80x24: spin's self share $s %: the leaf of the work (90 % or more)" \
    awk -v s="${s:-0}" 'BEGIN { exit !(s >= 90) }'
long=$(awk 'length($0) >= 80' "$TMP/screen" | wc -l)
check "80x24: no line as wide as the screen ($long)" test "$long" -eq 0
check "80x24: the keys on the last line" \
    until_line 24 '^j/k move  Enter callers\+callees  Esc back  q quit  row 1/' 1

tm send-keys -t $pane Enter
check "Enter: spin's callers and callees" until_screen '^Callers of tree-O2`spin: in ' 10
shot callers-80x24
a=$(share leaf_a) b=$(share leaf_b)
check "Enter: spin's callers leaf_a $a %, leaf_b $b % (60 / 40 within 6 points)" \
    eval 'near "$a" 60 && near "$b" 40'
run $REPORT --callers spin "$TMP/tree.spl"
check "Enter: leaf_a's share is --callers spin's" \
    test -n "$a" -a "$a" = "$(awk '$4 == "leaf_a" { print $1; exit }' <<<"$OUT")"
check "Enter: the first caller is selected ($(selected))" \
    test "$(selected | awk '{ print $4 }')" = leaf_a
tm send-keys -t $pane Escape
check "Esc: back to the table" until_table 10
shot back-80x24
check "Esc: spin still selected" test "$(selected | awk '{ print $4 }')" = spin
tm send-keys -t $pane h
tm send-keys -t $pane q
check "q: exit 0" test "$(ended)" = 0
restored "q"

# --- down, Enter, and every key back (by total, as --children sorts) -------------
run $REPORT --children --percent-limit 0 -n 0 -q "$TMP/tree.spl"
k=$(awk '/Self%/ { on = 1; next } on && $4 == "run" { print n; exit } on { n++ }' <<<"$OUT")
start 80 24 "$REPORT -i --children --percent-limit 0 $TMP/tree.spl"
check "--children: the table within 20 s" until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  ' 20
for _ in $(seq "${k:-0}"); do tm send-keys -t $pane j; done
check "j x $k: run selected, as --children orders it" until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  run ' 10
shot down-80x24
tm send-keys -t $pane Enter
check "Enter on run: its callers and callees" until_screen '^Callees of tree-O2`run: in ' 10
shot run-80x24
a=$(share work_a) b=$(share work_b) m=$(share main)
check "run's callees work_a $a %, work_b $b % (60 / 40 within 6 points)" \
    eval 'near "$a" 60 && near "$b" 40'
check "run's caller main $m % (100 within 6 points)" near "$m" 100
tm send-keys -t $pane Down
check "Down: from the callers' rows to the callees' (work_a)" \
    until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  work_a ' 10
tm send-keys -t $pane Right
check "Right opens work_a: its callee leaf_a" until_screen '^Callees of tree-O2`work_a: in ' 10
tm send-keys -t $pane BSpace
check "Backspace: back to run's callees, work_a still selected" \
    until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  work_a ' 10
tm send-keys -t $pane Left
check "Left: back to the table, run selected" until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  run ' 10
check "Left: the table, no callers or callees left" until_table 5
tm send-keys -t $pane q
check "q: exit 0 after the walk" test "$(ended)" = 0
restored "q after the walk"

# --- the text view's options ---------------------------------------------------------
start 80 24 "$REPORT -i --percent-limit 50 --comm tree-O2 $TMP/tree.spl"
check "--percent-limit 50: the rest counted" until_screen 'more under 50 %' 20
shot limit-80x24
check "--percent-limit 50: spin's row alone" \
    test "$(grep -cE '^[> ] *[0-9.]+ +[0-9.]+ +[0-9]+  ' "$TMP/screen")" -eq 1
check "--comm: the filter said in the head" grep -q '^counted: [0-9]* of them' "$TMP/screen"
tm send-keys -t $pane q
check "--percent-limit 50: q, exit 0" test "$(ended)" = 0
start 80 24 "cat $TMP/tree.spl | $REPORT -i --callers spin -"
check "--callers spin, the spool on standard input: opens at its callers" \
    until_screen '^Callers of spin: in ' 20
tm send-keys -t $pane j Enter
check "keys from the terminal (not standard input): Enter opens leaf_b" \
    until_screen '^Callers of tree-O2`leaf_b: in ' 10
tm send-keys -t $pane Escape Escape
check "Esc from there: the table behind" until_table 10
tm send-keys -t $pane q
check "standard input: q, exit 0" test "$(ended)" = 0

# --- signals ---------------------------------------------------------------------------
start 80 24 "$REPORT -i $TMP/tree.spl"
check "Ctrl-C: the table first" until_table 20
tm send-keys -t $pane C-c
check "Ctrl-C: exit 130" test "$(ended)" = 130
restored "Ctrl-C"
start 80 24 "$REPORT -i $TMP/tree.spl"
check "SIGTERM: the table first" until_table 20
pid=$(pgrep -f "^$REPORT -i $TMP/tree.spl" | head -1)
kill -TERM "${pid:-0}"
check "SIGTERM: exit 143" test "$(ended)" = 143
restored "SIGTERM"

# --- 100x30, and a resize ----------------------------------------------------------------
start 100 30 "$REPORT -i $TMP/tree.spl"
check "100x30: the table within 20 s" until_screen '^> *[0-9.]+ +[0-9.]+ +[0-9]+  ' 20
shot table-100x30
long=$(awk 'length($0) >= 100' "$TMP/screen" | wc -l)
check "100x30: no line as wide as the screen ($long)" test "$long" -eq 0
check "100x30: the keys on line 30" until_line 30 '^j/k move' 1
w100=$(grep -E "$TABLE" "$TMP/screen" | awk '{ print length($0) }')
tm resize-window -t $pane -x 80 -y 24
check "resized to 80x24: the view follows, the keys on line 24" until_line 24 '^j/k move' 10
shot resized-80x24
w80=$(grep -E "$TABLE" "$TMP/screen" | awk '{ print length($0) }')
check "resized to 80x24: the table narrows with it (heading $w100 then $w80 columns)" \
    test "${w80:-0}" -gt 0 -a "${w80:-0}" -lt "${w100:-0}"
long=$(awk 'length($0) >= 80' "$TMP/screen" | wc -l)
check "resized to 80x24: no line as wide as the screen ($long)" test "$long" -eq 0
tm send-keys -t $pane q
check "100x30: q, exit 0" test "$(ended)" = 0
restored "100x30"
done_testing
