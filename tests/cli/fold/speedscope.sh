#!/usr/bin/env bash
# sp-fold --speedscope: a timeline in speedscope's file format.  The output
# is checked against speedscope's own JSON schema (the npm package's copy),
# against sp-fold's folded stacks (the same stacks and counts, one profile
# per thread), for time order (a workload that goes 10 frames deep, then
# 60), and loaded in speedscope itself in headless Chromium.
# asan: FOLD=build/asan/sp-fold/sp-fold NO_BROWSER=1
. "$(dirname "$0")/../lib.bash"
FOLD=${FOLD:-$BIN/sp-fold} REC=$BIN/sp-record SYM=$BIN/sp-sym W=build/tests

if ! $REC -q -o "$TMP/th.spl" -- $W/threads-O2 >/dev/null 2>&1 ||
    ! $REC -q -o "$TMP/deep.spl" -- $W/recurse 10 400c 60 400c >/dev/null 2>&1; then
	skip "speedscope" "sp-record could not record here"
	done_testing
	exit 0
fi
$SYM -q -o "$TMP/th.sym.spl" "$TMP/th.spl"
$SYM -q -o "$TMP/deep.sym.spl" "$TMP/deep.spl"

run "$FOLD" --speedscope -o "$TMP/th.json" "$TMP/th.sym.spl"
check "--speedscope: exit 0" test "$RC" -eq 0
threads=$($FOLD --per-thread "$TMP/th.sym.spl" | sed 's/;.*//' | sort -u | wc -l)

# The same stacks and counts as the folded output, a profile a thread,
# each sample weighing the period (1 kHz: 1,000,000 ns).
python3 - "$TMP/th.json" "$threads" >"$TMP/th.check" <<'EOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
frames = [f["name"] for f in d["shared"]["frames"]]
c = collections.Counter()
bad = []
for p in d["profiles"]:
    if len(p["samples"]) != len(p["weights"]):
        bad.append("lengths " + p["name"])
    if any(w != 1000000 for w in p["weights"]):
        bad.append("weights " + p["name"])
    if not (0 <= p["startValue"] <= p["endValue"]) or p["unit"] != "nanoseconds":
        bad.append("range " + p["name"])
    for s in p["samples"]:
        if any(i < 0 or i >= len(frames) for i in s):
            bad.append("index " + p["name"])
        c[";".join(frames[i] for i in s)] += 1
print("profiles", len(d["profiles"]), "threads", sys.argv[2])
print("bad", " ".join(bad[:3]) or "none")
for k in sorted(c):
    print("line", k, c[k])
EOF
check "one profile per thread sampled ($(head -1 "$TMP/th.check"))" \
    awk 'NR == 1 { exit !($2 == $4 && $2 > 1) }' "$TMP/th.check"
check "samples and weights agree, the period as weight, indices in range ($(sed -n 2p "$TMP/th.check"))" \
    grep -qx "bad none" "$TMP/th.check"
sed -n 's/^line //p' "$TMP/th.check" | LC_ALL=C sort >"$TMP/th.from-json"
$FOLD "$TMP/th.sym.spl" | LC_ALL=C sort >"$TMP/th.folded"
check "its stacks, root first, and counts are sp-fold's ($(wc -l <"$TMP/th.folded") stacks)" \
    cmp -s "$TMP/th.from-json" "$TMP/th.folded"

# Time order: the samples in the order taken.
$FOLD --speedscope "$TMP/deep.sym.spl" >"$TMP/deep.json"
order=$(python3 - "$TMP/deep.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["profiles"][0]["samples"]
n = len(p) // 3
first = sum(len(s) for s in p[:n]) / max(n, 1)
last = sum(len(s) for s in p[-n:]) / max(n, 1)
print("%d %.0f %.0f" % (len(p), first, last))
EOF
)
check "time order: the first third of the samples 10 deep, the last 60 ($order: samples, mean depths)" \
    awk '{ exit !($1 > 300 && $3 - $2 > 40 && $2 < 30) }' <<<"$order"

# speedscope's own schema, where jsonschema is there.
schema=$(speedscope_schema)
if [ -z "$schema" ]; then
	skip "schema" "speedscope is not in build/node_modules and npm could not install it"
elif ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "schema" "python3's jsonschema is not installed (apt-get install python3-jsonschema)"
else
	run python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	    "$schema" "$TMP/th.json"
	check "valid by speedscope's file-format-schema.json" test "$RC" -eq 0
fi

run "$FOLD" --speedscope --pprof "$TMP/th.sym.spl"
check "--speedscope --pprof: exit 2, said" \
    test "$RC" -eq 2 -a -n "$(grep -F 'exclude each other' <<<"$ERR")"
run "$FOLD" --speedscope --per-thread "$TMP/th.sym.spl"
check "--speedscope --per-thread: exit 2, said" \
    test "$RC" -eq 2 -a -n "$(grep -F 'profile per thread' <<<"$ERR")"
run "$FOLD" --speedscope --tid 1 "$TMP/th.sym.spl"
check "no sample left: still a file speedscope reads (no profile)" \
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(d["profiles"] != [])' "$OUT"

# --- Chrome's trace event format ---------------------------------------------
run "$FOLD" --chrome-trace -o "$TMP/th.trace.json" "$TMP/th.sym.spl"
check "--chrome-trace: exit 0" test "$RC" -eq 0
# Read as a viewer reads it, in file order: each span nests in the one
# open before it or starts after that one ends; per thread, the spans at
# the root last at least as long as its samples (a period each, 1 ms; 5 %
# off for the clock's jitter, and 4 standard deviations of the samples
# the jittered sampling drops at random, up to a fifth of the kernel's:
# a thread of 176 samples had spans of 162 ms), and at most twice that:
# spans stay open
# over a gap of up to a period between two samples, which a loaded
# machine makes (cpu-clock samples CPU time, the trace is wall time).
samples_by_tid=$($FOLD --per-thread "$TMP/th.sym.spl" |
    awk '{ split($1, r, ";"); n = split(r[1], p, "/"); c[p[n]] += $NF }
    END { for (t in c) print t, c[t] }' | sort)
python3 - "$TMP/th.trace.json" "$samples_by_tid" >"$TMP/trace.check" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(l.split() for l in sys.argv[2].splitlines())
ev = d["traceEvents"]
names = {str(e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M"}
tracks, bad = {}, 0
for e in ev:
    if e["ph"] != "X":
        continue
    st = tracks.setdefault(str(e["tid"]), {"open": [], "root": 0})
    if e["dur"] <= 0 or e["ts"] < 0:
        bad += 1
    while st["open"] and st["open"][-1] <= e["ts"]:
        st["open"].pop()
    if st["open"] and e["ts"] + e["dur"] > st["open"][-1]:
        bad += 1
    if not st["open"]:
        st["root"] += e["dur"]
    st["open"].append(e["ts"] + e["dur"])
def outside(ms, n):
    return ms < 0.95 * n - 4 * (0.25 * n) ** 0.5 - 2 or ms > 2 * n + 2
off = [t for t in tracks if outside(tracks[t]["root"] / 1000, int(want.get(t, 0)))]
print("tracks", len(tracks), "names", len(names), "threads", len(want))
print("bad", bad, "off", " ".join("%s:%d/%s" % (t, tracks[t]["root"] // 1000,
      want.get(t)) for t in off[:3]) or "none")
EOF2
check "a track per thread, named ($(head -1 "$TMP/trace.check"))" \
    awk 'NR == 1 { exit !($2 == $6 && $4 == $6 && $2 > 1) }' "$TMP/trace.check"
check "spans nest in file order, root spans last as long as each thread's samples, gaps within a period kept ($(sed -n 2p "$TMP/trace.check"))" \
    grep -qx "bad 0 off none" "$TMP/trace.check"
run "$FOLD" --chrome-trace --speedscope "$TMP/th.sym.spl"
check "--chrome-trace --speedscope: exit 2, said" \
    test "$RC" -eq 2 -a -n "$(grep -F 'exclude each other' <<<"$ERR")"

# --- perf script's text (issue 29 §4) ------------------------------------------
# Read back as stackcollapse-perf.pl and speedscope's importer read it:
# events split at empty lines, a header "comm pid/tid time: period
# event:", frames "address function (module)" leaf first.  Folded root
# first, kernel frames marked _[k] (as stackcollapse-perf.pl --kernel
# does), the stacks and their counts are sp-fold's own.
run "$FOLD" --perf-script -o "$TMP/th.perf.txt" "$TMP/th.sym.spl"
check "--perf-script: exit 0" test "$RC" -eq 0
"$FOLD" "$TMP/th.sym.spl" | LC_ALL=C sort >"$TMP/th.want"
python3 - "$TMP/th.perf.txt" >"$TMP/th.back" <<'EOF2'
import re, sys, collections
folded, events, bad = collections.Counter(), 0, 0
for raw in open(sys.argv[1], encoding="utf-8").read().split("\n\n"):
    lines = [l for l in raw.split("\n") if l]
    if not lines:
        continue
    if not re.match(r"^(\S.+?)\s+(\d+)/(\d+)\s+\d+\.\d{6}: \d+ \S+:$", lines[0]):
        bad += 1
        continue
    frames = []
    for l in lines[1:]:
        m = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)$", l)
        if not m:
            bad += 1
            break
        frames.append(m.group(2) + ("_[k]" if m.group(3) == "[kernel.kallsyms]" else ""))
    events += 1
    folded[";".join(reversed(frames))] += 1
for k in sorted(folded):
    print(k, folded[k])
print("events", events, "bad", bad, file=sys.stderr)
EOF2
LC_ALL=C sort -o "$TMP/th.back" "$TMP/th.back"
check "--perf-script read back and folded is sp-fold's fold ($(wc -l <"$TMP/th.back") stacks)" \
    cmp -s "$TMP/th.want" "$TMP/th.back"
check "--perf-script: a header line per sample ($(grep -c ' cpu-clock:$\| cycles:$' "$TMP/th.perf.txt") of $($FOLD "$TMP/th.sym.spl" | awk '{ n += $NF } END { print n }'))" \
    test "$(grep -c ' cpu-clock:$\| cycles:$' "$TMP/th.perf.txt")" -eq \
    "$($FOLD "$TMP/th.sym.spl" | awk '{ n += $NF } END { print n }')"

# In speedscope itself.
PW=$PWD/build/node_modules/playwright-core
if [ -n "${NO_BROWSER:-}" ]; then
	skip "speedscope in a browser" "NO_BROWSER is set (the ASan run of this script)"
elif ! need chromium chromium; then
	skip "speedscope in a browser" "chromium is not installed and could not be (apt-get install chromium)"
elif ! command -v node >/dev/null; then
	skip "speedscope in a browser" "node is not installed (apt-get install nodejs npm)"
elif [ ! -d "$PW" ] && ! { command -v npm >/dev/null &&
    (flock 9 && timeout 120 npm install --prefix build --no-audit \
    --no-fund playwright-core >"$TMP/npm.log" 2>&1) 9>build/.npm.lock; }; then
	skip "speedscope in a browser" "playwright-core is not in build/node_modules and npm could not install it"
elif [ ! -s "$schema" ]; then
	skip "speedscope in a browser" "speedscope is not in build/node_modules and npm could not install it"
else
	first=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["profiles"][0]["name"])' "$TMP/th.json")
	timeout 90 node tests/cli/fold/speedscope-browser.js "$PW" \
	    "$PWD/${schema%/*}/index.html" "$PWD/$TMP/th.json" th.sym.spl \
	    "$first" "$threads" "$PWD/$TMP" || echo "(browser check exit status $?)"
	echo "screenshot: $TMP/speedscope.png"
	# speedscope reads Chrome's trace format too: a profile a track,
	# named after the thread.
	mkdir -p "$TMP/chrome"
	first=$(python3 -c 'import json, sys
print([e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "M"][0]["args"]["name"])' "$TMP/th.trace.json")
	timeout 90 node tests/cli/fold/speedscope-browser.js "$PW" \
	    "$PWD/${schema%/*}/index.html" "$PWD/$TMP/th.trace.json" \
	    th.trace.json "$first" "$threads" "$PWD/$TMP/chrome" |
	    sed 's/^\(PASS\|FAIL\) speedscope:/\1 speedscope, --chrome-trace:/'
	echo "screenshot: $TMP/chrome/speedscope.png"
	# And perf script's text, as speedscope's Linux perf importer reads
	# it: a profile per comm, pid and tid.
	mkdir -p "$TMP/perfscript"
	IFS=$'\t' read -r first nperf < <(python3 -c 'import re, sys
seen = []
for l in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"^(\S.+?)\s+(\d+)/(\d+)\s", l)
    if m and m.groups() not in seen:
        seen.append(m.groups())
print("%s pid: %s tid: %s\t%d" % (seen[0] + (len(seen),)))' "$TMP/th.perf.txt")
	timeout 90 node tests/cli/fold/speedscope-browser.js "$PW" \
	    "$PWD/${schema%/*}/index.html" "$PWD/$TMP/th.perf.txt" \
	    th.perf.txt "$first" "$nperf" "$PWD/$TMP/perfscript" |
	    sed 's/^\(PASS\|FAIL\) speedscope:/\1 speedscope, --perf-script:/'
	echo "screenshot: $TMP/perfscript/speedscope.png"
fi
done_testing
