#!/usr/bin/env bash
# Runs every test suite and ends with one line "N passed, N failed".
#   unit (glibc) and unit (ASan+UBSan)   Criterion, counted per test
#   regress-*                            each fuzz corpus + tests/bad under ASan
#   cli/*.sh                             the tools, as a user runs them
# Logs go to build/test-logs/.  Run from the source top (ninja test does).
set -u
cd "$(dirname "$0")/.." || exit 1
logs=build/test-logs
rm -rf "$logs" build/test-tmp
mkdir -p "$logs" build/test-tmp
pass=0
fail=0

count() {	# suite passed failed
	printf '%-28s %4d passed, %d failed\n' "$1" "$2" "$3"
	pass=$((pass + $2))
	fail=$((fail + $3))
}

criterion() {	# name binary
	local tap=$logs/$1.tap p f rc
	"$2" --tap="$tap" --jobs=2 >"$logs/$1.out" 2>&1
	rc=$?
	p=$(grep -c '^ok ' "$tap" 2>/dev/null)
	f=$(grep -c '^not ok ' "$tap" 2>/dev/null)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed outside any test
		echo "$1: exit status $rc; see $logs/$1.out"
	fi
	grep -A3 '^not ok ' "$tap" 2>/dev/null | head -40
	count "$1" "$p" "$f"
}

regress() {	# target dirs...
	local t=$1
	shift
	if build/asan/regress-"$t" "$@" >"$logs/regress-$t.out" 2>&1; then
		count "regress-$t ($(grep -o '[0-9]* files' "$logs/regress-$t.out"))" 1 0
	else
		tail -20 "$logs/regress-$t.out"
		count "regress-$t" 0 1
	fi
}

cli() {		# script [name] (further environment comes from the caller)
	local name out p f
	name=${2:-$(basename "$1" .sh)}
	out=$logs/cli-$name.out
	bash "$1" >"$out" 2>&1
	p=$(grep -c '^PASS' "$out")
	f=$(grep -c '^FAIL' "$out")
	if ! tail -1 "$out" | grep -q '^DONE'; then
		f=$((f + 1))	# the script died before its end
		echo "cli/$name: did not finish; see $out"
	fi
	grep -A5 '^FAIL' "$out" | head -40
	count "cli/$name" "$p" "$f"
}

criterion unit build/glibc/unit
ASAN_OPTIONS=detect_leaks=1 criterion unit-asan build/asan/unit
for t in snapshot replay tail roundtrip; do
	regress "$t" "fuzz/corpus/$t" tests/bad
done
regress cfi fuzz/corpus/cfi
regress unwind fuzz/corpus/unwind
regress elfsym fuzz/corpus/elfsym
regress perfmap fuzz/corpus/perfmap
regress kallsyms fuzz/corpus/kallsyms
regress dwline fuzz/corpus/dwline
regress dwinfo fuzz/corpus/dwinfo
regress fold fuzz/corpus/fold
regress flame fuzz/corpus/flame
regress merge fuzz/corpus/merge
regress sym fuzz/corpus/sym tests/bad
for s in tests/cli/*.sh; do
	cli "$s"
done
# The recorder once more, built with ASan+UBSan.
RECORD=build/asan/sp-record/sp-record cli tests/cli/record.sh record-asan
# sp-sym once more, built with ASan+UBSan.
SYM=build/asan/sp-sym/sp-sym cli tests/cli/sym.sh sym-asan
# sp-fold once more, built with ASan+UBSan.
FOLD=build/asan/sp-fold/sp-fold cli tests/cli/fold.sh fold-asan
# sp-flame once more, built with ASan+UBSan (the browser part once is enough).
FLAME=build/asan/sp-flame/sp-flame NO_BROWSER=1 cli tests/cli/flame.sh flame-asan
# sp-merge once more, built with ASan+UBSan.
MERGE=build/asan/sp-merge/sp-merge cli tests/cli/merge.sh merge-asan
# The readers over tests/bad and the corpora once more under ASan+UBSan.
DUMP=build/asan/sp-dump/sp-dump SYM=build/asan/sp-sym/sp-sym \
    FOLD=build/asan/sp-fold/sp-fold MERGE=build/asan/sp-merge/sp-merge \
    cli tests/cli/bad.sh bad-asan
# sp-sym on hostile ELF and DWARF once more under ASan+UBSan.
SYM=build/asan/sp-sym/sp-sym cli tests/cli/hostile.sh hostile-asan
# The path tests once more with the recorder and sp-sym under ASan+UBSan.
RECORD=build/asan/sp-record/sp-record SYM=build/asan/sp-sym/sp-sym \
    cli tests/cli/paths.sh paths-asan
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
