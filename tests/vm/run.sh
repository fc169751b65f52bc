#!/usr/bin/env bash
# ninja test-vm: the smoke suite on Debian's kernels under qemu (TCG: no
# KVM needed).  For each series (VM_SERIES, default "5.10 6.1 6.12 arm64
# arm64-nopmu": x86-64's cloud kernels of bullseye, bookworm and trixie;
# bookworm's arm64 kernel on qemu's virt board with its emulated PMU, and
# without one) it takes the newest kernel apt knows, boots it with an
# initramfs of busybox, the static tools and workloads, and
# tests/vm/guest.sh as /init; the guest records and sends its spools
# back; tests/vm/checks.bash judges them here, with the host's tools.
# Prints a line per kernel with its package and version, then "N passed,
# N failed" (", N skipped"); exits 1 if anything failed.  Logs and spools
# are in build/test-tmp/vm-run/SERIES/, downloads in build/vm/.
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.bash"
VM=build/vm
. tests/vm/fetch.bash
. tests/vm/checks.bash
SERIES=${VM_SERIES:-5.10 6.1 6.12 arm64 arm64-nopmu}
mkdir -p "$VM"
: >"$VM/apt.log"

# series_info SERIES: "ARCH SUITE META VERSION PMU": the architecture,
# the Debian suite, the kernel's metapackage and version series, and
# whether the guest must have a CPU PMU (yes, no, or - where the matrix
# asks nothing of it: qemu's TCG emulates none for x86-64).  Nothing for
# an unknown SERIES.
series_info() {
	case $1 in
	5.10) echo amd64 bullseye linux-image-cloud-amd64 5.10 - ;;
	6.1) echo amd64 bookworm linux-image-cloud-amd64 6.1 - ;;
	6.12) echo amd64 trixie linux-image-cloud-amd64 6.12 - ;;
	arm64) echo arm64 bookworm linux-image-arm64 6.1 yes ;;
	arm64-nopmu) echo arm64 bookworm linux-image-arm64 6.1 no ;;
	esac
}

# series_name SERIES: how the line of SERIES starts: its suite, and for
# arm64 the architecture and the PMU.
series_name() {
	local arch suite meta ver pmu
	read -r arch suite meta ver pmu < <(series_info "$1")
	case $pmu in
	yes) echo "$suite $arch with a PMU" ;;
	no) echo "$suite $arch without a PMU (pmu=off)" ;;
	*) echo "${suite:-unknown series $1}" ;;
	esac
}

# cross_workloads DIR: tests/workloads' tree, forker and offcpu for arm64
# in DIR, glibc-dynamic from Debian's cross compiler, -O2 without frame
# pointers (only CFI unwinds them) and without PAC; tree-pac is tree with
# return addresses signed, as Debian and Ubuntu build arm64; pacprobe
# says whether the guest signs them; then cross_extras.
cross_workloads() {
	local cc=aarch64-linux-gnu-gcc f=(-O2 -g -fomit-frame-pointer -Wall -Werror -pthread) w
	mkdir -p "$1" || return 1
	for w in tree forker offcpu sigspin sigstorm waiter; do
		$cc "${f[@]}" -mbranch-protection=none -o "$1/$w" "tests/workloads/$w.c" || return 1
	done
	$cc "${f[@]}" -mbranch-protection=standard -o "$1/tree-pac" tests/workloads/tree.c &&
	    $cc -O2 -Wall -Werror -o "$1/pacprobe" tests/vm/pacprobe.c || return 1
	cross_extras "$1"
}

# cross_extras DIR: issue 27's other arm64 builds, each where its
# toolchain can be had: except (C++ exceptions in flight,
# tests/workloads/except.cc) by clang++ for arm64 against Debian's cross
# libstdc++, linked by lld, which packs its segments; gowork (Go,
# GOARCH=arm64, its std built once into build/vm/go-arm64).  Where apt
# cannot install a toolchain, DIR/NAME.why says "skip REASON"; a build
# that fails, "fail REASON".
cross_extras() {
	local d gw
	d=$(readlink -f "$1") gw=$(readlink -f "$1")/gowork-src
	rm -f "$d"/*.why
	if ! need clang++ clang || ! need ld.lld lld || ! need aarch64-linux-gnu-g++ g++-aarch64-linux-gnu; then
		echo "skip clang++, ld.lld or the arm64 libstdc++ of g++-aarch64-linux-gnu is absent, and apt could not install it" >"$d/except.why"
	elif ! clang++ --target=aarch64-linux-gnu -O2 -g -fomit-frame-pointer -fuse-ld=lld \
	    -o "$d/except" tests/workloads/except.cc >"$d/except.log" 2>&1; then
		echo "fail clang++ --target=aarch64-linux-gnu -fuse-ld=lld (see $d/except.log)" >"$d/except.why"
	fi
	if ! need go golang-go; then
		echo "skip the go tool is absent and golang-go could not be installed" >"$d/gowork.why"
	elif ! { rm -rf "$gw" && cp -r tests/workloads/gowork "$gw" &&
	    env -C "$gw" GOCACHE="$PWD/$VM/go-arm64/cache" GOPATH="$PWD/$VM/go-arm64/path" \
	    GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOOS=linux GOARCH=arm64 \
	    CGO_ENABLED=0 go build -o "$d/gowork" .; } >"$d/gowork.log" 2>&1; then
		echo "fail go build with GOARCH=arm64 (see $d/gowork.log)" >"$d/gowork.why"
	fi
	return 0
}

# arch_ready ARCH: makes ready what ARCH's guests need, once a run: qemu,
# the private indexes, busybox, and for arm64 the cross-built workloads
# and tools.  Sets BB_ARCH[ARCH] (the guest's busybox); where it cannot,
# WHY_ARCH[ARCH] ("skip REASON" or "fail REASON") and fails, then and on
# each later call.
declare -A BB_ARCH=() WHY_ARCH=()
arch_ready() {
	local a=$1 why=
	[ -z "${BB_ARCH[$a]:-}" ] || return 0
	[ -z "${WHY_ARCH[$a]:-}" ] || return 1
	case $a in
	amd64)
		if ! need qemu-system-x86_64 qemu-system-x86; then
			why="skip no qemu-system-x86_64, and apt could not install qemu-system-x86 (root and apt needed)"
		elif ! why=$(apt_setup amd64 bullseye bookworm trixie); then
			why="skip $why"
		fi ;;
	arm64)
		if ! need qemu-system-aarch64 qemu-system-arm; then
			why="skip no qemu-system-aarch64, and apt could not install qemu-system-arm (root and apt needed)"
		elif ! need aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu; then
			why="skip no aarch64-linux-gnu-gcc, and apt could not install gcc-aarch64-linux-gnu (root and apt needed)"
		elif [ ! -x "$ABIN/sp-record" ] || [ ! -x "$ABIN/sp-dump" ] || [ ! -x "$ABIN/sp-fold" ]; then
			why="skip no $ABIN/sp-record, sp-dump and sp-fold: ninja aarch64 builds them"
		elif ! cross_workloads "$XW" >"$TMP/aarch64.log" 2>&1; then
			why="fail cross-compile the arm64 workloads (see $TMP/aarch64.log)"
		elif ! host_spool "$HOST_SPOOL" >"$TMP/host-spool.log" 2>&1; then
			why="fail record and symbolize an x86-64 spool here for the arm64 guests (see $TMP/host-spool.log)"
		elif ! why=$(apt_setup arm64 bookworm); then
			why="skip $why"
		fi ;;
	*)
		why="fail no architecture $a" ;;
	esac
	if [ -z "$why" ] && ! BB_ARCH[$a]=$(fetch_busybox "$a"); then
		why="fail fetch busybox-static for $a (see $VM/apt.log)"
	fi
	[ -z "$why" ] && return 0
	WHY_ARCH[$a]=$why
	return 1
}
ABIN=build/aarch64/bin
XW=$TMP/aarch64		# the arm64 workloads, their builds' logs and *.why
HOST_SPOOL=$XW/host.spl

# host_spool SPOOL: tree-O2 recorded here for 300 ms of CPU, symbolized:
# the x86-64 spool the arm64 guests read with their own tools.
host_spool() {
	mkdir -p "$(dirname "$1")" &&
	    $REC -o "$1.raw" -- $W/tree-O2 300 cpu && $SYM -q -o "$1" "$1.raw"
}

# guest_libs ARCH ROOT: the loader and libraries the workloads in ROOT/w
# need, at the paths the guest's loader looks for them (sp-sym --sysroot
# finds them there too).  amd64's are the host's, where ldd finds them;
# arm64's are the cross compiler's Debian libc, the loader at its
# PT_INTERP path and the libraries in Debian's multiarch directory, the
# first the loader searches.
guest_libs() {
	local r=$2 cc=aarch64-linux-gnu-gcc l new f
	if [ "$1" = amd64 ]; then
		ldd "$r"/w/* | awk '$(NF - 1) ~ /^\// { print $(NF - 1) }' | sort -u |
		    while read -r l; do
			mkdir -p "$r$(dirname "$l")" && cp -L "$l" "$r$l" || exit 1
		    done
		return
	fi
	l=$(aarch64-linux-gnu-readelf -l "$r/w/tree" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	[ -n "$l" ] && mkdir -p "$r$(dirname "$l")" &&
	    cp -L "$($cc -print-file-name="$(basename "$l")")" "$r$l" || return 1
	mkdir -p "$r/lib/aarch64-linux-gnu"
	new=1
	while [ -n "$new" ]; do
		new=
		for l in $(aarch64-linux-gnu-readelf -d "$r"/w/* "$r"/lib/aarch64-linux-gnu/* 2>/dev/null |
		    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort -u); do
			[ -e "$r/lib/aarch64-linux-gnu/$l" ] || [ -e "$r/lib/$l" ] && continue
			f=$($cc -print-file-name="$l")
			[ "$f" != "$l" ] && cp -L "$f" "$r/lib/aarch64-linux-gnu/$l" || return 1
			new=1
		done
	done
}

# initramfs ARCH DIR: DIR/root (the guest's files, also the sysroot sp-sym
# reads them from) and DIR/initrd.gz, packed by the host's busybox cpio.
initramfs() {
	local r=$2/root bin w
	rm -rf "$r" && mkdir -p "$r"/{bin,etc,w,proc,sys,dev,tmp} || return 1
	if [ "$1" = amd64 ]; then
		bin=$BIN
		cp $W/tree-O2 "$r/w/tree" && cp $W/forker $W/offcpu $W/sigspin $W/sigstorm $W/waiter "$r/w/" || return 1
	else
		bin=$ABIN
		for w in tree tree-pac forker offcpu sigspin sigstorm waiter pacprobe except gowork; do
			[ -e "$XW/$w.why" ] || cp "$XW/$w" "$r/w/" || return 1
		done
		cp "$HOST_SPOOL" "$r/w/host.spl" && cp $ABIN/sp-fold "$r/bin/" || return 1
	fi
	cp "${BB_ARCH[$1]}" "$r/bin/busybox" && cp $bin/sp-record $bin/sp-dump "$r/bin/" &&
	    cp tests/vm/guest.sh "$r/init" && chmod 755 "$r/init" || return 1
	guest_libs "$1" "$r" || return 1
	printf 'root:x:0:0::/:/bin/sh\nuser:x:1000:1000::/tmp:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\nuser:x:1000:\n' >"$r/etc/group"
	pack "$2"
}

# pack DIR: DIR/root packed into DIR/initrd.gz by the host's busybox cpio.
pack() {
	local bb
	bb=$(realpath "${BB_ARCH[amd64]}") || return 1
	(cd "$1/root" && find . | "$bb" cpio -o -H newc 2>/dev/null) |
	    gzip -1 >"$1/initrd.gz"
}

# host_busy: the host's busy CPU time since boot, in clock ticks (user,
# nice, system, irq, softirq and steal of /proc/stat; a guest's is in
# user).
host_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# boot ARCH PMU VMLINUZ DIR: runs the guest, VM_TIMEOUT s (300) at most;
# its console in DIR/console.log, what it sent in DIR/out/.  Fails when nothing came
# back whole.  x86-64 sends on its second 16550 (ttyS1); arm64's virt
# board has one PL011 (ttyAMA0, the console) and gets a PCI 16550 (ttyS0,
# 8250_pci is built into Debian's kernel).  arm64's PAC uses qemu's
# IMPLEMENTATION DEFINED algorithm: addresses are still signed and must
# still be stripped, and the guest boots and runs in half the time that
# emulating QARMA takes.  PMU no: -cpu max,pmu=off, no armv8_pmuv3.
boot() {
	local d=$4 q busy0 w0 TIMEFORMAT='%U %S'
	rm -rf "$d/out" "$d/results.log"
	# The console's -serial first: it is ttyS0 on x86-64.
	if [ "$1" = amd64 ]; then
		q=(qemu-system-x86_64 -cpu max -serial "file:$d/console.log")
		q+=(-serial "file:$d/results.log")
		q+=(-append "console=ttyS0 panic=-1 quiet stackpulse.port=/dev/ttyS1")
	else
		q=(qemu-system-aarch64 -M virt -cpu "max,pauth-impdef=on$([ "$2" = no ] && echo ,pmu=off)")
		q+=(-serial "file:$d/console.log")
		q+=(-chardev "file,id=results,path=$d/results.log" -device pci-serial,chardev=results)
		q+=(-append "console=ttyAMA0 panic=-1 quiet stackpulse.port=/dev/ttyS0")
	fi
	busy0=$(host_busy) w0=$EPOCHREALTIME
	{ time timeout "${VM_TIMEOUT:-300}" "${q[@]}" -accel tcg -m 512 -smp 1 \
	    -display none -monitor none -no-reboot \
	    -kernel "$3" -initrd "$d/initrd.gz" >"$d/qemu.log" 2>&1; } 2>"$d/qemu.time"
	echo $? >"$d/qemu.rc"
	# The CPUs the host's other work kept busy while the guest ran: all
	# the host's busy time less qemu's own, over the run's wall time
	# (checks.bash, starved).  The 1-minute load average, used before,
	# still counted the work before the guest a minute on.
	awk -v b0="$busy0" -v b1="$(host_busy)" -v w0="$w0" -v w1="$EPOCHREALTIME" \
	    -v hz="$(getconf CLK_TCK)" '{ o = ((b1 - b0) / hz - $1 - $2) / (w1 - w0)
	        printf "%.2f\n", o < 0 ? 0 : o }' "$d/qemu.time" >"$d/hostload"
	tr -d '\r' <"$d/results.log" |
	    sed -n '/^--- stackpulse-vm begin$/,/^--- stackpulse-vm end$/p' |
	    sed '1d;$d' | base64 -d 2>/dev/null | tar -xz -C "$d" 2>/dev/null
	[ -s "$d/out/uname" ]
}

# one_kernel SERIES: makes its architecture ready, fetches, boots and
# checks; the checks' lines on standard output; the kernel's "IMAGE
# VERSION" in $TMP/SERIES/kernel.
one_kernel() {
	local d=$TMP/$1 k t0=$SECONDS arch suite meta ver pmu why
	rm -rf "$d" && mkdir -p "$d"
	read -r arch suite meta ver pmu < <(series_info "$1")
	if [ -z "$arch" ]; then
		fail "$1: a series of the matrix" "VM_SERIES takes 5.10 6.1 6.12 arm64 arm64-nopmu"
		return
	fi
	if ! arch_ready "$arch"; then
		why=${WHY_ARCH[$arch]}
		case $why in
		skip*) skip "$1: the $arch kernels under qemu" "${why#skip }" ;;
		*) fail "$1: ${why#fail }" ;;
		esac
		return
	fi
	if ! k=$(fetch_kernel "$arch" "$meta" "$ver"); then
		fail "$1: fetch the newest $meta $ver.x" "see $VM/apt.log"
		return
	fi
	echo "$k" >"$d/kernel"
	if ! initramfs "$arch" "$d"; then
		fail "$1: pack the initramfs"
		return
	fi
	if ! boot "$arch" "$pmu" "$VM/kernels/${k%% *}/vmlinuz" "$d"; then
		fail "$1: the guest booted and sent its results back (qemu status $(cat "$d/qemu.rc"))" \
		    "$(tail -5 "$d/console.log" 2>/dev/null)"
		return
	fi
	echo "booted in qemu and back in $((SECONDS - t0)) s" >"$d/seconds"
	guest_checks "$d/out" "$d/root" "$d" "$arch" "$pmu"
}

# tally LOG: "P F S": the PASS, FAIL and SKIP lines of LOG.
tally() {
	awk '/^PASS / { p++ } /^FAIL / { f++ } /^SKIP / { s++ }
	    END { print p + 0, f + 0, s + 0 }' "$1"
}

# Sourced (bench/arm64.sh): the functions above, not the matrix.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
t0=$SECONDS
total_p=0 total_f=0 total_s=0
# Every guest's initramfs is packed by the host's (amd64) busybox.
if ! arch_ready amd64; then
	why=${WHY_ARCH[amd64]}
	case $why in
	skip*) skip "the kernels under qemu" "${why#skip }"; total_s=1 ;;
	*) fail "${why#fail }"; total_f=1 ;;
	esac
	SERIES=
fi
for s in $SERIES; do
	log=$TMP/$s.log
	one_kernel "$s" >"$log" 2>&1
	read -r p f sk < <(tally "$log")
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + sk))
	k=$(cat "$TMP/$s/kernel" 2>/dev/null)
	printf '%s %s (%s, %s): %d passed, %d failed%s; %s\n' \
	    "$(series_name "$s")" "${k#* }" "${k%% *}" \
	    "$(cat "$TMP/$s/out/uname" 2>/dev/null || echo 'not booted')" \
	    "$p" "$f" "$( [ "$sk" = 0 ] || echo ", $sk skipped")" \
	    "$(cat "$TMP/$s/seconds" 2>/dev/null || echo 'no boot')"
	# Each failure with its indented lines (5 at most).
	awk '/^FAIL / { n = 6 } !/^    / && !/^FAIL / { n = 0 } n-- > 0' "$log" | sed 's/^/    /'
	grep '^SKIP ' "$log" | sed 's/^/    /'
done
echo "the matrix took $((SECONDS - t0)) s"
printf '%d passed, %d failed%s\n' "$total_p" "$total_f" \
    "$( [ "$total_s" = 0 ] || echo ", $total_s skipped")"
[ "$total_f" = 0 ]
