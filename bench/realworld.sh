#!/usr/bin/env bash
# bench/realworld.sh: how whole and how named the stacks of real
# toolchains' programs are, sp-record next to perf (issue 14).
#
# A benchmark, not a test: it prints measurements and never fails on them.
# Each workload is built here (into a scratch folder, never into the tree)
# and run for about CPU_MS of CPU time under
#   sp-record -F RATE -o X.spl -- CMD;  sp-sym X.spl | sp-fold
#   perf record -F RATE -g --call-graph dwarf,8192 -e cpu-clock -- CMD;
#       perf script -F comm,pid,tid,ip,sym,dso | (the fold below)
# sp first, then perf, workload after workload, REPS rounds.  Per workload
# and tool, the medians over the rounds of: samples, complete-stack share,
# unnamed-frame share, bytes per sample (spool or perf.data size over
# samples); then the five most frequent leaves over all rounds.
#
# Both tools' stacks are judged from their folded form (root first), by
# one awk (stats below), with the same rules:
# - complete: the root frame is an outermost function: _start,
#   __libc_start_main (perf: __libc_start_main_impl, its name in libc's
#   symbol table) or __libc_start_call_main, a thread's first frame
#   (clone, clone3, start_thread, with glibc's __/__GI___ prefixes), or
#   where Go starts or switches a stack (runtime.goexit, mstart,
#   systemstack, rt0_go, morestack, mcall, and asmcgocall and sigtramp
#   as tests/cli/record/unwind.sh counts them; with or without .abi0).  One more
#   case: an unnamed root whose next frame is __libc_start_main[_impl] is a
#   stripped executable's _start (dd's): nothing else calls it.  A root
#   [truncated], [unknown], 0x... or MODULE+0x... is incomplete, and so
#   is one that is any other function (the walk stopped early).
# - unnamed: frames shown as [unknown], 0x... or MODULE+0x..., over all
#   frames (inline frames count, sp's [truncated] marker does not); the
#   table also gives frames per sample, counted so.
# - kernel time: sp-record without --kernel samples it as one [kernel]
#   frame above the user stack; perf's kernel callchain is folded into one
#   [kernel] frame likewise, so both stacks are compared on the user side
#   and both count one named frame for the kernel.
# - perf's frames are its perf script names (demangled, inline frames as
#   lines of their own); a frame perf cannot name is written MODULE+0xIP
#   (0xIP without a module), as sp-sym writes it, so that leaves group
#   by address alike.
#
# The JIT runtimes run a call tree of small functions for the clock
# milliseconds that give one thread about CPU_MS of CPU (as clockloop):
# tests/workloads/Spin.java under OpenJDK 17, as is and with
# -XX:+PreserveFramePointer (it writes no perf map, so its JIT frames are
# unnamed for both tools), and tests/workloads/spin.js under node
# --perf-basic-prof (both tools name its JIT frames from /tmp/perf-PID.map,
# removed once read, as CPython's).
#
# The servers (postgres, redis, nginx) are started once, before the
# rounds, with all their files in the scratch folder (data, sockets, pid
# and log files, configuration; TCP only on 127.0.0.1, on a port no socket
# of the machine uses), and stopped at the end or by the exit trap.  A
# recording attaches to the running server while a load generator (not
# recorded) drives it for SRV_S seconds, CPU_MS rounded up to whole seconds
# of the clock; the recorder starts SETTLE seconds before the load and
# stops as long after it:
#   sp-record -F RATE -d SECONDS -p PID --children
#   perf record -F RATE -g --call-graph dwarf,8192 -e cpu-clock -p PID[,PID...] -- sleep SECONDS
# perf record -p follows the processes its targets fork once it is
# attached (the kernel's event inheritance: checked with a shell that
# forks), not those already running; sp-record --children follows both.
# So:
# - postgres: pgbench -S connects after the attach, so both tools follow
#   the postmaster's new backends from its pid alone, as a perf user would
#   record it (the background processes that run already are followed by
#   sp-record only; they are idle).
# - nginx: its workers run from the start, so perf is given the master's
#   and the workers' pids, sp-record the master's and --children.
# - redis: one process, its pid for both.
# Knobs (environment): CPU_MS=3000 REPS=3 RATE=999.
# Table on stdout and in build/bench/realworld.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CPU_MS=${CPU_MS:-3000} REPS=${REPS:-3} RATE=${RATE:-999}
BIN=build/bin OUTDIR=build/bench
die() { echo "bench/realworld.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash

# --- scratch space --------------------------------------------------------------
# Under build/ (or $TMPDIR when set): the builds, the spools and perf.data
# files (~8.5 KB a sample).  perf runs with HOME=$T: its build-id cache
# (~/.debug) stays in here, is removed with it, and no ~/.perfconfig
# applies.
if [[ -n ${TMPDIR:-} ]]; then
	T=$(mktemp -d "$TMPDIR/sp-realworld.XXXXXX")
else
	mkdir -p build/bench-tmp && T=$(mktemp -d "$PWD/build/bench-tmp/realworld.XXXXXX")
fi
# The servers drop root (postgres, nginx's workers) and must reach their
# folders in here; listing it stays root's.
chmod 711 "$T"
# SRV_PID: the pid of each server this run started (by name), the only
# processes stop_servers signals.  postgres: SIGINT, its fast shutdown
# (SIGTERM would wait for clients to leave); redis and nginx end on
# SIGTERM (nginx's master stops its workers).  SIGKILL after 10 s.
declare -A SRV_PID
stop_servers() {
	local s p
	for s in "${!SRV_PID[@]}"; do
		p=${SRV_PID[$s]}
		unset "SRV_PID[$s]"
		kill "-$([[ $s == postgres ]] && echo INT || echo TERM)" "$p" 2>/dev/null || continue
		for _ in $(seq 100); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
	done
}
# REC_PID: a recorder running in the background (rec), stopped likewise.
REC_PID=
trap '[[ -z $REC_PID ]] || kill "$REC_PID" 2>/dev/null; stop_servers; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# --- prerequisites -------------------------------------------------------------
for t in sp-record sp-sym sp-fold sp-dump; do
	[[ -x $BIN/$t ]] || die "$BIN/$t is missing: run ./configure.sh && ninja"
done
for w in clockloop fmt-musl-static; do
	[[ -x build/tests/$w ]] || die "build/tests/$w is missing: run ninja"
done
APT_LOG=$T/apt.log
need_perf
need_rate "$RATE"
# Toolchains: a missing one makes its workloads a SKIP row, not an error.
need ld.bfd binutils || true
need ld.lld lld || true
need go golang-go || true
need g++ g++ || true
cargo=$(command -v cargo || { [[ -x $HOME/.cargo/bin/cargo ]] && echo "$HOME/.cargo/bin/cargo"; } || true)
# pyenv X.Y: the newest pyenv build of CPython X.Y, or nothing.
pyenv() {
	find "${PYENV_ROOT:-$HOME/.pyenv}/versions" -maxdepth 3 \
	    -path "*/versions/$1.*/bin/python$1" 2>/dev/null | sort -V | tail -1
}
py312=$(pyenv 3.12) py311=$(pyenv 3.11)
# Runtimes and servers, likewise.  Debian keeps a JDK's and PostgreSQL's
# programs off PATH, in folders named by their versions.
need '/usr/lib/jvm/java-17-openjdk-*/bin/javac' openjdk-17-jdk-headless || true
need node nodejs || true
need '/usr/lib/postgresql/*/bin/postgres' postgresql || true
need redis-server redis-server || true
need redis-benchmark redis-tools || true
need nginx nginx || true
need wrk wrk || need ab apache2-utils || true
# newest GLOB: the path matching GLOB with the highest version, or nothing.
newest() { { compgen -G "$1" || true; } | sort -V | tail -1; }
JDK=$(newest '/usr/lib/jvm/java-17-openjdk-*/bin/javac') JDK=${JDK%/javac}
PGBIN=$(newest '/usr/lib/postgresql/*/bin/postgres') PGBIN=${PGBIN%/postgres}

# Private copies: a rebuild in the tree during the run cannot change them.
BUILT=$(stat -c %y $BIN/sp-record | cut -d. -f1)
mkdir "$T/w" "$T/bin"
cp $BIN/sp-record $BIN/sp-sym $BIN/sp-fold $BIN/sp-dump "$T/bin/" && BIN=$T/bin
cp build/tests/clockloop build/tests/fmt-musl-static "$T/w/"
W=$T/w
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$SECONDS

# --- builds -----------------------------------------------------------------------
# step NAME WHAT CMD...: runs CMD (WHAT: build, a server's start or
# init) unless the workload is skipped already; on failure the workload is
# skipped with the last line of its output as the reason.
declare -A SKIP
step() {
	local name=$1 what=$2
	shift 2
	[[ -z ${SKIP[$name]:-} ]] || return 0
	note "$what $name"
	"$@" >>"$T/$what.$name.log" 2>&1 ||
	    SKIP[$name]="$what failed: $(tail -1 "$T/$what.$name.log")"
}
build() { step "$1" build "${@:2}"; }
# skip_unless NAME CMD...: the workload is skipped unless every CMD is on PATH.
skip_unless() {
	local name=$1 c
	shift
	for c in "$@"; do
		command -v "$c" >/dev/null || { SKIP[$name]="$c is not installed"; return 1; }
	done
}
if skip_unless except-lld g++ ld.lld; then
	build except-lld g++ -O2 -g -fuse-ld=lld -o "$W/except-lld" tests/workloads/except.cc
fi
if skip_unless except-bfd g++ ld.bfd; then
	build except-bfd g++ -O2 -g -fuse-ld=bfd -o "$W/except-bfd" tests/workloads/except.cc
fi
if skip_unless tree-clang-lld clang ld.lld; then
	build tree-clang-lld clang -O2 -fuse-ld=lld -o "$W/tree-clang-lld" tests/workloads/tree.c
fi
if [[ -z $cargo ]]; then
	SKIP[rtree]="cargo is not installed (neither on PATH nor ~/.cargo/bin)"
else
	cp -r tests/workloads/rtree "$W/rtree"
	build rtree env CARGO_TARGET_DIR="$W/rtree/target" PATH="$(dirname "$cargo"):$PATH" \
	    "$cargo" build --release --offline --quiet --manifest-path "$W/rtree/Cargo.toml"
fi
if skip_unless gowork go; then
	cp -r tests/workloads/gowork "$W/gowork"
	build gowork env -C "$W/gowork" GOCACHE="$W/gowork/cache" GOPATH="$W/gowork/path" \
	    GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local go build -o "$W/gowork/gowork" .
fi
[[ -n $py312 ]] || SKIP[py312-perf]="no CPython 3.12 among the pyenv builds"
[[ -n $py311 ]] || SKIP[py311]="no CPython 3.11 among the pyenv builds"
cp tests/workloads/pytree.py "$W/"
if [[ -z $JDK ]]; then
	SKIP[java]="no OpenJDK 17 (/usr/lib/jvm/java-17-openjdk-*; openjdk-17-jdk-headless)"
else
	mkdir "$W/java"
	build java "$JDK/javac" -d "$W/java" tests/workloads/Spin.java
fi
[[ -z ${SKIP[java]:-} ]] || SKIP[java-fp]=${SKIP[java]}
skip_unless node node && cp tests/workloads/spin.js "$W/"
# cpu_s CMD...: user+sys seconds of CMD (bash's time), and its wall
# seconds before them.
cpu_s() {
	local TIMEFORMAT='%3R %3U %3S'
	{ time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }'
}
# dd moves blocks for as many CPU ms as the others run: its CPU per block
# is measured once, here.  gowork (four goroutines) and clockloop run for
# milliseconds of the clock: the CPU they get per wall second, here and
# now (on a loaded machine, less than their threads), sets how long.
read -r _ c < <(cpu_s dd if=/dev/zero of=/dev/null bs=64k count=50000)
DDCOUNT=$(awk -v c="$c" -v ms="$CPU_MS" 'BEGIN { if (c < 0.01) c = 0.01
    printf "%d", 50000 * ms / 1000 / c }')
# wall_ms "W C": CPU_MS of CPU at C CPU seconds per W wall seconds.
wall_ms() { awk -v wc="$1" -v ms="$CPU_MS" 'BEGIN { split(wc, a, " ")
    r = a[1] > 0 ? a[2] / a[1] : 1
    if (r < 0.2) r = 0.2
    printf "%d", ms / r }'; }
CLOCKMS=$(wall_ms "$(cpu_s "$W/clockloop" 300)")
GOMS=$CPU_MS
[[ -n ${SKIP[gowork]:-} ]] || GOMS=$(wall_ms "$(cpu_s "$W/gowork/gowork" 300)")

# --- servers --------------------------------------------------------------------------
# A server workload's command is "@NAME": start_NAME starts it (once),
# load_NAME drives it for SRV_S seconds, SRV_SP[NAME] and SRV_PERF[NAME]
# are what sp-record and perf record attach to (the header says why they
# differ).
SETTLE=1 SRV_S=$(((CPU_MS + 999) / 1000))
declare -A SRV_SP SRV_PERF
# free_port: a TCP port in 20000-29999 that no socket of the machine uses
# (listening or not, IPv4 or IPv6: /proc/net/tcp*), found without a probe
# that would touch another program's port.
free_port() {
	local used p
	used=$(awk 'FNR > 1 { sub(/.*:/, "", $2); print $2 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || true)
	for p in $(shuf -i 20000-29999 -n 100); do
		grep -qx "$(printf %04X "$p")" <<<"$used" || { echo "$p"; return 0; }
	done
	return 1
}
# ready NAME LOG CMD...: waits up to 30 s for CMD to succeed (the server
# SRV_PID[NAME] serves); if it does not, or the server exits, the workload
# is skipped with LOG's last line as the reason.
ready() {
	local name=$1 log=$2
	shift 2
	for _ in $(seq 300); do
		"$@" 2>/dev/null && return 0
		kill -0 "${SRV_PID[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	SKIP[$name]="did not start: $(tail -1 "$log" 2>/dev/null)"
	return 1
}

# postgres: initdb as the postgres user (the server will not run as root)
# into $T/pg, trust authentication, a Unix socket in $T/pg and no TCP
# (listen_addresses is empty; the port names the socket), no fsync (the
# data is scratch).  pgbench -i at scale PG_SCALE: 100,000 rows of
# pgbench_accounts per unit, all in shared_buffers, so -S is CPU-bound.
PG_SCALE=2
start_postgres() {
	local d=$T/pg
	if [[ -z $PGBIN ]]; then
		SKIP[postgres]="no PostgreSQL server (/usr/lib/postgresql/*/bin/postgres; postgresql)"
		return
	fi
	id postgres >/dev/null 2>&1 || { SKIP[postgres]="there is no postgres user"; return; }
	mkdir "$d" && chown postgres: "$d"
	runuser -u postgres -- test -w "$d" ||
	    { SKIP[postgres]="the postgres user cannot reach $d (set TMPDIR to a folder it can)"; return; }
	PG_PORT=$(free_port) || { SKIP[postgres]="no free TCP port in 20000-29999"; return; }
	step postgres initdb runuser -u postgres -- env -C "$d" "$PGBIN/initdb" -D "$d/data" \
	    -U postgres -A trust -E UTF8 --no-locale --no-sync
	step postgres start runuser -u postgres -- env -C "$d" "$PGBIN/pg_ctl" -D "$d/data" \
	    -l "$d/log" -w -t 60 -o "-c port=$PG_PORT -c listen_addresses='' \
	    -c unix_socket_directories='$d' -c fsync=off" start
	if [[ -f $d/data/postmaster.pid ]]; then
		SRV_PID[postgres]=$(head -1 "$d/data/postmaster.pid")
	fi
	step postgres pgbench-init timeout 600 "$PGBIN/pgbench" -i -q -s "$PG_SCALE" \
	    -h "$d" -p "$PG_PORT" -U postgres postgres
	SRV_SP[postgres]="-p ${SRV_PID[postgres]:-} --children" SRV_PERF[postgres]="-p ${SRV_PID[postgres]:-}"
}
load_postgres() {
	timeout -k 5 $((SRV_S + 30)) "$PGBIN/pgbench" -n -S -c 2 -j 2 -T "$SRV_S" \
	    -h "$T/pg" -p "$PG_PORT" -U postgres postgres
}

# redis: no persistence (no RDB snapshots, no AOF), its folder $T/redis.
start_redis() {
	local d=$T/redis
	skip_unless redis redis-server redis-benchmark || return 0
	REDIS_PORT=$(free_port) || { SKIP[redis]="no free TCP port in 20000-29999"; return; }
	mkdir "$d"
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
	    --dir "$d" --logfile "$d/log" </dev/null >/dev/null 2>&1 &
	SRV_PID[redis]=$!
	ready redis "$d/log" grep -qF 'Ready to accept connections' "$d/log" || return 0
	SRV_SP[redis]="-p ${SRV_PID[redis]}" SRV_PERF[redis]="-p ${SRV_PID[redis]}"
}
# redis-benchmark has no duration: -l repeats SET and GET (16 clients, 16
# commands in flight each, so the server's CPU goes to commands rather
# than to a system call each) until timeout ends it, the expected 124.
load_redis() {
	local rc=0
	timeout -k 5 "$SRV_S" redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -q -l -t set,get \
	    -n 100000 -r 100000 -d 64 -c 16 -P 16 >/dev/null || rc=$?
	[[ $rc -eq 124 ]]
}

# nginx: a configuration of its own (the master, NGINX_WORKERS workers
# that drop root for nobody, prefix, pid and log files and temporary
# folders in $T/nginx, no access log), serving a 4 KiB file.
NGINX_WORKERS=2
start_nginx() {
	local d=$T/nginx
	skip_unless nginx nginx || return 0
	if command -v wrk >/dev/null; then
		LOADER=wrk
	elif command -v ab >/dev/null; then
		LOADER=ab
	else
		SKIP[nginx]="neither wrk nor ab is installed"
		return
	fi
	NGINX_PORT=$(free_port) || { SKIP[nginx]="no free TCP port in 20000-29999"; return; }
	mkdir -p "$d/html" "$d/tmp"
	head -c 3072 /dev/urandom | base64 >"$d/html/index.html"
	chmod -R a+rX "$d"
	# Else every request would be a 403, quick and not what is measured.
	runuser -u nobody -- test -r "$d/html/index.html" ||
	    { SKIP[nginx]="nobody cannot read $d (set TMPDIR to a folder it can)"; return; }
	cat >"$d/nginx.conf" <<-EOF
	daemon off;
	worker_processes $NGINX_WORKERS;
	user nobody $(id -gn nobody);
	pid $d/nginx.pid;
	error_log $d/error.log notice;
	events { worker_connections 256; }
	http {
		access_log off;
		client_body_temp_path $d/tmp/body;
		proxy_temp_path $d/tmp/proxy;
		fastcgi_temp_path $d/tmp/fastcgi;
		uwsgi_temp_path $d/tmp/uwsgi;
		scgi_temp_path $d/tmp/scgi;
		server {
			listen 127.0.0.1:$NGINX_PORT;
			root $d/html;
		}
	}
	EOF
	nginx -p "$d/" -c "$d/nginx.conf" -e "$d/error.log" </dev/null >"$d/out" 2>&1 &
	SRV_PID[nginx]=$!
	ready nginx "$d/error.log" nginx_up || return 0
	SRV_SP[nginx]="-p ${SRV_PID[nginx]} --children"
	SRV_PERF[nginx]="-p $(nginx_workers | paste -sd, - | sed "s/^/${SRV_PID[nginx]},/")"
}
nginx_workers() { ps -o pid= --ppid "${SRV_PID[nginx]}" | tr -d ' '; }
nginx_up() { [[ $(nginx_workers | wc -l) -ge $NGINX_WORKERS ]]; }
load_nginx() {
	local url=http://127.0.0.1:$NGINX_PORT/index.html
	if [[ $LOADER == wrk ]]; then
		timeout -k 5 $((SRV_S + 30)) wrk -t 1 -c 16 -d "${SRV_S}s" "$url"
	else
		timeout -k 5 $((SRV_S + 30)) ab -q -k -c 16 -t "$SRV_S" -n 100000000 "$url"
	fi
}
start_postgres
start_redis
start_nginx

# name|what|command: ~CPU_MS of CPU each; a server (@NAME) SRV_S s of load.
# node runs in $W: with --perf-basic-prof V8 also writes an
# isolate-*-v8.log into its working folder.
WORKLOADS=(
	"except-lld|g++ -O2 -g -fuse-ld=lld except.cc (C++ exceptions)|$W/except-lld $CPU_MS"
	"except-bfd|g++ -O2 -g -fuse-ld=bfd except.cc (GNU ld)|$W/except-bfd $CPU_MS"
	"tree-clang-lld|clang -O2 -fuse-ld=lld tree.c|$W/tree-clang-lld $CPU_MS cpu"
	"rtree|Rust release (cargo, rust-lld)|$W/rtree/target/release/rtree $CPU_MS cpu"
	"gowork|Go (go build), 4 goroutines, $GOMS ms|$W/gowork/gowork $GOMS"
	"py312-perf|CPython 3.12 -X perf pytree.py|$py312 -X perf $W/pytree.py $CPU_MS"
	"py311|CPython 3.11 pytree.py|$py311 $W/pytree.py $CPU_MS"
	"dd|dd bs=64k count=$DDCOUNT (kernel time)|dd if=/dev/zero of=/dev/null bs=64k count=$DDCOUNT"
	"clockloop|clockloop $CLOCKMS ms (vDSO)|$W/clockloop $CLOCKMS"
	"fmt-musl|fmt-musl-static (musl static, printf)|$W/fmt-musl-static $CPU_MS"
	"java|OpenJDK 17 Spin.java, $CLOCKMS ms (JIT)|$JDK/java -cp $W/java Spin $CLOCKMS"
	"java-fp|OpenJDK 17 -XX:+PreserveFramePointer Spin.java|$JDK/java -XX:+PreserveFramePointer -cp $W/java Spin $CLOCKMS"
	"node|node --perf-basic-prof spin.js, $CLOCKMS ms (V8 JIT)|env -C $W node --perf-basic-prof spin.js $CLOCKMS"
	"postgres|PostgreSQL, pgbench -S -c 2 (scale $PG_SCALE) $SRV_S s; -p postmaster|@postgres"
	"redis|redis-server, redis-benchmark SET/GET -P 16 $SRV_S s; -p server|@redis"
	"nginx|nginx, $NGINX_WORKERS workers, ${LOADER:-wrk} -c 16 on a 4 KiB file $SRV_S s; -p master|@nginx"
)

# --- judging folded stacks -------------------------------------------------------
# stats and perf_fold are in bench/lib.bash (bench/arm64.sh judges with them too).

# pids_perf_maps FILE: removes /tmp/perf-PID.map of the PIDs in FILE (one a
# line): CPython -X perf writes them, both tools have read them.
drop_perf_maps() {
	local p
	sort -u "$1" | while read -r p; do
		[[ $p =~ ^[0-9]+$ ]] && rm -f "/tmp/perf-$p.map"
	done
}

# rec SERVER WHO CMD...: runs the recorder CMD.  With a SERVER, in the
# background while load_SERVER runs SETTLE s after its start (attached by
# then, so that the backends pgbench opens are new processes for both
# tools), both bounded; the load's output goes to $T/load.SERVER.log and
# its failure to the notes, under WHO.
rec() {
	local srv=$1 who=$2 rc=0
	shift 2
	if [[ -z $srv ]]; then
		"$@"
		return
	fi
	timeout -k 5 $((SRV_S + 2 * SETTLE + 60)) "$@" &
	REC_PID=$!
	sleep "$SETTLE"
	"load_$srv" >>"$T/load.$srv.log" 2>&1 ||
	    echo "$who: the load failed: $(tail -1 "$T/load.$srv.log")" >>"$T/notes"
	wait "$REC_PID" || rc=$?
	REC_PID=
	return "$rc"
}

# measure NAME ROUND TOOL CMD...: one recording; appends
# "NAME TOOL samples complete unnamed frames bytes" to $T/rows and the
# leaves to $T/leaves.NAME.TOOL.  A failure is a note, not numbers.
# CMD "@SERVER": the tools attach to the server for its load instead.
measure() {
	local name=$1 round=$2 tool=$3 bytes spn n c u f srv=''
	shift 3
	local sp_target=(-- "$@") perf_target=(-- "$@")
	if [[ $1 == @* ]]; then
		srv=${1#@}
		read -ra sp_target <<<"-d $((SRV_S + 2 * SETTLE)) ${SRV_SP[$srv]}"
		read -ra perf_target <<<"${SRV_PERF[$srv]} -- sleep $((SRV_S + 2 * SETTLE))"
	fi
	if [[ $tool == sp ]]; then
		if ! rec "$srv" "$name sp (round $round)" "$BIN"/sp-record -q -F "$RATE" -o "$T/x.spl" \
		    "${sp_target[@]}" >"$T/log" 2>&1; then
			echo "$name sp: sp-record failed (round $round): $(tail -1 "$T/log")" >>"$T/notes"
			return
		fi
		bytes=$(stat -c %s "$T/x.spl")
		"$BIN"/sp-dump "$T/x.spl" | awk '$1 == "thread" { print $4 }' >"$T/pids"
		"$BIN"/sp-sym -q "$T/x.spl" | "$BIN"/sp-fold >"$T/x.folded" 2>"$T/log" ||
		    echo "$name sp: sp-sym | sp-fold failed (round $round): $(tail -1 "$T/log")" >>"$T/notes"
		# The spool's own count, to check the fold against.
		spn=$("$BIN"/sp-dump --stats --json "$T/x.spl" | grep -o '"samples":[0-9]*' | head -1 | cut -d: -f2)
		rm -f "$T/x.spl"
	else
		if ! HOME=$T rec "$srv" "$name perf (round $round)" perf record -q -F "$RATE" -g \
		    --call-graph dwarf,8192 -e cpu-clock -o "$T/x.data" "${perf_target[@]}" >"$T/log" 2>&1; then
			echo "$name perf: perf record failed (round $round): $(grep -v '^$' "$T/log" | tail -1)" >>"$T/notes"
			rm -f "$T/x.data"
			return
		fi
		bytes=$(stat -c %s "$T/x.data")
		HOME=$T perf script -F comm,pid,tid,ip,sym,dso -i "$T/x.data" >"$T/x.txt" 2>"$T/log" ||
		    echo "$name perf: perf script failed (round $round): $(tail -1 "$T/log")" >>"$T/notes"
		awk 'BEGIN { RS = ""; FS = "\n" } { k = split($1, a, " "); print a[k] }' \
		    "$T/x.txt" | sed 's|/.*||' >"$T/pids"
		perf_fold <"$T/x.txt" >"$T/x.folded"
		spn=$(awk 'BEGIN { RS = "" } END { print NR }' "$T/x.txt")
		rm -f "$T/x.data" "$T/x.txt"
	fi
	drop_perf_maps "$T/pids"
	stats <"$T/x.folded" >"$T/x.stats"
	read -r n c u f <"$T/x.stats"
	[[ $n == "$spn" ]] ||
	    echo "$name $tool: the folded stacks hold $n samples, the recording $spn (round $round)" >>"$T/notes"
	echo "$name $tool $n $c $u $f $bytes" >>"$T/rows"
	tail -n +2 "$T/x.stats" >>"$T/leaves.$name.$tool"
	rm -f "$T/x.folded" "$T/x.stats"
}

# --- runs -----------------------------------------------------------------------------
note "warm-up (page cache, perf's build-id cache; not measured)"
HOME=$T perf record -q -e cpu-clock -F "$RATE" -g --call-graph dwarf,8192 -o "$T/x.data" -- \
    "$W/clockloop" 100 >/dev/null 2>&1 && HOME=$T perf script -i "$T/x.data" >/dev/null 2>&1
rm -f "$T/x.data"
for round in $(seq "$REPS"); do
	for wl in "${WORKLOADS[@]}"; do
		IFS='|' read -r name what cmd <<<"$wl"
		[[ -z ${SKIP[$name]:-} ]] || continue
		note "round $round/$REPS: $name"
		# shellcheck disable=SC2086 # cmd is a word list
		{ measure "$name" "$round" sp $cmd; measure "$name" "$round" perf $cmd; }
	done
done
stop_servers

# --- table ------------------------------------------------------------------------------
# med NAME TOOL EXPR: median over the rounds of an awk expression of a row's
# fields ($3 samples, $4 complete, $5 unnamed, $6 frames, $7 bytes).
med() {
	awk -v w="$1" -v t="$2" '$1 == w && $2 == t { print '"$3"' }' "$T/rows" | sort -g |
	    awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
	    m = int((NR + 1) / 2); printf "%.1f\n", (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
# leaves NAME TOOL: the 5 most frequent leaves over every round, with their
# share of the samples.
leaves() {
	local f=$T/leaves.$1.$2
	[[ -s $f ]] || { echo "-"; return; }
	awk -F '\t' '{ c[$2] += $1; t += $1 } END { for (l in c) printf "%d\t%s\t%.1f\n", c[l], l, 100 * c[l] / t }' "$f" |
	    sort -t "$(printf '\t')" -k1,1nr -k2,2 | head -5 |
	    awk -F '\t' '{ l = $2; if (length(l) > 40) l = substr(l, 1, 37) "..."
	    printf "%s%s %s%%", (NR > 1 ? ", " : ""), l, $3 } END { print "" }'
}
fmt() { printf "%-15s %-5s %8s %7s %9s %8s %8s\n" "$@"; }
versions() {
	local v=()
	command -v g++ >/dev/null && v+=("$(g++ -dumpfullversion 2>/dev/null | sed 's/^/g++ /')")
	command -v clang >/dev/null && v+=("$(clang --version | head -1 | sed 's/.*clang version \([^ ]*\).*/clang \1/')")
	command -v ld.lld >/dev/null && v+=("$(ld.lld --version | sed 's/.*LLD \([^ ]*\).*/lld \1/')")
	[[ -n $cargo ]] && v+=("$("$(dirname "$cargo")"/rustc --version 2>/dev/null | awk '{ print "rustc", $2 }')")
	command -v go >/dev/null && v+=("$(go version | awk '{ print $3 }')")
	[[ -n $py312 ]] && v+=("$("$py312" --version 2>&1)")
	[[ -n $py311 ]] && v+=("$("$py311" --version 2>&1)")
	[[ -n $JDK ]] && v+=("$("$JDK"/java -version 2>&1 | awk -F '"' 'NR == 1 { print "openjdk", $2 }')")
	command -v node >/dev/null && v+=("node $(node --version)")
	[[ -n $PGBIN ]] && v+=("$("$PGBIN"/postgres --version | awk '{ print "postgres", $3 }')")
	command -v redis-server >/dev/null && v+=("$(redis-server --version | sed 's/.* v=\([^ ]*\).*/redis \1/')")
	command -v nginx >/dev/null && v+=("$(nginx -v 2>&1 | sed 's|.*nginx/|nginx |')")
	command -v wrk >/dev/null && v+=("$(wrk -v 2>&1 | awk 'NR == 1 { v = $2; sub(/.*\//, "", v); print "wrk", v }')")
	local IFS=, all
	all="${v[*]}"
	echo "${all//,/, }"
}
mkdir -p "$OUTDIR"
{
	echo "# bench/realworld.sh  $(date -u +%FT%TZ)  $(uname -r)  $(nproc) CPUs  HEAD $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty tree)')"
	echo "# ~$CPU_MS ms of CPU per workload at $RATE Hz, medians of $REPS rounds; sp-record built $BUILT; $(perf --version)"
	echo "#   sp: sp-record -F $RATE | sp-sym | sp-fold;  perf: perf record -F $RATE -g --call-graph dwarf,8192 -e cpu-clock | perf script"
	echo "#   servers: the same, but sp-record -d S -p PID --children, perf record -p PID[,WORKER...] -- sleep S, for $SRV_S s of load and $SETTLE s either side"
	echo "# toolchains: $(versions)"
	echo "# compl%: stacks whose root is an outermost function (_start, __libc_start_main, clone*, start_thread, Go's"
	echo "#   stack starts; rules in the script); unnamed%: frames shown as [unknown], 0x..., MODULE+0x...;"
	echo "#   frm/smp: frames per sample (inline frames too); B/smp: spool or perf.data bytes per sample;"
	echo "#   kernel time is one [kernel] frame for both; leaves: the 5 most frequent, over all rounds"
	fmt workload tool samples "compl%" "unnamed%" "frm/smp" "B/smp"
	for wl in "${WORKLOADS[@]}"; do
		IFS='|' read -r name what cmd <<<"$wl"
		if [[ -n ${SKIP[$name]:-} ]]; then
			echo "$name: SKIP: ${SKIP[$name]}"
			continue
		fi
		echo "$name: $what"
		for tool in sp perf; do
			# shellcheck disable=SC2016 # awk expressions of a row's fields
			fmt "" "$tool" "$(med "$name" "$tool" '$3' | sed 's/\.0$//')" \
			    "$(med "$name" "$tool" '($3 ? 100 * $4 / $3 : 0)')" \
			    "$(med "$name" "$tool" '($6 ? 100 * $5 / $6 : 0)')" \
			    "$(med "$name" "$tool" '($3 ? $6 / $3 : 0)')" \
			    "$(med "$name" "$tool" '($3 ? $7 / $3 : 0)')"
			echo "                      leaves: $(leaves "$name" "$tool")"
		done
	done
	[[ -f $T/notes ]] && sed 's/^/Note: /' "$T/notes"
	echo "Took $((SECONDS - start)) s; load average $LOAD0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
} | tee "$OUTDIR/realworld.txt"
