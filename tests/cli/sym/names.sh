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

done_testing
