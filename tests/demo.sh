#!/usr/bin/env bash
# ninja demo: the whole pipeline on the bundled workload
# (tests/workloads/tree.c, a known call tree: work_a 60 %, work_b 40 %):
# record -> symbolize -> fold -> flame graph.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/demo
B=build/bin
mkdir -p "$out"
echo "== sp-record -o $out/demo.spl -- build/tests/tree 2000"
$B/sp-record -o "$out/demo.spl" -- build/tests/tree 2000
echo
echo "== sp-sym $out/demo.spl -o $out/demo-sym.spl"
$B/sp-sym "$out/demo.spl" -o "$out/demo-sym.spl"
echo
echo "== sp-fold $out/demo-sym.spl > $out/demo.folded"
$B/sp-fold "$out/demo-sym.spl" >"$out/demo.folded"
echo
echo "== sp-flame --title 'stackpulse demo: tree' < $out/demo.folded > $out/demo.svg"
$B/sp-flame --title "stackpulse demo: tree" <"$out/demo.folded" >"$out/demo.svg"
echo
echo "== the 10 most frequent stacks (samples, then the stack from its root)"
awk '{ c = $NF; sub(/ [0-9]+$/, ""); printf "%7d  %s\n", c, $0 }' "$out/demo.folded" |
    sort -rn | head -10
echo
echo "Flame graph: $out/demo.svg (open it in a browser: hover, click to zoom, search)."
echo "Spools: $out/demo.spl (raw), $out/demo-sym.spl (symbolized); sp-dump shows either."
