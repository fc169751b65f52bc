#!/usr/bin/env bash
# The names sp-sym gives, each seen on a real program (issue 28.6): one
# name per function whatever aliases the symbol tables give it, the
# entry point of a stripped executable, ...  The expected names come from
# addr2line, readelf and nm on the same files, never from this script.
. "$(dirname "$0")/../lib.bash"
mkdir -p "$TMP/nodebug"

# module_of SPOOL NAME_RE: "BUILDID PATH" of the first module whose path's
# last component matches NAME_RE.
module_of() {
	$DUMP "$1" | awk -v re="$2" '$1 == "module" {
		n = split($NF, p, "/"); if (p[n] ~ re) { print $(NF - 1), $NF; exit } }'
}

# leaves FOLDED: "COUNT LEAF" for each leaf frame, its samples summed.
leaves() { awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); c[f[k]] += n }
    END { for (l in c) print c[l], l }' "$1"; }

# frame_names SPOOL PATH: "VADDR NAME" (VADDR decimal, NAME - where
# sp-sym gave none) for every frame of the modules mapping the ELF file
# PATH, through its PT_LOAD headers.
frame_names() {
	$DUMP --json "$1" | awk -v path="$2" -v loads="$(readelf -lW "$2" | awk '$1 == "LOAD" { print $2, $3, $5 }')" "$HEX_AWK"'
	function field(k,  v) { if (!match($0, "\"" k "\":(\"[^\"]*\"|[0-9]+)")) return ""
		v = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/"/, "", v); return v }
	function vaddr(off,  i, x) {
		if (!nl) { nl = split(loads, L, "\n")
			for (i = 1; i <= nl; i++) { split(L[i], x, " "); lo[i] = hex(x[1]); va[i] = hex(x[2]); fs[i] = hex(x[3]) } }
		for (i = 1; i <= nl; i++) if (off >= lo[i] && off < lo[i] + fs[i]) return off - lo[i] + va[i]
		return -1
	}
	/"kind":"module"/ && field("path") == path { mod[field("id")] = 1 }
	/"kind":"frame"/ && (field("module") in mod) { ids[++n] = field("id"); rel[field("id")] = field("rel_ip") }
	/"kind":"symbol"/ { name[field("frame")] = field("name") }
	END { for (i = 1; i <= n; i++) { id = ids[i]
		printf "%.0f %s\n", vaddr(rel[id]), (id in name) ? name[id] : "-" } }'
}

# --- aliases: libm's fmod (issue 28.6) ------------------------------------------
# glibc's libm has several names at __ieee754_fmod's address: the local
# __ieee754_fmod, which DWARF, addr2line and perf give, and the global
# compatibility alias __fmod_finite@GLIBC_2.15, the only one its .dynsym
# keeps.  With debug information the frame is named as DWARF names it;
# without, by the global symbol.  awk's % is libm's fmod.
awk_bin=$(readlink -f "$(command -v awk)")
if ! nm -D "$awk_bin" 2>/dev/null | grep -qE ' U fmod(@|$)'; then
	skip "libm's aliases" "$awk_bin does not call libm's fmod"
else
	run $REC -q -F 499 -o "$TMP/fmod.spl" -- awk 'BEGIN { for (i = 0; i < 8000000; i++) s += i % 7.3; print s > "/dev/null" }'
	check "awk's fmod loop: recorded (exit $RC)" test "$RC" -eq 0
	read -r bid libm < <(module_of "$TMP/fmod.spl" '^libm\.so')
	dbg=/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	if [ -n "$bid" ] && [ ! -f "$dbg" ] && [ "$EUID" -eq 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -qq install -y libc6-dbg >>"$TMP/apt.log" 2>&1
	fi
	$SYM -q "$TMP/fmod.spl" | $FOLD --modules >"$TMP/fmod.folded"
	STACKPULSE_DEBUG_DIRS=$TMP/nodebug $SYM -q "$TMP/fmod.spl" |
	    $FOLD --modules >"$TMP/fmod.nodbg.folded"
	# Without debug information: libm's hottest leaf, G, at address A.
	read -r n0 g < <(leaves "$TMP/fmod.nodbg.folded" | grep ' libm\.so[^`]*`' | sort -rn | head -1)
	g=${g#*\`}
	a=$(readelf --dyn-syms -W "$libm" | awk -v g="$g" '$4 == "FUNC" { n = $8; sub(/@.*/, "", n); if (n == g) { print $2; exit } }')
	globals=$(readelf --dyn-syms -W "$libm" | awk -v a="$a" '$2 == a && $4 == "FUNC" && $5 == "GLOBAL" { n = $8; sub(/@.*/, "", n); print n }' | sort -u)
	check "no debug information: libm's hottest function is named by its global symbol ($g, ${n0:-0} samples; global at 0x$a: $(echo $globals))" \
	    grep -qxF -- "$g" <<<"${globals:-none}"
	if [ -z "$bid" ] || [ ! -f "$dbg" ]; then
		skip "libm's aliases with debug information" "no debug file for libm ($libm) at $dbg, and libc6-dbg could not be installed (see $TMP/apt.log)"
	else
		d=$(addr2line -f -i -e "$libm" "0x$a" | awk 'NR % 2 { f = $0 } END { print f }')
		names=$(readelf -sW "$dbg" | awk -v a="$a" '$2 == a && $4 == "FUNC" { n = $8; sub(/@.*/, "", n); print n }' | sort -u)
		echo "libm: names at 0x$a in $dbg: $(echo $names); addr2line: $d"
		if [ "$(wc -l <<<"$names")" -lt 2 ] || [ "$d" = "$g" ] || [ "$d" = "??" ]; then
			skip "libm's aliases with debug information" "this libm has no alias that DWARF and the global symbol disagree on at 0x$a ($(echo $names); DWARF: $d)"
		else
			n1=$(leaves "$TMP/fmod.folded" | awk -v l="${libm##*/}\`$d" '$2 == l { print $1 }')
			check "with debug information: the same samples are named as DWARF and addr2line name them ($d: ${n1:-0} of $n0)" \
			    test "${n1:-0}" -eq "$n0" -a "$n0" -gt 0
			n2=$(fold_count "$TMP/fmod.folded" "\`$g( |;|\$)")
			check "with debug information: no frame is named by the alias $g ($n2 samples)" \
			    test "$n2" -eq 0
		fi
	fi
fi

# GNU as writes a DWARF subprogram for every label of a function: glibc's
# syscall wrappers (syscall-template.S) have __sched_yield, sched_yield,
# __GI_sched_yield... at one range, no name of their own.  Their ELF rule
# names them: the global symbol, as perf does (was __GI_sched_yield).
if ! command -v python3 >/dev/null; then
	skip "assembler functions' names" "no python3 to call sched_yield in a loop"
else
	run $REC -q -o "$TMP/yield.spl" -- python3 -c 'import os
for i in range(300000): os.sched_yield()'
	check "python3's sched_yield loop: recorded (exit $RC)" test "$RC" -eq 0
	read -r bid libc < <(module_of "$TMP/yield.spl" '^libc\.so')
	dbg=/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	a=$(readelf --dyn-syms -W "$libc" | awk '$4 == "FUNC" && $8 ~ /^sched_yield@/ { print $2; exit }')
	want=$(readelf --dyn-syms -W "$libc" | awk -v a="$a" '$2 == a && $4 == "FUNC" && $5 == "GLOBAL" { n = $8; sub(/@.*/, "", n); print n; exit }')
	if [ ! -f "$dbg" ] || [ -z "$want" ] || ! readelf --debug-dump=info "$dbg" 2>/dev/null | grep -q 'DW_AT_name.*: __GI_sched_yield$'; then
		skip "assembler functions' names" "no debug file of libc ($dbg) whose DWARF names sched_yield's labels"
	else
		$SYM -q "$TMP/yield.spl" | $FOLD --modules >"$TMP/yield.folded"
		read -r n k < <(fold_count "$TMP/yield.folded" 'libc\.so\.6`[_A-Za-z]*sched_yield(;| |$)' "libc\\.so\\.6\`$want(;| |\$)")
		check "sched_yield's frames are named by the global symbol $want ($k of $n)" \
		    test "$n" -gt 0 -a "$k" -eq "$n"
	fi
fi

# --- a stripped executable's entry point: _start (issue 28.6) -------------------
# The ELF header gives the entry point, and the FDE that begins there its
# extent: sp-sym names those frames _start, and only those, in a copy of
# xz stripped of every symbol, with no debug file to be found.
if ! need xz xz-utils; then
	skip "a stripped executable's entry point" "no xz, and xz-utils could not be installed (see $TMP/apt.log)"
else
	cp "$(command -v xz)" "$TMP/xz" && strip -s "$TMP/xz"
	entry=$(readelf -hW "$TMP/xz" | awk '/Entry point/ { print $NF }')
	range=$(readelf -wf "$TMP/xz" | grep -o "pc=0*${entry#0x}\.\.[0-9a-f]*" | head -1)
	if [ -z "$range" ]; then
		skip "a stripped executable's entry point" "no FDE of $TMP/xz begins at its entry point $entry"
	else
		read -r lo hi < <(awk "$HEX_AWK"'{ sub(/^pc=/, ""); split($0, r, "\\.\\."); printf "%.0f %.0f\n", hex(r[1]), hex(r[2]) }' <<<"$range")
		check "the copy of xz has no symbols" test -z "$(nm "$TMP/xz" 2>/dev/null)"
		run $REC -q -F 499 -o "$TMP/xz.spl" -- sh -c "seq 1 1500000 | $TMP/xz -6 -T1 >/dev/null"
		check "xz: recorded (exit $RC)" test "$RC" -eq 0
		STACKPULSE_DEBUG_DIRS=$TMP/nodebug $SYM -q -o "$TMP/xz.sym.spl" "$TMP/xz.spl"
		frame_names "$TMP/xz.sym.spl" "$(realpath "$TMP/xz")" >"$TMP/xz.names"
		read -r inside named outside < <(awk -v lo="$lo" -v hi="$hi" '
		    $1 >= lo && $1 < hi { i++; if ($2 == "_start") n++; next }
		    $2 == "_start" { o++ } END { print i + 0, n + 0, o + 0 }' "$TMP/xz.names")
		check "xz: every frame in the entry point's FDE ($entry, $range) is named _start ($named of $inside)" \
		    test "$inside" -gt 0 -a "$named" -eq "$inside"
		check "xz: no frame elsewhere is named _start ($outside)" test "$outside" -eq 0
		$FOLD --modules "$TMP/xz.sym.spl" >"$TMP/xz.folded"
		read -r all root < <(fold_count "$TMP/xz.folded" '^xz(`|\+0x)' '^xz`_start(;|$)')
		check "xz: its stacks start at _start ($root of $all)" \
		    test "$all" -gt 0 -a $((root * 100)) -ge $((all * 95))
	fi
fi

# --- node: its binary named by its symbols, its JIT code by its map (28.6) ------
# node --perf-basic-prof's map names some builtins inside node's own
# text (Builtin:JSEntry), which its .symtab names too (Builtins_JSEntry),
# as it names those the map leaves out (Builtins_ArrayTimSort).  One
# rule, perf's: a file's code by the file's symbols, anonymous memory
# (the JIT's code) by the map.
if ! command -v node >/dev/null; then
	skip "node's names" "node is not installed (apt-get install nodejs)"
else
	run env -C "$TMP" "$PWD/$REC" -q -o node.spl -- node --perf-basic-prof "$PWD/tests/workloads/spin.js" 1500
	check "node spin.js: recorded (exit $RC)" test "$RC" -eq 0
	npid=$($DUMP --json "$TMP/node.spl" | grep -o '"kind":"sample","thread":[0-9]*,"pid":[0-9]*' | head -1 | grep -o '[0-9]*$')
	nmap=/tmp/perf-$npid.map
	$SYM -q -o "$TMP/node.sym.spl" "$TMP/node.spl"
	cp "$nmap" "$TMP/node.map" 2>/dev/null
	rm -f "$nmap"
	$DUMP --json "$TMP/node.sym.spl" >"$TMP/node.json"
	nodebin=$(readlink -f "$(command -v node)")
	# Map entries inside node's mappings: "START SIZE" of its modules
	# (decimal), then the map's lines.
	inside=$(awk -v bin="$nodebin" "$HEX_AWK"'
	    FILENAME != "-" && /"kind":"module"/ && index($0, "\"path\":\"" bin "\"") {
		match($0, /"start":[0-9]+/); s = substr($0, RSTART + 8, RLENGTH - 8) + 0
		match($0, /"size":[0-9]+/); n = substr($0, RSTART + 7, RLENGTH - 7) + 0
		lo[++k] = s; hi[k] = s + n; next }
	    FILENAME == "-" { a = hex($1); for (i = 1; i <= k; i++) if (a >= lo[i] && a < hi[i]) { c++; break } }
	    END { print c + 0 }' "$TMP/node.json" - <"$TMP/node.map")
	symbols() { grep '"kind":"symbol"' "$TMP/node.json" | grep -c "$1"; }
	bymap=$(symbols '"origin":1,.*"module":"node"')
	byelf=$(symbols '"origin":2,.*"name":"Builtins_.*"module":"node"')
	jit=$(symbols '"origin":1,.*"name":"JS:')
	if [ "$inside" -eq 0 ]; then
		skip "node's names" "node's perf map ($nmap) names nothing inside node's own mappings"
	else
		check "node: no frame of node's binary is named from the perf map ($bymap; the map has $inside entries inside it)" \
		    test "$bymap" -eq 0
		check "node: its builtins are named by its .symtab ($byelf Builtins_* frames)" \
		    test "$byelf" -gt 0
		check "node: the JIT's code is named from the perf map ($jit JS: frames)" \
		    test "$jit" -gt 0
	fi
fi

# --- return addresses after a function's last call, and pushed (28.6) -----------
# The recorder rewinds a caller's return address by 1 into its call.  A
# call that ends ends_in_call returns to next_fn's first byte: the frame
# is ends_in_call's.  pushed_root pushes target_fn's address as a root's
# fake return address: rewound, it lands in the padding before target_fn,
# which no symbol covers, and the frame is target_fn's (was "??").
pw=$W/pushed
read -r eic_end next_start < <(nm -S "$pw" | awk "$HEX_AWK"'
    $4 == "ends_in_call" { e = hex($1) + hex($2) } $4 == "next_fn" { n = hex($1) }
    END { printf "%.0f %.0f\n", e, n }')
read -r root_end target < <(nm -S "$pw" | awk "$HEX_AWK"'
    $4 == "pushed_root" { e = hex($1) + hex($2) } $4 == "target_fn" { t = hex($1) }
    END { printf "%.0f %.0f\n", e, t }')
if [ "$eic_end" != "$next_start" ] || [ "$root_end" -ge "$target" ]; then
	skip "pushed return addresses" "the assembler laid out $pw otherwise (ends_in_call ends at $eic_end, next_fn at $next_start; pushed_root ends at $root_end, target_fn at $target)"
else
	run $REC -q -o "$TMP/pushed.spl" -- "$pw" 1000
	check "pushed: recorded (exit $RC)" test "$RC" -eq 0
	$SYM -q "$TMP/pushed.spl" | $FOLD >"$TMP/pushed.folded"
	n=$(fold_count "$TMP/pushed.folded" ';ends_in_call;spin(;|$)')
	check "a call that ends its function is that function's frame ($n samples under ends_in_call)" \
	    test "$n" -gt 0
	n=$(fold_count "$TMP/pushed.folded" '(^|;)next_fn;')
	check "... not the next function's ($n samples under next_fn)" test "$n" -eq 0
	n=$(fold_count "$TMP/pushed.folded" '(^|;)target_fn;spin(;|$)')
	check "a pushed return address names the function it points to ($n samples under target_fn)" \
	    test "$n" -gt 0
	n=$(fold_count "$TMP/pushed.folded" '(^|;)(\?\?|pushed\+0x[0-9a-f]+|pushed_root);spin(;|$)')
	check "... not the padding before it ($n samples)" test "$n" -eq 0
fi

# --- Erlang/OTP's JIT with +JPperf true (28.6) -------------------------------------
# A BEAM process's stack returns at its root to $erts_beamasm:normal_exit/0,
# an address the runtime pushes; rewound by 1 it lands in the function's
# code info header (NAME-CodeInfoPrologue in the perf map), which named
# the root of 15 % of the samples.  And +JPperf true keeps frame pointers:
# the advice must not say it does not.
if ! need erlc erlang-base || ! command -v erl >/dev/null; then
	skip "Erlang's JIT" "no erl and erlc, and erlang-base could not be installed (see $TMP/apt.log)"
else
	mkdir -p "$TMP/erl" && cp tests/workloads/espin.erl "$TMP/erl/"
	(cd "$TMP/erl" && erlc espin.erl)
	run env -C "$TMP/erl" "$PWD/$REC" -o erl.spl -- erl -noshell +JPperf true -pa . -run espin main 1500
	check "erl +JPperf true: recorded (exit $RC)" test "$RC" -eq 0
	check "erl +JPperf true: the advice does not say its JIT keeps no frame pointers" \
	    test "${ERR/keeps no frame pointers/}" = "$ERR"
	if has "stacks truncated" "$ERR"; then
		check "erl +JPperf true: the advice says where its walks end" \
		    has "beam.smp keeps frame pointers (+JPperf true), but its walks end where an Erlang process's stack meets the scheduler's C stack" "$ERR"
	fi
	epid=$($DUMP "$TMP/erl/erl.spl" | awk '$1 == "module" && $NF ~ /\/beam\.smp$/ { print $4; exit }')
	emap=/tmp/perf-$epid.map
	$SYM -q -o "$TMP/erl.sym.spl" "$TMP/erl/erl.spl"
	cp "$emap" "$TMP/erl.map" 2>/dev/null
	rm -f "$emap"
	$FOLD "$TMP/erl.sym.spl" >"$TMP/erl.folded"
	read -r all root < <(fold_count "$TMP/erl.folded" ';\$espin:work/2(;|$)' '^\$erts_beamasm:normal_exit/0;')
	check "erl: stacks through espin:work/2 start at \$erts_beamasm:normal_exit/0, as perf names it ($root of $all)" \
	    test "$all" -gt 0 -a $((root * 100)) -ge $((all * 90))
	n=$(fold_count "$TMP/erl.folded" '^[^;]*-CodeInfoPrologue;')
	check "erl: no stack starts in a code info header ($n samples)" test "$n" -eq 0
	# Every frame the map names: the entry holding its address, or for an
	# address in a code info header or in no entry, the entry starting
	# right after it (a pushed return address, rewound).
	$DUMP --json "$TMP/erl.sym.spl" | awk '
	    /"kind":"frame"/ { match($0, /"id":[0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, /"abs_ip":[0-9]+/); ip[id] = substr($0, RSTART + 9, RLENGTH - 9) }
	    /"kind":"symbol"/ && /"origin":1,/ { match($0, /"frame":[0-9]+/); id = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /"name":"[^"]*"/); print ip[id], substr($0, RSTART + 8, RLENGTH - 9) }' >"$TMP/erl.frames"
	bad=$(awk "$HEX_AWK"'
	    FILENAME != "-" { s[++n] = hex($1); e[n] = s[n] + hex($2); $1 = $2 = ""; nm[n] = substr($0, 3); next }
	    { a = $1 + 0; name = $0; sub(/^[0-9]+ /, "", name); want = ""; after = ""
		for (i = 1; i <= n; i++) { if (a >= s[i] && a < e[i]) want = nm[i]; if (s[i] == a + 1) after = nm[i] }
		if ((want == "" || want ~ /-CodeInfoPrologue$/) && after != "") want = after
		if (want != name) { bad++; if (bad <= 3) printf "0x%x: sp-sym %s, map %s; ", a, name, want } }
	    END { print bad + 0 }' "$TMP/erl.map" - <"$TMP/erl.frames")
	check "erl: every frame its perf map names is named as perf names it ($(wc -l <"$TMP/erl.frames") frames; wrong: $bad)" \
	    test "${bad##*; }" = 0 -a "$(wc -l <"$TMP/erl.frames")" -gt 0
fi

done_testing
