#!/usr/bin/env bash
# sp-sym's cache of inflated DWARF (sp-sym(1) --cache-dir): a program
# built with compressed debug sections (gcc -gz), recorded here; the
# cache entry the first run makes, used by the next one (the same
# names as without the cache), and entries that are not to be trusted:
# damaged, cut short, garbled, another user's, unwritable places; the
# bound kept when an entry is written.
. "$(dirname "$0")/../lib.bash"
# asan: SYM=build/asan/sp-sym/sp-sym REPORT=build/asan/sp-report/sp-report

# A program of many small functions, so that its DWARF inflates to more
# than the 256 KiB below which sp-sym keeps no copy.
awk 'BEGIN {
	n = 1500
	print "#include <time.h>"
	for (i = 0; i < n; i++) {
		printf "static inline __attribute__((always_inline)) unsigned\n"
		printf "h_%d(unsigned x)\n{\n\tx ^= x << %d;\n\treturn x * 2654435761u + %d;\n}\n", i, 1 + i % 13, i
		printf "__attribute__((noinline)) unsigned\nfn_%d(unsigned x)\n{\n", i
		printf "\tfor (unsigned k = 0; k < 64; k++)\n\t\tx = h_%d(x);\n\treturn x;\n}\n", i
	}
	printf "static unsigned (*const tab[])(unsigned) = {\n"
	for (i = 0; i < n; i++) printf "\tfn_%d,\n", i
	print "};"
	print "int\nmain(void)\n{\n\tstruct timespec ts;\n\tvolatile unsigned sink = 0;\n"
	print "\tfor (unsigned long i = 0;; i++) {"
	print "\t\tsink = tab[i % (sizeof(tab) / sizeof(tab[0]))](sink + (unsigned)i);"
	print "\t\tif ((i & 1023) == 0) {"
	print "\t\t\tclock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);"
	print "\t\t\tif (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 > 400)"
	print "\t\t\t\tbreak;"
	print "\t\t}\n\t}\n\treturn 0;\n}"
}' >"$TMP/many.c"
run gcc -O1 -g -gz=zlib -Wl,--build-id -o "$TMP/many" "$TMP/many.c"
check "a -g -gz build (exit $RC)" test "$RC" -eq 0
# readelf -S: the flags of .debug_info hold C (SHF_COMPRESSED).
info_flags=$(readelf -SW "$TMP/many" | awk '$2 == ".debug_info" { print $8 }')
check "its .debug_info is compressed (flags $info_flags)" has C "$info_flags"
inflated=$(objcopy --decompress-debug-sections "$TMP/many" "$TMP/many.plain" &&
    readelf -SW "$TMP/many.plain" | awk "$HEX_AWK"'$2 ~ /^\.debug_(info|abbrev|line|str|line_str|rnglists|aranges|addr|str_offsets)$/ { t += hex($6) } END { print t + 0 }')
check "its DWARF inflates to over 256 KiB ($inflated bytes)" test "${inflated:-0}" -gt 262144
id=$(readelf -n "$TMP/many" | awk '/Build ID/ { print $3 }')
check "it has a build-id ($id)" test -n "$id"
run $REC -q -o "$TMP/many.spl" -- "$TMP/many"
check "recorded (exit $RC)" test "$RC" -eq 0

# names SPL: the folded stacks with lines into SPL.fold, and how many
# samples name an fn_ and its inlined h_ at lines of many.c.
names() {
	$FOLD --lines "$1" >"$1.fold"
	fold_count "$1.fold" 'fn_[0-9]+:[^;]*many\.c:[0-9]+;h_[0-9]+:[^;]*many\.c:[0-9]+'
}
# inode FILE: its inode, or "none".
inode() { stat -c %i "$1" 2>/dev/null || echo none; }

# --- the first run fills the cache, the next uses it ----------------------------
C=$TMP/cache E=$TMP/cache/$id.dwarf
rm -rf "$C" "$TMP/home" "$TMP/home2" "$TMP/xdg" "$TMP/pc"
run $SYM --no-cache -o "$TMP/plain.spl" "$TMP/many.spl"
check "--no-cache names the frames (exit $RC)" test "$RC" -eq 0
plain=$(names "$TMP/plain.spl")
check "the workload's frames have names and lines ($plain samples)" test "$plain" -gt 0
check "--no-cache made no cache directory" test ! -e "$C"
run env STACKPULSE_CACHE_DIR="$C" $SYM -o "$TMP/first.spl" "$TMP/many.spl"
check "the first run with a cache (exit $RC)" test "$RC" -eq 0
check "it kept the inflated DWARF as CACHE/BUILDID.dwarf" test -f "$E"
check "the entry is mode 600 ($(stat -c %a "$E" 2>/dev/null))" test "$(stat -c %a "$E" 2>/dev/null)" = 600
check "the directory it made is mode 700 ($(stat -c %a "$C"))" test "$(stat -c %a "$C")" = 700
check "no temporary file is left ($(ls "$C" | xargs))" test -z "$(ls -A "$C" | grep -v '\.dwarf$')"
first=$(names "$TMP/first.spl")
cmp -s "$TMP/first.spl.fold" "$TMP/plain.spl.fold"
check "its names and lines are those of --no-cache ($first samples)" test $? -eq 0
cmp -s "$TMP/first.spl" "$TMP/plain.spl"
check "and its output the same bytes" test $? -eq 0
before=$(inode "$E")
run env STACKPULSE_CACHE_DIR="$C" $SYM -o "$TMP/second.spl" "$TMP/many.spl"
check "the second run (exit $RC)" test "$RC" -eq 0
check "it used the entry as it was (inode $before, then $(inode "$E"))" test "$(inode "$E")" = "$before"
cmp -s "$TMP/second.spl" "$TMP/plain.spl"
check "and wrote the same spool as --no-cache" test $? -eq 0
run $SYM --cache-dir "$C" -o "$TMP/opt.spl" "$TMP/many.spl"
check "--cache-dir DIR uses DIR's entry (inode $(inode "$E"))" test "$RC" -eq 0 -a "$(inode "$E")" = "$before"
cmp -s "$TMP/opt.spl" "$TMP/plain.spl"
check "with the same output" test $? -eq 0

# --- entries not to be trusted ----------------------------------------------------
# again LABEL: a run with the cache must name as --no-cache does, and
# put a good entry back (a new inode, the magic in place).
again() {
	local was
	was=$(inode "$E")
	run env STACKPULSE_CACHE_DIR="$C" $SYM -o "$TMP/again.spl" "$TMP/many.spl"
	check "$1: the run succeeds (exit $RC)" test "$RC" -eq 0
	cmp -s "$TMP/again.spl" "$TMP/plain.spl"
	check "$1: the same spool as --no-cache" test $? -eq 0
	check "$1: the entry is made again" test "$(inode "$E")" != "$was" -a \
	    "$(head -c 8 "$E" 2>/dev/null | tr '\n' '|')" = "SPDWARF|"
}
printf 'X' | dd of="$E" bs=1 seek=0 conv=notrunc status=none
again "a damaged magic"
printf '\377' | dd of="$E" bs=1 seek=20 conv=notrunc status=none
again "another build-id"
truncate -s $(( $(stat -c %s "$E") / 2 )) "$E"
again "an entry cut in half"
truncate -s 40 "$E"
again "an entry shorter than its header"
: >"$E"
again "an empty entry"
# Slot 0 (.debug_info): its stored size, 88 bytes in.
printf '\001' | dd of="$E" bs=1 seek=88 conv=notrunc status=none
again "an entry of another file of that build-id"
rm -f "$E" && ln -s "$TMP/plain.spl" "$E"
again "a symbolic link in its place"

# Garbled DWARF behind a good header: read as the untrusted input it is
# (names may be wrong; the run must neither crash nor hang).
size=$(stat -c %s "$E")
head -c $(( size - 4096 )) /dev/urandom | dd of="$E" bs=1 seek=4096 conv=notrunc status=none
before=$(inode "$E")
run timeout 120 env STACKPULSE_CACHE_DIR="$C" $SYM -o "$TMP/garbled.spl" "$TMP/many.spl"
check "garbled DWARF in a good entry: no crash (exit $RC)" test "$RC" -eq 0 -o "$RC" -eq 1
check "and the entry was read, not replaced" test "$(inode "$E")" = "$before"
rm -f "$E"

if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	run env STACKPULSE_CACHE_DIR="$C" $SYM -o "$TMP/x.spl" "$TMP/many.spl"
	chown nobody "$E"
	again "an entry another user owns"
	check "the one put back is the runner's ($(stat -c %U "$E"))" test "$(stat -c %u "$E")" -eq 0
else
	skip "an entry another user owns" "needs root and the user nobody to give it away"
fi

# --- places a cache cannot be ---------------------------------------------------------
for place in /proc/nonexistent/cache "$TMP/plain.spl/cache"; do
	run $SYM --cache-dir "$place" -o "$TMP/nowhere.spl" "$TMP/many.spl"
	check "--cache-dir $place: runs without a cache (exit $RC)" test "$RC" -eq 0
	cmp -s "$TMP/nowhere.spl" "$TMP/plain.spl"
	check "--cache-dir $place: the same spool" test $? -eq 0
done
mkdir -p "$TMP/ro"
chmod 500 "$TMP/ro"
run $SYM --cache-dir "$TMP/ro" -o "$TMP/ro.spl" "$TMP/many.spl"
check "a read-only cache directory: runs (exit $RC)" test "$RC" -eq 0
chmod 700 "$TMP/ro"

# --- where it is by default -------------------------------------------------------------
T=$PWD/$TMP	# HOME and XDG_CACHE_HOME are absolute paths
mkdir -p "$T/home" "$T/home2"
run env -u STACKPULSE_CACHE_DIR -u XDG_CACHE_HOME HOME="$T/home" $SYM -o /dev/null "$TMP/many.spl"
check "by default ~/.cache/stackpulse (exit $RC)" test -f "$T/home/.cache/stackpulse/$id.dwarf"
run env -u STACKPULSE_CACHE_DIR XDG_CACHE_HOME="$T/xdg" HOME="$T/home2" $SYM -o /dev/null "$TMP/many.spl"
check "or \$XDG_CACHE_HOME/stackpulse" test -f "$T/xdg/stackpulse/$id.dwarf" -a ! -e "$T/home2/.cache"
run env -u STACKPULSE_CACHE_DIR XDG_CACHE_HOME=relative HOME="$T/home2" $SYM -o /dev/null "$TMP/many.spl"
check "a relative \$XDG_CACHE_HOME is passed over for ~/.cache" test -f "$T/home2/.cache/stackpulse/$id.dwarf" -a ! -e relative
rm -rf "$T/home2/.cache"
run env STACKPULSE_CACHE_DIR= HOME="$T/home2" $SYM -o /dev/null "$TMP/many.spl"
check "an empty STACKPULSE_CACHE_DIR: none (exit $RC)" test "$RC" -eq 0 -a ! -e "$T/home2/.cache"
run $SYM --help
check "--help names --cache-dir and --no-cache" has "--no-cache" "$OUT"

# sp-report names a raw spool as sp-sym does, with the same cache.
rm -rf "$TMP/rc"
run env STACKPULSE_CACHE_DIR="$TMP/rc" $REPORT -q "$TMP/many.spl"
check "sp-report on the raw spool (exit $RC)" test "$RC" -eq 0
check "names the workload's functions" grep -qE ' (fn|h)_[0-9]+ ' "$TMP/out"
check "and kept the entry in sp-sym's cache" test -f "$TMP/rc/$id.dwarf"

# --- the bound: writing an entry prunes the directory -------------------------------
# name C [SUFFIX]: an entry's file name of 40 hex digits C.
name() { printf "%.0s$1" {1..40}; printf '.dwarf%s' "${2:-}"; }
age() { echo $(( $(date +%s) - $(stat -c %Y "$1") )); }
B=$TMP/bound
rm -rf "$B" && mkdir -m 700 "$B"
head -c 4096 /dev/zero >"$B/$(name a)" && touch -d '40 days ago' "$B/$(name a)"
head -c 4096 /dev/zero >"$B/$(name b)" && touch -d '2 days ago' "$B/$(name b)"
truncate -s 3G "$B/$(name c)" && touch -d '10 days ago' "$B/$(name c)"
: >"$B/$(name d .Ab12Cd)" && touch -d '2 days ago' "$B/$(name d .Ab12Cd)"
: >"$B/$(name e .Xy34Zw)"
: >"$B/notes.txt" && touch -d '400 days ago' "$B/notes.txt"
run $SYM --cache-dir "$B" -o /dev/null "$TMP/many.spl"
check "into a full directory, the new entry is written (exit $RC)" test -f "$B/$id.dwarf"
check "an entry unused for 40 days is removed" test ! -e "$B/$(name a)"
check "over 2 GiB (a 3 GiB entry), the least recently used goes" test ! -e "$B/$(name c)"
check "... and no more: one used 2 days ago stays" test -e "$B/$(name b)"
check "a temporary file 2 days old (a run that died) is removed" test ! -e "$B/$(name d .Ab12Cd)"
check "... one just made (a run writing) stays" test -e "$B/$(name e .Xy34Zw)"
check "a file of another name stays, however old" test -e "$B/notes.txt"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	rm -f "$B/$id.dwarf"
	: >"$B/$(name f)" && chown nobody "$B/$(name f)" && touch -d '40 days ago' "$B/$(name f)"
	run $SYM --cache-dir "$B" -o /dev/null "$TMP/many.spl"
	check "another user's old entry stays" test -e "$B/$(name f)"
else
	skip "another user's old entry stays" "needs root and the user nobody to give it away"
fi
touch -d '3 days ago' "$B/$id.dwarf"
ino=$(inode "$B/$id.dwarf")
run $SYM --cache-dir "$B" -o /dev/null "$TMP/many.spl"
check "a use of an entry 3 days old moves its time on ($(age "$B/$id.dwarf") s ago)" \
    test "$(age "$B/$id.dwarf")" -lt 3600 -a "$(inode "$B/$id.dwarf")" = "$ino"
touch -d '2 hours ago' "$B/$id.dwarf"
run $SYM --cache-dir "$B" -o /dev/null "$TMP/many.spl"
check "... once a day: a use 2 hours after leaves it ($(age "$B/$id.dwarf") s ago)" \
    test "$(age "$B/$id.dwarf")" -ge 7000

# A file whose DWARF is not compressed has no entry.
run gcc -O1 -g -o "$TMP/plainbin" "$TMP/many.c"
run $REC -q -o "$TMP/plainbin.spl" -- "$TMP/plainbin"
pid=$(readelf -n "$TMP/plainbin" | awk '/Build ID/ { print $3 }')
run $SYM --cache-dir "$TMP/pc" -o /dev/null "$TMP/plainbin.spl"
check "uncompressed DWARF: no entry for it (exit $RC)" test "$RC" -eq 0 -a ! -e "$TMP/pc/$pid.dwarf"
done_testing
