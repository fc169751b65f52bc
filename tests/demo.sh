#!/usr/bin/env bash
# ninja demo: record the bundled workload (tests/workloads/tree.c, a known
# call tree: work_a 60 %, work_b 40 %) and show what was recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"
echo "== sp-record -o $out/demo.spl -- build/tests/tree 2000"
build/bin/sp-record -o "$out/demo.spl" -- build/tests/tree 2000
echo
echo "== sp-dump --stats $out/demo.spl"
build/bin/sp-dump --stats "$out/demo.spl"
echo
echo "== the 10 most frequent stacks (leaf first; names come with sp-sym)"
build/bin/sp-dump --json "$out/demo.spl" | grep '"kind":"sample"' |
    sed 's/.*"frames":\[\(.*\)\]}$/\1/' | sort | uniq -c | sort -rn | head -10
echo
echo "The spool is $out/demo.spl; sp-dump $out/demo.spl shows every sample."
