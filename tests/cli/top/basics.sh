#!/usr/bin/env bash
# sp-top, the live view: a workload whose CPU time splits 50/30/20 between
# hot_a, hot_b and hot_c (tests/workloads/split.c) shows that split within
# 5 points after 3 s, as text snapshots without a terminal and on a
# terminal under tmux (keys s, t, h, w, q sent with send-keys, the screen
# read with capture-pane; at 80 and 100 columns no line wraps); -o keeps
# the spool; -p attaches; -a shows every process; errors.
# asan: TOP=build/asan/sp-top/sp-top
. "$(dirname "$0")/../lib.bash"
TOP=${TOP:-$BIN/sp-top} DUMP=$BIN/sp-dump W=build/tests

run "$TOP" --help
check "--help: exit 0, usage and the keys" \
    test "$RC" -eq 0 -a -n "$(grep -F 'usage: sp-top' <<<"$OUT")" -a \
    -n "$(grep -F 'q  quit' <<<"$OUT")"
run "$TOP" --version
check "--version: exit 0 ($(head -1 <<<"$OUT"))" has "sp-top" "$OUT"
check "a man page (sp-top/sp-top.1) with the keys" \
    grep -q '^\.SH KEYS' sp-top/sp-top.1
run "$TOP" --bogus
check "an unknown option: exit 2, named" \
    test "$RC" -eq 2 -a -n "$(grep -F -- "--bogus" <<<"$ERR")"
run "$TOP"
check "no target: exit 2, says what to give" has "give either -p PID, -t TID or -- CMD, or -a" "$ERR"

# share NAME FILE: NAME's self % in the last view of FILE (leading spaces).
share() {
	awk -v f="$1" '/^ *SELF%/ { delete s } $4 == f { s[f] = $1 }
	    END { print (f in s) ? s[f] : -1 }' "$2"
}
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 5 && d >= -5) }'; }
samples() { awk '/^samples / { n = $2 } END { print n + 0 }' "$1"; }

# Without a terminal: a text snapshot a second.
# The workloads whose end is checked run through a path of this suite's
# own, so that pgrep never sees the ASan run's, which may run beside.
ln -sfn "$PWD/$W/split" "$TMP/split"
"$TOP" -d 3.6 -- "$TMP/split" 30 >"$TMP/batch.out" 2>"$TMP/batch.err"
rc=$?
views=$(grep -c '^--- sp-top at' "$TMP/batch.out")
n=$(samples "$TMP/batch.out")
check "batch: exit 0, a snapshot each second ($views views, $n samples)" \
    test "$rc" -eq 0 -a "$views" -ge 3
if [ "$n" -lt 1000 ]; then
	skip "batch split" "$n samples in 3.6 s: the machine is too busy to judge a split"
else
	a=$(share hot_a "$TMP/batch.out") b=$(share hot_b "$TMP/batch.out")
	c=$(share hot_c "$TMP/batch.out")
	check "batch: the split 50/30/20 within 5 points ($a/$b/$c)" \
	    eval 'near "$a" 50 && near "$b" 30 && near "$c" 20'
fi
check "batch: complete stacks shown (over 95 %: $(grep -o 'complete stacks [0-9.]*' "$TMP/batch.out" | tail -1))" \
    awk '/complete stacks/ { v = $0 } END { sub(/.*complete stacks /, "", v); exit !(v + 0 > 95) }' "$TMP/batch.out"
check "batch: the workload is gone after sp-top ($(pgrep -f "^$TMP/split 30" | tr '\n' ' '))" \
    eval '! pgrep -f "^$TMP/split 30" >/dev/null'

# The command ends: so does sp-top, its last view saying so.
run timeout 20 "$TOP" -- $W/split 1
check "the command's exit ends sp-top: exit 0, the last view says so" \
    test "$RC" -eq 0 -a -n "$(grep -F '(the targets exited)' <<<"$OUT")"

# -p: attach to a running process.
$W/split 20 &
wp=$!
running $wp $W/split
run "$TOP" -d 2.5 -p $wp
check "-p: attached, exit 0, hot_a named ($(grep -m1 hot_a <<<"$OUT"))" \
    test "$RC" -eq 0 -a -n "$(grep hot_a <<<"$OUT")"
check "-p: the process runs on after sp-top" kill -0 $wp
kill $wp; wait $wp 2>/dev/null

# -a: every process, as perf top; split's three functions keep their
# 5:3:2 among themselves, whatever else the machine runs.
$W/split 20 &
wp=$!
running $wp $W/split
"$TOP" -a -d 3 --batch >"$TMP/all.out" 2>"$TMP/all.err"
rc=$?
a=$(share hot_a "$TMP/all.out") b=$(share hot_b "$TMP/all.out")
c=$(share hot_c "$TMP/all.out")
kill $wp; wait $wp 2>/dev/null
check "-a: exit 0, split's functions among every process's ($a/$b/$c % of all)" \
    awk -v rc="$rc" -v a="$a" 'BEGIN { exit !(rc == 0 && a > 0) }'
if awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { exit !(a + b + c < 10) }'; then
	skip "-a split" "split had $a + $b + $c % of the machine's samples: too busy to judge"
else
	check "-a: among themselves 50/30/20 within 5 points" \
	    awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { t = a + b + c
		a = 100 * a / t; b = 100 * b / t; c = 100 * c / t
		exit !(a - 50 <= 5 && 50 - a <= 5 && b - 30 <= 5 && 30 - b <= 5 &&
		    c - 20 <= 5 && 20 - c <= 5) }'
fi
run "$TOP" -a -p 1
check "-a with -p: exit 2" test "$RC" -eq 2

run "$TOP" -d 1 -p 4194304
check "-p of no process: exit 1, the pid named" \
    test "$RC" -eq 1 -a -n "$(grep -F 4194304 <<<"$ERR")"
run "$TOP" -d 1 -o "$TMP/no/such/dir/x.spl" -- $W/split 1
check "-o into a missing directory: exit 1, the file named, nothing left" \
    test "$RC" -eq 1 -a -n "$(grep -F "$TMP/no/such/dir" <<<"$ERR")" -a \
    ! -e "$TMP/no/such/dir"

# On a terminal: tmux, its own server.
if ! need tmux tmux; then
	skip "sp-top on a terminal" "tmux is not installed and could not be (apt-get install tmux)"
	done_testing
	exit 0
fi
sock=sp-top-test-$$ pane=top
rm -f "$TMP/top.spl" "$TMP/top.rc"
tm kill-server 2>/dev/null
tm -f /dev/null new-session -d -s top -x 110 -y 30 \
    "$TOP -o $TMP/top.spl -- $TMP/split 60; echo \$? >$TMP/top.rc; sleep 60"
check "tmux: the first view within 5 s" until_screen '^ *SELF%' 5
sleep 3.5
screen "$TMP/tty1.out"
n=$(samples "$TMP/tty1.out")
if [ "$n" -lt 1000 ]; then
	skip "tmux split" "$n samples after 3.5 s: the machine is too busy to judge a split"
else
	a=$(share hot_a "$TMP/tty1.out") b=$(share hot_b "$TMP/tty1.out")
	c=$(share hot_c "$TMP/tty1.out")
	check "tmux: after 3 s the split 50/30/20 within 5 points ($a/$b/$c, $n samples)" \
	    eval 'near "$a" 50 && near "$b" 30 && near "$c" 20'
fi
check "tmux: the keys are on screen" grep -q '\[q\]uit' "$TMP/tty1.out"
check "tmux: one view on the screen, not a scroll of them ($(grep -c '^sp-top:' "$TMP/tty1.out"))" \
    test "$(grep -c '^sp-top:' "$TMP/tty1.out")" -eq 1
tm send-keys -t top t
check "key t: by total, run at 100 % total" until_screen 'by total' 3
screen "$TMP/tty2.out"
check "key t: the first row is a caller at ~100 % ($(sed -n 4p "$TMP/tty2.out"))" \
    awk 'NR == 4 { exit !($2 + 0 >= 95) }' "$TMP/tty2.out"
tm send-keys -t top h
check "key h: threads, the workload's thread and its hottest function" \
    until_screen '^ +[0-9.]+ +[0-9]+ +[0-9]+  split +hot_a' 3
tm send-keys -t top w
check "key w: the last 5 s" until_screen 'the last 5 s' 3
tm send-keys -t top s
check "key s: by self again" until_screen 'by self' 3
tm send-keys -t top q
for i in $(seq 50); do [ -s "$TMP/top.rc" ] && break; sleep 0.1; done
check "key q: sp-top exits 0 within 5 s ($(cat "$TMP/top.rc" 2>/dev/null))" \
    test "$(cat "$TMP/top.rc" 2>/dev/null)" = 0
screen "$TMP/tty3.out"
check "after q the last view stays on the terminal" grep -q 'hot_a' "$TMP/tty3.out"
check "the workload is gone after q" eval '! pgrep -f "^$TMP/split 60" >/dev/null'
tm kill-server 2>/dev/null
run $DUMP --check "$TMP/top.spl"
n=$(counter "$TMP/top.spl" samples)
check "-o kept a finished spool with the samples ($n)" \
    test "$RC" -eq 0 -a -n "$(grep finished <<<"$OUT")" -a "${n:-0}" -gt 1000
# 80 and 100 columns, C++ names longer than either: each line is cut to
# the width, none wraps, the keys are whole on a line of their own, the
# names demangled.
for cols in 80 100; do
	# A tmux server of its own: the last one may still be going away.
	sock=sp-top-test-$$-$cols
	rm -f "$TMP/top.rc"
	tm -f /dev/null new-session -d -s top -x $cols -y 24 \
	    "$TOP -- $PWD/$W/cxx-O2 20000; echo \$? >$TMP/top.rc; sleep 60"
	check "$cols columns: the first view within 10 s" until_screen '^ *SELF%' 10
	sleep 2.2
	screen "$TMP/tty$cols.out"
	long=$(awk -v c=$cols 'length($0) >= c' "$TMP/tty$cols.out" | wc -l)
	check "$cols columns: no line as wide as the screen ($long)" test "$long" -eq 0
	check "$cols columns: the counts on the second line, the heads on the third (nothing wrapped)" \
	    awk 'NR == 1 { ok = /^sp-top: / } NR == 2 { ok = ok && /^samples [0-9]+ / }
		NR == 3 { ok = ok && /^ +SELF% +TOTAL% +SAMPLES  FUNCTION$/ } END { exit !ok }' "$TMP/tty$cols.out"
	check "$cols columns: the keys whole on a line of their own" \
	    grep -qx '\[s\]elf \[t\]otal t\[h\]reads \[w\]indow \[q\]uit' "$TMP/tty$cols.out"
	check "$cols columns: a demangled C++ name on the screen" \
	    grep -qE '  shapes::Spinner::spin\(unsigned long\)  \[cxx-O2\]$' "$TMP/tty$cols.out"
	tm send-keys -t top q
	for i in $(seq 100); do [ -s "$TMP/top.rc" ] && break; sleep 0.1; done
	check "$cols columns: q ends it, exit 0" test "$(cat "$TMP/top.rc" 2>/dev/null)" = 0
	tm kill-server 2>/dev/null
done

# -e and -c as sp-record's (perf top's): the header says the event and
# its period; the rows count its samples; an old -c (--children) is told.
run timeout 60 $TOP --batch -e page-faults -- $W/pagefaults 100
check "-e page-faults: the header names it, every event a sample" \
    grep -q "^sp-top: .*, page-faults every 1, " "$TMP/out"
check "-e page-faults: touch has the faults" \
    grep -qE "^ +(9[5-9]|100)\.[0-9] +[0-9.]+ +[0-9]+  touch  \[pagefaults\]" "$TMP/out"
run $TOP -c -- true
check "an old -c: exit 2, the new spelling said" \
    eval 'test "$RC" -eq 2 && has "follow child processes with --children" "$ERR"'
done_testing
