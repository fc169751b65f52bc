#!/usr/bin/env bash
# Real CPython builds recorded through the kernel (issue 14, items 4 and
# 12): the pyenv builds found on the machine, running
# tests/workloads/pytree.py.  A version that is not installed is a SKIP.
. "$(dirname "$0")/../lib.bash"
PYW=tests/workloads/pytree.py


# python X.Y: the newest pyenv build of CPython X.Y, or nothing.
python() {
	local root=${PYENV_ROOT:-$HOME/.pyenv}
	find "$root/versions" -maxdepth 3 -path "*/versions/$1.*/bin/python$1" \
	    2>/dev/null | sort -V | tail -1
}

# under FOLDED FRAME: samples whose stack has FRAME.
under() { awk -v f=";$2;" '{ n = $NF; s = ";" $1 ";" } index(s, f) { t += n } END { print t + 0 }' "$1"; }

# --- CPython 3.12 -X perf (issue 14.4) -----------------------------------------
# -X perf puts a trampoline (sub $8,%rsp; call *%rcx) in anonymous code
# before each Python call: no CFI, no frame pointer.  The instruction
# analysis the recorder uses for leaves applies to any frame in code
# without CFI; before, 99 % of these stacks were truncated (perf's too).
py=$(python 3.12)
if [ -z "$py" ]; then
	skip "python3.12 -X perf" "no CPython 3.12 among the pyenv builds (${PYENV_ROOT:-$HOME/.pyenv}/versions)"
else
	run $REC -o "$TMP/py312.spl" -- "$py" -X perf $PYW 1000
	check "python3.12 -X perf: recorded (exit $RC)" test "$RC" -eq 0
	ppid=$($DUMP "$TMP/py312.spl" | awk '/^python .* a Python runtime/ { print $4; exit }' | tr -d :)
	n=$(counter "$TMP/py312.spl" samples)
	t=$(counter "$TMP/py312.spl" truncated_stacks)
	check "python3.12 -X perf: 95% of stacks complete ($t of $n truncated)" \
	    test "${n:-0}" -gt 0 -a $((t * 100)) -le $((n * 5))
	$SYM "$TMP/py312.spl" 2>"$TMP/py312.sym" >"$TMP/py312.syms"
	$FOLD "$TMP/py312.syms" >"$TMP/py312.folded"
	$FOLD --show-hidden "$TMP/py312.syms" >"$TMP/py312.all"
	rm -f "/tmp/perf-$ppid.map"
	all=$(fold_total "$TMP/py312.folded")
	a=$(under "$TMP/py312.folded" work_a)
	b=$(under "$TMP/py312.folded" work_b)
	check "python3.12 -X perf: most stacks pass through the Python functions ($((a + b)) of $all)" \
	    test "$all" -gt 0 -a $(((a + b) * 10)) -ge $((all * 9))
	ok=$(grep -E '^_start;.*;<module>;(.*;)?main;(.*;)?work_[ab];(.*;)?leaf_[ab]( |;)' \
	    "$TMP/py312.folded" | fold_total)
	check "python3.12 -X perf: they run from _start through <module>, main, work_* to leaf_* ($ok of $((a + b)))" \
	    test $((a + b)) -gt 0 -a $((ok * 100)) -ge $(((a + b) * 99))
	check "python3.12 -X perf: work_a takes 60% (5 points or 4 sd) ($a vs $b)" \
	    split_ok "$a" "$b"
	# Interpreter machinery stands behind the Python frames: hidden, but
	# not at the leaf, where the eval loop's time is leaf_*'s own.
	inner=$(grep -cE ';<module>;.*;_PyEval_EvalFrameDefault;.*;leaf_[ab](;| )' "$TMP/py312.folded")
	check "python3.12 -X perf: no eval loop between the Python frames ($inner stacks)" \
	    test "$inner" -eq 0
	leaf=$(grep -E ';leaf_[ab];_PyEval_EvalFrameDefault [0-9]+$' "$TMP/py312.folded" |
	    fold_total)
	check "python3.12 -X perf: the eval loop stays where it is the leaf ($leaf samples)" \
	    test "$leaf" -gt 0
	# py_trampoline_evaluator calls each Python function's trampoline:
	# machinery between every two Python frames (issue 28.6), hidden like
	# the eval loop wherever a Python frame stands in for it, and there
	# with --show-hidden.  Unlike the eval loop it does no work of its
	# own, so as the leaf it goes too, its time the Python frame's under
	# it.  (A stack with no Python frame keeps everything: at startup it
	# writes the perf map.)
	tramp=$(fold_count "$TMP/py312.folded" '(^|;)py_trampoline_evaluator(;|$)' '(^|;)<module>(;|$)')
	tramp=${tramp#* }
	check "python3.12 -X perf: no py_trampoline_evaluator in a default fold's Python stacks, leaf or not ($tramp samples)" \
	    test "$tramp" -eq 0
	tramp=$(fold_count "$TMP/py312.all" ';<module>;(.*;)?py_trampoline_evaluator;main;')
	check "python3.12 -X perf: --show-hidden keeps it between the Python frames ($tramp samples)" \
	    test "$tramp" -gt 0
fi

# --- CPython 3.11: no perf map, nothing hidden (issue 14.12) -----------------
# Without Python frames to stand in for it, the interpreter machinery is
# the profile: the eval loop's own time (a quarter of it) must not move to
# its caller, __libc_start_call_main.
py=$(python 3.11)
if [ -z "$py" ]; then
	skip "python3.11" "no CPython 3.11 among the pyenv builds (${PYENV_ROOT:-$HOME/.pyenv}/versions)"
else
	run $REC -o "$TMP/py311.spl" -- "$py" $PYW 1000
	check "python3.11: recorded (exit $RC)" test "$RC" -eq 0
	$SYM "$TMP/py311.spl" 2>/dev/null | $FOLD >"$TMP/py311.folded"
	$SYM "$TMP/py311.spl" 2>/dev/null | $FOLD --show-hidden >"$TMP/py311.all"
	all=$(fold_total "$TMP/py311.folded")
	ev=$(grep -E ';_PyEval_EvalFrameDefault [0-9]+$' "$TMP/py311.folded" |
	    fold_total)
	check "python3.11: the eval loop's own time is shown ($ev of $all samples)" \
	    test "$all" -gt 0 -a $((ev * 10)) -ge "$all"
	check "python3.11: by default as with --show-hidden (no Python frames)" \
	    cmp -s "$TMP/py311.folded" "$TMP/py311.all"
	c=$(grep -E '^_start;__libc_start_main(_impl)?;__libc_start_call_main [0-9]+$' "$TMP/py311.folded" |
	    fold_total)
	check "python3.11: no time lands on __libc_start_call_main ($c)" test "$c" -eq 0
fi

done_testing
