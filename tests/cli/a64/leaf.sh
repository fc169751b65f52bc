#!/usr/bin/env bash
# The AArch64 leaf analysis (libsp/unwind/aarch64/aarch64_leaf.c) at every
# instruction of real code, against the compiler's own CFI: gcc's
# cross compiler builds tests/cli/a64/funcs.c at -O0 to -O3 and -Os, with
# and without -fomit-frame-pointer and -mbranch-protection=standard, into
# a shared object (its PLT stubs are checked too: a tail call through
# x17 with nothing on the stack); readelf's frames-interp gives the row of
# each instruction, and tests/cli/a64/leafcheck.c (built here, with the
# decoder compiled in) runs the analysis at each.  Any pc where the
# analysis answers otherwise than the CFI fails; so does any pc it cannot
# tell in the functions that have nothing it may not know.  Only gcc:
# clang 14's AArch64 CFI is exact in function bodies alone (its
# prologue's rules come after the whole prologue, its epilogue has none).
. "$(dirname "$0")/../lib.bash"
A=tests/cli/a64
X=aarch64-linux-gnu

# Where the analysis may say "cannot tell": big_frame moves sp by x12,
# which a pc after its mov did not see set; checked ends in a call that
# does not return, after which comes the next function; vla restores sp
# from an x29 set up before the pc; recurse's paths outgrow the limits.
may_not_know=" big_frame checked vla recurse "

# truth: readelf --debug-dump=frames-interp on stdin, a leafcheck TRUTH
# line per instruction of each FDE (an FDE without rows is the CIE's:
# sp+0, nothing saved).
truth() {
	awk "$HEX_AWK"'
	function slot(s, cfa) {
		if (s == "" || s == "u") return "0 0"
		if (s ~ /^c-?[0-9]+$/) return "1 " (cfa + substr(s, 2))
		return "?"
	}
	function flush(  pc, i, r, cfa, ra, fp) {
		for (pc = lo; infde && pc < hi; pc += 4) {
			r = 0
			for (i = 1; i <= nrow; i++) if (rowpc[i] <= pc) r = i
			if (r == 0) { printf "%x s 0 0 0 0 0 %x\n", pc, lo; continue }
			if (rowcfa[r] !~ /^sp\+[0-9]+$/) { printf "%x f\n", pc; continue }
			cfa = substr(rowcfa[r], 4) + 0
			ra = slot(rowra[r], cfa); fp = slot(rowfp[r], cfa)
			if (ra == "?" || fp == "?") { printf "%x f\n", pc; continue }
			printf "%x s %d %s %s %x\n", pc, cfa, ra, fp, rowpc[r]
		}
		infde = 0
	}
	/ FDE / { flush(); split($0, a, "pc="); split(a[2], b, "[.][.]")
		lo = hex(b[1]); hi = hex(b[2]); infde = 1; nrow = 0; next }
	/^ +LOC +CFA/ { for (i = 3; i <= NF; i++) col[i] = $i; next }
	infde && /^[0-9a-f]+ / { nrow++; rowpc[nrow] = hex($1); rowcfa[nrow] = $2
		rowra[nrow] = rowfp[nrow] = ""
		for (i = 3; i <= NF; i++) {
			if (col[i] == "ra") rowra[nrow] = $i
			if (col[i] == "x29") rowfp[nrow] = $i
		} }
	END { flush() }'
}

# section SO NAME: "ADDRESS SIZE" of a section, hexadecimal.
section() {
	$X-readelf -SW "$1" | awk -v n="$2" '{ for (i = 1; i < NF; i++)
	    if ($i == n) print $(i + 2), $(i + 4) }'
}

# functions SO: "START END NAME" lines (decimal) of its functions.
functions() {
	$X-nm -S --defined-only "$1" | awk "$HEX_AWK"'
	    NF == 4 && tolower($3) == "t" { printf "%.0f %.0f %s\n", hex($1), hex($1) + hex($2), $4 }'
}

if ! need $X-gcc gcc-aarch64-linux-gnu; then
	skip "the AArch64 leaf analysis against gcc's CFI" \
	    "no $X-gcc here, and apt-get could not install gcc-aarch64-linux-gnu (see $TMP/apt.log)"
	done_testing
	exit 0
fi
run gcc -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
    -fno-sanitize-recover=all -Ilibsp -o "$TMP/leafcheck" $A/leafcheck.c
check "leafcheck builds (the decoder compiled in)" test "$RC" -eq 0

for flags in "-O0" "-O0 -fomit-frame-pointer" "-O0 -mbranch-protection=standard" \
    "-O1" "-O2" "-O2 -fomit-frame-pointer" "-O2 -mbranch-protection=standard" \
    "-O3" "-O3 -fomit-frame-pointer -mbranch-protection=standard" "-Os"; do
	n=$(tr -d ' =' <<<"$flags")
	so=$TMP/funcs$n.so
	run $X-gcc $flags -shared -fPIC -nostdlib -o "$so" $A/funcs.c
	check "gcc $flags builds funcs.c" test "$RC" -eq 0 || continue
	$X-readelf --debug-dump=frames-interp "$so" | truth >"$TMP/truth$n"
	# The PLT's entries after its 32-byte header: adrp, ldr, add, br x17.
	read -r plt pltsize <<<"$(section "$so" .plt)"
	awk "$HEX_AWK"'BEGIN { for (a = hex(p) + 32; a < hex(p) + hex(s); a += 4)
	    printf "%x s 0 0 0 0 0 %x\n", a, a }' p="$plt" s="$pltsize" </dev/null >>"$TMP/truth$n"
	# .plt then .text, as they lie in the file (objcopy fills the gap).
	$X-objcopy -O binary --only-section=.plt --only-section=.text "$so" "$TMP/code$n"
	run "$TMP/leafcheck" "$TMP/code$n" "$plt" "$TMP/truth$n"
	check "gcc $flags: leafcheck ran over every instruction ($(wc -l <"$TMP/truth$n"))" \
	    test "$RC" -eq 0 -a "$(grep -o '^checked [0-9]*' "$TMP/out")" = \
	    "checked $(wc -l <"$TMP/truth$n")"
	wrong=$(grep '^wrong' "$TMP/out")
	check "gcc $flags: the analysis agrees with the CFI wherever it answers (${OUT##*$'\n'})" \
	    test -z "$wrong"
	[ -z "$wrong" ] || printf '    %s\n' "${wrong:0:2000}"
	functions "$so" >"$TMP/fns$n"
	bad=$(grep '^unknown' "$TMP/out" | awk "$HEX_AWK"'
	    NR == FNR { lo[NR] = $1; hi[NR] = $2; fn[NR] = $3; n = NR
		sub(/[.].*/, "", fn[NR]); next }   # recurse.localalias: recurse
	    { pc = hex($2); f = "?"; at = pc
	      for (i = 1; i <= n; i++) if (pc >= lo[i] && pc < hi[i]) { f = fn[i]; at = lo[i] }
	      if (index(m, " " f " ") == 0) printf "%s+0x%x ", f, pc - at }' \
	    m="$may_not_know" "$TMP/fns$n" -)
	check "gcc $flags: known at every pc but in${may_not_know% }${bad:+ (unknown:$bad)}" \
	    test -z "$bad"
done
done_testing
