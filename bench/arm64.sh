#!/usr/bin/env bash
# bench/arm64.sh: complete stacks in an arm64 guest, sp-record next to
# Debian's arm64 perf (issue 27, section 3).
#
# A benchmark, not a test: it prints measurements and never fails on them.
# It boots bookworm's arm64 kernel under qemu TCG as `VM_SERIES=arm64
# ninja test-vm` does (tests/vm/run.sh's functions: the same kernel,
# cross-built workloads, static tools and initramfs), with bookworm's
# linux-perf for arm64 added to the initramfs: linux-perf and binutils
# (addr2line) and what they depend on (apt-cache depends --recurse,
# without recommends, suggests and pre-depends), less what perf record
# and perf script never load
# (dpkg, perl and python3 themselves and their modules, tar, mime
# tables), each .deb unpacked with dpkg-deb -x (nothing installed,
# nothing run as root), docs, locales, gconv and perl's modules left out:
# about 53 packages, 69 MB unpacked, cached in build/vm/perf-arm64/KEY/
# (KEY: a hash of the packages' versions).  Debian's libc6 replaces the
# cross compiler's copy of it in the guest, and the host symbolizes
# against that same root.
#
# In the guest, each workload of the arm64 smoke suite (tree -O2 without
# frame pointers, tree-pac with return addresses signed, and where
# tests/vm/run.sh could build them except (C++, clang++ and lld) and
# gowork (Go)) is recorded at RATE Hz (1000) three times:
#   sp-record -F RATE -o X.spl -- CMD
#   perf record -e EVENT -F RATE --call-graph dwarf -- CMD  (8 KiB dumps)
#   perf record -e EVENT -F RATE --call-graph fp -- CMD     (perf -g)
# EVENT is what sp-record chose (cycles with qemu's emulated PMU,
# cpu-clock without one: VM_SERIES=arm64-nopmu), so that both sample the
# same clock.  perf script -F comm,pid,tid,ip,sym,dso runs in the guest
# (perf unwinds dwarf there, with the guest's files); its text and the
# spools come back, and are judged here as bench/realworld.sh judges them
# (bench/lib.bash: perf_fold folds perf's text, stats decides
# completeness: the root frame is _start, __libc_start_main, clone,
# start_thread, runtime.goexit ...); sp's spools are symbolized here
# with sp-sym --sysroot (the guest's root) and folded by sp-fold.
#
# Per workload a table: samples, complete %, unnamed-frame %, frames per
# sample, bytes per sample (spool or perf.data size over samples).  Under
# TCG a guest's time is emulated: timings mean nothing, completeness
# does.  Output on stdout and in build/bench/SERIES.txt (arm64.txt,
# arm64-nopmu.txt); the guest's files and root in
# build/test-tmp/bench-arm64/SERIES/.
# Knobs (environment): VM_SERIES=arm64 (or arm64-nopmu), RATE=1000,
# VM_TIMEOUT=1500 (seconds the guest may take).
set -uo pipefail
export TEST_SUITE=bench-arm64
. "$(dirname "${BASH_SOURCE[0]}")/../tests/vm/run.sh"	# cd's to the tree
die() { echo "bench/arm64.sh: $*" >&2; exit 1; }
note() { echo "[bench] $*" >&2; }
. bench/lib.bash
RATE=${RATE:-1000} SER=${VM_SERIES:-arm64} OUTDIR=build/bench
export VM_TIMEOUT=${VM_TIMEOUT:-1500}
case $SER in
arm64 | arm64-nopmu) ;;
*) die "VM_SERIES must be arm64 or arm64-nopmu (not $SER)" ;;
esac

# What linux-perf depends on that perf record and perf script never load:
# the package manager's own tools, mime tables, perl and python3 (the
# interpreters and modules; libperl and libpython, which perf links, stay).
PERF_DROP="dpkg install-info tar mailcap media-types mime-support readline-common
perl perl-base perl-modules-5.36 libpython3-stdlib libpython3.11-stdlib libpython3.11-minimal"

# perf_packages: "NAME=VERSION" of each package the perf root is made of,
# sorted: linux-perf's and binutils' recursive depends in arm64's private
# indexes, less PERF_DROP and python3*.  binutils for addr2line: Debian's
# perf (no libbfd) runs it for inline frames, and perf script of a dwarf
# recording dies of SIGPIPE where it is missing.
perf_packages() {
	local p
	p=$(vapt arm64 apt-cache depends --recurse --no-recommends --no-suggests \
	    --no-conflicts --no-breaks --no-replaces --no-enhances --no-pre-depends linux-perf binutils |
	    grep -v '^[ <]' | sort -u | grep -v '^python3' |
	    grep -vxF -f <(tr ' ' '\n' <<<"$PERF_DROP" | grep .)) || return 1
	# shellcheck disable=SC2086 # p is a word list
	vapt arm64 apt-cache show --no-all-versions $p |
	    awk '$1 == "Package:" { p = $2 } $1 == "Version:" { print p "=" $2 }' | sort -u
}

# perf_root: the path of the unpacked perf root, made once per set of
# package versions (build/vm/perf-arm64/KEY/root, its list of packages
# next to it).  Fails, saying why on stderr, where it cannot.
perf_root() {
	local pk key d n
	pk=$(perf_packages) && [ -n "$pk" ] ||
	    { echo "apt-cache depends linux-perf in the private arm64 indexes gave nothing" >&2; return 1; }
	key=$(sha256sum <<<"$pk" | cut -c1-12)
	d=$PWD/$VM/perf-arm64/$key
	if [ ! -x "$d/root/usr/bin/perf" ]; then
		n=$(wc -l <<<"$pk")
		note "unpacking $n packages for the arm64 perf root into $d"
		rm -rf "$d" && mkdir -p "$d/debs" "$d/root.part" || return 1
		# shellcheck disable=SC2046 # one word a package
		(cd "$d/debs" && vapt arm64 apt-get download $(cat)) <<<"$pk" >>"$VM/apt.log" 2>&1 ||
		    { echo "apt-get download of the perf packages failed ($VM/apt.log)" >&2; return 1; }
		for f in "$d"/debs/*.deb; do
			dpkg-deb -x "$f" "$d/root.part" || { echo "dpkg-deb -x $f failed" >&2; return 1; }
		done
		(cd "$d/root.part" && rm -rf usr/share usr/include usr/lib/python3 \
		    usr/lib/aarch64-linux-gnu/gconv usr/lib/aarch64-linux-gnu/perl \
		    usr/lib/aarch64-linux-gnu/perl-base usr/lib/perf-core/tests)
		[ -x "$d/root.part/usr/bin/perf" ] ||
		    { echo "no usr/bin/perf in the unpacked linux-perf" >&2; return 1; }
		echo "$pk" >"$d/packages"
		rm -rf "$d/debs" && mv "$d/root.part" "$d/root" || return 1
	fi
	echo "$d/root"
}

# The guest's /init: mounts, then per workload sp-record, perf dwarf and
# perf fp, perf script of both; sends /out back as tests/vm/guest.sh does.
guest_init() {
	cat <<'EOF'
#!/bin/busybox sh
# bench/arm64.sh's guest: records, sends /out back, powers off.
export PATH=/bin:/usr/bin HOME=/tmp/home
/bin/busybox --install -s /bin
O=/out
mkdir -p $O
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p $HOME
# As tests/vm/guest.sh: qemu's time, not the recorders', would lower the
# kernel's rate limit.
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
RATE=1000	# bench/arm64.sh writes its RATE here
uname -r >$O/uname
ls /sys/bus/event_source/devices >$O/pmus 2>&1
perf --version >$O/perf-version 2>&1
echo $? >$O/perf-version.rc
# bench NAME CMD...: the three recordings of CMD.
bench() {
	n=$1
	shift
	timeout 300 sp-record -F $RATE -o $O/$n.spl -- "$@" >/dev/null 2>$O/$n.sp.err
	echo $? >$O/$n.sp.rc
	ev=$(sed -n 's/.*(event \([a-z-]*\)).*/\1/p' $O/$n.sp.err | head -1)
	echo "${ev:=cpu-clock}" >$O/$n.event
	for m in dwarf fp; do
		timeout 600 perf record -q -e $ev -F $RATE --call-graph $m -o /tmp/x.data -- "$@" \
		    >/dev/null 2>$O/$n.$m.rec.err
		echo $? >$O/$n.$m.rec.rc
		wc -c </tmp/x.data >$O/$n.$m.bytes
		timeout 900 perf script -F comm,pid,tid,ip,sym,dso -i /tmp/x.data \
		    >$O/$n.$m.txt 2>$O/$n.$m.script.err
		echo $? >$O/$n.$m.script.rc
		rm -f /tmp/x.data
	done
}
[ -x /w/tree ] && bench tree /w/tree 2000 cpu
[ -x /w/tree-pac ] && bench pac /w/tree-pac 2000 cpu
[ -x /w/except ] && bench cxx /w/except 2000
[ -x /w/gowork ] && bench go /w/gowork 1500
port=$(sed -n 's/.*stackpulse\.port=\([^ ]*\).*/\1/p' /proc/cmdline)
{
	echo "--- stackpulse-vm begin"
	tar -C / -cf - out | gzip | base64
	echo "--- stackpulse-vm end"
} >"${port:-/dev/ttyS0}"
sync
poweroff -f
EOF
}

# g NAME: the guest's file NAME, or nothing.
g() { cat "$G/$1" 2>/dev/null; }

# judge NAME TOOL: "samples complete unnamed frames bytes" of one
# recording (sp, dwarf, fp), or a note why there is none.
judge() {
	local n=$1 t=$2 spn
	if [ "$t" = sp ]; then
		[ "$(g "$n.sp.rc")" = 0 ] && [ -s "$G/$n.spl" ] ||
		    { echo "sp-record failed (exit $(g "$n.sp.rc")): $(tail -1 "$G/$n.sp.err")"; return 1; }
		$SYM -q --sysroot "$D/root" -o "$D/$n.sym.spl" "$G/$n.spl" 2>"$D/$n.sym.err" &&
		    $FOLD "$D/$n.sym.spl" >"$D/$n.sp.fold" 2>>"$D/$n.sym.err" ||
		    { echo "sp-sym | sp-fold failed: $(tail -1 "$D/$n.sym.err")"; return 1; }
		spn=$(counter "$G/$n.spl" samples)
		echo "$(stats <"$D/$n.sp.fold" | head -1) $(stat -c %s "$G/$n.spl") $spn"
		return
	fi
	[ "$(g "$n.$t.rec.rc")" = 0 ] ||
	    { echo "perf record failed (exit $(g "$n.$t.rec.rc")): $(grep -v '^$' "$G/$n.$t.rec.err" | tail -1)"; return 1; }
	[ "$(g "$n.$t.script.rc")" = 0 ] ||
	    { echo "perf script failed (exit $(g "$n.$t.script.rc")): $(grep -v '^$' "$G/$n.$t.script.err" | tail -1)"; return 1; }
	perf_fold <"$G/$n.$t.txt" >"$D/$n.$t.fold"
	spn=$(awk 'BEGIN { RS = "" } END { print NR }' "$G/$n.$t.txt")
	echo "$(stats <"$D/$n.$t.fold" | head -1) $(g "$n.$t.bytes") $spn"
}

# table NAME LABEL PATH: the table of workload NAME, then each tool's most
# frequent stack.  PATH: an ERE on folded stacks, the workload's own calls
# from main down (path %: the samples whose stack holds it, named and in
# order: a complete root over wrong frames in between does not count).
table() {
	local n=$1 t row s c u f b spn p
	echo
	echo "$n: $2 (event $(g "$n.event")); path: $3"
	printf "%-11s %8s %10s %7s %10s %10s %8s\n" tool samples "complete %" "path %" "unnamed %" frames/smp B/smp
	for t in sp dwarf fp; do
		if ! row=$(judge "$n" "$t"); then
			printf "%-11s %s\n" "$(tool_name "$t")" "no numbers: $row"
			continue
		fi
		read -r s c u f b spn <<<"$row"
		p=$(fold_count "$D/$n.$t.fold" "$3")
		awk -v t="$(tool_name "$t")" -v s="$s" -v c="$c" -v p="$p" -v u="$u" -v f="$f" -v b="$b" \
		    'BEGIN { d = s ? s : 1; e = f ? f : 1
		    printf "%-11s %8d %10.1f %7.1f %10.1f %10.1f %8.1f\n", t, s, 100 * c / d, 100 * p / d,
		        100 * u / e, f / d, b / d }'
		[ "$s" = "$spn" ] ||
		    echo "  note: the folded stacks hold $s samples, the recording $spn"
	done
	for t in sp dwarf fp; do
		[ -s "$D/$n.$t.fold" ] || continue
		sort -t' ' -k2 "$D/$n.$t.fold" | awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		    if (c + 0 > m) { m = c + 0; top = s } } END { print m, top }' |
		    awk -v t="$(tool_name "$t")" '{ s = substr($0, length($1) + 2)
		    if (length(s) > 150) s = substr(s, 1, 50) "..." substr(s, length(s) - 96)
		    printf "  top %-10s %5d  %s\n", t, $1, s }'
	done
	[ -z "$(counter "$G/$n.spl" exec_samples 2>/dev/null)" ] || [ "$(counter "$G/$n.spl" exec_samples)" = 0 ] ||
	    echo "  sp-record also counted $(counter "$G/$n.spl" exec_samples) exec_samples apart (taken in the exec, before the new image ran; perf's are among its samples)"
}
TREE_PATH='(^|;)main;run;work_(a|b);leaf_(a|b)(;|$)'
tool_name() { case $1 in sp) echo sp-record ;; dwarf) echo "perf dwarf" ;; fp) echo "perf fp" ;; esac; }

# --- the guest ---------------------------------------------------------------------
start=$SECONDS
read -r _ _ meta ver pmu < <(series_info "$SER")
arch_ready amd64 || die "the host's side: ${WHY_ARCH[amd64]}"
arch_ready arm64 || die "the arm64 side: ${WHY_ARCH[arm64]}"
k=$(fetch_kernel arm64 "$meta" "$ver") || die "fetch the newest $meta $ver.x (see $VM/apt.log)"
PR=$(perf_root) || die "the arm64 perf root cannot be made here"
D=$TMP/$SER G=$D/out
rm -rf "$D" && mkdir -p "$D" || die "mkdir $D"
initramfs arm64 "$D" || die "pack the initramfs"
note "perf root $PR ($(du -sm "$PR" | cut -f1) MB); packing"
cp -a "$PR"/. "$D/root/" && guest_init | sed "s/^RATE=1000\t.*/RATE=$RATE/" >"$D/root/init" &&
    chmod 755 "$D/root/init" && pack "$D" || die "add the perf root to the initramfs"
note "booting $k under qemu TCG (up to $VM_TIMEOUT s)"
boot arm64 "$pmu" "$VM/kernels/${k%% *}/vmlinuz" "$D" ||
    die "the guest sent nothing back (qemu status $(cat "$D/qemu.rc")); see $D/console.log"
took=$((SECONDS - start))

# --- the tables ----------------------------------------------------------------------
mkdir -p "$OUTDIR"
{
	echo "# bench/arm64.sh  $(date -u +%FT%TZ)  HEAD $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty tree)')"
	echo "# guest: $(series_name "$SER"), kernel ${k#* } ($(g uname)), qemu TCG, 1 vCPU: timings mean nothing, completeness does"
	echo "# $(g perf-version) (Debian's linux-perf for arm64, $(wc -l <"$(dirname "$PR")/packages") packages unpacked); $RATE Hz"
	echo "#   sp: sp-record -F $RATE | (here) sp-sym --sysroot | sp-fold"
	echo "#   perf dwarf / fp: perf record -e EVENT -F $RATE --call-graph dwarf (8 KiB) / fp | (guest) perf script"
	echo "# complete: the root frame is _start, __libc_start_main, clone, start_thread, runtime.goexit ..."
	echo "#   (bench/realworld.sh's rule); unnamed: frames without a name over all frames;"
	echo "#   B/smp: spool or perf.data bytes per sample"
	echo "#   path: the samples whose stack holds the workload's calls from main down, named and in order"
	echo "#   (complete counts the root only: perf fp finds _start under -O2 code with frames missing)"
	echo "#   top: each tool's most frequent stack, root first (perf's kernel frames folded into [kernel])"
	table tree "tree 2000 cpu (-O2 -fomit-frame-pointer, no PAC)" "$TREE_PATH"
	table pac "tree-pac 2000 cpu (-mbranch-protection=standard: return addresses signed)" "$TREE_PATH"
	if [ -e "$G/cxx.sp.rc" ]; then
		table cxx "except 2000 (C++ exceptions, clang++ -O2, lld)" '(^|;)main;run;work_(a|b)(;|$)'
	else
		echo; echo "cxx: not run: $(cat "$XW/except.why" 2>/dev/null || echo 'not built')"
	fi
	if [ -e "$G/go.sp.rc" ]; then
		table go "gowork 1500 (Go, GOARCH=arm64)" '(^|;)main\.main\.func1;main\.(hashWork|allocWork)(;|$)'
	else
		echo; echo "go: not run: $(cat "$XW/gowork.why" 2>/dev/null || echo 'not built')"
	fi
	echo
	echo "Took $took s; the guest's files in $D"
} | tee "$OUTDIR/$SER.txt"
