#!/usr/bin/env bash
# The recorder on hostile ELF: it reads the build-id and CFI of every file
# the target maps executable, as root, so a file's headers must not make
# it allocate what they claim, crash it or hang it.  Every damaged file
# tests/elfmut.c makes (those tests/cli/sym/hostile.sh gives sp-sym, and
# damaged .eh_frame_hdr, .eh_frame and .debug_frame) is mapped PROT_EXEC
# by tests/workloads/mapexec, which then spins in its own code; a program
# whose .debug_frame is a zlib bomb (a few MiB that inflate to 2 GiB,
# frame-bomb) still runs, and is recorded itself too.  Each recording
# must end (under `timeout`) with exit 0, a spool that sp-dump --check
# accepts with samples, the file among its modules, and a peak RSS under
# 64 MiB.  tests/run.sh runs it again with the ASan+UBSan sp-record.
. "$(dirname "$0")/../lib.bash"
# asan: RECORD=build/asan/sp-record/sp-record
MUT=build/glibc/elfmut
export ASAN_OPTIONS=exitcode=99:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1
LIMIT=120	# seconds for one recording: only a hang gets near it
RSS_MAX=64	# MiB: the recorder's own is ~1 MiB, ~10 MiB under ASan
TIME=/usr/bin/time
need $TIME time || TIME=

# record NAME CMD...: sp-record -q -o $TMP/r.spl -- CMD, bounded by
# timeout and its peak RSS measured; checks the exit status, the spool
# and the RSS.
record() {
	local name=$1 n rss
	shift
	rm -f "$TMP/r.spl" "$TMP/rss"
	run timeout -k 10 $LIMIT ${TIME:+$TIME -f %M -o "$TMP/rss"} \
	    $REC -q -o "$TMP/r.spl" -- "$@"
	check "$name: exit 0 within $LIMIT s" test "$RC" -eq 0
	n=$($DUMP --check "$TMP/r.spl" 2>&1 | sed -n 's/.*: ok: .* \([0-9]*\) samples.*/\1/p')
	check "$name: sp-dump --check accepts the spool, ${n:-no} samples" \
	    test "${n:-0}" -gt 0
	if [ -z "$TIME" ]; then
		skip "$name: peak RSS" "/usr/bin/time is missing (apt-get install time)"
		return
	fi
	rss=$(tail -1 "$TMP/rss" 2>/dev/null)
	check "$name: peak RSS ${rss:-?} KiB, under $RSS_MAX MiB" \
	    test "${rss:-999999999}" -lt $((RSS_MAX << 10))
}
# is_module PATH: a module of the last spool is the file at PATH.
is_module() {
	$DUMP "$TMP/r.spl" | awk -v p=" $1" '$1 == "module" &&
	    substr($0, length($0) - length(p) + 1) == p { f = 1 } END { exit !f }'
}
# refused N: the last spool counts N CFI sections refused.
refused() { grep -qE "^ +cfi_sections_refused $1\$" <<<"$($DUMP --stats "$TMP/r.spl")"; }

# The files: tree-O2 with its functions' CFI in .debug_frame, so that
# it has all three CFI sections, and a .gnu_debuglink for elfmut to damage.
D=$(realpath "$TMP")/m	# the path the kernel gives the module
rm -rf "$D"
mkdir -p "$D"
objcopy --add-gnu-debuglink=$W/tree-O2-dbgframe $W/tree-O2-dbgframe "$D/in"
record "intact, mapped" $W/mapexec "$D/in" 300
check "intact, mapped: the file is a module" is_module "$D/in"
check "intact, mapped: no CFI section refused" refused 0
# Half of .eh_frame: a file that ends inside it.
read -r eh_off eh_size < <(readelf -SW "$D/in" |
    sed -n 's/.* \.eh_frame  *PROGBITS  *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
eh_mid=$((16#$eh_off + 16#$eh_size / 2))

# REFUSED MUTATION [ARG]: the CFI sections the recorder must refuse and
# count (cfi_sections_refused), or - for a mutation that does not aim at
# them.  frame-bomb 500 and cfi-hole are past SP_CFI_SECTION_MAX (32 MiB,
# docs/limits.md); eh-bomb is refused whatever its size (a compressed
# .eh_frame is SHF_ALLOC); cfi-claim 65536 claims less than deflate's
# ratio allows for two of its sections, which then fail to inflate: a
# section that cannot be read is counted too.
while read -r want m arg; do
	f=$D/$m${arg:+-${arg##*/}}
	label="$m${arg:+ $arg}, mapped"
	run $MUT "$m" "$D/in" "$f" $arg
	check "$label: elfmut made the file" test "$RC" -eq 0 || continue
	record "$label" $W/mapexec "$f" 300
	check "$label: the file is a module" is_module "$f"
	[ "$want" = - ] || check "$label: CFI sections refused: $want" refused "$want"
done <<EOF
-	cut-headers
-	cut-headers	40
-	cut-headers	$eh_mid
-	cut-sections	50
-	cut-sections	10
-	symtab-billions
-	symtab-entsize
-	symtab-link
-	overlap
-	absurd
-	zlib-claim
-	zlib-short
-	zlib-bomb	200
-	zlib-bomb	600
-	garbage-debug
-	debuglink	$W/tree-O2
-	shstrndx
-	phdr-absurd
1	frame-bomb	2048
1	frame-bomb	500
1	eh-bomb	64
3	cfi-size
3	cfi-size	0x4000000000000000
3	cfi-offset
3	cfi-claim
3	cfi-claim	0x1f000000
3	cfi-claim	65536
3	cfi-hole
EOF

# The bomb is still a program: recorded as it runs, its samples in it.
bomb=$D/frame-bomb-2048
chmod +x "$bomb"
check "the bomb is a few MiB" test "$(stat -c %s "$bomb")" -lt $((32 << 20))
record "the bomb, run" "$bomb" 300
check "the bomb, run: its .debug_frame is refused and counted" refused 1
check "the bomb, run: samples in its own code" \
    grep -qE '^ +#0 +frame-bomb-2048\+0x' <($DUMP "$TMP/r.spl")
run $REC -q -o "$TMP/r.spl" -- $W/tree-O2-dbgframe 100
check "the same program unharmed: nothing refused" refused 0
done_testing
