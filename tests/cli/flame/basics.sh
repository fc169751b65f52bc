#!/usr/bin/env bash
# sp-flame as a user runs it: a generated profile of 5,000 distinct stacks,
# a real one folded from sp-record, bad input, and the SVG in headless
# Chromium (click to zoom, search) where Chromium and Node are installed.
. "$(dirname "$0")/../lib.bash"
# asan: FLAME=build/asan/sp-flame/sp-flame NO_BROWSER=1

# Expected values come from awk over the folded text, not from sp-flame.
wellformed() {
	python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"
}
# title NAME N FILE: the SVG has exactly one frame NAME with N samples.
title() { test "$(grep -cF "<title>$1 ($2 samples, " "$3")" -eq 1; }

# 5,000 distinct stacks: three branches, 37 middle frames, a leaf each.
awk 'BEGIN {
	split("main;run;work_a|main;run;work_b|main;py::serve:/srv/app.py;" \
	    "sys_read_[k]", b, "|")
	for (i = 0; i < 5000; i++)
		printf "%s;mid%d;leaf%d %d\n", b[i % 3 + 1], i % 37, i,
		    (i * 7) % 13 + 1
}' >"$TMP/big.folded"
total=$(fold_count "$TMP/big.folded" '')
work_a=$(fold_count "$TMP/big.folded" '^main;run;work_a;')
work_b=$(fold_count "$TMP/big.folded" '^main;run;work_b;')
mid5=$(fold_count "$TMP/big.folded" '^main;run;work_b;mid5;')

run $FLAME --title 'Big <profile> & "co"' "$TMP/big.folded"
printf '%s\n' "$OUT" >"$TMP/big.svg"
check "5,000 distinct stacks render" test "$RC" -eq 0 -a -z "$ERR"
check "the SVG is well-formed XML" wellformed "$TMP/big.svg"
check "the root holds every sample ($total)" title all "$total" "$TMP/big.svg"
check "main holds every sample" title main "$total" "$TMP/big.svg"
check "work_a's title has its samples ($work_a)" \
    title work_a "$work_a" "$TMP/big.svg"
check "work_b's title has its samples ($work_b)" \
    title work_b "$work_b" "$TMP/big.svg"
check "a middle frame's title has its samples" \
    grep -qF "<title>mid5 ($mid5 samples, " "$TMP/big.svg"
check "--title appears, escaped" \
    has '>Big &lt;profile&gt; &amp; &quot;co&quot;</text>' "$OUT"
check "no external resources" \
    test "$(grep -cE 'href=|src=|@import|url\((https?:)?//' "$TMP/big.svg")" -eq 0
frames=$(grep -c '<g class="f"' "$TMP/big.svg")
check "one element per visible frame, not per line ($frames)" \
    test "$frames" -gt 100 -a "$frames" -lt 15000

run sh -c "$FLAME --title 'Big <profile> & \"co\"' <'$TMP/big.folded'"
check "reads standard input" test "$RC" -eq 0 -a "$OUT" = "$(cat "$TMP/big.svg")"
run sh -c "cat '$TMP/big.folded' | $FLAME --title 'Big <profile> & \"co\"' -"
check "reads a pipe with -" test "$RC" -eq 0 -a "$OUT" = "$(cat "$TMP/big.svg")"

run $FLAME --minwidth 5 "$TMP/big.folded"
few=$(grep -c '<g class="f"' "$TMP/out")
check "--minwidth 5 leaves out narrow frames ($few < $frames)" \
    test "$RC" -eq 0 -a "$few" -lt "$frames" -a "$few" -gt 10
head -300 "$TMP/big.folded" >"$TMP/small.folded"
for opt in --icicle "--colors lang" "--colors module" "--width 600" \
    "--diff $TMP/big.folded"; do
	run $FLAME $opt "$TMP/small.folded"
	printf '%s\n' "$OUT" >"$TMP/opt.svg"
	check "$opt renders well-formed XML" \
	    eval 'test "$RC" -eq 0 && wellformed "$TMP/opt.svg"'
done
run $FLAME --width 600 "$TMP/big.folded"
check "--width sets the size" has '<svg version="1.1" width="600" ' "$OUT"

# Differential: work_a doubled, the rest the same.
awk '/work_a/ { $NF *= 2 } { print }' "$TMP/big.folded" >"$TMP/after.folded"
run $FLAME --diff "$TMP/big.folded" "$TMP/after.folded"
check "--diff: work_a grew: red" \
    grep -qE '<title>work_a \([0-9]+ samples, [0-9.]+%, before [0-9]+ samples, change \+[0-9.]+%\)</title><rect [^>]*fill="rgb\(255,([0-9]+),\1\)"' "$TMP/out"
check "--diff: work_b shrank: blue" \
    grep -qE '<title>work_b \(.*change -[0-9.]+%\)</title><rect [^>]*fill="rgb\(([0-9]+),\1,255\)"' "$TMP/out"

# A frame found only in BEFORE is drawn too: blue, "0 samples", as wide as
# its share of BEFORE in samples of the new profile (awk computes it).
{ cat "$TMP/big.folded"; echo "main;run;gone;gone_leaf 500"; } >"$TMP/before.folded"
run $FLAME --diff "$TMP/before.folded" "$TMP/big.folded"
printf '%s\n' "$OUT" >"$TMP/gone.svg"
gone_n=$(awk -v a="$total" 'BEGIN { printf "%d", 500 * a / (a + 500) + 0.5 }')
check "--diff: a frame only in BEFORE is drawn, blue, as wide as its old share ($gone_n)" \
    grep -qE "<g class=\"f\" data-o=\"[0-9]+\" data-n=\"$gone_n\"><title>gone \\(0 samples, 0.00%, before 500 samples, change -[0-9.]+%\\)</title><rect [^>]*fill=\"rgb\\(([0-9]+),\\1,255\\)\"" "$TMP/gone.svg"
check "--diff: and so is its callee" grep -qF '<title>gone_leaf (0 samples, 0.00%, before 500 samples' "$TMP/gone.svg"
check "--diff: the SVG with it is well-formed" wellformed "$TMP/gone.svg"
check "--diff: frames of both keep their samples" \
    title work_a "$work_a" "$TMP/gone.svg"

# --colors lang on what sp-fold prints: kernel frames (which sp-fold ends
# in _[k]) take the kernel hue, orange (45 to 60 degrees, give or take
# the 8-bit rounding of rgb()), and no other frame does.  The hue is
# computed from each rect's fill by awk (rect_hues).
hues() { rect_hues "$1" | awk -F '\t' '{ print ($1 ~ /_\[k\]$/ ? "k" : "u"), $2 }'; }
if $BIN/sp-record -q --kernel -o "$TMP/kern.spl" -- dd if=/dev/zero \
    of=/dev/null bs=64k count=50000 >/dev/null 2>&1; then
	$BIN/sp-sym -q "$TMP/kern.spl" | $BIN/sp-fold 2>/dev/null >"$TMP/kern.folded"
	run $FLAME --colors lang "$TMP/kern.folded"
	printf '%s\n' "$OUT" >"$TMP/kern.svg"
	hues "$TMP/kern.svg" >"$TMP/hues"
	nk=$(grep -c '^k' "$TMP/hues") nu=$(grep -c '^u' "$TMP/hues")
	check "--colors lang: sp-fold's kernel frames ($nk) are orange" test \
	    "$nk" -gt 0 -a "$(awk '$1 == "k" && ($2 < 43 || $2 > 62)' "$TMP/hues" | wc -l)" -eq 0
	check "--colors lang: the other frames ($nu) are not" test \
	    "$nu" -gt 0 -a "$(awk '$1 == "u" && $2 >= 43 && $2 <= 62' "$TMP/hues" | wc -l)" -eq 0
else
	echo "SKIP --colors lang on kernel frames: sp-record --kernel could not record here"
fi

# Bad input names the file and line, exit 1; --skip-bad draws the rest.
printf 'a;b 1\na;c 2\na;d x3\na;e\n' >"$TMP/bad.folded"
run $FLAME "$TMP/bad.folded"
check "a bad line is an error naming the line, exit 1" test "$RC" -eq 1 -a \
    "$(head -1 "$TMP/err")" = "sp-flame: $TMP/bad.folded: line 3: count is not a number"
check "every bad line is named" has "line 4: no sample count" "$ERR"
check "no SVG after errors" test -z "$OUT"
run sh -c "$FLAME <'$TMP/bad.folded'"
check "standard input is named stdin" has "sp-flame: stdin: line 3: " "$ERR"
run $FLAME --skip-bad "$TMP/bad.folded"
check "--skip-bad warns and draws the good lines" \
    eval 'test "$RC" -eq 0 && has "line 3" "$ERR" && has "<title>a (3 samples, 100.00%)" "$OUT"'
run $FLAME /dev/null
check "no samples is an error" test "$RC" -eq 1 -a \
    "$ERR" = "sp-flame: /dev/null: no samples in 0 lines"
run $FLAME "$TMP/missing"
check "a missing file is named, exit 1" \
    test "$RC" -eq 1 -a "$ERR" = "sp-flame: $TMP/missing: No such file or directory"
run $FLAME --colors rainbow "$TMP/big.folded"
check "a bad --colors is a usage error" test "$RC" -eq 2
run $FLAME --width 5 "$TMP/big.folded"
check "a bad --width is a usage error" test "$RC" -eq 2
run $FLAME --bogus
check "usage error exits 2" test "$RC" -eq 2
check "an unknown option is named in one line" \
    test "$ERR" = "sp-flame: option '--bogus' is not known (see sp-flame --help)"
run $FLAME --help
check "help exits 0 on stdout" test "$RC" -eq 0 -a -n "$OUT"
man=$(sed 's/\\-/-/g' sp-flame/sp-flame.1)
missing=
for opt in --title --width --icicle --colors --diff --minwidth --skip-bad --output \
    --help; do
	grep -q -- "^\.BR .*\"*$opt" <<<"$man" && has "$opt" "$OUT" ||
	    missing="$missing $opt"
done
check "man page and usage name every option" test -z "$missing"

# A real profile: the tree workload recorded and symbolized, its samples
# folded by awk from sp-dump's text (root first, a ';' in a name as ':').
fold() { awk '
function flush(  s, i) { if (n == 0) return; s = f[n - 1]
	for (i = n - 2; i >= 0; i--) s = s ";" f[i]; c[s]++; n = 0 }
/^sample / { flush(); next }
/^    #[0-9]+ / { x = $0; sub(/^    #[0-9]+ +/, "", x)
	gsub(/;/, ":", x); f[n++] = x; next }
{ flush() }
END { flush(); for (s in c) print s, c[s] }'; }
real=
if $BIN/sp-record -q -o "$TMP/tree.spl" -- build/tests/tree 300 \
    >/dev/null 2>&1 && $BIN/sp-sym -q -o "$TMP/tree-sym.spl" "$TMP/tree.spl"
then
	$BIN/sp-dump "$TMP/tree-sym.spl" | fold >"$TMP/tree.folded"
	n=$(fold_count "$TMP/tree.folded" ';work_a;')
	run $FLAME --title "tree workload" "$TMP/tree.folded"
	printf '%s\n' "$OUT" >"$TMP/tree.svg"
	check "a real profile renders well-formed" \
	    eval 'test "$RC" -eq 0 && wellformed "$TMP/tree.svg"'
	check "its work_a has the samples sp-dump shows ($n)" \
	    title work_a "$n" "$TMP/tree.svg"
	real=$TMP/tree.svg
else
	echo "SKIP real profile: sp-record could not record here"
fi

# Headless Chromium: a static screenshot, then clicks through Playwright.
PW=$PWD/build/node_modules/playwright-core
if [ -n "${NO_BROWSER:-}" ]; then
	echo "SKIP browser: NO_BROWSER is set (the ASan run of this script)"
elif ! need chromium chromium; then
	echo "SKIP browser: chromium is not installed and could not be (apt-get install chromium)"
elif ! command -v node >/dev/null; then
	echo "SKIP browser: node is not installed (apt-get install nodejs npm)"
elif [ ! -d "$PW" ] && ! { command -v npm >/dev/null &&
    timeout 120 npm install --prefix build --no-audit --no-fund \
    playwright-core >"$TMP/npm.log" 2>&1; }; then
	echo "SKIP browser: playwright-core is not in build/node_modules" \
	    "and npm could not install it"
else
	svg=${real:-$TMP/big.svg}
	rm -f "$svg.png"
	timeout 60 chromium --headless --no-sandbox --disable-gpu \
	    --screenshot="$PWD/$svg.png" --window-size=1200,800 \
	    "file://$PWD/$svg" >/dev/null 2>&1
	check "chromium renders a screenshot of $(basename "$svg")" \
	    test -s "$svg.png"
	echo "screenshot: $svg.png"
	# Searching "^mid5$|work_b" must count mid5 under work_b once.
	want=$(awk -v t="$total" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (s ~ /;work_b;/ || s ~ /;mid5;/) m += c }
		END { printf "%.1f", 100 * m / t }' "$TMP/big.folded")
	timeout 60 node tests/cli/flame/browser.js "$PW" "$PWD/$TMP/big.svg" \
	    "$PWD/$TMP" work_a '^mid5$|work_b' "$want" work_b ||
	    echo "(browser check exit status $?)"
	echo "screenshots: $TMP/before.png $TMP/zoom.png $TMP/search.png"
fi
done_testing
