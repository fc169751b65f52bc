#!/usr/bin/env bash
# Every reader tool over every malformed spool of tests/bad and every
# spool of the fuzz corpora: sp-dump --check, sp-sym, sp-fold and sp-merge
# each reject a bad file with "TOOL: FILE: offset 0xN: REASON" (the
# .expect text for tests/bad) and exit 1, never crash, hang or trip a
# sanitizer; a file that sp-dump accepts, every tool accepts.  tests/run.sh
# runs it again with the ASan+UBSan builds (DUMP, SYM, FOLD, MERGE).
. "$(dirname "$0")/../lib.bash"
# asan: DUMP=build/asan/sp-dump/sp-dump SYM=build/asan/sp-sym/sp-sym FOLD=build/asan/sp-fold/sp-fold MERGE=build/asan/sp-merge/sp-merge
# A sanitizer report must not pass for an ordinary exit 1.
export ASAN_OPTIONS=exitcode=99:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1
LIMIT=60	# seconds per run: only a hang gets near it
empty=$TMP/empty
mkdir -p "$empty"
: >"$TMP/kallsyms"

# tool NAME FILE: runs one reader on FILE; RC, ERR as run() sets them.
tool() {
	case $1 in
	sp-dump) run timeout $LIMIT $DUMP --check "$2" ;;
	sp-sym) run timeout $LIMIT $SYM -q --sysroot "$empty" --debug-dir "$empty" \
	    --perf-map-dir "$empty" --kallsyms "$TMP/kallsyms" \
	    -o "$TMP/sym.spl" "$2" ;;
	sp-fold) run timeout $LIMIT $FOLD -o "$TMP/fold.txt" "$2" ;;
	sp-merge) run timeout $LIMIT $MERGE -q -o "$TMP/merge.spl" "$2" ;;
	esac
}

# A crash, a hang or a sanitizer report, whatever the file.
broken() {
	[ "$RC" -ne 0 ] && [ "$RC" -ne 1 ] && return 0
	grep -qE 'Sanitizer|runtime error|LeakSanitizer' <<<"$ERR"
}

# Spool inputs of the fuzz corpora; tail/ and fold/ start with a byte of
# options, the spool follows it.
corpus=$TMP/corpus
rm -rf "$corpus" && mkdir -p "$corpus"
for d in snapshot replay sym; do
	for f in fuzz/corpus/$d/*; do cp "$f" "$corpus/$d-${f##*/}"; done
done
for d in tail fold; do
	for f in fuzz/corpus/$d/*; do tail -c +2 "$f" >"$corpus/$d-${f##*/}"; done
done
build/glibc/mkspool ref "$corpus/mk-ref.spl" 50
build/glibc/mkspool cut "$corpus/mk-cut.spl" 50

tools="sp-dump sp-sym sp-fold sp-merge"
nbad=0
for f in tests/bad/*.spl; do
	want=$(cat "${f%.spl}.expect")
	for t in $tools; do
		tool $t "$f"
		if [ "$RC" -eq 1 ] && [ "$ERR" = "$t: $f: $want" ]; then
			nbad=$((nbad + 1))
		else
			fail "$t rejects $f" "rc=$RC" "got: ${ERR:0:400}" \
			    "want: $t: $f: $want"
		fi
	done
done
nfiles=$(ls tests/bad/*.spl | wc -l)
check "each of 4 tools rejects all $nfiles files of tests/bad as expected" \
    test "$nbad" -eq $((4 * nfiles)) -a "$nfiles" -ge 50

good=0 rejected=0 odd=0
for f in "$corpus"/*; do
	tool sp-dump "$f"
	dump_rc=$RC
	if broken; then
		fail "sp-dump on $f" "rc=$RC" "${ERR:0:600}"
		odd=$((odd + 1))
		continue
	fi
	[ "$dump_rc" -eq 0 ] && good=$((good + 1)) || rejected=$((rejected + 1))
	for t in sp-sym sp-fold sp-merge; do
		tool $t "$f"
		if broken; then
			fail "$t on $f: crash, hang or sanitizer" "rc=$RC" \
			    "${ERR:0:600}"
			odd=$((odd + 1))
		elif [ "$RC" -ne "$dump_rc" ]; then
			fail "$t and sp-dump disagree on $f" "sp-dump rc=$dump_rc" \
			    "$t rc=$RC: ${ERR:0:300}"
			odd=$((odd + 1))
		elif [ "$RC" -eq 1 ] && ! grep -q "^$t: $f: " <<<"$ERR"; then
			fail "$t names $f when it rejects it" "${ERR:0:300}"
			odd=$((odd + 1))
		elif [ $t = sp-sym ] && [ "$RC" -eq 0 ] &&
		    ! $DUMP --check "$TMP/sym.spl" >/dev/null 2>&1; then
			fail "sp-sym's output of $f reads back" \
			    "$($DUMP --check "$TMP/sym.spl" 2>&1)"
			odd=$((odd + 1))
		fi
	done
done
check "corpus spools: all 4 tools agree ($good accepted, $rejected rejected)" \
    test "$odd" -eq 0 -a "$good" -ge 10
done_testing
