#!/usr/bin/env bash
# ninja install for embedders: the library (libstackpulse.a and the
# archives it needs), the public headers and stackpulse.pc, installed into
# a DESTDIR; then examples/*.c built against that tree with pkg-config's
# flags alone, and run: record a command (with sp_recorder_spawn, and by
# hand with the process helpers), read the spool with a Snapshot
# and a Replay, follow a spool being written with a Tail, symbolize it live
# stack by stack, plug in a toy native symbolizer; from C++ (every
# installed header, every function linked, examples/*.cc built with g++).
. "$(dirname "$0")/../lib.bash"
REC=$BIN/sp-record DUMP=$BIN/sp-dump SYM=$BIN/sp-sym W=build/tests
dest=$PWD/$TMP/dest
rm -rf "$dest" "$TMP/ex"   # no program of an earlier run
mkdir -p "$TMP/ex"

# What ninja install runs, run here (a second ninja in this build tree
# while the test run's own runs would share its logs).
cmd=$(ninja -t commands install | tail -1)
check "ninja install installs the library" has "libstackpulse.a" "$cmd"
run env DESTDIR="$dest" sh -c "$cmd"
check "installed into a DESTDIR: exit 0" test "$RC" -eq 0
prefix=$(sed -n 's/^prefix = //p' build/config.ninja)
root=$dest$prefix
missing=
for f in lib/libstackpulse.a lib/libstackpulse.so lib/stackpulse/libelf.a lib/stackpulse/libZydis.a \
    lib/stackpulse/libz.a lib/pkgconfig/stackpulse.pc bin/sp-record \
    share/man/man1/sp-record.1; do
	[ -s "$root/$f" ] || missing="$missing $f"
done
# sp/tool/tool.h is the tools' (build.ninja's tool_headers): it prints and exits.
noinst=$(sed -n 's/^tool_headers = //p' build.ninja)
for h in $(libsp/api.sh headers "$noinst"); do
	cmp -s "$h" "$root/include/${h#libsp/include/}" || missing="$missing include/${h#libsp/include/}"
done
check "the archives, stackpulse.pc and every public header are there (missing:${missing:- none})" \
    test -z "$missing"
check "the tools' own header is not installed ($noinst)" \
    test -n "$noinst" -a ! -e "$root/include/sp/tool/tool.h"

# libstackpulse.so: the file of the version, its SONAME's link and the
# link-time name; it exports the installed headers' functions and nothing
# else (no spi_ internal, none of the bundled libelf, Zydis, zlib or
# libiberty).
v=$(libsp/api.sh version) so=$(libsp/api.sh soname)
lso=$root/lib/libstackpulse.so.$v
check "lib/libstackpulse.so.$v is there, $so and libstackpulse.so lead to it" \
    eval 'test -f "$lso" -a ! -L "$lso" && test "$(readlink -f "$root/lib/$so")" = "$lso" &&
        test "$(readlink -f "$root/lib/libstackpulse.so")" = "$lso"'
run readelf -d "$lso"
check "its SONAME is $so ($(grep -o 'soname: .*' <<<"$OUT"))" has "Library soname: [$so]" "$OUT"
libsp/api.sh names "$noinst" cc -I"$root/include" >"$TMP/api.names"
nm -D --defined-only "$lso" | awk '{ print $NF }' | sed 's/@.*//' | LC_ALL=C sort -u >"$TMP/so.names"
check "it exports the $(wc -l <"$TMP/api.names") functions of the headers and nothing else ($(diff "$TMP/api.names" "$TMP/so.names" | grep '^[<>]' | head -4 | xargs))" \
    eval 'cmp -s "$TMP/api.names" "$TMP/so.names" && test "$(wc -l <"$TMP/api.names")" -gt 100'
check "none of the bundled libraries' names: elf_begin, inflate, ZydisDecoderInit, cplus_demangle are not exported" \
    eval '! grep -qxE "elf_begin|inflate|ZydisDecoderInit|cplus_demangle" "$TMP/so.names" &&
        nm --defined-only "$lso" | grep -qE " (elf_begin|inflate)\$"'

if ! need pkg-config pkgconf; then
	skip "building the examples" "pkg-config is not installed and could not be (apt-get install pkgconf)"
	done_testing
	exit 0
fi
export PKG_CONFIG_PATH=$root/lib/pkgconfig
pc="pkg-config --define-variable=prefix=$root"
ver=$($BIN/sp-record --version | sed -n '1s/.* //p')
run $pc --modversion stackpulse
check "pkg-config names the version sp-record --version says ($OUT, $ver)" \
    test "$RC" -eq 0 -a "$OUT" = "$ver" -a -n "$ver"
flags=$($pc --cflags --libs stackpulse)
outside=$(tr ' ' '\n' <<<"$flags" | awk -v r="$root" '
    /^-[IL]/ && index(substr($0, 3), r) != 1 { print }')
check "its flags point into the installed tree only (${outside:-none outside})" \
    test -z "$outside"
for e in examples/*.c; do
	n=$(basename "$e" .c)
	run cc -std=c11 -Wall -Wextra -Werror -o "$TMP/ex/$n" "$e" $flags
	check "examples/$n.c builds against the installed tree" test "$RC" -eq 0
done
# By default they run on libstackpulse.so, found here through
# LD_LIBRARY_PATH (the prefix is no directory of the dynamic loader's).
run readelf -d "$TMP/ex/record"
check "pkg-config's flags link the shared library: examples/record needs $so" \
    has "Shared library: [$so]" "$OUT"
export LD_LIBRARY_PATH=$root/lib
# --static adds the archives libstackpulse.a bundles; with -Wl,-Bstatic
# around them the program takes libstackpulse.a (docs/api.md).
sflags=$($pc --static --libs stackpulse)
check "pkg-config --static --libs adds the bundled archives ($sflags), --libs does not" \
    eval 'has "-L$root/lib/stackpulse -lelf -lZydis -lz -liberty-demangle" "$sflags" &&
        ! has "-lelf" "$flags"'
run cc -std=c11 -Wall -Wextra -Werror -o "$TMP/ex/record-static" examples/record.c \
    $($pc --cflags stackpulse) -Wl,-Bstatic $sflags -Wl,-Bdynamic
check "examples/record.c links libstackpulse.a that way ($(head -c 300 <<<"$ERR"))" test "$RC" -eq 0
check "and needs no libstackpulse.so" \
    eval '! readelf -d "$TMP/ex/record-static" | grep -q libstackpulse'
run env -u LD_LIBRARY_PATH "$TMP/ex/record-static" "$TMP/ex-static.spl" $W/tree-O2 100
ns=$(counter "$TMP/ex-static.spl" samples)
check "it runs without LD_LIBRARY_PATH: $OUT" \
    eval 'test "$RC" -eq 0 -a "${ns:-0}" -gt 0 && has "$ns samples into" "$OUT"'

# C++: every installed header compiles alone as C++17, and every function
# they declare links from C++ (a header without its extern "C" guard asks
# for a mangled name, which the library does not define).
if need g++ g++; then
	bad=
	for h in $(libsp/api.sh headers "$noinst"); do
		printf '#include "%s"\n' "${h#libsp/include/}" >"$TMP/one.cc"
		g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only $($pc --cflags stackpulse) \
		    "$TMP/one.cc" 2>>"$TMP/one.err" || bad="$bad ${h#libsp/include/}"
	done
	check "every installed header compiles alone as C++17 -Wall -Wextra -Werror${bad:+ (not:$bad; $TMP/one.err)}" \
	    test -z "$bad"
	{ echo '#include <cstdio>'
	  echo '#include "sp/stackpulse.h"'
	  echo 'typedef void (*fn)();'
	  echo 'static const fn api[] = {'
	  sed 's/.*/    reinterpret_cast<fn>(\&&),/' "$TMP/api.names"
	  echo '};'
	  echo 'int main() { std::printf("%zu functions\n", sizeof api / sizeof api[0]); return 0; }'
	} >"$TMP/api.cc"
	run g++ -std=c++17 -Wall -Werror -o "$TMP/ex/api" "$TMP/api.cc" $flags
	check "every function of the installed headers links from C++ ($(grep -o 'undefined reference to [^ ]*' <<<"$ERR" | head -1))" \
	    test "$RC" -eq 0
	n=$(wc -l <"$TMP/api.names")
	run "$TMP/ex/api"
	check "and runs: $OUT (of $n declared)" test "$OUT" = "$n functions" -a "$n" -gt 100
	for e in examples/*.cc; do
		run g++ -std=c++17 -Wall -Wextra -Werror -o "$TMP/ex/$(basename "$e" .cc)" "$e" $flags
		check "$e builds against the installed tree with g++ -std=c++17 ($(head -c 300 <<<"$ERR"))" \
		    test "$RC" -eq 0
	done
	# cxx_record: a child recorded, read back and named from C++; its
	# hottest leaf is sp-sym | sp-fold's, with as many samples.
	rm -f "$TMP/cxx.spl"
	run "$TMP/ex/cxx_record" "$TMP/cxx.spl" $W/tree-O2 300
	n=$(counter "$TMP/cxx.spl" samples)
	check "examples/cxx_record: exit 0, $n samples recorded ($OUT)" \
	    eval 'test "$RC" -eq 0 -a "${n:-0}" -gt 0 && has "libstackpulse $ver: $n samples into" "$OUT"'
	leaf=$(sed -n 's/^cxx_record: hottest leaf \(.*\), \([0-9]*\) samples$/\1 \2/p' <<<"$OUT")
	$SYM -q "$TMP/cxx.spl" | $BIN/sp-fold | sed 's/_\[k\]//g' |
	    awk '{ c = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); n[f[k]] += c }
	    END { for (l in n) print l, n[l] }' | sort -k2,2nr >"$TMP/cxx.leaves"
	top=$(awk 'NR == 1 { print $2 }' "$TMP/cxx.leaves")
	check "its hottest leaf is sp-sym | sp-fold's, as many samples (${leaf:-none}; theirs: $(head -2 "$TMP/cxx.leaves" | tr '\n' ' '))" \
	    eval 'test -n "$leaf" && grep -qxF "$leaf" "$TMP/cxx.leaves" && test "${leaf##* }" = "$top"'
	# A symbolizer with the defaults (cxx_record's) reads the environment
	# as sp-sym does: a stripped copy of tree-O2 whose debug file is in
	# STACKPULSE_DEBUG_DIRS, or in debuginfod's cache (DEBUGINFOD_CACHE_PATH;
	# DEBUGINFOD_URLS names a port nothing listens on: the cache answers
	# first) has its names; without either it has none.
	mkdir -p "$TMP/strip"
	rm -rf "$TMP/dbg" "$TMP/dcache"
	cp $W/tree-O2 "$TMP/strip/tree"
	strip --strip-all "$TMP/strip/tree"
	bid=$(readelf -n "$TMP/strip/tree" | awk '/Build ID/ { print $3 }')
	mkdir -p "$TMP/dbg/.build-id/${bid:0:2}" "$TMP/dcache/$bid"
	objcopy --only-keep-debug $W/tree-O2 "$TMP/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
	cp "$TMP/dbg/.build-id/${bid:0:2}/${bid:2}.debug" "$TMP/dcache/$bid/debuginfo"
	run env STACKPULSE_DEBUG_DIRS="$TMP/nodebug" "$TMP/ex/cxx_record" "$TMP/strip.spl" "$TMP/strip/tree" 200
	check "a stripped tree-O2 (build-id ${bid:-none}), no debug file: its hottest leaf has no name ($(tail -1 <<<"$OUT"))" \
	    grep -qE "^cxx_record: hottest leaf tree\+0x[0-9a-f]+, " <<<"$OUT"
	run env STACKPULSE_DEBUG_DIRS="$TMP/nodebug:$TMP/dbg" "$TMP/ex/cxx_record" "$TMP/strip.spl" "$TMP/strip/tree" 200
	check "its debug file in STACKPULSE_DEBUG_DIRS: named ($(tail -1 <<<"$OUT"))" \
	    grep -qE "^cxx_record: hottest leaf spin, " <<<"$OUT"
	run env STACKPULSE_DEBUG_DIRS="$TMP/nodebug" DEBUGINFOD_URLS=http://127.0.0.1:9 \
	    DEBUGINFOD_CACHE_PATH="$TMP/dcache" "$TMP/ex/cxx_record" "$TMP/strip.spl" "$TMP/strip/tree" 200
	check "in DEBUGINFOD_CACHE_PATH with DEBUGINFOD_URLS set: named ($(tail -1 <<<"$OUT"))" \
	    grep -qE "^cxx_record: hottest leaf spin, " <<<"$OUT"

	# docs/api.md's static link beside the system's libelf and zlib: one
	# copy of each, the system's (-l:libelf.so.1: the runtime package
	# alone has no libelf.so to name with -lelf).
	if [ -n "$(ldconfig -p | grep -F 'libelf.so.1 ' | grep -F x86-64)" ] &&
	    [ -n "$(ldconfig -p | grep -F 'libz.so.1 ' | grep -F x86-64)" ]; then
		run g++ -std=c++17 -Wall -Wextra -Werror -o "$TMP/ex/cxx_record-sys" examples/cxx_record.cc \
		    $($pc --cflags stackpulse) -Wl,-Bstatic -L"$root/lib" -lstackpulse -Wl,-Bdynamic \
		    "$root/lib/stackpulse/libZydis.a" "$root/lib/stackpulse/libiberty-demangle.a" -l:libelf.so.1 -l:libz.so.1
		check "examples/cxx_record.cc links libstackpulse.a beside the system's libelf and zlib ($(head -c 300 <<<"$ERR"))" \
		    test "$RC" -eq 0
		check "taking theirs: it needs libelf.so.1 and libz.so.1, not libstackpulse.so, and defines no elf_begin or inflate" \
		    eval 'readelf -d "$TMP/ex/cxx_record-sys" >"$TMP/sys.d" && grep -qF "[libelf.so.1]" "$TMP/sys.d" &&
		        grep -qF "[libz.so.1]" "$TMP/sys.d" && ! grep -q libstackpulse "$TMP/sys.d" &&
		        ! nm --defined-only "$TMP/ex/cxx_record-sys" | grep -qE " (elf_begin|inflate)\$"'
		run "$TMP/ex/cxx_record-sys" "$TMP/cxx-sys.spl" $W/tree-O2 100
		check "it records and names the hottest leaf ($(tail -1 <<<"$OUT"))" \
		    eval 'test "$RC" -eq 0 && grep -qE "^cxx_record: hottest leaf [a-z_]+, [0-9]+ samples$" <<<"$OUT"'
	else
		skip "a static link beside the system's libelf" "no libelf.so.1 or libz.so.1 here (apt-get install libelf1 zlib1g)"
	fi
else
	skip "C++" "g++ is not installed and could not be (apt-get install g++)"
fi

# record: a child recorded into a spool that sp-dump checks.
run "$TMP/ex/record" "$TMP/ex.spl" $W/tree-O2 300
n=$(counter "$TMP/ex.spl" samples)
check "examples/record: exit 0, says the library's version and $n samples" \
    has "libstackpulse $ver: $n samples into" "$OUT"
run $DUMP --check "$TMP/ex.spl"
check "and sp-dump --check finds its spool finished" has "finished" "$OUT"
check "with samples" test "${n:-0}" -gt 0

# inproc: a spool in a file with no name, read back in process by the
# recorder's own tail, which gives back the blocks it read.
run "$TMP/ex/inproc" "$TMP" $W/tree-O2 300
ni=$(sed -n 's/^\([0-9]*\) samples read in process.*/\1/p' <<<"$OUT")
check "examples/inproc: exit 0, ${ni:-no} samples read back in process ($OUT $ERR)" \
    eval 'test "$RC" -eq 0 && test "${ni:-0}" -gt 0'

# attach: the same by hand with the process helpers (launched suspended,
# attached at its exec, released), its exit seen through a pidfd.
run "$TMP/ex/attach" "$TMP/ex-attach.spl" $W/tree-O2 300
na=$(counter "$TMP/ex-attach.spl" samples)
check "examples/attach: saw its command exit 0, $na samples ($OUT)" \
    grep -qE "^attach: pid [0-9]+, exit status 0, $na samples into " <<<"$OUT"
check "with samples" test "${na:-0}" -gt 0
apid=$(sed -n 's/^attach: pid \([0-9]*\),.*/\1/p' <<<"$OUT")
run $DUMP --check "$TMP/ex-attach.spl"
check "and sp-dump --check finds its spool finished" has "finished" "$OUT"
check "recorded from its exec on: the spool has the exec of pid ${apid:-?}" \
    grep -qE "^exec [0-9.]+ pid ${apid:-none} " <($DUMP "$TMP/ex-attach.spl")
$SYM -q "$TMP/ex-attach.spl" | $BIN/sp-fold >"$TMP/ex-attach.folded"
check "its stacks run from _start through main" \
    grep -qE '^_start;.*;main;' "$TMP/ex-attach.folded"
run "$TMP/ex/attach" "$TMP/ex-none.spl" /no/such/command
check "a command that cannot run: exit 1, said so ($ERR)" \
    eval 'test "$RC" -eq 1 && has "cannot run /no/such/command" "$ERR"'

# snapshot and replay: the same samples as sp-dump; names once symbolized.
$SYM -q "$TMP/ex.spl" >"$TMP/ex.sym.spl"
run "$TMP/ex/snapshot" "$TMP/ex.sym.spl" 3
check "examples/snapshot reads them all ($(head -1 <<<"$OUT"))" \
    test "$(head -1 <<<"$OUT")" = "$n samples"
top=$(sed -n 2p <<<"$OUT")
check "its hottest stack goes from _start through main (${top:0:120})" \
    grep -qE '^[0-9]+ _start;.*;main;' <<<"$top"
run "$TMP/ex/replay" "$TMP/ex.spl"
check "examples/replay streams them all ($(grep ' forks, ' <<<"$OUT"))" \
    has "$n samples, 0 forks, 1 exits; finished" "$OUT"
# Its rows from the docs: the count before reading, the first sample's
# time from the header's anchor (sp-dump's fields, by docs/api.md's
# formula), the unwind errors as the summary's unwind_* counters.
check "and counted them before reading ($(head -1 <<<"$OUT"))" \
    test "$(head -1 <<<"$OUT")" = "$n samples to read"
hdr=$($DUMP --json "$TMP/ex.spl" | head -1)
t0=$($DUMP --json "$TMP/ex.spl" | grep -m1 '"kind":"sample"' | grep -o '"time":[0-9]*' | cut -d: -f2)
su=$(grep -o '"start_time_us":[0-9]*' <<<"$hdr" | cut -d: -f2)
sm=$(grep -o '"start_mono_ns":[0-9]*' <<<"$hdr" | cut -d: -f2)
want_us=$((su + (t0 - sm) / 1000))
check "its first sample's time is start_time_us + (time - start_mono_ns) / 1000 ($want_us)" \
    has "first sample at $want_us us (unix time)" "$OUT"
cut_short=0
# (unwind_scanned and unwind_signal_frames count frames found, no errors.)
for c in $($DUMP --stats --json "$TMP/ex.spl" | grep -o '"unwind_[a-z_]*":[0-9]*' |
    grep -vE '^"unwind_(scanned|signal_frames)"' | cut -d: -f2); do
	cut_short=$((cut_short + c))
done
check "and counts the walks cut short as the summary does ($cut_short)" \
    grep -q "^walks cut short: $cut_short\b" <<<"$OUT"

# follow EXAMPLE SPOOL OUT: runs examples/EXAMPLE on SPOOL while sp-record
# writes it, each line of its output in OUT after the time it came (ns);
# rec_end: when the recording ended.
follow() {
	local rp tp
	rm -f "$2"
	$REC -q -o "$2" -- $W/tree-O2 3000 >/dev/null 2>&1 &
	rp=$!
	# The time without a fork per line (a loaded machine made the
	# stamps lag by seconds behind the lines).
	"$TMP/ex/$1" "$2" 30 | while IFS= read -r l; do
		echo "${EPOCHREALTIME/./}000 $l"; done >"$3" &
	tp=$!
	wait $rp
	rec_end=$(date +%s%N)
	wait $tp
}

# toy_symbolizer: a backend of the example's own names every native frame
# after its module; the symbolizer keeps naming kernel and no-file frames.
run "$TMP/ex/toy_symbolizer" "$TMP/ex.spl" 3
check "examples/toy_symbolizer: the backend named the hottest leaf after its module ($(head -1 <<<"$OUT"))" \
    grep -qE '^[0-9]+ in tree-O2$' <<<"$(head -1 <<<"$OUT")"
check "it got its lookups in batches, fewer batches than lookups ($(tail -1 <<<"$OUT"))" \
    awk '/lookups in/ { exit !($1 > 0 && $4 > 0 && $4 < $1) }' <<<"$(tail -1 <<<"$OUT")"

# live: a tail symbolized as it grows gives the same stacks as sp-sym
# and sp-fold give afterwards.
follow live "$TMP/live2.spl" "$TMP/live.out"
n=$(counter "$TMP/live2.spl" samples)
check "examples/live resolved every sample as it came ($(tail -1 "$TMP/live.out" | cut -d' ' -f2-))" \
    grep -q " $n samples, $n stacks resolved, .* finished$" "$TMP/live.out"
first=$(awk '/ sample [0-9]+: .*;main;/ { print $1; exit }' "$TMP/live.out")
check "a symbolized stack through main a second or more before the recording ended" \
    test -n "$first" -a $(( (rec_end - ${first:-0}) / 1000000 )) -ge 1000
sed -n 's/^[0-9]* sample [0-9]*: //p' "$TMP/live.out" | sort | uniq -c |
    awk '{ n = $1; $1 = ""; print substr($0, 2) " " n }' | sort >"$TMP/live.fold"
# (sp-fold marks kernel frames _[k], as flamegraph.pl's input does)
$SYM -q "$TMP/live2.spl" | $BIN/sp-fold | sed 's/_\[k\]//g' | sort >"$TMP/live.ref"
check "its stacks and counts are sp-sym | sp-fold's ($(wc -l <"$TMP/live.fold") stacks; diff: $(diff "$TMP/live.fold" "$TMP/live.ref" | head -2 | tr '\n' ' '))" \
    cmp -s "$TMP/live.fold" "$TMP/live.ref"

# tail: follows a spool while sp-record writes it.
follow tail "$TMP/live.spl" "$TMP/tail.out"
first=$(awk '/ sample 1: / { print $1; exit }' "$TMP/tail.out")
n=$(counter "$TMP/live.spl" samples)
check "examples/tail saw every sample and the end ($(tail -1 "$TMP/tail.out" | cut -d' ' -f2-))" \
    grep -q " $n samples, finished$" "$TMP/tail.out"
check "the first one a second or more before the recording ended" \
    test -n "$first" -a $(( (rec_end - ${first:-0}) / 1000000 )) -ge 1000
done_testing
