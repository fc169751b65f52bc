#!/usr/bin/env bash
# sp-sym on hostile ELF and DWARF: a real recording of tree-O2 kept with
# --bundle-binaries, then the bundle's copy of the binary replaced by a
# damaged one (tests/elfmut.c; the build-id note stays, so it still
# passes for the recorded file), and debuglinks that point at the binary
# itself or go round in a circle (--sysroot).  sp-sym must finish (under
# `timeout` and, for the release build, `ulimit -v`), not crash, copy
# every sample, and say what it skipped.  tests/run.sh runs it again with
# the ASan+UBSan sp-sym (SYM).
. "$(dirname "$0")/../lib.bash"
# asan: SYM=build/asan/sp-sym/sp-sym
MUT=build/glibc/elfmut
export ASAN_OPTIONS=exitcode=99:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1
# Address space for sp-sym: the tree's sections and two 200 MiB
# inflated sections fit; ASan reserves terabytes, so not under ASan.
case $SYM in *asan*) VMEM=unlimited ;; *) VMEM=1048576 ;; esac
LIMIT=600	# seconds: only a hang gets near it

rm -rf "$TMP/bin" "$TMP/B" "$TMP/root"
mkdir -p "$TMP/bin" "$TMP/empty"
cp build/tests/tree-O2 "$TMP/bin/tree"
run $REC -q --bundle "$TMP/B" --bundle-binaries -o "$TMP/t.spl" -- \
    "$TMP/bin/tree" 600 cpu
id=$(readelf -n "$TMP/bin/tree" | sed -n 's/.*Build ID: //p')
check "recorded, the binary kept as binaries/BUILDID" \
    test "$RC" -eq 0 -a -n "$id" -a -f "$TMP/B/binaries/$id"
samples=$($DUMP --check "$TMP/t.spl" 2>&1 | sed -n 's/.* \([0-9]*\) samples.*/\1/p')
# The names nm gives the functions the samples are in.
for fn in leaf_a leaf_b; do
	check "nm knows $fn" grep -qE " [Tt] $fn$" <(nm "$TMP/bin/tree")
done
cp "$TMP/B/binaries/$id" "$TMP/orig"
rm "$TMP/bin/tree"	# from now on only the bundle has it

# sym [ARGS]: sp-sym on the recording, bounded; RC, ERR; fold in $TMP/fold.
sym() {
	run bash -c "ulimit -v $VMEM; exec timeout $LIMIT $SYM \
	    --kallsyms /dev/null --debug-dir '$TMP/empty' -o '$TMP/s.spl' $*"
	$FOLD "$TMP/s.spl" >"$TMP/fold" 2>/dev/null
}
# sane NAME: finished, no sanitizer, every sample copied.
sane() {
	local n
	n=$($DUMP --check "$TMP/s.spl" 2>&1 | sed -n 's/.* \([0-9]*\) samples.*/\1/p')
	if [ "$RC" -eq 0 ] && ! grep -qE 'Sanitizer|runtime error' <<<"$ERR" &&
	    [ "$n" = "$samples" ]; then pass "$1: finished, all $n samples"
	else fail "$1: finished, all $samples samples" "rc=$RC samples=$n" \
	    "${ERR:0:600}"; fi
}

sym --bundle "$TMP/B" "$TMP/t.spl"
sane "intact"
check "intact: leaf_a named" named "$TMP/fold" ';leaf_a'
check "intact: leaf_b named" named "$TMP/fold" ';leaf_b'
check "intact: nothing skipped" test "$(grep -c skipped <<<"$ERR")" -eq 0

# mutation WHAT [ARG]: the bundle's binary replaced by a damaged copy.
mutate() {
	chmod u+w "$TMP/B/binaries/$id"
	$MUT "$1" "$TMP/orig" "$TMP/B/binaries/$id" ${2:-}
	sym --bundle "$TMP/B" "$TMP/t.spl"
	sane "$1${2:+ $2}"
}
# The ELF file or its section names unreadable: the module is reported
# with the reason, its frames address-only.
for m in cut-headers "cut-sections 50" absurd shstrndx; do
	mutate $m
	check "$m: the reason is given" \
	    grep -qE "binaries/$id \((section header table|section name table)" <<<"$ERR"
	check "$m: its frames are address-only" named "$TMP/fold" 'tree\+0x'
done
# A bad symbol table: skipped and said so; DWARF still names the leaves.
for m in symtab-billions symtab-entsize symtab-link; do
	mutate $m
	check "$m: skipped and reported" has "skipped .symtab and .dynsym" "$ERR"
	check "$m: DWARF names the leaves" named "$TMP/fold" ';leaf_a'
done
# Bad compressed DWARF: skipped and said so; .symtab names the leaves.
mutate zlib-claim
check "zlib-claim: both sections skipped" \
    test "$(grep -cE 'skipped .debug_(info|line): malformed' <<<"$ERR")" -eq 2
check "zlib-claim: .symtab names the leaves" named "$TMP/fold" ';leaf_a'
mutate zlib-short
check "zlib-short: skipped" has "skipped .debug_info: malformed" "$ERR"
mutate zlib-bomb 200
check "zlib-bomb 200 MiB x 2: inflated within ulimit -v, names from .symtab" \
    named "$TMP/fold" ';leaf_b'
mutate zlib-bomb 600
check "zlib-bomb 600 MiB: over the section limit, skipped" \
    has "skipped .debug_info: a size or count limit was exceeded" "$ERR"
check "zlib-bomb 600 MiB: .symtab names the leaves" named "$TMP/fold" ';leaf_b'
mutate garbage-debug
check "garbage-debug: .symtab names the leaves" named "$TMP/fold" ';leaf_a'
mutate overlap
mutate phdr-absurd
check "phdr-absurd: reported" \
    has "skipped program headers: no PT_LOAD holds" "$ERR"

# Debuglinks, under a sysroot: the stripped binary's link names the
# binary itself, or a debug file whose own link names the binary back.
rm -rf "$TMP/root" "$TMP/sbin"
mkdir -p "$TMP/sbin" "$TMP/root$PWD/$TMP/sbin"
s=$PWD/$TMP/sbin
objcopy --only-keep-debug build/tests/tree-O2 "$TMP/tree.debug"
objcopy --strip-all --add-gnu-debuglink="$TMP/tree.debug" \
    build/tests/tree-O2 "$s/tree-s"
run $REC -q -o "$TMP/st.spl" -- "$s/tree-s" 600 cpu
check "recorded the stripped binary" test "$RC" -eq 0
samples=$($DUMP --check "$TMP/st.spl" 2>&1 | sed -n 's/.* \([0-9]*\) samples.*/\1/p')
# A cycle: tree-s -> b.debug (right CRC) -> tree-s.
r=$TMP/root$s
objcopy --add-gnu-debuglink="$s/tree-s" "$TMP/tree.debug" "$r/b.debug"
objcopy --strip-all --add-gnu-debuglink="$r/b.debug" build/tests/tree-O2 \
    "$r/tree-s"
rm "$s/tree-s"
sym --sysroot "$TMP/root" "$TMP/st.spl"
sane "debuglink cycle"
check "debuglink cycle: the debug file names the leaves" named "$TMP/fold" ';leaf_a'
# The link names the binary itself (the CRC is of the file before).
$MUT debuglink "$r/tree-s" "$r/tree-s.x" "$r/tree-s"
mv "$r/tree-s.x" "$r/tree-s"
rm "$r/b.debug"
sym --sysroot "$TMP/root" "$TMP/st.spl"
sane "debuglink to itself"
check "debuglink to itself: refused as the binary itself" \
    has "tree-s (the binary itself)" "$ERR"
done_testing
