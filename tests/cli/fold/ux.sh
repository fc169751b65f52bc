#!/usr/bin/env bash
# sp-fold, sp-flame and sp-dump as a user meets them (issue 12): a spool
# given to sp-flame, unsymbolized spools, filters that match nothing,
# -o that never leaves a broken file, write errors that say why, names
# with ';' that every folded-stacks reader keeps whole, fractional
# counts, --colors module on real frames, and what `ninja install` puts
# where the man pages say.
# asan: FOLD=build/asan/sp-fold/sp-fold FLAME=build/asan/sp-flame/sp-flame DUMP=build/asan/sp-dump/sp-dump
. "$(dirname "$0")/../lib.bash"

$REC -q -o "$TMP/raw.spl" -- $W/tree-O2 400 cpu 2>"$TMP/rec.err" ||
    fail "record tree-O2" "$(cat "$TMP/rec.err")"
$SYM -q -o "$TMP/sym.spl" "$TMP/raw.spl"
printf 'main;run;work 3\nmain;idle 1\n' >"$TMP/good.folded"
printf 'main;run;work 3\nmain;idle x\n' >"$TMP/bad.folded"
nlines() { printf '%s' "$1" | grep -c ''; }

# --- 1. the wrong input, or none matched ---------------------------------------
run $FLAME "$TMP/sym.spl"
check "sp-flame on a spool: exit 1" test "$RC" -eq 1
check "sp-flame on a spool says so in one line, and what to run" test \
    "$ERR" = "sp-flame: $TMP/sym.spl: this is a spool; run sp-fold first: sp-fold $TMP/sym.spl | sp-flame"
run sh -c "$FLAME <'$TMP/raw.spl'"
check "... on standard input too" test "$RC" -eq 1 -a \
    "$ERR" = "sp-flame: stdin: this is a spool; run sp-fold first: sp-fold FILE | sp-flame"

run $FOLD "$TMP/raw.spl"
hint="sp-fold: $TMP/raw.spl: no frame is symbolized (they print as module+0xOFFSET); name them first: sp-sym $TMP/raw.spl | sp-fold"
check "an unsymbolized spool still folds" test "$RC" -eq 0 -a -n "$OUT"
check "an unsymbolized spool: one line says to run sp-sym first" \
    test "$ERR" = "$hint"
run $FOLD --pprof -o "$TMP/raw.pb.gz" "$TMP/raw.spl"
check "... with --pprof too" test "$RC" -eq 0 -a "$ERR" = "$hint"
run $FOLD "$TMP/sym.spl"
check "a symbolized spool gets no hint" test "$RC" -eq 0 -a -z "$ERR"
N=$(awk '{ n += $NF } END { print n }' <<<"$OUT")

run $FOLD --pid 424242 "$TMP/sym.spl"
check "--pid matching nothing: exit 0, nothing on stdout" \
    test "$RC" -eq 0 -a -z "$OUT"
check "--pid matching nothing says so, naming the filter" test \
    "$ERR" = "sp-fold: $TMP/sym.spl: no sample matched --pid 424242 (of $N samples)"
run $FOLD --comm nosuch --tid 7 "$TMP/sym.spl"
check "--comm and --tid matching nothing are both named" test \
    "$ERR" = "sp-fold: $TMP/sym.spl: no sample matched --tid 7 --comm nosuch (of $N samples)"
run $FOLD --from 100 "$TMP/sym.spl"
check "--from past the end says when the samples were taken" grep -qE \
    "^sp-fold: $TMP/sym.spl: no sample matched --from 100 \\(of $N samples, taken from [0-9]+\\.[0-9]{3} to [0-9]+\\.[0-9]{3} s\\)\$" "$TMP/err"
run $FOLD --from 5 --to 2 "$TMP/sym.spl"
check "--from 5 --to 2 is an empty range: a usage error" test "$RC" -eq 2 -a \
    "$ERR" = "sp-fold: --from 5 --to 2: the time range is empty (--from must be before --to)"
run $FOLD --from 1 --to 1 "$TMP/sym.spl"
check "--from 1 --to 1 is empty too (--to is exclusive)" test "$RC" -eq 2
run $FOLD --from 0 --to 100 "$TMP/sym.spl"
check "a range holding every sample keeps them, silently" test "$RC" -eq 0 -a \
    -z "$ERR" -a "$(awk '{ n += $NF } END { print n }' "$TMP/out")" -eq "$N"
run $FOLD "$TMP/sym.spl" "$TMP/sym.spl"
check "two spools: a usage error pointing to sp-merge" test "$RC" -eq 2 -a \
    "$ERR" = "sp-fold: one spool at a time (2 given); to fold several, merge them first: sp-merge A B | sp-fold"
run $DUMP --check --stats "$TMP/sym.spl"
check "sp-dump --check --stats: exclusive, exit 2" test "$RC" -eq 2 -a \
    "$ERR" = "sp-dump: --check and --stats exclude each other"
run $DUMP --stats --check "$TMP/sym.spl"
check "... in either order" test "$RC" -eq 2
run $DUMP --check --check "$TMP/sym.spl"
check "--check twice is still --check" test "$RC" -eq 0

# --- 2. where the output goes, and errors naming the file -----------------------
run sh -c "$FLAME '$TMP/good.folded' >/dev/full"
check "sp-flame >/dev/full: the reason, naming stdout" test "$RC" -eq 1 -a \
    "$ERR" = "sp-flame: stdout: No space left on device"
run $FLAME -o /dev/full "$TMP/good.folded"
check "sp-flame -o /dev/full: the reason, naming the file" test "$RC" -eq 1 -a \
    "$ERR" = "sp-flame: /dev/full: No space left on device"
run sh -c "$FOLD '$TMP/sym.spl' >/dev/full"
check "sp-fold >/dev/full: the same words" test "$RC" -eq 1 -a \
    "$ERR" = "sp-fold: stdout: No space left on device"
run sh -c "$DUMP '$TMP/sym.spl' >/dev/full"
check "sp-dump >/dev/full: the same words" test "$RC" -eq 1 -a \
    "$ERR" = "sp-dump: stdout: No space left on device"

rm -f "$TMP"/got*
$FLAME "$TMP/good.folded" >"$TMP/want.svg"
run $FLAME -o "$TMP/got.svg" "$TMP/good.folded"
check "sp-flame -o FILE writes the SVG it prints" eval \
    'test "$RC" -eq 0 -a -z "$OUT" && cmp -s "$TMP/want.svg" "$TMP/got.svg"'
run $FLAME --output "$TMP/got2.svg" "$TMP/good.folded"
check "sp-flame --output FILE too" cmp -s "$TMP/want.svg" "$TMP/got2.svg"
$DUMP "$TMP/sym.spl" >"$TMP/want.txt"
run $DUMP -o "$TMP/got.txt" "$TMP/sym.spl"
check "sp-dump -o FILE writes what it prints" eval \
    'test "$RC" -eq 0 -a -z "$OUT" && cmp -s "$TMP/want.txt" "$TMP/got.txt"'
run $DUMP --stats --json -o "$TMP/got.json" "$TMP/sym.spl"
check "sp-dump --stats --json -o FILE" grep -q '"samples":' "$TMP/got.json"

# A failed run leaves the file it would have replaced as it was, and none
# of its own: bad input, a corrupt spool, a write that fails half-way
# (a file size limit of 1 KiB, its signal ignored so write(2) says EFBIG).
leftovers() { ls -A "$TMP/o" | grep -v '^keep' | wc -l; }
rm -rf "$TMP/o" && mkdir "$TMP/o"
echo old >"$TMP/o/keep.svg" && chmod 640 "$TMP/o/keep.svg"
run $FLAME -o "$TMP/o/keep.svg" "$TMP/bad.folded"
check "sp-flame -o FILE with bad input: exit 1, FILE kept" \
    test "$RC" -eq 1 -a "$(cat "$TMP/o/keep.svg")" = old
run $FLAME -o "$TMP/o/new.svg" "$TMP/bad.folded"
check "... and no new file" test "$(leftovers)" -eq 0
# New outputs are 0600, as perf.data: profiles hold command lines and
# paths.  (umask 022 would leave 0644 of 0666.)
run sh -c "umask 022; exec $FLAME -o '$TMP/o/fresh.svg' '$TMP/good.folded'"
check "a new output file is created 0600 ($(stat -c %a "$TMP/o/fresh.svg" 2>/dev/null))" \
    test "$(stat -c %a "$TMP/o/fresh.svg" 2>/dev/null)" = 600
rm -f "$TMP/o/fresh.svg"
run sh -c "trap '' XFSZ; ulimit -f 1; exec $FLAME -o '$TMP/o/keep.svg' '$TMP/good.folded'"
check "sp-flame -o FILE failing half-way: exit 1, the reason" \
    test "$RC" -eq 1 -a "$ERR" = "sp-flame: $TMP/o/keep.svg: File too large"
check "... FILE kept" test "$(cat "$TMP/o/keep.svg")" = old
check "... no temporary left" test "$(leftovers)" -eq 0
# (the folded text is shorter than 1 KiB: no byte may be written)
run sh -c "trap '' XFSZ; ulimit -f 0; exec $FOLD -o '$TMP/o/keep.svg' '$TMP/sym.spl'"
check "sp-fold -o FILE failing half-way: FILE kept" test "$RC" -eq 1 -a \
    "$(cat "$TMP/o/keep.svg")" = old -a "$(leftovers)" -eq 0
run $DUMP -o "$TMP/o/keep.svg" tests/bad/bad-crc.spl
check "sp-dump -o FILE on a corrupt spool: exit 1, FILE kept" test "$RC" -eq 1 \
    -a "$(cat "$TMP/o/keep.svg")" = old -a "$(leftovers)" -eq 0
run $FLAME -o "$TMP/o/keep.svg" "$TMP/good.folded"
check "a run that succeeds replaces FILE" cmp -s "$TMP/want.svg" "$TMP/o/keep.svg"
check "... keeping its mode" test "$(stat -c %a "$TMP/o/keep.svg")" = 640
ln -s keep.svg "$TMP/o/keep-link"
run $FOLD -o "$TMP/o/keep-link" "$TMP/sym.spl"
check "-o through a symbolic link writes the file it points to" eval \
    'test "$RC" -eq 0 -a -L "$TMP/o/keep-link" && grep -q "main;run;work_a" "$TMP/o/keep.svg"'

# --- 3. names every reader keeps whole, fractions, modules -------------------------
# jit_renamed NAME SPOOL MAPS: records the jit workload into SPOOL and
# writes its perf map into the directory MAPS with its loop renamed by
# the sed replacement NAME; fails where it cannot be recorded.
jit_renamed() {
	local jpid
	$REC -q -o "$2" -- $W/jit 400 >"$2.out" 2>&1 &&
	    jpid=$($DUMP --json "$2" | grep -o '"kind":"sample","thread":[0-9]*,"pid":[0-9]*' |
	    head -1 | grep -o '[0-9]*$') && [ -f "/tmp/perf-$jpid.map" ] || return 1
	mkdir -p "$3"
	sed "s/jit_spin_loop/$1/" "/tmp/perf-$jpid.map" >"$3/perf-$jpid.map"
	rm -f "/tmp/perf-$jpid.map"
}
# A JIT frame named like a Java method ("Lcom/x/Foo;run"): sp-fold must
# write it so that splitting at every ';' (flamegraph.pl, inferno,
# speedscope) keeps it one frame, and sp-flame must draw that frame.
if jit_renamed 'Lcom\/x\/Foo;run' "$TMP/jit.spl" "$TMP/maps"; then
	$SYM -q --perf-maps all --perf-map-dir "$TMP/maps" "$TMP/jit.spl" |
	    $FOLD >"$TMP/jit.folded"
	check "a ';' in a name is written ':'" grep -q 'Lcom/x/Foo:run' "$TMP/jit.folded"
	check "split at every ';' (as flamegraph.pl does), the frame is whole" \
	    test "$(sed 's/ [0-9.]*$//' "$TMP/jit.folded" | tr ';' '\n' | grep -cx 'Lcom/x/Foo:run')" -gt 0
	check "no backslash escapes are written" test "$(grep -c '\\' "$TMP/jit.folded")" -eq 0
	run $FLAME "$TMP/jit.folded"
	check "sp-flame draws that frame whole" has '<title>Lcom/x/Foo:run (' "$OUT"
else
	skip "';' in names" "the jit workload could not be recorded here"
fi
# Names are any bytes (a perf map's, a symbol table's): every JSON output
# is valid UTF-8, a valid name (naïve) kept as it is and each byte that
# starts no character as U+FFFD.  Python's json.load refused speedscope
# files with such a name before.
if jit_renamed 'na\xc3\xafve\xff\xfeloop' "$TMP/jit8.spl" "$TMP/maps8"; then
	$SYM -q --perf-maps all --perf-map-dir "$TMP/maps8" -o "$TMP/jit8.sym.spl" "$TMP/jit8.spl"
	for out in --speedscope --chrome-trace dump; do
		if [ $out = dump ]; then
			$DUMP --json "$TMP/jit8.sym.spl" >"$TMP/j8.json"
		else
			$FOLD $out -o "$TMP/j8.json" "$TMP/jit8.sym.spl"
		fi
		run python3 -c 'import json, sys
f = open(sys.argv[1], encoding="utf-8", errors="strict")
t = f.read()
[json.loads(l) for l in t.splitlines() if l.strip()] if sys.argv[2] == "dump" else json.loads(t)
sys.exit(0 if "na\u00efve\ufffd\ufffdloop" in t else 3)' "$TMP/j8.json" $out
		check "${out#--}: valid UTF-8 JSON, naïve kept, the bad bytes U+FFFD (rc $RC)" test "$RC" -eq 0
	done
	# pprof's string table: proto3 strings, UTF-8 (Go's decoder checks).
	$FOLD --pprof -o "$TMP/j8.pb.gz" "$TMP/jit8.sym.spl"
	run python3 -c 'import gzip, sys
b = gzip.open(sys.argv[1]).read()
def varint(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 127) << s; s += 7
        if c < 128: return v, i
i, strs = 0, []
while i < len(b):
    k, i = varint(i)
    if k & 7 == 0: _, i = varint(i); continue
    if k & 7 != 2: sys.exit(4)
    n, i = varint(i)
    if k >> 3 == 6: strs.append(b[i:i + n].decode("utf-8", "strict"))
    i += n
sys.exit(0 if "na\u00efve\ufffd\ufffdloop" in strs else 3)' "$TMP/j8.pb.gz"
	check "pprof: its strings are UTF-8, naïve kept, the bad bytes U+FFFD (rc $RC)" test "$RC" -eq 0
else
	skip "names with bytes that are not UTF-8" "the jit workload could not be recorded here"
fi
printf 'a;x\\;y 2\n' >"$TMP/bs.folded"
run $FLAME "$TMP/bs.folded"
check "sp-flame splits '\\;' as flamegraph.pl does: frames 'x\\' and 'y'" \
    eval 'has "<title>x\\ (2 samples" "$OUT" && has "<title>y (2 samples" "$OUT"'

printf 'a;b 1.5\na;c 2\na;b 0.25\nd 3.\n' >"$TMP/frac.folded"
run $FLAME "$TMP/frac.folded"
check "fractional counts are accepted (a;b 1.5), exit 0" test "$RC" -eq 0 -a -z "$ERR"
check "... and add up exactly: all 6.75" has '<title>all (6.75 samples, 100.00%)' "$OUT"
check "... b 1.75" has '<title>b (1.75 samples, 25.93%)' "$OUT"
check "... c 2, d 3 (\"3.\")" eval 'has "<title>c (2 samples, " "$OUT" && has "<title>d (3 samples, " "$OUT"'

# --colors module on a real profile folded with --modules: every frame of
# one module has one hue, the hue of tree-O2 is not libc's, none is grey.
# The hue is computed from each rect's fill by awk (rect_hues).
# hues: "MODULE HUE CHROMA" per frame, "-" for a frame without a module.
hues() { rect_hues "$1" | awk -F '\t' '{ m = $1; if (!sub(/`.*/, "", m)) m = "-"
	print m, $2, $3 }'; }
run $FOLD --modules "$TMP/sym.spl"
check "--modules writes module\`function" has 'tree-O2`main;tree-O2`run;tree-O2`work_a' "$OUT"
printf '%s\n' "$OUT" >"$TMP/mod.folded"
run $FLAME --colors module "$TMP/mod.folded"
check "--colors module on it: no warning" test "$RC" -eq 0 -a -z "$ERR"
hues "$TMP/out" >"$TMP/hues"
spread() { awk -v m="$1" '$1 == m { if (!n++ || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
	END { print n ? int(hi - lo + 0.5) : 999 }' "$TMP/hues"; }
hue() { awk -v m="$1" '$1 == m { print $2; exit }' "$TMP/hues"; }
check "tree-O2's frames share one hue (spread $(spread tree-O2))" test "$(spread tree-O2)" -le 2
check "libc.so.6's frames share one hue (spread $(spread libc.so.6))" test "$(spread libc.so.6)" -le 2
check "tree-O2 ($(hue tree-O2)) and libc.so.6 ($(hue libc.so.6)) differ" \
    test "$(awk -v a="$(hue tree-O2)" -v b="$(hue libc.so.6)" 'BEGIN { d = a - b; if (d < 0) d = -d; if (d > 180) d = 360 - d; print (d > 5) }')" -eq 1
check "no named frame is grey" test "$(awk '$1 != "-" && $3 < 20' "$TMP/hues" | wc -l)" -eq 0 -a \
    "$(awk '$1 != "-"' "$TMP/hues" | wc -l)" -gt 4
run $FLAME --colors module "$TMP/good.folded"
check "--colors module with no module in the names: a warning says what to do" test \
    "$ERR" = "sp-flame: $TMP/good.folded: --colors module: no frame names its module (\"module\`function\"), named frames stay grey; fold with sp-fold --modules"

# --- 4. installed man pages and documentation ------------------------------------
D=$PWD/$TMP/inst
rm -rf "$D"
# The install edge's own command, run here: a ninja inside the ninja that
# runs the tests would share its build log.
install_cmd=$(ninja -t commands install | tail -n 1)
if DESTDIR=$D sh -c "$install_cmd" >"$TMP/install.log" 2>&1; then
	prefix=$(sed -n 's/^prefix = //p' build/config.ninja)
	man1=$D$prefix/share/man/man1
	for t in sp-record sp-sym sp-fold sp-flame sp-merge sp-dump; do
		page=$(sed 's/\\-/-/g' "$man1/$t.1" 2>/dev/null)
		check "$t.1 is installed" test -n "$page"
		see=$(sed -n '/^\.SH SEE ALSO/,$p' <<<"$page")
		missing=
		for o in sp-record sp-sym sp-fold sp-flame sp-merge sp-dump; do
			[ "$o" = "$t" ] || grep -q "^\.BR $o (1)" <<<"$see" || missing="$missing $o"
		done
		check "$t.1 SEE ALSO names the other tools${missing:+ (not:$missing)}" test -z "$missing"
		check "$t.1 does not send the reader to the sources" \
		    test "$(grep -c 'in the .*sources\|docs/' <<<"$page")" -eq 0
		dir=$(grep -o "$prefix/share/doc/stackpulse" <<<"$see" | head -1)
		check "$t.1 names the installed documentation directory" test -n "$dir"
		absent=
		for f in $(grep -o '[a-z-]*\.md' <<<"$page" | sort -u); do
			[ -f "$D$prefix/share/doc/stackpulse/$f" ] || absent="$absent $f"
		done
		check "$t.1: every document it names is installed${absent:+ (not:$absent)}" test -z "$absent"
	done
	check "the documentation is installed" test -f "$D$prefix/share/doc/stackpulse/spool-format.md"
else
	fail "DESTDIR=... ninja install" "$(tail -5 "$TMP/install.log")"
fi
done_testing
