#!/usr/bin/env bash
# Awkward and hostile paths: libraries loaded from a path with a space,
# with a newline, and deleted once loaded (recorded from the start and by
# attaching, where /proc/PID/maps escapes and marks them); perf maps that
# are symlinks, FIFOs or huge; bundle directories with planted symlinks,
# for the recorder (nothing written through them) and sp-sym (nothing
# read through them).
. "$(dirname "$0")/../lib.bash"
# asan: RECORD=build/asan/sp-record/sp-record SYM=build/asan/sp-sym/sp-sym
export ASAN_OPTIONS=detect_leaks=1
# ASan reserves terabytes of address space: no ulimit -v under it.
case $SYM in *asan*) VMEM=unlimited ;; *) VMEM=262144 ;; esac

rm -rf "$TMP"/* && mkdir -p "$TMP/lib dir" "$TMP/empty"
L=$PWD/$TMP/lib\ dir
NL=$'b\nnewline.so'
libs() {
	mkdir -p "$L"
	cp $W/liba.so "$L/a space.so"
	cp $W/libb.so "$L/$NL"
	cp $W/libc3.so "$L/c-gone.so"
}

# ranges OUT: the r-xp range of each library, in decimal, from the maps
# the workload copied to OUT (the kernel's view, \012 for the newline).
ranges() {
	local key pat r
	for key in A B C; do
		case $key in A) pat='a space\.so' ;; B) pat='b\\012newline\.so' ;;
		C) pat='c-gone\.so' ;; esac
		r=$(grep -E "^[0-9a-f]+-[0-9a-f]+ r-xp .*$pat" "$1" | head -1 | cut -d' ' -f1)
		[ -n "$r" ] && echo "$key $((16#${r%-*})) $((16#${r#*-}))"
	done
}
# where SPOOL OUT: per library "KEY GOOD BAD": lib_spin frames whose
# symbol names that library, inside (GOOD) or outside (BAD) its range.
where() {
	$DUMP --json "$1" | awk -v ranges="$(ranges "$2" | tr '\n' ';')" '
	BEGIN { n = split(ranges, r, ";")
		for (i = 1; i <= n; i++) if (split(r[i], f, " ") == 3) {
			lo[f[1]] = f[2]; hi[f[1]] = f[3] } }
	/"kind":"frame"/ { match($0, /"id":[0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, /"abs_ip":[0-9]+/); ip[id] = substr($0, RSTART + 9, RLENGTH - 9) + 0 }
	/"kind":"symbol".*"name":"lib_spin"/ {
		match($0, /"frame":[0-9]+/); id = substr($0, RSTART + 8, RLENGTH - 8)
		k = /"module":"a space\.so"/ ? "A" : /"module":"b\\u000anewline\.so"/ ? "B" : /"module":"c-gone\.so"/ ? "C" : "?"
		if (k in lo && ip[id] >= lo[k] && ip[id] < hi[k]) good[k]++; else bad[k]++ }
	END { for (k in good) print k, good[k], bad[k] + 0
		for (k in bad) if (!(k in good)) print k, 0, bad[k] }' | sort
}
# libs_named SPOOL OUT KEYS: each of KEYS has good frames, no library bad ones.
libs_named() {
	local w
	w=$(where "$1" "$2")
	for k in $3; do grep -qE "^$k [1-9][0-9]* 0$" <<<"$w" || return 1; done
	! grep -qE '^. [0-9]+ [1-9]' <<<"$w"
}

# --- Recorded from the start: the paths come from PERF_RECORD_MMAP2.
libs
run $REC -q --bundle "$TMP/B1" --bundle-binaries -o "$TMP/launch.spl" -- \
    $W/dlpaths 300 "$L/a space.so" "$L/$NL" "-$L/c-gone.so"
cp "$TMP/out" "$TMP/launch.out"
check "launch: recorded" test "$RC" -eq 0 -a ! -e "$L/c-gone.so"
check "launch: the newline is kept in the module path" \
    grep -qF 'lib dir/b\u000anewline.so"' <($DUMP --json "$TMP/launch.spl")
run $SYM --debug-dir "$TMP/empty" --kallsyms /dev/null -o "$TMP/s1.spl" "$TMP/launch.spl"
check "launch: the space and newline libraries resolve to themselves" \
    libs_named "$TMP/s1.spl" "$TMP/launch.out" "A B"
check "launch: the deleted library is reported missing, by path" \
    grep -qF "$L/c-gone.so (build-id" <<<"$ERR"
run $SYM --bundle "$TMP/B1" --debug-dir "$TMP/empty" --kallsyms /dev/null \
    -o "$TMP/s2.spl" "$TMP/launch.spl"
check "launch: with the bundle all three resolve to themselves" \
    libs_named "$TMP/s2.spl" "$TMP/launch.out" "A B C"

# --- Attached: the paths come from /proc/PID/maps (\012, " (deleted)").
libs
# It spins long (60 s of wall time), and is stopped once recorded: a
# loaded CI once took longer than its 9 s between "ready" and the attach.
$W/dlpaths 20000 "$L/a space.so" "$L/$NL" "-$L/c-gone.so" >"$TMP/attach.out" &
pid=$!
for _ in $(seq 100); do grep -q ready "$TMP/attach.out" && break; sleep 0.1; done
run $REC -q -p $pid -d 1 --bundle "$TMP/B2" --bundle-binaries \
    -o "$TMP/attach.spl"
kill $pid 2>/dev/null
wait $pid
check "attach: recorded" test "$RC" -eq 0
check "attach: \\012 read back as the newline, as launched" \
    grep -qF 'lib dir/b\u000anewline.so"' <($DUMP --json "$TMP/attach.spl")
check "attach: the deleted library is flagged deleted, its name clean" \
    grep -qE 'flags 0x8 .*lib dir/c-gone\.so$' <($DUMP "$TMP/attach.spl")
run $SYM --bundle "$TMP/B2" --debug-dir "$TMP/empty" --kallsyms /dev/null \
    -o "$TMP/s3.spl" "$TMP/attach.spl"
check "attach: with the bundle all three resolve to themselves" \
    libs_named "$TMP/s3.spl" "$TMP/attach.out" "A B C"

# --- Perf maps: a symlink, a FIFO, a huge file are refused; a copy is read.
run $REC -q -o "$TMP/jit.spl" -- $W/jit 300
jpid=$($DUMP --json "$TMP/jit.spl" | grep -o '"kind":"sample","thread":[0-9]*,"pid":[0-9]*' | head -1 | grep -o '[0-9]*$')
mkdir -p "$TMP/maps" "$TMP/outside"
cp "/tmp/perf-$jpid.map" "$TMP/outside/real.map"
jitsym() {
	run timeout 300 $SYM --perf-maps all --perf-map-dir "$TMP/maps" \
	    --debug-dir "$TMP/empty" --kallsyms /dev/null -o "$TMP/j.spl" "$TMP/jit.spl"
	$DUMP "$TMP/j.spl" | grep -c 'jit_spin_loop'
}
cp "$TMP/outside/real.map" "$TMP/maps/perf-$jpid.map"
check "perf map: a regular copy names the JIT frames" test "$(jitsym)" -gt 0
rm "$TMP/maps/perf-$jpid.map"
ln -s "$PWD/$TMP/outside/real.map" "$TMP/maps/perf-$jpid.map"
check "perf map: a symlink is not followed" test "$(jitsym)" -eq 0
rm "$TMP/maps/perf-$jpid.map"
mkfifo "$TMP/maps/perf-$jpid.map"
n=$(jitsym)
check "perf map: a FIFO is refused without blocking" test "$RC" -eq 0 -a "$n" -eq 0
rm "$TMP/maps/perf-$jpid.map"
cp "$TMP/outside/real.map" "$TMP/maps/perf-$jpid.map"
truncate -s 300M "$TMP/maps/perf-$jpid.map"	# sparse: over the 256 MiB cap
n=$(bash -c "ulimit -v $VMEM; $(declare -f run jitsym); SYM=$SYM TMP=$TMP DUMP=$DUMP; jitsym")
check "perf map: one over 256 MiB is refused, within 256 MiB of memory" \
    test "$n" -eq 0
rm -f "$TMP/maps/perf-$jpid.map"

# --- sp-sym --bundle reads nothing outside the bundle through a symlink.
aid=$(readelf -n $W/liba.so | sed -n 's/.*Build ID: //p')
rm -rf "$TMP/B7" && cp -a "$TMP/B1" "$TMP/B7" && rm -rf "$L"
cp $W/liba.so "$TMP/outside/a.so"	# the right build-id, outside
ln -sf "$PWD/$TMP/outside/a.so" "$TMP/B7/binaries/$aid"
run $SYM --bundle "$TMP/B7" --debug-dir "$TMP/empty" --kallsyms /dev/null \
    -o "$TMP/s7.spl" "$TMP/launch.spl"
check "bundle symlink: the others still resolve from the bundle" \
    libs_named "$TMP/s7.spl" "$TMP/launch.out" "B C"
check "bundle symlink: the symlinked binary is not read" \
    test -z "$(where "$TMP/s7.spl" "$TMP/launch.out" | grep '^A')"
check "bundle symlink: and the report says so" \
    has "binaries/$aid (a symlink: not read outside the bundle)" "$ERR"
mkdir -p "$TMP/B8/perf-maps"
cp "$TMP/outside/real.map" "$TMP/B8/perf-maps/perf-$jpid.map"
bsym() {
	run $SYM --bundle "$TMP/B8" --perf-maps all --perf-map-dir "$TMP/empty" \
	    --debug-dir "$TMP/empty" -o "$TMP/j.spl" "$TMP/jit.spl"
	$DUMP "$TMP/j.spl" | grep -c 'jit_spin_loop'
}
check "bundle perf map: read from the bundle" test "$(bsym)" -gt 0
mkdir -p "$TMP/outside/pm"
mv "$TMP/B8/perf-maps/perf-$jpid.map" "$TMP/outside/pm/"
rmdir "$TMP/B8/perf-maps"
ln -s "$PWD/$TMP/outside/pm" "$TMP/B8/perf-maps"
ln -s /proc/kallsyms "$TMP/B8/kallsyms"
check "bundle perf map: not through a symlinked perf-maps" test "$(bsym)" -eq 0
# The reference spool (tests/mkspool.c) has kernel frames.
build/glibc/mkspool ref "$TMP/ref.spl" 10
run $SYM --bundle "$TMP/B8" -o "$TMP/r.spl" "$TMP/ref.spl"
check "bundle kallsyms: a symlink is not read, and said so" \
    has "kernel symbols: $TMP/B8/kallsyms: a symlink: not read" "$ERR"
rm -f "/tmp/perf-$jpid.map"

# --- sp-record --bundle never writes through a planted symlink.
did=$(readelf -n $W/dlpaths | sed -n 's/.*Build ID: //p')
echo "keep me" >"$TMP/outside/victim"
cp "$TMP/outside/victim" "$TMP/victim.orig"
mkdir -p "$TMP/B4/binaries" "$TMP/B4/perf-maps"
for f in manifest kallsyms "binaries/$did"; do
	ln -s "$PWD/$TMP/outside/victim" "$TMP/B4/$f"
done
libs
run $REC -q --bundle "$TMP/B4" --bundle-binaries -o "$TMP/b4.spl" -- \
    $W/dlpaths 50 "$L/a space.so"
check "bundle: recorded over planted symlinks" test "$RC" -eq 0
check "bundle: the file they pointed at is untouched" \
    cmp -s "$TMP/outside/victim" "$TMP/victim.orig"
check "bundle: manifest and binary are real files now" \
    test ! -L "$TMP/B4/manifest" -a -f "$TMP/B4/manifest" -a ! -L "$TMP/B4/binaries/$did"
check "bundle: the binary kept is the binary" cmp -s "$TMP/B4/binaries/$did" $W/dlpaths
check "bundle: files 0600, directories 0700" test \
    "$(stat -c %a "$TMP/B4/manifest" "$TMP/B4/binaries/$did" "$TMP/B1" "$TMP/B1/binaries" | tr '\n' ' ')" = "600 600 700 700 "
mkdir -p "$TMP/outside/dir" "$TMP/B5"
ln -s "$PWD/$TMP/outside/dir" "$TMP/B5/binaries"
run $REC -q --bundle "$TMP/B5" --bundle-binaries -o "$TMP/b5.spl" -- $W/dlpaths 50 "$L/a space.so"
check "bundle: a symlinked subdirectory is refused, with a message" \
    test "$RC" -ne 0 -a -n "$ERR"
ln -s "$PWD/$TMP/outside/dir" "$TMP/B6"
run $REC -q --bundle "$TMP/B6" -o "$TMP/b6.spl" -- $W/dlpaths 50 "$L/a space.so"
check "bundle: a symlinked bundle directory is refused" test "$RC" -ne 0
check "bundle: nothing was written outside" test -z "$(ls -A "$TMP/outside/dir")"

# --- SP_BUNDLE_FILE_MAX (1 GiB): a larger library is not copied.  A copy of
# libc3.so made sparse past 1 GiB (the loader maps only its segments).
mkdir -p "$L" && rm -rf "$TMP/B9"
cp $W/libc3.so "$L/big.so"
truncate -s $(( (1 << 30) + 4096 )) "$L/big.so"
bid=$(readelf -n $W/libc3.so | sed -n 's/.*Build ID: //p')
run $REC --bundle "$TMP/B9" --bundle-binaries -o "$TMP/b9.spl" -- $W/dlpaths 50 "$L/big.so"
check "bundle: a library over 1 GiB is not kept, and said so" \
    test "$RC" -eq 0 -a ! -e "$TMP/B9/binaries/$bid" -a -e "$TMP/B9/binaries/$did"
check "... with the reason" has "could not keep $L/big.so: File too large" "$ERR"
check "... and its module still has its build-id" \
    grep -q "\"build_id\":\"$bid\",\"path\":\"$L/big.so\"" <($BIN/sp-dump --json "$TMP/b9.spl")
rm -f "$L/big.so"
done_testing
