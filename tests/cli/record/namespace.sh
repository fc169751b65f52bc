#!/usr/bin/env bash
# Binaries only a target's mount namespace reaches are named with no
# flags (issue 28 §4).  Two real processes, each in a mount namespace of
# its own (unshare -m), recorded from outside: tree-O2 from a tmpfs
# mounted over a directory where the host has another program (split)
# at the same path, padded to 3 MiB; and tree-musl-static stripped, under
# chroot in a tmpfs that holds its debug file in its own
# /usr/lib/debug/.build-id/.  A host process (split) runs beside them.
# sp-record keeps by default, in FILE.bundle beside the spool, the files
# no host path leads to (and the debug file), none of the others;
# sp-sym FILE | sp-fold names their functions with no flags and never
# from the host's split.  --keep-unreachable 0 turns it off (the frames
# stay addresses: the check above can fail), 1 (MiB) skips the 3 MiB file
# and says so.  Then the same with -a and with -G.
# asan: RECORD=build/asan/sp-record/sp-record SYM=build/asan/sp-sym/sp-sym
. "$(dirname "$0")/../lib.bash"

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	skip "namespaced binaries" "needs root and unshare -m (uid $(id -u))"
	done_testing
	exit 0
fi
if ! need objcopy binutils || ! need readelf binutils; then
	skip "namespaced binaries" "objcopy and readelf (binutils) could not be installed"
	done_testing
	exit 0
fi
rm -rf "${TMP:?}"/* && mkdir -p "$TMP/app" "$TMP/root"
app=$PWD/$TMP/app root=$PWD/$TMP/root
# build_id FILE: its GNU build-id in hex.
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }
idt=$(build_id $W/tree-O2) ids=$(build_id $W/tree-musl-static)
ids_split=$(build_id $W/split)
cleanup() {
	kill $nsp $chp $hp 2>/dev/null
	wait 2>/dev/null
	[ -n "${cg:-}" ] && rmdir "$cg" 2>/dev/null
}
trap cleanup EXIT

# The host's file at the path the namespace's process runs: another
# program, whose names must never be given to the process's frames.
cp $W/split "$app/app"
unshare -m --propagation private sh -c "mount -t tmpfs sp-app '$app' &&
    cp '$PWD/$W/tree-O2' '$app/app' && truncate -s 3M '$app/app' &&
    exec '$app/app' 120000" 2>/dev/null &
nsp=$!
dbg=$root/usr/lib/debug/.build-id/${ids:0:2}
unshare -m --propagation private sh -c "mount -t tmpfs sp-root '$root' &&
    mkdir -p '$dbg' &&
    objcopy --only-keep-debug '$PWD/$W/tree-musl-static' '$dbg/${ids:2}.debug' &&
    objcopy --strip-all '$PWD/$W/tree-musl-static' '$root/app' &&
    exec chroot '$root' /app 120000" 2>/dev/null &
chp=$!
$W/split 120 >/dev/null 2>&1 &
hp=$!
# started PID EXE: waits up to 10 s until PID runs EXE (as it sees it).
started() {
	local i
	for i in $(seq 100); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
check "the namespace's process runs $app/app (pid $nsp)" started $nsp "$app/app"
# Its /app, which the host's /proc names by the namespace's mount.
check "the chroot's process runs its stripped /app (pid $chp)" started $chp "$root/app"
check "the host sees another program at $app/app (split's build-id)" \
    test "$(build_id "$app/app")" = "$ids_split" -a "$ids_split" != "$idt"
check "the chroot's copy has no symbols of its own" \
    test -z "$(nm "/proc/$chp/exe" 2>/dev/null)"

# sym_fold SPOOL PID: sp-sym SPOOL | sp-fold --pid PID, with no options.
sym_fold() { "$SYM" "$1" 2>>"$TMP/sym.err" | "$FOLD" --pid "$2" -; }
# named_ok FOLDED: the tree's functions named (90 % of the samples at
# least: a few are in the kernel or the loader), none of its frames an
# address, and no name of split's.  named_says FOLDED: the figures.
figures() {
	n=$(fold_total "$1")
	ab=$(fold_count "$1" ';leaf_[ab](;|$)')
	addr=$(fold_count "$1" '(^|;)app\+0x')
	wrong=$(fold_count "$1" '(^|;)(hot_a|hot_b)(;|$)')
}
named_ok() {
	local n ab addr wrong
	figures "$1"
	[ "$n" -gt 20 ] && [ "$ab" -ge $((n * 9 / 10)) ] && [ "$addr" -eq 0 ] &&
	    [ "$wrong" -eq 0 ]
}
named_says() {
	local n ab addr wrong
	figures "$1"
	echo "$ab of $n samples in leaf_a or leaf_b, $addr with app+0x frames, $wrong in split's functions"
}
# names_it SPOOL PID NAME WHAT: checks WHAT, named_ok of PID's samples
# in SPOOL (folded into $TMP/NAME.fold).
names_it() {
	sym_fold "$1" "$2" >"$TMP/$3.fold"
	check "$4 ($(named_says "$TMP/$3.fold"))" named_ok "$TMP/$3.fold"
}

# --- -p, the default --------------------------------------------------------
run "$REC" -p "$nsp,$chp,$hp" -d 1.5 -o "$TMP/p.spl"
check "sp-record -p (three processes, two in namespaces): exit 0" test "$RC" -eq 0
check "the summary says what was kept and where" \
    grep -qE "kept 3 files \(3[0-9]{3}\.[0-9] KiB\) no path on this host leads to .* in $TMP/p.spl.bundle" <<<"$ERR"
man=$TMP/p.spl.bundle/manifest
kept=$(awk -F'\t' '$1 == "binary" || $1 == "debug" { print $1, $2 }' "$man" 2>/dev/null | sort | tr '\n' ' ')
want=$(printf '%s\n' "binary $idt" "binary $ids" "debug $ids" | sort | tr '\n' ' ')
check "FILE.bundle keeps the two binaries and the chroot's debug file, nothing the host reaches (kept: $kept)" \
    test "$kept" = "$want"
check "the kept copy is the namespace's file, not the host's" \
    cmp -s "$TMP/p.spl.bundle/binaries/$idt" <(cat "/proc/$nsp/exe")
: >"$TMP/sym.err"
names_it "$TMP/p.spl" $nsp p-ns "sp-sym FILE | sp-fold names the namespace's process with no flags"
names_it "$TMP/p.spl" $chp p-ch "... and the chroot's stripped one, from its own debug file"
sym_fold "$TMP/p.spl" $hp >"$TMP/p-host.fold"
n=$(fold_count "$TMP/p-host.fold" ';hot_a(;|$)')
check "the host's split is named from its own file ($n samples in hot_a)" test "$n" -gt 10

# --- --keep-unreachable 0: the old behaviour ----------------------------------
run "$REC" -p "$nsp,$chp" -d 1 --keep-unreachable 0 -o "$TMP/off.spl"
check "--keep-unreachable 0: exit 0, no bundle made" \
    test "$RC" -eq 0 -a ! -e "$TMP/off.spl.bundle"
: >"$TMP/sym.err"
sym_fold "$TMP/off.spl" $nsp >"$TMP/off.fold"
n=$(fold_total "$TMP/off.fold")
addr=$(fold_count "$TMP/off.fold" '(^|;)app\+0x')
wrong=$(fold_count "$TMP/off.fold" '(^|;)(hot_a|hot_b|leaf_a|leaf_b)(;|$)')
check "... then its frames stay addresses ($addr of $n samples), none named from the host's file ($wrong)" \
    test "$n" -gt 20 -a "$addr" -eq "$n" -a "$wrong" -eq 0
check "... and sp-sym says the host's file has another build-id" \
    grep -qF "$app/app (build-id differs)" "$TMP/sym.err"

# --- --keep-unreachable 1: the 3 MiB file is past the limit ---------------------
run "$REC" -p "$nsp,$chp" -d 1 --keep-unreachable 1 -o "$TMP/lim.spl"
check "--keep-unreachable 1: exit 0" test "$RC" -eq 0
check "the summary says a 3 MiB file was skipped past the 1 MiB limit" \
    grep -qE "skipped 1 file \(3072\.0 KiB\) no path on this host leads to, past the 1 MiB limit" <<<"$ERR"
check "the counters say so (skipped $(counter "$TMP/lim.spl" unreachable_files_skipped), kept $(counter "$TMP/lim.spl" unreachable_files_kept))" \
    test "$(counter "$TMP/lim.spl" unreachable_files_skipped)" = 1 -a \
    "$(counter "$TMP/lim.spl" unreachable_files_kept)" = 2
check "the small ones were kept, not the large one" \
    test -s "$TMP/lim.spl.bundle/binaries/$ids" -a ! -e "$TMP/lim.spl.bundle/binaries/$idt"
names_it "$TMP/lim.spl" $chp lim-ch "the chroot's process is still named"

# --- --bundle DIR: they go there; -o -: no place beside the spool -----------------
run "$REC" -p "$nsp" -d 1 --bundle "$TMP/b" -o "$TMP/b.spl"
check "--bundle DIR (no --bundle-binaries): the namespace's binary goes there" \
    test "$RC" -eq 0 -a -s "$TMP/b/binaries/$idt" -a ! -e "$TMP/b.spl.bundle"
check "... and the summary names it" grep -qF "in $TMP/b, for sp-sym" <<<"$ERR"
"$REC" -p "$nsp" -d 1 -o - >"$TMP/pipe.spl" 2>"$TMP/pipe.err"
check "-o -: the summary says the file was skipped, and how to keep it" \
    grep -qF "no bundle beside standard output (--bundle DIR keeps them)" "$TMP/pipe.err"

# --- -a: every process on the machine -------------------------------------------
run "$REC" -a -d 1.5 -o "$TMP/a.spl"
check "sp-record -a: exit 0" test "$RC" -eq 0
names_it "$TMP/a.spl" $nsp a-ns "-a: the namespace's process is named with no flags"
names_it "$TMP/a.spl" $chp a-ch "-a: and the chroot's stripped one"

# --- -G: a cgroup the namespace's process is moved into -------------------------
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=${mnt:-/nonexistent}/sp-ns-$$
if [ -z "$mnt" ] || ! mkdir "$cg" 2>/dev/null || ! echo $nsp >"$cg/cgroup.procs"; then
	skip "-G with a namespaced binary" "no cgroup v2 hierarchy this test may write (mounted: ${mnt:-none})"
else
	run "$REC" -G "$cg" -d 1.5 -o "$TMP/g.spl"
	check "sp-record -G: exit 0" test "$RC" -eq 0
	names_it "$TMP/g.spl" $nsp g-ns "-G: the namespace's process is named with no flags"
	echo $nsp >"$mnt/cgroup.procs"
fi
done_testing
