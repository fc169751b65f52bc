#!/usr/bin/env bash
# Inputs that are not spools and errors that belong to one file: an empty
# file or one cut inside its header is an error in every reader tool
# (exit 1, the file and the reason) while a cut after the header still
# recovers; sp-sym and sp-merge leave no output for an input that fails
# and say whose fault an error is (the input's, the output's, memory's).
# asan: DUMP=build/asan/sp-dump/sp-dump SYM=build/asan/sp-sym/sp-sym FOLD=build/asan/sp-fold/sp-fold MERGE=build/asan/sp-merge/sp-merge FLAME=build/asan/sp-flame/sp-flame
. "$(dirname "$0")/../lib.bash"
empty=$TMP/nothing
mkdir -p "$empty"

build/glibc/mkspool ref "$TMP/ref.spl" 3000
: >"$TMP/empty.spl"
head -c 100 "$TMP/ref.spl" >"$TMP/cut100.spl"
head -c 216 "$TMP/ref.spl" >"$TMP/cut216.spl"

# reader TOOL FILE: runs one reader tool on FILE (sp-sym and sp-merge
# writing $TMP/out.spl, which is removed first).
reader() {
	rm -f "$TMP/out.spl"
	case $1 in
	sp-dump) run $DUMP --check "$2" ;;
	sp-sym) run $SYM -q --debug-dir "$empty" -o "$TMP/out.spl" "$2" ;;
	sp-fold) run $FOLD -o "$TMP/fold.txt" "$2" ;;
	sp-merge) run $MERGE -q -o "$TMP/out.spl" "$2" ;;
	esac
}

# --- an empty file, a header cut short: not a spool, in every tool ----------
for t in sp-dump sp-sym sp-fold sp-merge; do
	reader $t "$TMP/empty.spl"
	check "$t: an empty file is not a spool (exit 1, the file, why)" test \
	    "$RC" -eq 1 -a "$ERR" = "$t: $TMP/empty.spl: offset 0x0: not a spool: empty file"
	reader $t "$TMP/cut100.spl"
	check "$t: 100 bytes of a header are not a spool" test "$RC" -eq 1 -a \
	    "$ERR" = "$t: $TMP/cut100.spl: offset 0x64: not a spool: incomplete header (100 of 216 bytes)"
done
# --- what else a user hands a reader: known by its content (issue 29) ------
# A perf recording (made by perf where it runs), folded text, a gzipped
# spool, a pprof profile, JSON and a program: each named, with what to
# run instead, in every reader tool and in sp-flame.
if command -v perf >/dev/null && HOME=$TMP perf record -q -o "$TMP/perf.data" -- true \
    >/dev/null 2>&1; then
	for t in sp-dump sp-sym sp-fold sp-merge; do
		reader $t "$TMP/perf.data"
		check "$t: a perf.data is named as perf's, with perf script" \
		    eval 'test "$RC" -eq 1 && has "this is a perf recording" "$ERR" && has "perf script" "$ERR"'
	done
	run $FLAME "$TMP/perf.data"
	check "sp-flame: a perf.data is named as perf's, at once" \
	    eval 'test "$RC" -eq 1 && has "perf recording" "$ERR" && test "$(wc -l <<<"$ERR")" -eq 1'
else
	skip "a perf.data given to the readers" "perf is not installed or does not run on this kernel"
fi
DUMP_BIN=build/bin/sp-dump
printf 'main;run;work_a 12\nmain;run;work_b 3\n' >"$TMP/text.folded"
gzip -c "$TMP/ref.spl" >"$TMP/ref.spl.gz"
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json"}\n' >"$TMP/x.json"
for t in sp-dump sp-sym sp-fold sp-merge; do
	reader $t "$TMP/text.folded"
	check "$t: folded text is named, with sp-flame" \
	    eval 'test "$RC" -eq 1 && has "folded stacks" "$ERR" && has "sp-flame" "$ERR"'
	reader $t "$TMP/ref.spl.gz"
	check "$t: a gzipped spool is named, with gunzip" \
	    eval 'test "$RC" -eq 1 && has "gzip-compressed spool" "$ERR"'
	reader $t "$TMP/x.json"
	check "$t: JSON is named" eval 'test "$RC" -eq 1 && has "JSON" "$ERR"'
	reader $t "$DUMP_BIN"
	check "$t: a program is named" eval 'test "$RC" -eq 1 && has "an ELF file" "$ERR"'
done
$FOLD --pprof -o "$TMP/ref.pb.gz" "$TMP/ref.spl" 2>/dev/null
reader sp-fold "$TMP/ref.pb.gz"
check "sp-fold: a pprof profile is named as gzip data, pprof's" \
    eval 'test "$RC" -eq 1 && has "pprof" "$ERR"'
run $FLAME "$TMP/ref.spl.gz"
check "sp-flame: gzip data is named, with zcat" eval 'test "$RC" -eq 1 && has "zcat" "$ERR"'

for t in sp-sym sp-merge; do
	reader $t "$TMP/empty.spl"
	check "$t: no output file is left for an empty input" test ! -e "$TMP/out.spl"
done
run $DUMP --check "$TMP/cut216.spl"
check "a whole header and nothing after it is still a spool (exit 0)" \
    test "$RC" -eq 0
check "... recovered as truncated" has "truncated at offset 0xd8" "$ERR"
run sh -c "$DUMP --check - <'$TMP/empty.spl'"
check "sp-dump: empty standard input is not a spool" test "$RC" -eq 1 -a \
    "$ERR" = "sp-dump: -: offset 0x0: not a spool: empty file"
run sh -c "$SYM -q '$TMP/empty.spl' >'$TMP/stdout.spl'"
check "sp-sym writes nothing to standard output for an empty input" \
    test "$RC" -eq 1 -a -f "$TMP/stdout.spl" -a ! -s "$TMP/stdout.spl"
rm -f "$TMP/out.spl"
run $MERGE --skip-bad -o "$TMP/out.spl" "$TMP/empty.spl" "$TMP/cut100.spl"
check "sp-merge --skip-bad with no spool left fails (exit 1)" test "$RC" -eq 1
check "... saying so" has "sp-merge: no input left to merge: all 2 skipped" "$ERR"
check "... and writes no output" test ! -e "$TMP/out.spl"

# The pipeline of the issue: the first tool's error, then each tool after
# it fails on the empty input (exit 1 each), none writes a result.
run bash -c "set -o pipefail; $SYM '$TMP/missing.spl' | $FOLD | $FLAME >'$TMP/f.svg'; echo \"\${PIPESTATUS[*]}\""
check "sp-sym missing | sp-fold | sp-flame: exit 1 1 1" test "$OUT" = "1 1 1"
check "... sp-sym names the missing file" \
    has "sp-sym: $TMP/missing.spl: No such file or directory" "$ERR"
check "... sp-fold says its input is empty" \
    has "sp-fold: -: offset 0x0: not a spool: empty file" "$ERR"
check "... and no SVG is written" test ! -s "$TMP/f.svg"

# Tail follows a file its writer has not written the header of yet: an
# empty file is waited for, not refused.
: >"$TMP/live.spl"
build/glibc/tailcount "$TMP/live.spl" >"$TMP/tail.out" 2>&1 &
tpid=$!
sleep 0.5
cat "$TMP/ref.spl" >>"$TMP/live.spl"
wait $tpid
check "Tail waits through an empty file and reads the spool written later" \
    grep -q '^samples=3000 ' "$TMP/tail.out"

# --- merging keeps what symbolization needs ----------------------------------
# sp-merge writes each input's header as a HOST record; sp-sym must still
# take those of the header's host and boot for the header's: kallsyms
# names their kernel frames, perf maps their JIT frames.
# knames SPL: the kernel function of every kernel-named frame, sorted.
knames() { $DUMP -v "$1" | awk '/^symbol .*\(kernel,/ { print $4 }' | sort; }
run $REC -q --kernel -o "$TMP/kern.spl" -- dd if=/dev/zero of=/dev/null bs=64k count=100000
run $SYM -o "$TMP/kern-sym.spl" "$TMP/kern.spl"
nk=$(grep -oE '[0-9]+ kernel,' <<<"$ERR" | cut -d' ' -f1)
if [ "${nk:-0}" -gt 0 ]; then
	knames "$TMP/kern-sym.spl" >"$TMP/kern.names"
	run $MERGE -q -o "$TMP/kern-m.spl" "$TMP/kern.spl"
	run $SYM -o "$TMP/kern-msym.spl" "$TMP/kern-m.spl"
	check "sp-merge | sp-sym names as many kernel frames as sp-sym alone ($nk)" \
	    has " $nk kernel," "$ERR"
	check "... with the same names" cmp -s "$TMP/kern.names" <(knames "$TMP/kern-msym.spl")
	check "... none left address-only (0xffff..., once [kernel.kallsyms]+0x...)" \
	    test "$($DUMP "$TMP/kern-msym.spl" | grep -cE '#[0-9]+ +(\[kernel\.kallsyms\]\+)?0xffff')" -eq 0
	run $SYM --kallsyms /proc/kallsyms -o "$TMP/kern-mk.spl" "$TMP/kern-m.spl"
	check "... and with --kallsyms /proc/kallsyms" has " $nk kernel," "$ERR"
	# Two recordings of this boot share one HOST record in the merge.
	run $REC -q --kernel -o "$TMP/kern2.spl" -- dd if=/dev/zero of=/dev/null bs=64k count=50000
	run $MERGE -q -o "$TMP/kern-m2.spl" "$TMP/kern.spl" "$TMP/kern2.spl"
	run $SYM -o "$TMP/kern-m2sym.spl" "$TMP/kern-m2.spl"
	check "two recordings merged: kernel frames named, none address-only" \
	    test "$($DUMP "$TMP/kern-m2sym.spl" | grep -cE '#[0-9]+ +(\[kernel\.kallsyms\]\+)?0xffff')" -eq 0
else
	skip "kernel names after sp-merge" "no kernel frames recorded here ($ERR)"
fi

# Symbolized inputs merged: an equal symbol of an interned frame is not
# news; one that names the frame otherwise is said, with what it means.
$SYM -q -o "$TMP/ref-sym.spl" "$TMP/ref.spl"
run $MERGE -o "$TMP/out.spl" "$TMP/ref-sym.spl" "$TMP/ref-sym.spl"
check "sp-merge of a symbolized spool with itself: no word about symbols" \
    test "$RC" -eq 0 -a "$ERR" = "sp-merge: 2 inputs, 6000 samples"
if [ "${nk:-0}" -gt 0 ]; then
	printf '0000000000000000 T nothing\n' >"$TMP/none.kallsyms"
	$SYM -q --kallsyms "$TMP/none.kallsyms" -o "$TMP/kern-nok.spl" "$TMP/kern.spl"
	run $MERGE -o "$TMP/out.spl" "$TMP/kern-sym.spl" "$TMP/kern-nok.spl"
	check "inputs that name $nk kernel frames otherwise: said, and what was kept" \
	    has "sp-merge: $TMP/kern-nok.spl: $nk frames are named otherwise than in an earlier input, whose names are kept (for one naming, merge the raw spools and run sp-sym on the result)" "$ERR"
	check "... and the first input's names are the ones kept" \
	    cmp -s "$TMP/kern.names" <(knames "$TMP/out.spl")
else
	skip "symbols that differ between merged inputs" "no kernel frames recorded here"
fi

# A JIT's perf map after sp-merge.
run $REC -q -o "$TMP/jit.spl" -- $W/jit 400
run $SYM --perf-maps all -o "$TMP/jit-sym.spl" "$TMP/jit.spl"
nj=$($DUMP "$TMP/jit-sym.spl" | grep -c 'jit_spin_loop$')
run $MERGE -q -o "$TMP/jit-m.spl" "$TMP/jit.spl"
run $SYM --perf-maps all -o "$TMP/jit-msym.spl" "$TMP/jit-m.spl"
check "sp-merge | sp-sym --perf-maps all names the JIT frames as before ($nj)" \
    test "$nj" -gt 0 -a "$($DUMP "$TMP/jit-msym.spl" | grep -c 'jit_spin_loop$')" -eq "$nj"
rm -f /tmp/perf-"$($DUMP --json "$TMP/jit.spl" | grep -o '"kind":"sample","thread":[0-9]*,"pid":[0-9]*' | head -1 | grep -o '[0-9]*$')".map

# --- every module that kept address-only frames is named, with why ---------
# accounted SPL OPTS...: "TOTAL LISTED": the address-only frames (not the
# markers) of sp-sym's first report line, and the sum over its module lines
# (": N of M frames address-only", ": N frames ...", ", N frames ...").
accounted() {
	$SYM "${@:2}" -o /dev/null "$1" 2>&1 | awk '
	NR == 1 { match($0, /[0-9]+ address-only \([0-9]+/); split(substr($0, RSTART, RLENGTH), a, /[ (]+/); total = a[1] - a[3] }
	NR > 1 && match($0, /[:,] [0-9]+( of [0-9]+)? frames address-only/) { split(substr($0, RSTART + 2), b, " "); listed += b[1] }
	END { print total + 0, listed + 0 }'
}
# A library stripped to its .dynsym: its static functions stay unnamed.
mkdir -p "$TMP/dyn"
cp $W/libtree.so "$TMP/dyn/libtree.so"
strip -s "$TMP/dyn/libtree.so"
run $REC -q -o "$TMP/dyn.spl" -- $W/dltree "$TMP/dyn/libtree.so" 400
run $SYM -o /dev/null "$TMP/dyn.spl"
check "a library with only .dynsym is named with its address-only frames and why" \
    grep -qE "^sp-sym: $PWD/$TMP/dyn/libtree.so \(build-id [0-9a-f]+\): [1-9][0-9]* of [1-9][0-9]* frames address-only: only .dynsym \(exported functions\): no .symtab, and no debug file found; looked at: $PWD/$TMP/dyn/libtree.so \(used\)" "$TMP/err"
check "... with where to put its debug file" \
    grep -q "^sp-sym:   hint: put its debug file at DIR/.build-id/" "$TMP/err"
read -r tot lst < <(accounted "$TMP/dyn.spl")
check "... and every address-only frame is in a module line ($lst of $tot)" \
    test "$tot" -gt 0 -a "$lst" -eq "$tot"
run $SYM --strict -q -o /dev/null "$TMP/dyn.spl"
check "--strict (with -q too) names the modules it fails for" test "$RC" -eq 1 -a \
    "${ERR#sp-sym: --strict: $tot frames stayed address-only: }" != "$ERR"
# Its own count: a run short of CPU also has [vdso] frames (dltree
# reads the clock) among the $tot.
check "... with their counts" grep -qE "$PWD/$TMP/dyn/libtree\.so \([1-9][0-9]*\)" <<<"$ERR"
# The system's C++ runtime (libstdc++, libgcc_s unwinding an exception),
# the kernel without kallsyms, the machine's python3.
run $REC -q -o "$TMP/except.spl" -- $W/except 400
read -r tot lst < <(accounted "$TMP/except.spl")
check "exceptions through the system's C++ runtime: every address-only frame listed ($lst of $tot)" \
    test "$lst" -eq "$tot"
if [ "${nk:-0}" -gt 0 ]; then
	read -r tot lst < <(accounted "$TMP/kern.spl" --kallsyms "$TMP/none.kallsyms")
	check "kernel frames without kallsyms: every address-only frame listed ($lst of $tot)" \
	    test "$tot" -ge "$nk" -a "$lst" -eq "$tot"
	run $SYM --kallsyms "$TMP/none.kallsyms" -o /dev/null "$TMP/kern.spl"
	check "... the kernel with its reason" \
	    has "sp-sym: [kernel.kallsyms]: $nk frames address-only: no kernel symbols: $TMP/none.kallsyms: addresses hidden (kptr_restrict)" "$ERR"
else
	skip "kernel frames without kallsyms in the report" "no kernel frames recorded here"
fi
if command -v python3 >/dev/null; then
	run $REC -q -o "$TMP/python.spl" -- python3 -c 'import json, time
t = time.time()
while time.time() - t < 0.5:
    json.dumps([{"a": i} for i in range(1000)])'
	read -r tot lst < <(accounted "$TMP/python.spl")
	check "python3: every address-only frame listed ($lst of $tot)" test "$lst" -eq "$tot"
else
	skip "python3 in the report" "python3 is not installed"
fi

# --- whose error: the output's, the input's, memory's ------------------------
mkdir -p "$TMP/adir"
for t in sp-sym sp-merge; do
	bin=$SYM && [ $t = sp-merge ] && bin=$MERGE
	run $bin -q -o "$TMP/adir" "$TMP/ref.spl"
	check "$t -o DIR: named as the output (exit 1)" test "$RC" -eq 1 -a \
	    "$ERR" = "$t: output $TMP/adir: Is a directory"
	if [ -w /dev/full ]; then
		run $bin -q -o /dev/full "$TMP/ref.spl"
		check "$t -o /dev/full: the write error is the output's" \
		    test "$RC" -eq 1 -a "$ERR" = "$t: output /dev/full: No space left on device"
	else
		skip "$t -o /dev/full" "no writable /dev/full here"
	fi
done

# sp-fold and sp-dump write through standard output: a write that fails
# is the output's, named as such, and an existing file stays as it was (a
# file size limit of 1 KiB, its signal ignored so write(2) says EFBIG;
# the outputs are longer, the message shorter).
for t in sp-fold sp-dump; do
	bin=$DUMP && [ $t = sp-fold ] && bin="$FOLD --speedscope"
	if [ -w /dev/full ]; then
		run $bin -o /dev/full "$TMP/ref.spl"
		check "$t -o /dev/full: the write error is the output's (exit 1)" \
		    test "$RC" -eq 1 -a "$ERR" = "$t: /dev/full: No space left on device"
	else
		skip "$t -o /dev/full" "no writable /dev/full here"
	fi
	echo precious >"$TMP/keep.txt"
	run sh -c "trap '' XFSZ; ulimit -f 1; exec $bin -o '$TMP/keep.txt' '$TMP/ref.spl'"
	check "$t -o FILE that cannot grow: the output named (exit 1)" \
	    test "$RC" -eq 1 -a "$ERR" = "$t: $TMP/keep.txt: File too large"
	check "... and FILE kept" test "$(cat "$TMP/keep.txt")" = precious
done

# An input whose read fails half-way (EIO): sp-eio.py serves standard
# input from /proc/self/mem up to an unmapped page.
cat >"$TMP/sp-eio.py" <<'PY'
# sp-eio.py SPOOL CUT CMD...: runs CMD with standard input reading the
# first CUT bytes of SPOOL and then failing with EIO, as /proc/self/mem
# does at an unmapped page.
import ctypes, mmap, os, subprocess, sys
data = open(sys.argv[1], "rb").read()[:int(sys.argv[2])]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
page = mmap.PAGESIZE
pages = (len(data) + page - 1) // page + 1
base = libc.mmap(None, pages * page, mmap.PROT_READ | mmap.PROT_WRITE,
                 mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
if base is None or base == ctypes.c_void_p(-1).value:
    sys.exit("mmap failed")
libc.munmap(base + (pages - 1) * page, page)
start = base + (pages - 1) * page - len(data)
ctypes.memmove(start, data, len(data))
fd = os.open("/proc/self/mem", os.O_RDONLY)
os.lseek(fd, start, os.SEEK_SET)
sys.exit(subprocess.call(sys.argv[3:], stdin=fd))
PY
eio_re='offset 0x[0-9a-f]+: (Input/output|I/O) error'
if command -v python3 >/dev/null; then
	rm -f "$TMP/out.spl"
	run python3 "$TMP/sp-eio.py" "$TMP/ref.spl" 10000 $SYM -q -o "$TMP/out.spl" -
	check "sp-sym: a read error half-way is the input's, at its offset (exit 1)" \
	    eval '[ "$RC" -eq 1 ] && grep -qxE "sp-sym: -: $eio_re" <<<"$ERR"'
	check "... and leaves no output file" test ! -e "$TMP/out.spl"
	run python3 "$TMP/sp-eio.py" "$TMP/ref.spl" 10000 $MERGE -q -o "$TMP/out.spl" -
	check "sp-merge: a read error half-way is the input's, at its offset (exit 1)" \
	    eval '[ "$RC" -eq 1 ] && grep -qxE "sp-merge: -: $eio_re" <<<"$ERR"'
	check "... and leaves no output file" test ! -e "$TMP/out.spl"
	# An existing output survives a run that fails half-way: the new
	# spool goes to a temporary that only a finished run renames.
	for t in sp-sym sp-merge; do
		bin=$SYM; [ $t = sp-merge ] && bin=$MERGE
		printf 'precious\n' >"$TMP/keep.spl"
		run python3 "$TMP/sp-eio.py" "$TMP/ref.spl" 10000 $bin -q -o "$TMP/keep.spl" -
		check "$t: a failure half-way exits 1" test "$RC" -eq 1
		check "... and leaves an existing output as it was" \
		    test "$(cat "$TMP/keep.spl")" = precious
		check "... and no temporary beside it" \
		    test -z "$(find "$TMP" -maxdepth 1 -name '.keep.spl.*')"
	done
	run $SYM -q -o "$TMP/keep.spl" "$TMP/ref.spl"
	check "sp-sym: a finished run replaces the output" \
	    test "$RC" -eq 0 -a "$(head -c 4 "$TMP/keep.spl")" != prec
else
	skip "sp-sym, sp-merge: an input read error" "python3 is not installed"
fi

# Out of memory (ulimit -v) is said as such, not charged to a file.  The
# ASan build reserves terabytes of address space: not under it.
if [ "${SYM#build/asan}" = "$SYM" ]; then
	run $REC -q -o "$TMP/tree.spl" -- $W/tree-O2 300
	rm -f "$TMP/out.spl"
	run bash -c "ulimit -v 6000; exec $SYM -q -o '$TMP/out.spl' '$TMP/tree.spl'"
	check "sp-sym: out of memory is said as such (exit 1)" \
	    test "$RC" -eq 1 -a "$ERR" = "sp-sym: out of memory"
	check "... and leaves no output file" test ! -e "$TMP/out.spl"
	# sp-fold under limits from too little to start to enough: where
	# it runs out (opening, counting, writing), it says so and names
	# no file.
	nomem=0 blamed=""
	for kib in $(seq 300 25 2000); do
		run bash -c "ulimit -v $kib; exec $FOLD -o '$TMP/fold.txt' '$TMP/tree.spl'"
		[ "$RC" -eq 1 ] || continue
		nomem=$((nomem + 1))
		[ "$ERR" = "sp-fold: out of memory" ] || blamed="$blamed ${kib}KiB: $ERR;"
	done
	check "sp-fold: some limit ran it out of memory ($nomem)" test "$nomem" -gt 0
	ERR=$blamed	# what a failure shows
	check "... each said as such, charged to no file" test -z "$blamed"
else
	skip "sp-sym, sp-fold out of memory" "ulimit -v does not work under ASan"
fi
done_testing
