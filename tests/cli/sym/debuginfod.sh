#!/usr/bin/env bash
# sp-sym and debuginfod (issue 14, item 9): a stripped binary recorded
# here, its debug file served by elfutils' debuginfod (Debian package
# debuginfod, installed when absent) on the loopback; the cache that
# elfutils' client shares; a server that is down, one that lies, https.
. "$(dirname "$0")/../lib.bash"
# asan: SYM=build/asan/sp-sym/sp-sym

# status PORT PATH: the HTTP status of GET PATH on the loopback, or 000.
status() {
	local line=000
	if exec 9<>"/dev/tcp/127.0.0.1/$1" 2>/dev/null; then
		printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&9
		read -r -t 5 _ line _ <&9 || line=000
		exec 9>&-
	fi
	echo "$line"
}

# free_port: a TCP port nothing listens on.
free_port() {
	local p
	for p in $(seq $((20000 + $$ % 20000)) $((20100 + $$ % 20000))); do
		[ "$(status "$p" /)" = 000 ] && { echo "$p"; return; }
	done
}

# under_work_a SPL: samples in a callee of a work_a frame that has its name.
under_work_a() { fold_count <($FOLD "$1") '(^|;)work_a;'; }

if ! need debuginfod debuginfod; then
	skip "debuginfod" "debuginfod is absent and could not be installed (see $TMP/apt.log)"
	done_testing
	exit 0
fi

# A stripped binary (no .symtab, no DWARF) and its debug file, served.
mkdir -p "$TMP/srv"
rm -rf "$TMP/cache" "$TMP/db.sqlite"*
run gcc -O2 -g -o "$TMP/tree" tests/workloads/tree.c
check "a -g build of tree (exit $RC)" test "$RC" -eq 0
objcopy --only-keep-debug "$TMP/tree" "$TMP/srv/tree.debug"
strip --strip-all "$TMP/tree"
id=$(readelf -n "$TMP/tree" | awk '/Build ID/ { print $3 }')
check "stripped, with a build-id ($id)" test -n "$id" -a -z "$(readelf -S "$TMP/tree" | grep -E '\.symtab|\.debug_info')"
run $REC -q -o "$TMP/tree.spl" -- "$TMP/tree" 300
check "recorded (exit $RC)" test "$RC" -eq 0

run env -u DEBUGINFOD_URLS $SYM -o "$TMP/none.spl" "$TMP/tree.spl"
check "without a server: the workload's frames have no names ($(under_work_a "$TMP/none.spl"))" \
    test "$(under_work_a "$TMP/none.spl")" -eq 0
check "and the hint names --debuginfod" has "(--debuginfod URL)" "$ERR"

port=$(free_port)
debuginfod -F -p "$port" -d "$TMP/db.sqlite" "$TMP/srv" >"$TMP/server.log" 2>&1 &
server=$!
for i in $(seq 60); do
	[ "$(status "$port" "/buildid/$id/debuginfo")" = 200 ] && break
	sleep 0.5
done
check "debuginfod serves the debug file on port $port" \
    test "$(status "$port" "/buildid/$id/debuginfo")" = 200
url=http://127.0.0.1:$port

export DEBUGINFOD_CACHE_PATH=$TMP/cache
run env DEBUGINFOD_URLS="$url" $SYM -o "$TMP/s.spl" "$TMP/tree.spl"
check "DEBUGINFOD_URLS: sp-sym exits 0" test "$RC" -eq 0
n=$(under_work_a "$TMP/s.spl")
s=$(counter "$TMP/tree.spl" samples)
check "the workload's frames are named ($n of $s samples under work_a)" test "$n" -gt 0
check "with lines of its source" \
    test "$($DUMP --json "$TMP/s.spl" | grep '"name":"work_a"' | grep -c '"file":"[^"]*tree\.c"')" -ge 1
check "the report counts the file and the bytes" has "1 debug files from debuginfod" "$ERR"
check "and has a line for the file: fetched, how much, from where" \
    grep -qE "^sp-sym: debuginfod: .*/tree \(build-id $id\): fetched [0-9.]+ KiB from $url$" "$TMP/err"
check "kept where elfutils' client keeps it ($TMP/cache/$id/debuginfo)" \
    cmp -s "$TMP/cache/$id/debuginfo" "$TMP/srv/tree.debug"
# One it does not have: the miss is marked (an empty file, as elfutils'
# client does) and not asked again for 10 minutes.
run gcc -O1 -o "$TMP/other" tests/workloads/tree.c
strip --strip-all "$TMP/other"
oid=$(readelf -n "$TMP/other" | awk '/Build ID/ { print $3 }')
run $REC -q -o "$TMP/other.spl" -- "$TMP/other" 100
run env DEBUGINFOD_URLS="$url" $SYM -o /dev/null "$TMP/other.spl"
check "a build-id the server lacks: the report says 404" has "$url: not there (404)" "$ERR"
check "and the miss is marked ($TMP/cache/$oid/debuginfo, empty)" \
    test -f "$TMP/cache/$oid/debuginfo" -a ! -s "$TMP/cache/$oid/debuginfo"
run env DEBUGINFOD_URLS="$url" $SYM -o /dev/null "$TMP/other.spl"
check "the next run does not ask again" has "a recent miss" "$ERR"
check "no partial file is left" test -z "$(find "$TMP/cache" -name '.debuginfo.*')"

rm -rf "$TMP/cache"
run env -u DEBUGINFOD_URLS $SYM --debuginfod "$url" -o "$TMP/o.spl" "$TMP/tree.spl"
check "--debuginfod URL does the same ($(under_work_a "$TMP/o.spl"))" test "$(under_work_a "$TMP/o.spl")" -eq "$n"
run env DEBUGINFOD_URLS="$url" $SYM --no-debuginfod -o "$TMP/no.spl" "$TMP/tree.spl"
check "--no-debuginfod asks none, whatever DEBUGINFOD_URLS says" test "$(under_work_a "$TMP/no.spl")" -eq 0

kill "$server"
wait "$server" 2>/dev/null
run env DEBUGINFOD_URLS="$url" $SYM -o "$TMP/c.spl" "$TMP/tree.spl"
check "the server gone, the cache serves ($(under_work_a "$TMP/c.spl"))" test "$(under_work_a "$TMP/c.spl")" -eq "$n"
check "and nothing was fetched" has "0.0 KiB fetched now" "$ERR"
check "the file's line says the cache" has "(build-id $id): in the cache ($TMP/cache/$id/debuginfo)" "$ERR"

rm -rf "$TMP/cache"
run env DEBUGINFOD_URLS="$url" $SYM -o "$TMP/d.spl" "$TMP/tree.spl"
check "no cache, no server: exit 0" test "$RC" -eq 0
check "the frames stay address-only" test "$(under_work_a "$TMP/d.spl")" -eq 0
check "the report says what the server did" has "$url: Connection refused" "$ERR"

# https: stackpulse has no TLS; elfutils' debuginfod-find does it when on
# the PATH, else the report says so.
run env DEBUGINFOD_URLS="https://127.0.0.1:$port" PATH=/nonexistent $SYM -o /dev/null "$TMP/tree.spl"
check "https without debuginfod-find: exit 0" test "$RC" -eq 0
check "and the report says what it needs" has "https needs elfutils' debuginfod-find" "$ERR"
# With it, a server that cannot be reached is said as debuginfod-find
# says it (it said "found none", its stderr dropped).
if command -v debuginfod-find >/dev/null; then
	rm -rf "$TMP/cache"
	run env DEBUGINFOD_URLS="https://127.0.0.1:$(free_port)" $SYM -o /dev/null "$TMP/tree.spl"
	check "https through debuginfod-find: exit 0" test "$RC" -eq 0
	check "its reason is in the report (Connection refused)" \
	    has "debuginfod-find found none: Server query failed: Connection refused" "$ERR"
else
	skip "https through debuginfod-find" "debuginfod-find is not installed (Debian package debuginfod)"
fi

# A server that sends another file under the build-id: not taken.
if command -v python3 >/dev/null; then
	mkdir -p "$TMP/liar/buildid/$id"
	cp build/tests/syms.debug "$TMP/liar/buildid/$id/debuginfo"
	lport=$(free_port)
	python3 -m http.server --bind 127.0.0.1 --directory "$TMP/liar" "$lport" \
	    >"$TMP/liar.log" 2>&1 &
	liar=$!
	for i in $(seq 40); do
		[ "$(status "$lport" "/buildid/$id/debuginfo")" = 200 ] && break
		sleep 0.25
	done
	rm -rf "$TMP/cache"
	run env DEBUGINFOD_URLS="http://127.0.0.1:$lport" $SYM -o "$TMP/l.spl" "$TMP/tree.spl"
	check "a file with another build-id is not taken ($(under_work_a "$TMP/l.spl"))" \
	    test "$RC" -eq 0 -a "$(under_work_a "$TMP/l.spl")" -eq 0
	check "the report says so" has "not an ELF file with build-id $id" "$ERR"
	check "nor kept" test ! -e "$TMP/cache/$id/debuginfo" -a -z "$(find "$TMP/cache" -name '.debuginfo.*')"
	kill "$liar"
	wait "$liar" 2>/dev/null
else
	skip "a lying server" "no python3 for its http.server"
fi
done_testing
