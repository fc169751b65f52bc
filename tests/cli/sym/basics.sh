#!/usr/bin/env bash
# sp-sym on spools of real processes, checked against nm, readelf and
# addr2line: names, lines, bundles, split debug files, replaced binaries,
# perf maps (JIT and a fake Python runtime), --strict, reruns and pipes.
. "$(dirname "$0")/../lib.bash"
# asan: SYM=build/asan/sp-sym/sp-sym
# Figures for the record: frames by origin.
figures() { echo "figures $1: $($SYM -o /dev/null "${@:2}" 2>&1 | head -1)"; }

# frames SPL PATH_RE: "FRAME_ID REL_HEX NAME FILE:LINE" for each frame of
# the modules whose path matches PATH_RE, from sp-dump -v.
frames() {
	$DUMP -v "$1" | awk -v re="$2" '
	/^module / && $NF ~ re { sub(":", "", $2); mod[$2] = 1 }
	/^frame / { sub(":", "", $2); if ($4 in mod) rel[$2] = $8 }
	/^symbol frame / {
		id = $3; sub(":", "", id)
		if (!(id in rel)) next
		name = $4
		# the first logical frame: ": FUNC FILE:LINE"
		i = index($0, "): "); rest = substr($0, i + 3)
		split(rest, f, " ")
		print id, rel[id], name, f[2]
	}'
}

# vaddr BIN OFF_HEX: the ELF address of a file offset (PT_LOAD headers).
load_map() { readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }'; }

# Awk functions for the lists below: lib.bash's hex(H), and vaddr(OFF),
# the ELF address of file offset OFF through the awk variable loads
# (load_map's lines), -1 outside them.
VADDR_AWK=$HEX_AWK'
function vaddr(off,  i, x) {
	if (!nl) {
		nl = split(loads, L, "\n")
		for (i = 1; i <= nl; i++) { split(L[i], x, " "); lo[i] = hex(x[1]); va[i] = hex(x[2]); fs[i] = hex(x[3]) }
	}
	for (i = 1; i <= nl; i++) if (off >= lo[i] && off < lo[i] + fs[i]) return off - lo[i] + va[i]
	return -1
}'

# expect_names BIN LIST: for each "ID REL NAME FL" line, the name of the
# function containing the address: DWARF's, the outermost function
# addr2line -f -i gives (spin, not nm's clone spin.constprop.0; issue
# 28.6), else the nm symbol; prints "ok" or "bad ID REL NAME nm:EXPECTED".
expect_names() {
	local bin=$1 id rel name want v fn
	awk -v loads="$(load_map "$bin")" "$VADDR_AWK"'
	FILENAME != "-" {	# nm -S output: ADDR SIZE TYPE NAME
		if (NF == 4 && $3 ~ /[tTwW]/) { ns++; a[ns] = hex($1); s[ns] = hex($2); nm[ns] = $4 }
		next
	}
	{
		v = vaddr(hex($2))
		want = ""
		for (i = 1; i <= ns; i++) if (s[i] > 0 && v >= a[i] && v < a[i] + s[i]) want = nm[i]
		if (want != "") printf "%s %s %s %s 0x%x\n", $1, $2, $3, want, v
	}' <(nm -S "$bin") - | while read -r id rel name want v; do
		fn=$(addr2line -f -i -e "$bin" "$v" | awk 'NR % 2 { f = $0 } END { print f }')
		[ -n "$fn" ] && [ "$fn" != "??" ] && want=$fn
		if [ "$want" = "$name" ]; then echo ok; else echo "bad $id $rel $name nm:$want"; fi
	done
}

# expect_lines BIN LIST: the innermost file:line against addr2line -i,
# where addr2line knows the line (not ??:? nor FILE:?, as in crtstuff.c).
expect_lines() {
	local bin=$1 list
	list=$(cat)
	paste <(echo "$list") <(echo "$list" | awk '{ print $2 }' |
	    while read -r off; do
		v=$(load_map "$bin" | awk -v o=$((off)) '{ l = strtonum($1); if (o >= l && o < l + strtonum($3)) printf "0x%x\n", o - l + strtonum($2) }' 2>/dev/null)
		[ -n "$v" ] || v=$off
		addr2line -e "$bin" -i "$v" | head -1 | sed 's/ (discriminator [0-9]*)//'
	    done) | awk '$5 !~ /^\?/ && $5 !~ /:\?$/ { print ($4 == $5 ? "ok" : "bad " $0) }'
}

# --- names and lines: tree-O2 (CFI, inlined helpers) and tree (-O0) ------------
for b in tree-O2 tree; do
	run $REC -q -o "$TMP/$b.spl" -- $W/$b 600
	run $SYM -o "$TMP/$b.sym.spl" "$TMP/$b.spl"
	check "$b: sp-sym exits 0" test "$RC" -eq 0
	cp "$TMP/err" "$TMP/$b.report"
	frames "$TMP/$b.sym.spl" "/build/tests/$b\$" >"$TMP/$b.frames"
	for f in work_a work_b main; do
		check "$b: $f frames carry its name" \
		    grep -q " $f " "$TMP/$b.frames"
	done
	expect_names $W/$b <"$TMP/$b.frames" >"$TMP/$b.names"
	ok=$(grep -c '^ok' "$TMP/$b.names")
	check "$b: every frame of the executable is named as nm names its address ($ok ok)" \
	    test "$ok" -ge 5 -a "$(grep -c '^bad' "$TMP/$b.names")" -eq 0
	expect_lines $W/$b <"$TMP/$b.frames" >"$TMP/$b.lines"
	ok=$(grep -c '^ok' "$TMP/$b.lines")
	check "$b: the innermost file:line is addr2line's ($ok ok)" \
	    test "$ok" -ge 5 -a "$(grep -c '^bad' "$TMP/$b.lines")" -eq 0
	check "$b: the report counts ELF frames" \
	    grep -qE '^sp-sym: [0-9]+ frames: [1-9][0-9]* elf' "$TMP/$b.report"
done
inl=$($DUMP -v "$TMP/tree-O2.sym.spl" | grep -c '^symbol .* <- ')
echo "tree-O2: $inl symbols with inline chains"

# --- a rerun copies, and a pipe works -----------------------------------------
run $SYM -o "$TMP/again.spl" "$TMP/tree-O2.sym.spl"
check "sp-sym on its own output reproduces it byte for byte" \
    cmp -s "$TMP/tree-O2.sym.spl" "$TMP/again.spl"
check "the rerun copied every symbol" grep -qE ' [1-9][0-9]* copied' "$TMP/err"
$SYM -q <"$TMP/tree-O2.spl" | $DUMP - >"$TMP/pipe.txt"
check "sp-sym - | sp-dump - works through pipes" grep -q '#[0-9]* *work_a$' "$TMP/pipe.txt"
$SYM -q "$TMP/tree-O2.spl" >"$TMP/stdout.spl"
check "writes to standard output when it is a file" cmp -s "$TMP/stdout.spl" "$TMP/tree-O2.sym.spl"
# A file is read twice, its frames resolved a chunk ahead in address
# order; a pipe once, in order: the same spool.
cat "$TMP/tree-O2.spl" | $SYM -q >"$TMP/piped.spl"
check "a pipe gives the spool a file gives" cmp -s "$TMP/piped.spl" "$TMP/tree-O2.sym.spl"
run script -qec "$SYM -q $TMP/tree-O2.spl" /dev/null
check "refuses to write a binary spool to a terminal (exit 2)" test "$RC" -eq 2
run $SYM -x
check "usage error exits 2" test "$RC" -eq 2
printf 'not a spool' >"$TMP/bad.spl"
run $SYM -o "$TMP/x.spl" "$TMP/bad.spl"
check "a bad input fails with 'sp-sym: FILE: ...' (exit 1)" \
    test "$RC" -eq 1 -a "${ERR#sp-sym: $TMP/bad.spl: }" != "$ERR"

# --- the progress line: on a terminal only ------------------------------------------
# sp-sym reports every 8192 records: copies of one recording merged
# (sp-merge puts each on its own host) make a spool of over 20,000
# whatever the load let the recording gather.
records() { $DUMP --stats "$1" | awk '$1 == "total" { print $2 }'; }
run $REC -q -F 4999 -o "$TMP/one.spl" -- $W/tree-O2 1000
k=$(( 20000 / ($(records "$TMP/one.spl") + 1) + 1 ))
[ "$k" -le 64 ] || k=64
run $BIN/sp-merge -o "$TMP/big.spl" $(for ((i = 0; i < k; i++)); do echo "$TMP/one.spl"; done)
nrec=$(records "$TMP/big.spl")
check "a spool for the progress line ($nrec records)" test "${nrec:-0}" -gt 16384
script -qec "$SYM -o $TMP/prog-tty.spl $TMP/big.spl" /dev/null >"$TMP/prog-tty.txt" 2>&1
check "stderr on a terminal shows the progress line" \
    grep -qaE $'\rsp-sym: [0-9]+ MB read, [0-9]+ frames' "$TMP/prog-tty.txt"
check "... and clears it before the report" \
    grep -qaF $'\r\033[Ksp-sym: ' "$TMP/prog-tty.txt"
$SYM -o "$TMP/prog-file.spl" "$TMP/big.spl" 2>"$TMP/prog-file.txt"
check "stderr to a file has no progress line" \
    test "$(grep -caE 'MB read|'$'\r' "$TMP/prog-file.txt")" -eq 0
check "... but has the report" grep -qE '^sp-sym: [0-9]+ frames:' "$TMP/prog-file.txt"
script -qec "$SYM -q -o $TMP/prog-q.spl $TMP/big.spl" /dev/null >"$TMP/prog-q.txt" 2>&1
check "-q keeps a terminal quiet too" test "$(grep -ca 'MB read' "$TMP/prog-q.txt")" -eq 0
check "the output is the same with and without the progress line" \
    cmp -s "$TMP/prog-tty.spl" "$TMP/prog-file.spl"

# --- offline: the bundle alone, the binary moved away -------------------------
mkdir -p "$TMP/off"
cp $W/tree-O2 "$TMP/off/app"
rm -rf "$TMP/bundle"
run $REC -q --bundle "$TMP/bundle" --bundle-binaries -o "$TMP/off.spl" -- "$TMP/off/app" 500
run $SYM -q -o "$TMP/off-here.spl" "$TMP/off.spl"
$DUMP "$TMP/off-here.spl" | grep '^ *#' | sort | uniq -c >"$TMP/off-here.txt"
mv "$TMP/off/app" "$TMP/off/app.moved"
run $SYM -o "$TMP/off-bundle.spl" --bundle "$TMP/bundle" "$TMP/off.spl"
$DUMP "$TMP/off-bundle.spl" | grep '^ *#' | sort | uniq -c >"$TMP/off-bundle.txt"
check "with the binary gone, the bundle gives the same names" \
    cmp -s "$TMP/off-here.txt" "$TMP/off-bundle.txt"
check "... and names work_a from it" grep -q ' work_a$' "$TMP/off-bundle.txt"
run $SYM -o "$TMP/off-none.spl" "$TMP/off.spl"
check "without the bundle the moved binary is reported missing" \
    grep -q "off/app (build-id [0-9a-f]*): no symbols" "$TMP/err"
check "... with a hint where to put it" grep -q 'hint: put its debug file at DIR/.build-id/' "$TMP/err"
run $SYM --strict -o "$TMP/off-none.spl" "$TMP/off.spl"
check "--strict exits 1 when frames stayed address-only" test "$RC" -eq 1
run $SYM --strict -o "$TMP/off-bundle.spl" --bundle "$TMP/bundle" "$TMP/off.spl"
addr=$(grep -oE '[0-9]+ address-only' <<<"$ERR" | cut -d' ' -f1)
# The truncated-stack markers (a kernel-time sample with no stack copied
# has one) are no frames --strict counts.
marks=$(grep -oE '[0-9]+ of them truncated-stack markers' <<<"$ERR" | cut -d' ' -f1)
want=$([ "$((${addr:-0} - ${marks:-0}))" -eq 0 ] && echo 0 || echo 1)
check "--strict exits $want with $addr address-only frames (rest: $(grep -c . <<<"$ERR") lines)" test "$RC" -eq "$want"

# --- a stripped binary and its debug file found by build-id ------------------------
mkdir -p "$TMP/strip"
cp $W/tree-O2 "$TMP/strip/app"
bid=$(readelf -n "$TMP/strip/app" | awk '/Build ID/ { print $3 }')
mkdir -p "$TMP/dbg/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$TMP/strip/app" "$TMP/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
strip -s "$TMP/strip/app"
check "the stripped binary has no symbols" test "$(nm "$TMP/strip/app" 2>&1 | grep -c ' [tT] ')" -eq 0
run $REC -q -o "$TMP/strip.spl" -- "$TMP/strip/app" 500
run $SYM -o "$TMP/strip-nodbg.spl" "$TMP/strip.spl"
check "without the debug dir it is reported" grep -q 'strip/app (build-id' "$TMP/err"
run $SYM --debug-dir "$TMP/dbg" -o "$TMP/strip-dbg.spl" "$TMP/strip.spl"
frames "$TMP/strip-dbg.spl" "/strip/app\$" >"$TMP/strip.frames"
expect_names $W/tree-O2 <"$TMP/strip.frames" >"$TMP/strip.names"
check "with --debug-dir, names come from the debug file ($(grep -c '^ok' "$TMP/strip.names") as nm on the unstripped binary)" \
    test "$(grep -c '^ok' "$TMP/strip.names")" -ge 3 -a "$(grep -c '^bad' "$TMP/strip.names")" -eq 0
STACKPULSE_DEBUG_DIRS=$TMP/dbg run $SYM -o "$TMP/strip-env.spl" "$TMP/strip.spl"
check "STACKPULSE_DEBUG_DIRS works as --debug-dir" \
    grep -q ' work_a$' <($DUMP "$TMP/strip-env.spl")
# The debug file alone, the binary gone (issue 14.8): its segments have no
# file bytes, so the recorder's note of the mapping's ELF address maps the
# frames' file offsets (before: all address-only, "no PT_LOAD holds a
# recorded file offset").
mv "$TMP/strip/app" "$TMP/strip/app.gone"
run $SYM --debug-dir "$TMP/dbg" -o "$TMP/strip-alone.spl" "$TMP/strip.spl"
frames "$TMP/strip-alone.spl" "/strip/app\$" >"$TMP/alone.frames"
expect_names $W/tree-O2 <"$TMP/alone.frames" >"$TMP/alone.names"
check "the debug file alone names the frames ($(grep -c '^ok' "$TMP/alone.names") as nm, $(grep -c '^bad' "$TMP/alone.names") not)" \
    test "$(grep -c '^ok' "$TMP/alone.names")" -ge 3 -a "$(grep -c '^bad' "$TMP/alone.names")" -eq 0
check "... with lines from its DWARF" grep -qE '^symbol .*: work_a [^ ]*/tree\.c:[0-9]+$' <($DUMP -v "$TMP/strip-alone.spl")
mv "$TMP/strip/app.gone" "$TMP/strip/app"

# --- a binary replaced after recording ---------------------------------------------
mkdir -p "$TMP/repl"
cp $W/tree-O2 "$TMP/repl/app"
run $REC -q -o "$TMP/repl.spl" -- "$TMP/repl/app" 400
cp $W/tree "$TMP/repl/app"	# another build, another build-id
run $SYM -o "$TMP/repl-sym.spl" "$TMP/repl.spl"
check "a replaced binary is counted as a build-id mismatch" \
    grep -qE '[1-9][0-9]* files had another build-id' "$TMP/err"
check "... reported with where it looked" grep -q 'repl/app (build-id .*build-id differs' "$TMP/err"
n=$($DUMP "$TMP/repl-sym.spl" | grep -c '#.* work_a$')
a=$($DUMP "$TMP/repl-sym.spl" | grep -c '#.* app+0x')
check "... and not used: its frames stay address-only ($a, $n named)" test "$n" -eq 0 -a "$a" -gt 0

# --- a JIT's perf map ---------------------------------------------------------------
run $REC -q -o "$TMP/jit.spl" -- $W/jit 500
jpid=$($DUMP --json "$TMP/jit.spl" | grep -o '"kind":"sample","thread":[0-9]*,"pid":[0-9]*' | head -1 | grep -o '[0-9]*$')
# By default every recorded process's perf map is read (issue 14.10;
# before, only with --perf-maps): the owner's, not modified after the
# recording, which a reused pid's map would be.
run $SYM -o "$TMP/jit-def.spl" "$TMP/jit.spl"
n=$($DUMP "$TMP/jit-def.spl" | grep -c '#0   jit_spin_loop$')
check "by default the JIT frames are named from its perf map ($n)" test "$n" -gt 0
check "... and the report counts the map read" has "sp-sym: 1 perf maps read; 0 refused" "$ERR"
touch -d '+1 hour' "/tmp/perf-$jpid.map"
run $SYM -o "$TMP/jit-late.spl" "$TMP/jit.spl"
check "a map modified after the recording is refused" \
    test "$($DUMP "$TMP/jit-late.spl" | grep -c 'jit_spin_loop')" -eq 0
check "... and counted" has "sp-sym: 0 perf maps read; 1 refused, modified after the recording" "$ERR"
touch "/tmp/perf-$jpid.map"
touch "$TMP/jit.spl"
# A JIT in its own PID namespace and /tmp (a container): it writes
# /tmp/perf-1.map there, which was neither bundled nor found.  The
# recorder keeps it through /proc/PID/root (NSpid), while it runs.  The
# workload is run through a descriptor opened before the new /tmp hides
# it (a checkout may be under /tmp).
rm -rf "$TMP/nsbundle"
run $REC -q --bundle "$TMP/nsbundle" -o "$TMP/ns.spl" -- unshare --pid --fork --mount \
    --mount-proc sh -c "exec 3<'$PWD/$W/jit' && mount -t tmpfs tmpfs /tmp && exec /proc/self/fd/3 500"
check "a JIT in its own PID namespace and /tmp is recorded (exit $RC)" test "$RC" -eq 0
check "its map, perf-1.map in its /tmp, is in the bundle" \
    grep -qP '^perf-map\t[0-9]+\tperf-maps/perf-[0-9]+\.map\t/proc/[0-9]+/root/tmp/perf-1\.map$' \
    "$TMP/nsbundle/manifest"
run $SYM --bundle "$TMP/nsbundle" -o "$TMP/ns-sym.spl" "$TMP/ns.spl"
check "sp-sym --bundle names its JIT frames from it (no option needed)" \
    grep -q '#0   jit_spin_loop$' <($DUMP "$TMP/ns-sym.spl")
run $SYM --perf-maps none -o "$TMP/jit-no.spl" "$TMP/jit.spl"
check "with --perf-maps none the JIT is not named" \
    test "$($DUMP "$TMP/jit-no.spl" | grep -c 'jit_spin_loop')" -eq 0
run $SYM --perf-maps all -o "$TMP/jit-all.spl" "$TMP/jit.spl"
n=$($DUMP "$TMP/jit-all.spl" | grep -c '#0   jit_spin_loop$')
check "with --perf-maps all the JIT frames are named from the map ($n)" test "$n" -gt 0
check "... with the jit flag" grep -q '"origin":1,"flags":4,"name":"jit_spin_loop"' <($DUMP --json "$TMP/jit-all.spl")
run $SYM --perf-maps-for "$jpid" -o "$TMP/jit-pid.spl" "$TMP/jit.spl"
check "--perf-maps-for PID names them too" grep -q 'jit_spin_loop' <($DUMP "$TMP/jit-pid.spl")
run $SYM --perf-maps-for 1 -o "$TMP/jit-pid.spl" "$TMP/jit.spl"
check "... and another pid does not" test "$($DUMP "$TMP/jit-pid.spl" | grep -c 'jit_spin_loop')" -eq 0
mkdir -p "$TMP/maps"
mv "/tmp/perf-$jpid.map" "$TMP/maps/"
run $SYM --perf-maps all --perf-map-dir "$TMP/maps" -o "$TMP/jit-dir.spl" "$TMP/jit.spl"
check "--perf-map-dir DIR is read" grep -q 'jit_spin_loop' <($DUMP "$TMP/jit-dir.spl")
check "the spool records the JIT process's uid ($(id -u))" \
    grep -q "\"pid\":$jpid,.*\"uid\":$(id -u)}" <($DUMP --json "$TMP/jit.spl")
chown 65534 "$TMP/maps/perf-$jpid.map"
run $SYM --perf-maps all --perf-map-dir "$TMP/maps" -o "$TMP/jit-own.spl" "$TMP/jit.spl"
check "a perf map owned by another uid than the recorded one is refused, even for root" \
    test "$($DUMP "$TMP/jit-own.spl" | grep -c 'jit_spin_loop')" -eq 0
chown "$(id -u)" "$TMP/maps/perf-$jpid.map"
ln -s "$TMP/maps/perf-$jpid.map" "/tmp/perf-$jpid.map"
run $SYM --perf-maps all -o "$TMP/jit-link.spl" "$TMP/jit.spl"
check "a perf map reached through a symlink is refused" \
    test "$($DUMP "$TMP/jit-link.spl" | grep -c 'jit_spin_loop')" -eq 0
rm -f "/tmp/perf-$jpid.map"

# --- Node.js JIT frames from node --perf-basic-prof's map --------------------------
if command -v node >/dev/null; then
	cat >"$TMP/hot.js" <<'JS'
function spHotLoop(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s = (s * 31 + i) % 1000003;
	return s;
}
const end = Date.now() + 1500;
let x = 0;
while (Date.now() < end)
	x += spHotLoop(100000);
console.log(x > 0 ? "done" : "?");
JS
	# In $TMP: node leaves its V8 log (isolate-*.log) in its directory.
	run env -C "$TMP" "$PWD/$REC" -q -o node.spl -- node --perf-basic-prof hot.js
	check "node ran under sp-record" test "$RC" -eq 0 -a "$OUT" = done
	npid=$($DUMP --json "$TMP/node.spl" | grep -o '"kind":"sample","thread":[0-9]*,"pid":[0-9]*' | head -1 | grep -o '[0-9]*$')
	nmap=/tmp/perf-$npid.map
	check "node wrote its perf map ($nmap)" grep -q ' JS:.*spHotLoop' "$nmap"
	run $SYM --perf-maps none -o "$TMP/node-no.spl" "$TMP/node.spl"
	check "with --perf-maps none, node's JIT frames are not named" \
	    test "$($DUMP "$TMP/node-no.spl" | grep -c spHotLoop)" -eq 0
	run $SYM -o "$TMP/node-def.spl" "$TMP/node.spl"
	check "by default they are (its perf map is read)" \
	    test "$($DUMP "$TMP/node-def.spl" | grep -c spHotLoop)" -gt 0
	run $SYM --perf-maps-for "$npid" -o "$TMP/node-sym.spl" "$TMP/node.spl"
	$DUMP --json "$TMP/node-sym.spl" >"$TMP/node.json"
	# "ID ABS_IP" of each frame whose symbol names spHotLoop.
	awk -F'[:,]' '/"kind":"frame"/ { for (i = 1; i < NF; i++) {
		if ($i == "\"id\"") id = $(i + 1)
		if ($i == "\"abs_ip\"") ip = $(i + 1) }
		gsub(/[^0-9]/, "", ip); print "F", id, ip }
	/"kind":"symbol"/ && /spHotLoop/ { for (i = 1; i < NF; i++)
		if ($i == "\"frame\"") print "S", $(i + 1) }' "$TMP/node.json" |
	    awk '$1 == "F" { ip[$2] = $3 } $1 == "S" { print $2, ip[$2] }' \
	    >"$TMP/node.frames"
	n=$(grep -c . "$TMP/node.frames")
	check "--perf-maps-for PID names node's JIT frames after the JS function ($n)" \
	    test "$n" -gt 0
	check "... as perf-map frames with the jit flag" \
	    grep -qE '"origin":1,"flags":4,"name":"JS:[*~^]?spHotLoop ' "$TMP/node.json"
	check "... the leaf of samples" grep -q '#0 .*spHotLoop' <($DUMP "$TMP/node-sym.spl")
	# Each such frame's address against node's map, read by awk: the
	# last line whose [START, START + SIZE) holds it names it.
	bad=$(while read -r id ip; do
		want=$(awk -v a="$ip" "$HEX_AWK"'
		{ s = hex($1); if (a >= s && a < s + hex($2)) { $1 = $2 = ""; name = substr($0, 3) } }
		END { print name }' "$nmap")
		got=$(grep -o "\"kind\":\"symbol\",\"frame\":$id,[^}]*" "$TMP/node.json" |
		    sed 's/.*"name":"//; s/",.*//')
		[ "$want" = "$got" ] || echo "frame $id at $ip: sp-sym '$got', map '$want'"
	    done <"$TMP/node.frames")
	check "... each named as node's map names its address" test -z "$bad"
	[ -z "$bad" ] || echo "$bad" | head -5
	figures node --perf-maps-for "$npid" "$TMP/node.spl"
	rm -f "$nmap"
else
	echo "SKIP node JIT frames: node is not installed (apt-get install nodejs)"
fi

# --- a fake Python runtime ------------------------------------------------------------
mkdir -p "$TMP/py"
cp $W/fakepy "$TMP/py/python3.12"
run $REC -q -o "$TMP/py.spl" -- "$TMP/py/python3.12" 600
ppid=$($DUMP "$TMP/py.spl" | awk '/^python .* a Python runtime/ { print $4; exit }' | tr -d :)
check "the fake runtime is marked a Python runtime" test -n "$ppid"
run $SYM -o "$TMP/py-sym.spl" "$TMP/py.spl"
$DUMP --json "$TMP/py-sym.spl" | grep '"kind":"symbol"' >"$TMP/py.syms"
check "py:: entries become Python frames with their file (no option needed)" \
    grep -q '"flags":16,.*"lines":\[{"function":"compute","file":"/srv/app/calc.py"' "$TMP/py.syms"
check "... qualified names stay whole" grep -q '"function":"Loop.run","file":"/srv/app/main.py"' "$TMP/py.syms"
check "the eval loop is python-runtime and hidden" \
    grep -q '"origin":2,"flags":3,"name":"_PyEval_EvalFrameDefault"' "$TMP/py.syms"
check "main is neither" grep -q '"origin":2,"flags":0,"name":"main"' "$TMP/py.syms"
figures python "$TMP/py.spl"
# Its PYTHON record decides which frames the perf map names: resolved
# ahead of the copy (a file) or in order (a pipe), the same spool.
cat "$TMP/py.spl" | $SYM -q >"$TMP/py-piped.spl"
check "a Python runtime's spool: a pipe gives what a file gives" \
    cmp -s "$TMP/py-piped.spl" "$TMP/py-sym.spl"
rm -f "/tmp/perf-$ppid.map"

# --- C++ names: demangling stays out of sp-sym --------------------------------------
# The spool keeps the linkage names; the readers demangle what they show
# (tests/cli/all/names.sh), --no-demangle shows the spool's.
run $REC -q -o "$TMP/cxx.spl" -- $W/cxx 500
$SYM -q "$TMP/cxx.spl" | $DUMP --no-demangle - >"$TMP/cxx.txt"
check "C++ frames carry their mangled (linkage) names" grep -q '_ZN6shapes7Spinner4spinEm' "$TMP/cxx.txt"
need c++filt binutils
c++filt <"$TMP/cxx.txt" >"$TMP/cxx.dem"
check "c++filt demangles sp-dump --no-demangle's text output" grep -q 'shapes::Spinner::spin(unsigned long)' "$TMP/cxx.dem"
check "... templates too" grep -q 'void shapes::twice<shapes::Spinner>(shapes::Spinner&)' "$TMP/cxx.dem"

# --- the vDSO (issue 14.11) ------------------------------------------------------------
# Its frames were never named ([vdso]+0x86c); perf names them from the
# image.  The recorder records its build-id and keeps it in a bundle;
# sp-sym reads the bundle's copy, or its own when the kernel is the same.
rm -rf "$TMP/vbundle"
run $REC -q --bundle "$TMP/vbundle" --bundle-binaries -o "$TMP/vdso.spl" -- $W/clockloop 500
vid=$($DUMP "$TMP/vdso.spl" | awk '/^module .* \[vdso\]$/ { print $(NF - 1); exit }')
check "the [vdso] module has a build-id ($vid)" grep -qE '^[0-9a-f]{40}$' <<<"$vid"
run $SYM -o "$TMP/vdso-sym.spl" "$TMP/vdso.spl"
s=$($DUMP "$TMP/vdso.spl" | grep -c '^sample ')
v=$($DUMP "$TMP/vdso-sym.spl" | awk '/^sample / { if (hit) n++; hit = 0 }
    /^    #[0-9]+ +__vdso_clock_gettime$/ { hit = 1 } END { if (hit) n++; print n + 0 }')
check "sp-sym names __vdso_clock_gettime on this host ($v of $s samples)" \
    test "$s" -gt 0 -a $((v * 2)) -ge "$s"
check "the bundle keeps the vdso image by its build-id" \
    grep -qP "^binary\t$vid\tbinaries/$vid\t\[vdso\]$" "$TMP/vbundle/manifest"
check "... an ELF file with that build-id" \
    grep -q "Build ID: $vid" <(readelf -n "$TMP/vbundle/binaries/$vid")
# The bundle's copy is told from this host's image by a name changed in
# its string tables (same length; the build-id note is left alone): with
# --bundle the frames must be named from that copy.  (The report lists
# only modules that kept address-only frames, which a kernel whose vdso
# is fully covered by symbols never does.)
perl -0pi -e 's/__vdso_clock_gettime/__bndl_clock_gettime/g' "$TMP/vbundle/binaries/$vid"
run $SYM --bundle "$TMP/vbundle" -o "$TMP/vdso-b.spl" "$TMP/vdso.spl"
b=$($DUMP "$TMP/vdso-b.spl" | awk '/^sample / { if (hit) n++; hit = 0 }
    /^    #[0-9]+ +__bndl_clock_gettime$/ { hit = 1 } END { if (hit) n++; print n + 0 }')
check "with --bundle sp-sym reads the bundle's copy ($b of $s samples named from it)" \
    test "$b" -gt 0 -a "$b" -eq "$v"
# --- PLT stubs: NAME@plt, as objdump labels them ------------------------------------
# plt_names BIN: reads "ID REL NAME FL" frames of BIN (frames above); for
# each in .plt, .plt.sec or .plt.got, "ok" when NAME is objdump's label
# of the stub holding it ("<NAME@plt>"; the head of .plt, ".plt"), else
# "bad ID REL NAME objdump:LABEL".
plt_names() {
	local bin=$1
	awk -v loads="$(load_map "$bin")" -v secs="$(readelf -SW "$bin" |
	    sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 ~ /^\.plt(\.sec|\.got)?$/ { print $1, $3, $5, $6 }')" "$VADDR_AWK"'
	BEGIN {
		ns = split(secs, S, "\n")
		for (i = 1; i <= ns; i++) { split(S[i], x, " "); sn[i] = x[1]; sa[i] = hex(x[2]); sz[i] = hex(x[3]); es[i] = hex(x[4]) }
	}
	FILENAME != "-" {	# objdump -d: "0000000000001040 <plt_tiny@plt>:"
		if ($0 ~ /^[0-9a-f]+ <.*@plt>:$/) { n = $0; sub(/^[0-9a-f]+ </, "", n); sub(/>:$/, "", n); lab[hex($1)] = n }
		next
	}
	{
		v = vaddr(hex($2))
		for (i = 1; i <= ns; i++) if (v >= sa[i] && v < sa[i] + sz[i]) break
		if (i > ns) next
		e = es[i] == 8 || es[i] == 16 ? es[i] : 16
		stub = sa[i] + int((v - sa[i]) / e) * e
		want = stub in lab ? lab[stub] : stub == sa[i] && sn[i] == ".plt" ? ".plt" : "(none)"
		print (want == $3 ? "ok" : "bad " $1 " " $2 " " $3 " objdump:" want)
	}' <(objdump -d -j .plt -j .plt.sec -j .plt.got "$bin") -
}

for w in plt-lazy plt-now; do
	run $REC -q -o "$TMP/$w.spl" -- $W/$w 400
	run $SYM -o "$TMP/$w.sym.spl" "$TMP/$w.spl"
	frames "$TMP/$w.sym.spl" "/$w\$" | plt_names $W/$w >"$TMP/$w.plt"
	n=$(grep -c . "$TMP/$w.plt")
	ok=$(grep -c '^ok' "$TMP/$w.plt")
	check "$w: frames in PLT stubs are named as objdump labels the stub, NAME@plt ($ok of $n)" \
	    test "$n" -gt 0 -a "$ok" -eq "$n"
done

# --- kernel frames ------------------------------------------------------------------
run $REC -q --kernel -o "$TMP/kern.spl" -- dd if=/dev/zero of=/dev/null bs=64k count=100000
run $SYM -o "$TMP/kern-sym.spl" "$TMP/kern.spl"
n=$(grep -oE '[0-9]+ kernel,' <<<"$ERR" | cut -d' ' -f1)
check "kernel frames are named from this boot's kallsyms ($n)" test "${n:-0}" -gt 0
k=$($DUMP -v "$TMP/kern-sym.spl" | awk '/^symbol .*\(kernel,/ { print $4 }' | head -1)
check "... a name kallsyms has ($k)" grep -qE " [tTwW] $k( |$)" /proc/kallsyms
check "... none left address-only (0xffff..., once [kernel.kallsyms]+0x...)" \
    test "$($DUMP "$TMP/kern-sym.spl" | grep -cE '#[0-9]+ +(\[kernel\.kallsyms\]\+)?0xffff')" -eq 0
printf '0000000000000000 T nothing\n' >"$TMP/empty.kallsyms"
run $SYM --kallsyms "$TMP/empty.kallsyms" -o "$TMP/kern-x.spl" "$TMP/kern.spl"
check "--kallsyms FILE replaces this host's" grep -q "kernel symbols: $TMP/empty.kallsyms" "$TMP/err"
run $SYM --no-kallsyms -o "$TMP/kern-none.spl" "$TMP/kern.spl"
check "--no-kallsyms: no kernel frame named, and it says why ($(grep -o 'kernel symbols: [^;]*' <<<"$ERR" | head -1))" \
    test "$RC" -eq 0 -a -n "$(grep -F 'none asked for' <<<"$ERR")" -a \
    "$($DUMP "$TMP/kern-none.spl" | grep -cE '#[0-9]+ +(\[kernel\.kallsyms\]\+)?0xffff')" -gt 0

figures tree-O2 "$TMP/tree-O2.spl"
figures tree "$TMP/tree.spl"
figures offline --bundle "$TMP/bundle" "$TMP/off.spl"
figures jit --perf-maps all --perf-map-dir "$TMP/maps" "$TMP/jit.spl"
figures kernel "$TMP/kern.spl"
# --- debug files: kept in a bundle (issue 14.14), and alone (14.8) ---------------
# libc6-dbg puts libc's debug file under /usr/lib/debug/.build-id: the
# bundle keeps it beside the binary, and sp-sym reads it on a machine
# without it.  With the binary itself hidden (a mount namespace binds an
# empty directory over /usr/lib/x86_64-linux-gnu; the release sp-sym is
# static), the debug file alone names libc's frames.
run $REC -q --bundle "$TMP/dbundle" --bundle-binaries -o "$TMP/dlibc.spl" -- $W/tree-O2 300
libc=$($DUMP "$TMP/dlibc.spl" | awk '/^module .*\/libc\.so\.6$/ { print $(NF - 1); exit }')
libc_dbg=/usr/lib/debug/.build-id/${libc:0:2}/${libc:2}.debug
if [ -n "$libc" ] && [ ! -f "$libc_dbg" ] && [ "$EUID" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -qq install -y libc6-dbg >>"$TMP/apt.log" 2>&1
	[ -f "$libc_dbg" ] && run $REC -q --bundle "$TMP/dbundle" --bundle-binaries -o "$TMP/dlibc.spl" -- $W/tree-O2 300
fi
if [ -z "$libc" ] || [ ! -f "$libc_dbg" ]; then
	skip "debug files in a bundle" "no debug file for libc ($libc) at $libc_dbg, and libc6-dbg could not be installed (see $TMP/apt.log)"
else
	check "the bundle keeps libc's debug file (debug/$libc)" cmp -s "$TMP/dbundle/debug/$libc" "$libc_dbg"
	check "and its manifest says where it came from" \
	    grep -qP "^debug\t$libc\tdebug/$libc\t$libc_dbg$" "$TMP/dbundle/manifest"
	mkdir -p "$TMP/nodebug"
	# libc's frames with a source line: from a debug file only.
	lined() { $DUMP --json "$1" | grep '"kind":"symbol"' | grep '"module":"libc\.so\.6"' | grep -c '"file":"'; }
	run env STACKPULSE_DEBUG_DIRS="$TMP/nodebug" $SYM --bundle "$TMP/dbundle" -o "$TMP/dlibc-b.spl" "$TMP/dlibc.spl"
	with=$(lined "$TMP/dlibc-b.spl")
	run env STACKPULSE_DEBUG_DIRS="$TMP/nodebug" $SYM -o "$TMP/dlibc-n.spl" "$TMP/dlibc.spl"
	without=$(lined "$TMP/dlibc-n.spl")
	check "with no debug directory here, the bundle's gives libc's lines ($with frames; $without without it)" \
	    test "$with" -gt 0 -a "$without" -eq 0
	# The release sp-sym, static, also in the ASan run of this script:
	# a dynamic one cannot start with libc hidden.
	if ldd $BIN/sp-sym >/dev/null 2>&1; then
		skip "libc's debug file alone" "$BIN/sp-sym is dynamically linked: it cannot run with /usr/lib/x86_64-linux-gnu hidden"
	else
		mkdir -p "$TMP/hide"
		run unshare -m sh -c 'mount --bind "$1" /usr/lib/x86_64-linux-gnu &&
		    test ! -e /usr/lib/x86_64-linux-gnu/libc.so.6 &&
		    exec "$2" -o "$3" "$4"' sh "$TMP/hide" $BIN/sp-sym "$TMP/dlibc-h.spl" "$TMP/dlibc.spl"
		check "libc hidden, sp-sym runs (exit $RC)" test "$RC" -eq 0
		alone=$(lined "$TMP/dlibc-h.spl")
		named=$($DUMP --json "$TMP/dlibc-h.spl" | grep '"kind":"symbol"' | grep '"module":"libc\.so\.6"' | grep -cE '"name":"__libc_start_main(_impl)?"')
		check "libc6-dbg's file alone names libc's frames ($named __libc_start_main or its DWARF name __libc_start_main_impl, $alone with lines)" \
		    test "$named" -ge 1 -a "$alone" -gt 0
	fi
fi

done_testing
