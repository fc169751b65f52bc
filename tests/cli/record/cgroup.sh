#!/usr/bin/env bash
# sp-record -G, a cgroup v2 directory made by the test: its processes and
# its descendants' are recorded, a child started after the recording began
# too, and nothing outside it.  A process in its own PID and mount
# namespace (unshare --pid --mount --fork), running a binary from a private
# tmpfs under chroot, so that the host cannot see its file, is in a child
# cgroup: its build-id is recorded, its file is kept through
# /proc/PID/map_files (--bundle-binaries), and sp-sym names its functions
# offline from the bundle and not without it; a JIT in a namespace with a
# private /tmp has its frames named from its perf map there.
# asan: REC=build/asan/sp-record/sp-record
. "$(dirname "$0")/../lib.bash"
REC=${REC:-$BIN/sp-record} SYM=$BIN/sp-sym FOLD=$BIN/sp-fold DUMP=$BIN/sp-dump

run "$REC" --help
check "--help names -G, --cgroup" has "-G, --cgroup PATH" "$OUT"
run "$REC" -G "$PWD/$TMP" -d 0.1 -o "$TMP/no.spl"
check "a directory that is no cgroup: exit 2, said so" \
    test "$RC" -eq 2 -a -n "$(grep -F 'not a directory of the cgroup v2 hierarchy' <<<"$ERR")"
run "$REC" -G sp-no-such-cgroup -d 0.1 -o "$TMP/no.spl"
check "a cgroup that does not exist: exit 1, named" \
    test "$RC" -eq 1 -a -n "$(grep -F 'sp-no-such-cgroup: No such file' <<<"$ERR")"
check "and no spool is left" test ! -e "$TMP/no.spl"

mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=${mnt:-/nonexistent}/sp-test-$$
if [ -z "$mnt" ] || [ "$(id -u)" -ne 0 ] || ! mkdir "$cg" 2>/dev/null; then
	skip "recording a cgroup" "no cgroup v2 hierarchy this test may write (mounted: ${mnt:-none}, uid $(id -u))"
	done_testing
	exit 0
fi
mkdir "$cg/inner"
root=$TMP/root
mkdir -p "$root"
cleanup() {
	kill $shp $tp $nsp $jp 2>/dev/null
	wait 2>/dev/null
	rmdir "$cg/inner" "$cg" 2>/dev/null
}
trap cleanup EXIT

# In the cgroup: tree at once, split a second later (after the start).
sh -c "echo 0 >$cg/cgroup.procs && { $W/tree-O2 4500 2>/dev/null & sleep 1; exec $W/split 30; }" &
shp=$!
# Outside it: another tree, which must not be recorded.
$W/tree-O2 4500 2>/dev/null &
tp=$!
# In a child cgroup: a PID and mount namespace of its own, its binary on a
# tmpfs the host does not see, under chroot.
unshare --pid --mount --fork sh -c "mount -t tmpfs sp-test '$root' &&
    cp $W/tree-musl-static '$root/tree-ns' && echo 0 >$cg/inner/cgroup.procs &&
    exec chroot '$root' /tree-ns 4500" 2>/dev/null &
nsp=$!
# And a JIT in a namespace of its own with a private /tmp: its perf map is
# /tmp/perf-1.map there, reached from the host as /proc/PID/root/tmp/...
unshare --pid --mount --fork sh -c "mount -t tmpfs sp-test /tmp &&
    echo 0 >$cg/inner/cgroup.procs && exec $W/jit 4500" >/dev/null 2>&1 &
jp=$!
sleep 0.3
run "$REC" -G "$cg" -d 3 --bundle "$TMP/b" --bundle-binaries -o "$TMP/c.spl"
check "sp-record -G $cg -d 3: exit 0" test "$RC" -eq 0
run "$DUMP" "$TMP/c.spl"
check "the RECORDING record says cgroup" grep -q '^recording: .*cgroup' <<<"$OUT"
"$SYM" --bundle "$TMP/b" -o "$TMP/c.sym.spl" "$TMP/c.spl" 2>"$TMP/sym.err"
"$FOLD" --per-process "$TMP/c.sym.spl" >"$TMP/c.fold"
"$SYM" --bundle /nonexistent -o "$TMP/nob.spl" "$TMP/c.spl" 2>/dev/null
"$FOLD" --per-process "$TMP/nob.spl" >"$TMP/nob.fold"

# proc_count FOLD PROC [FRAME]: the samples of processes named PROC (in
# sp-fold --per-process's output) whose stacks pass through FRAME.
proc_count() {
	awk -v p="$2" -v f="${3:-}" '{ r = $1; sub(/;.*/, "", r); sub(/-[0-9]+$/, "", r) }
	    r == p && (f == "" || index($0, ";" f)) { n += $NF } END { print n + 0 }' "$1"
}
a=$(proc_count "$TMP/c.fold" tree-O2 leaf_a)
b=$(proc_count "$TMP/c.fold" tree-O2 leaf_b)
if [ $((a + b)) -lt 150 ]; then
	skip "tree's split in the cgroup" "$((a + b)) samples in 3 s: the machine is too busy"
else
	check "tree in the cgroup is named with its 3:2 split ($a leaf_a, $b leaf_b)" split_ok "$a" "$b"
fi
check "the outside tree (pid $tp) is not recorded" \
    test -z "$(grep "^tree-O2-$tp;" "$TMP/c.fold")"
hot=$(proc_count "$TMP/c.fold" split hot_a)
check "split, started in the cgroup after the recording began, is recorded ($hot samples in hot_a)" \
    test "$hot" -gt 20
others=$(awk '{ r = $1; sub(/;.*/, "", r); sub(/-[0-9]+$/, "", r) }
    r != "tree-O2" && r != "split" && r != "sh" && r != "tree-ns" && r != "chroot" && r != "sleep" && r != "unshare" && r != "jit" { n += $NF }
    END { print n + 0 }' "$TMP/c.fold")
check "no process outside the cgroup: $others samples of others" test "$others" -eq 0

ns=$(proc_count "$TMP/c.fold" tree-ns leaf_a)
check "the namespaced process, in the child cgroup, is named from the bundle ($ns samples in leaf_a)" \
    test "$ns" -gt 20
check "its build-id is recorded" \
    grep -q "^module .*build-id [0-9a-f]\{40\} .*/tree-ns$" <<<"$OUT"
id=$(grep -o "build-id [0-9a-f]\{40\} .*/tree-ns$" <<<"$OUT" | head -1 | cut -d" " -f2)
check "the bundle keeps its binary, which the host cannot see (binaries/${id:-?})" \
    test -n "$id" -a -s "$TMP/b/binaries/$id" -a ! -e "$root/tree-ns"
jit=$(proc_count "$TMP/c.fold" jit jit_spin_loop)
check "the namespaced JIT's frames are named from its own /tmp/perf-1.map, kept in the bundle ($jit samples in jit_spin_loop; $(ls "$TMP/b/perf-maps" 2>/dev/null | tr '\n' ' '))" \
    test "$jit" -gt 20
nsall=$(proc_count "$TMP/nob.fold" tree-ns)
nsnamed=$(proc_count "$TMP/nob.fold" tree-ns leaf_a)
check "without the bundle its frames stay addresses ($nsnamed of $nsall samples named leaf_a)" \
    test "$nsall" -gt 20 -a "$nsnamed" -eq 0
done_testing
