#!/usr/bin/env bash
# sp-top's view says what people need: C++ names demangled (as c++filt
# prints them, with no c++filt in PATH); a view with no samples says why
# (the target idle, since the start or in the -w window); a kernel
# thread (kthreadd, pid 2) is said to be one, with what shows it (-k,
# -a), never "add --children", which leads nowhere for it.  (On a
# terminal, at 80 and 100 columns: tests/cli/top/basics.sh.)
# asan: TOP=build/asan/sp-top/sp-top
. "$(dirname "$0")/../lib.bash"
TOP=${TOP:-$BIN/sp-top} W=build/tests

# --- C++ names demangled, without c++filt ------------------------------------------
mkdir -p "$TMP/nocxxfilt"
run env PATH="$TMP/nocxxfilt" "$TOP" --batch -d 2.2 -- "$PWD/$W/cxx-O2" 3000
check "C++: exit 0, nothing on standard error" test "$RC" -eq 0 -a -z "$ERR"
check "C++: shapes::Spinner::spin(unsigned long) in the view" \
    grep -qE '^ +[0-9.]+ +[0-9.]+ +[0-9]+  shapes::Spinner::spin\(unsigned long\)  \[cxx-O2\]$' <<<"$OUT"
check "C++: shapes::lookups(std::map<int, int, ...> const&, int) too" \
    has "shapes::lookups(std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > > const&, int)" "$OUT"
check "C++: no mangled name left ($(grep -c '_Z' <<<"$OUT"))" test "$(grep -c '_Z' <<<"$OUT")" -eq 0
# Threads: the hottest function, demangled too.
run "$TOP" --batch --threads -d 1.2 -- "$PWD/$W/cxx-O2" 3000
check "C++, threads: the hottest function demangled" \
    grep -qE ' cxx-O2 +(shapes|std)::.*\([0-9.]+\)$' <<<"$OUT"

# --no-demangle: the names as the binary has them, as sp-fold's and sp-report's.
run "$TOP" --batch --no-demangle -d 1.2 -- "$PWD/$W/cxx-O2" 3000
check "--no-demangle: exit 0, shapes::Spinner::spin mangled (_ZN6shapes7Spinner4spinEm)" \
    grep -qE '^ +[0-9.]+ +[0-9.]+ +[0-9]+  _ZN6shapes7Spinner4spinEm  \[cxx-O2\]$' <<<"$OUT"
check "--no-demangle: no demangled name (shapes::) in the view" \
    test "$(grep -c 'shapes::' <<<"$OUT")" -eq 0

# --- -t TID, as sp-record's and perf's: that thread alone --------------------------
spinner_threads
run "$TOP" --batch --threads -d 1.2 -t "$t1"
kill $tp 2>/dev/null; wait $tp 2>/dev/null
rows=$(awk '/^ +SHARE%/ { on = 1; next } /^$/ { on = 0 } on { print $3 }' <<<"$OUT" | sort -u | paste -sd,)
check "-t $t1: exit 0, the view names the thread" \
    test "$RC" -eq 0 -a -n "$(grep -F "sp-top: tid $t1," <<<"$OUT")"
check "-t $t1: the threads' rows are that thread's alone ($rows)" test "$rows" = "$t1"
run "$TOP" --batch -d 1 -t 4194303
check "-t with no such thread: exit 1, named" \
    test "$RC" -eq 1 -a -n "$(grep -F -- "-t 4194303: no such thread" <<<"$ERR")"

# --- idle: since the start, and in the window -------------------------------------
sleep 30 &
sp=$!
running $sp sleep
run "$TOP" --batch -d 1.5 -p $sp
kill $sp; wait $sp 2>/dev/null
check "idle: samples 0, the view says the target was idle" \
    test "$RC" -eq 0 -a -n "$(grep -F '(no samples: the target was idle)' <<<"$OUT")"
check "... and so does the advice on standard error" has "sp-top: no samples: the target was idle" "$ERR"
# Busy for a second by the clock, then asleep: the last second of a view
# at 5 s has no sample, which the view says (the recorder's advice, of
# the whole run, has nothing to say then).
run "$TOP" --batch -w 1 -d 5 -- sh -c "$PWD/$W/split 1; exec sleep 30"
last=$(awk '/^--- sp-top at/ { v = "" } { v = v $0 "\n" } END { printf "%s", v }' <<<"$OUT")
check "idle in the window: the last view has samples 0 ($(grep '^samples' <<<"$last"))" \
    grep -q '^samples 0 ' <<<"$last"
check "... and says so: no samples in the last 1 s, the target idle" \
    has "(no samples in the last 1 s: the target was idle)" "$last"
check "... earlier views had the split's samples" grep -qE '^ +[0-9.]+ +[0-9.]+ +[0-9]+  hot_a' <<<"$OUT"

# --- a kernel thread: -p 2 -----------------------------------------------------------
if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
	skip "kernel thread" "pid 2 is not kthreadd here ($(cat /proc/2/comm 2>/dev/null || echo none): a pid namespace?)"
else
	run "$TOP" --batch -d 1.5 -p 2
	check "-p 2: exit 0, the view says kthreadd is a kernel thread with no user stack, -k and -a" \
	    test "$RC" -eq 0 -a -n "$(grep -F '(pid 2 is a kernel thread: it has no user stack; -k shows its kernel stacks, -a every process'"'"'s)' <<<"$OUT")"
	check "-p 2: standard error says so too" \
	    has "sp-top: pid 2 is a kernel thread: it has no user stack to sample; -k (--kernel) samples its kernel stacks, -a every process" "$ERR"
	check "-p 2: no --children advice ($(grep -c -- '--children' <<<"$ERR"))" \
	    test "$(grep -c -- '--children' <<<"$ERR")" -eq 0
	run "$TOP" --batch -k -d 1.2 -p 2
	check "-p 2 -k: its kernel stacks are sampled: no kernel-thread advice" \
	    test "$RC" -eq 0 -a "$(grep -c 'kernel thread' <<<"$OUT$ERR")" -eq 0
fi

done_testing
