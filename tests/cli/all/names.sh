#!/usr/bin/env bash
# Names people read: C++ and Rust programs recorded, symbolized, and
# shown by sp-fold (folded and pprof), sp-flame and sp-dump, demangled by
# default as the system's c++filt prints them, kept mangled with
# --no-demangle and in the spool, demangled the same when c++filt is
# absent (the tools demangle in the process); and inlined C++ frames
# named by their qualified (linkage) names.
. "$(dirname "$0")/../lib.bash"
# asan: FOLD=build/asan/sp-fold/sp-fold FLAME=build/asan/sp-flame/sp-flame DUMP=build/asan/sp-dump/sp-dump

# mangled: the frames of folded text on stdin (not weighted) with a word
# (as c++filt takes words) that starts as Itanium and Rust v0 symbols do:
# _Z and a letter or digit, _R and an upper-case one or a digit (a C++
# name's std::_Rb_tree does not).
mangled() { sed 's/ [0-9]*$//' | tr ';' '\n' |
    grep -cE '(^|[^A-Za-z0-9_$.])(_Z[A-Za-z0-9]|_R[A-Z0-9])' ; }
# cleaned: c++filt's text without Rust's legacy hashes and v0 crate
# disambiguators, which the readers leave out as perf and rustfilt do.
cleaned() { sed -E 's/::h[0-9a-f]{16}([^A-Za-z0-9_$.]|$)/\1/g;
    s/([A-Za-z0-9_])\[[0-9a-f]{1,16}\]/\1/g'; }
# expected FILE FILTER: the folded FILE (mangled) as sp-fold should show
# it: each frame through c++filt and FILTER on a line of its own, a ';'
# that demangling brings (Rust's [u8; 4]) written ':' as sp-fold does.
expected() {
	awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";")
	    for (i = 1; i <= n; i++) print f[i]; print "\001" c }' "$1" |
	    c++filt | $2 | awk '/^\001/ { print s " " substr($0, 2); s = ""; next }
	    { gsub(/;/, ":"); s = s == "" ? $0 : s ";" $0 }'
}

if ! need c++filt binutils; then
	skip "names" "c++filt is not installed and could not be (apt-get install binutils)"
	done_testing
	exit 0
fi

# readers WL SPOOL [rust]: sp-fold, pprof and sp-dump of a symbolized
# spool, each with and without --no-demangle, against c++filt.
readers() {
	local wl=$1 spl=$2 clean=cat raw dem n
	[ "${3:-}" = rust ] && clean=cleaned
	$FOLD --no-demangle "$spl" >"$TMP/$wl.raw" 2>"$TMP/$wl.raw.err"
	run $FOLD "$spl"
	raw=$(mangled <"$TMP/$wl.raw")
	dem=$(mangled <"$TMP/out")
	echo "figures $wl: frames with a _Z/_R name in sp-fold's output: $raw with --no-demangle, $dem by default"
	check "$wl: --no-demangle keeps the mangled names ($raw frames)" test "$raw" -gt 0
	check "$wl: sp-fold shows no _Z or _R name ($dem frames)" test "$dem" -eq 0 -a "$RC" -eq 0 -a -z "$ERR"
	expected "$TMP/$wl.raw" $clean | fold_sum >"$TMP/$wl.want"
	fold_sum <"$TMP/out" >"$TMP/$wl.got"
	n=$(diff "$TMP/$wl.want" "$TMP/$wl.got" | grep -c '^[<>]')
	check "$wl: sp-fold's stacks are c++filt's of --no-demangle's ($n lines differ)" \
	    test "$n" -eq 0 -a -s "$TMP/$wl.got"
	# A frame of several words (parameters) stays one frame for the
	# readers of folded text: sp-flame takes the count after the last blank.
	cp "$TMP/out" "$TMP/$wl.folded"
	run $FLAME -o "$TMP/$wl.svg" "$TMP/$wl.folded"
	check "$wl: sp-flame reads it, all samples at the root" \
	    grep -qF "<title>all ($(awk '{ n += $NF } END { print n }' "$TMP/$wl.folded") samples, 100.00%)" "$TMP/$wl.svg"
	run $DUMP "$spl"
	$DUMP --no-demangle "$spl" | c++filt | $clean >"$TMP/$wl.dump.want"
	check "$wl: sp-dump's text is c++filt's of --no-demangle's" cmp -s "$TMP/out" "$TMP/$wl.dump.want"
	check "$wl: ... and shows no _Z or _R name" test "$(grep '^    #' "$TMP/out" | mangled)" -eq 0
	# -v: STRING records are shown as they are, names or not.
	$DUMP -v "$spl" | grep -v '^string ' >"$TMP/$wl.dumpv"
	$DUMP -v --no-demangle "$spl" | grep -v '^string ' | c++filt | $clean >"$TMP/$wl.dumpv.want"
	check "$wl: sp-dump -v too (symbols, inline chains)" cmp -s "$TMP/$wl.dumpv" "$TMP/$wl.dumpv.want"
}

# --- C++: -O0 (cxx), -O2 with inlined std::map (cxx-O2) ------------------------
for wl in cxx cxx-O2; do
	run $REC -q -o "$TMP/$wl.spl" -- $W/$wl 800
	run $SYM -q -o "$TMP/$wl.sym.spl" "$TMP/$wl.spl"
	check "$wl: recorded and symbolized" test "$RC" -eq 0
	readers "$wl" "$TMP/$wl.sym.spl"
done
check "the spool keeps the mangled names (sp-sym writes them, sp-dump -v --no-demangle shows them)" \
    grep -q '_ZN6shapes7Spinner4spinEm' <($DUMP -v --no-demangle "$TMP/cxx.sym.spl")
# Inlined frames: DWARF's linkage name, not the bare DW_AT_name.
$FOLD "$TMP/cxx-O2.sym.spl" | sed 's/ [0-9]*$//' | tr ';' '\n' | sort | uniq -c >"$TMP/cxx-O2.frames"
q=$(grep -cE ' std::_Rb_tree<int, std::pair<int const, int>,.*>::_M_lower_bound\(' "$TMP/cxx-O2.frames")
bare=$(grep -cE ' (_M_lower_bound|find)$' "$TMP/cxx-O2.frames")
check "cxx-O2: inlined frames are qualified, std::_Rb_tree<...>::_M_lower_bound(...) ($q), none bare ($bare)" \
    test "$q" -ge 1 -a "$bare" -eq 0
check "cxx-O2: ... below shapes::lookups(std::map<...> const&, int) and std::map<...>::find(int const&) const" \
    grep -qE ';shapes::lookups\(std::map<int, int,[^;]*> const&, int\);std::map<int, int,[^;]*>::find\(int const&\) const;std::_Rb_tree<' \
    <($FOLD "$TMP/cxx-O2.sym.spl")

# --- pprof: Function.name demangled, system_name mangled --------------------------
need go golang-go
if command -v go >/dev/null; then
	# go keeps its cache under HOME, pprof its files in PPROF_TMPDIR.
	gopp() { HOME=$TMP PPROF_TMPDIR=$TMP go tool pprof -symbolize=none "$@"; }
	$FOLD --pprof -o "$TMP/cxx.pb.gz" "$TMP/cxx-O2.sym.spl"
	$FOLD --pprof --no-demangle -o "$TMP/cxx-raw.pb.gz" "$TMP/cxx-O2.sym.spl"
	# -symbolize=none: the names as the profile has them (pprof
	# demangles on its own when it symbolizes).
	gopp -traces "$TMP/cxx.pb.gz" >"$TMP/pp.traces" 2>"$TMP/pp.err"
	gopp -traces "$TMP/cxx-raw.pb.gz" >"$TMP/pp-raw.traces" 2>>"$TMP/pp.err"
	gopp -raw "$TMP/cxx.pb.gz" >"$TMP/pp.raw" 2>>"$TMP/pp.err"
	check "pprof: demangled names, shapes::Spinner::spin(unsigned long)" \
	    grep -q '  shapes::Spinner::spin(unsigned long)$' "$TMP/pp.traces"
	check "pprof: ... inlined ones qualified" grep -q 'std::_Rb_tree<.*>::_M_lower_bound(.*(inline)$' "$TMP/pp.traces"
	check "pprof: ... no _Z name ($(grep -c '  _Z' "$TMP/pp.traces"))" test "$(grep -c '  _Z' "$TMP/pp.traces")" -eq 0
	check "pprof: system names stay mangled" grep -q 's=0(_ZN6shapes7Spinner4spinEm)' "$TMP/pp.raw"
	check "pprof --no-demangle: mangled names" grep -q '  _ZN6shapes7Spinner4spinEm$' "$TMP/pp-raw.traces"
else
	skip "pprof names" "go is not installed and could not be (apt-get install golang-go)"
fi

# --- sp-flame: demangles folded text it is given ------------------------------------
run $FLAME -o "$TMP/flame.svg" "$TMP/cxx-O2.raw"
check "sp-flame demangles mangled input: shapes::lookups(std::map<...> const&, int)" \
    grep -qF '<title>shapes::lookups(std::map&lt;int, int, std::less&lt;int&gt;, std::allocator&lt;std::pair&lt;int const, int&gt; &gt; &gt; const&amp;, int) (' "$TMP/flame.svg"
check "... no _Z title" test "$(grep -o '<title>_Z' "$TMP/flame.svg" | wc -l)" -eq 0
run $FLAME --no-demangle -o "$TMP/flame-raw.svg" "$TMP/cxx-O2.raw"
check "sp-flame --no-demangle keeps them" grep -qF '<title>_ZN6shapes7lookupsERKSt3mapIiiSt4lessIiESaISt4pairIKiiEEEi (' "$TMP/flame-raw.svg"

# --- no c++filt: the same names, nothing said ------------------------------------
# The tools run no program: a PATH without c++filt changes nothing.
mkdir -p "$TMP/nocxxfilt"
run env PATH="$TMP/nocxxfilt" $FOLD "$TMP/cxx.sym.spl"
check "no c++filt: sp-fold demangles all the same, says nothing" \
    test "$RC" -eq 0 -a -z "$ERR" -a "$OUT" = "$($FOLD "$TMP/cxx.sym.spl")"
check "... shapes::Spinner::spin(unsigned long)" grep -qF 'shapes::Spinner::spin(unsigned long)' <<<"$OUT"
run env PATH="$TMP/nocxxfilt" $FOLD --no-demangle "$TMP/cxx.sym.spl"
check "... --no-demangle keeps them mangled" test "$RC" -eq 0 -a -z "$ERR" -a \
    "$OUT" = "$($FOLD --no-demangle "$TMP/cxx.sym.spl")"
run env PATH="$TMP/nocxxfilt" $FLAME -o "$TMP/flame-nof.svg" "$TMP/cxx-O2.raw"
check "no c++filt: sp-flame demangles, says nothing" test "$RC" -eq 0 -a -z "$ERR" -a \
    "$(grep -c '<title>_Z' "$TMP/flame-nof.svg")" -eq 0
run env PATH="$TMP/nocxxfilt" $DUMP "$TMP/cxx.sym.spl"
check "no c++filt: sp-dump demangles, says nothing" test "$RC" -eq 0 -a -z "$ERR"
check "... shapes::Spinner::spin(unsigned long)" grep -q '    #[0-9 ]*shapes::Spinner::spin(unsigned long)$' "$TMP/out"
# A C program has no mangled name: nothing to say, c++filt or not.
run $REC -q -o "$TMP/tree.spl" -- $W/tree 300
$SYM -q -o "$TMP/tree.sym.spl" "$TMP/tree.spl"
run env PATH="$TMP/nocxxfilt" $FOLD "$TMP/tree.sym.spl"
check "no c++filt, a C program: sp-fold says nothing either" test "$RC" -eq 0 -a -z "$ERR" -a -n "$OUT"

# --- Rust: a release build, legacy and v0 names ------------------------------------
cargo=$(cargo_bin)
if [ -z "$cargo" ]; then
	skip "rust names" "cargo is not installed (rustup's ~/.cargo/bin/cargo neither)"
else
	build_rtree "$cargo" "$TMP/rtree"
	bin=$TMP/rtree/target/release/rtree
	check "rtree: cargo build --release (exit $RC)" test "$RC" -eq 0 -a -x "$bin"
	run $REC -q -o "$TMP/rtree.spl" -- "$bin" 800 cpu
	$SYM -q -o "$TMP/rtree.sym.spl" "$TMP/rtree.spl"
	readers rtree "$TMP/rtree.sym.spl" rust
	check "rtree: legacy names lose their hash: rtree::unit" \
	    grep -q ';rtree::unit;' <($FOLD "$TMP/rtree.sym.spl")
	check "rtree: v0 names lose their crate disambiguators: std::rt::lang_start_internal" \
	    grep -q ';std::rt::lang_start_internal;' <($FOLD "$TMP/rtree.sym.spl")
fi
done_testing
