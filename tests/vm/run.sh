#!/usr/bin/env bash
# ninja test-vm: the smoke suite on Debian's x86-64 cloud kernels under qemu
# (TCG: no KVM needed).  For each series (VM_SERIES, default "5.10 6.1
# 6.12": bullseye, bookworm, trixie) it takes the newest kernel apt knows,
# boots it with an initramfs of busybox, the static tools and workloads,
# and tests/vm/guest.sh as /init; the guest records and sends its spools
# back; tests/vm/checks.bash judges them here, with the host's tools.
# Prints a line per kernel with its package and version, then "N passed,
# N failed" (", N skipped"); exits 1 if anything failed.  Logs and spools
# are in build/test-tmp/vm-run/SERIES/, downloads in build/vm/.
. "$(dirname "$0")/../cli/lib.bash"
VM=build/vm
. tests/vm/fetch.bash
. tests/vm/checks.bash
SERIES=${VM_SERIES:-5.10 6.1 6.12}
SUITES="bullseye bookworm trixie"
mkdir -p "$VM"

# initramfs BUSYBOX DIR: DIR/root (the guest's files, also the sysroot
# sp-sym reads them from) and DIR/initrd.gz, packed by BUSYBOX's cpio.
initramfs() {
	local r=$2/root bb
	bb=$(realpath "$1")
	rm -rf "$r" && mkdir -p "$r"/{bin,etc,w,proc,sys,dev,tmp} || return 1
	cp "$1" "$r/bin/busybox" &&
	    cp $BIN/sp-record $BIN/sp-dump "$r/bin/" &&
	    cp $W/tree-O2 "$r/w/tree" && cp $W/forker "$r/w/forker" &&
	    cp $W/offcpu "$r/w/offcpu" &&
	    cp tests/vm/guest.sh "$r/init" && chmod 755 "$r/init" || return 1
	# The workloads are the host's glibc builds: its loader and libraries
	# go along, at the same paths (sp-sym --sysroot finds them there).
	ldd "$r"/w/* | awk '$(NF - 1) ~ /^\// { print $(NF - 1) }' | sort -u |
	    while read -r l; do
		mkdir -p "$r$(dirname "$l")" && cp -L "$l" "$r$l" || exit 1
	    done || return 1
	printf 'root:x:0:0::/:/bin/sh\nuser:x:1000:1000::/tmp:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\nuser:x:1000:\n' >"$r/etc/group"
	(cd "$r" && find . | "$bb" cpio -o -H newc 2>/dev/null) |
	    gzip -1 >"$2/initrd.gz"
}

# boot VMLINUZ DIR: runs the guest, 300 s at most; its console in
# DIR/console.log, what it sent in DIR/out/.  Fails when nothing came
# back whole.
boot() {
	local d=$2
	rm -rf "$d/out" "$d/ttyS1.log"
	timeout 300 qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 1 \
	    -display none -monitor none -no-reboot \
	    -kernel "$1" -initrd "$d/initrd.gz" \
	    -append "console=ttyS0 panic=-1 quiet" \
	    -serial "file:$d/console.log" -serial "file:$d/ttyS1.log" \
	    >"$d/qemu.log" 2>&1
	echo $? >"$d/qemu.rc"
	# The host's 1-minute load as the guest ends (checks.bash, starved).
	cut -d' ' -f1 /proc/loadavg >"$d/hostload"
	tr -d '\r' <"$d/ttyS1.log" |
	    sed -n '/^--- stackpulse-vm begin$/,/^--- stackpulse-vm end$/p' |
	    sed '1d;$d' | base64 -d 2>/dev/null | tar -xz -C "$d" 2>/dev/null
	[ -s "$d/out/uname" ]
}

# series_suite SERIES: the Debian suite whose kernel SERIES is.
series_suite() {
	case $1 in
	5.10) echo bullseye ;;
	6.1) echo bookworm ;;
	6.12) echo trixie ;;
	*) echo unknown ;;
	esac
}

# one_kernel SERIES BUSYBOX: fetches, boots and checks; the checks' lines
# on standard output; the kernel's "IMAGE VERSION" in $TMP/SERIES/kernel.
one_kernel() {
	local d=$TMP/$1 k t0=$SECONDS
	rm -rf "$d" && mkdir -p "$d"
	if ! k=$(fetch_kernel "$1"); then
		fail "$1: fetch the newest linux-image-cloud-amd64 $1.x" "see $VM/apt.log"
		return
	fi
	echo "$k" >"$d/kernel"
	if ! initramfs "$2" "$d"; then
		fail "$1: pack the initramfs"
		return
	fi
	if ! boot "$VM/kernels/${k%% *}/vmlinuz" "$d"; then
		fail "$1: the guest booted and sent its results back (qemu status $(cat "$d/qemu.rc"))" \
		    "$(tail -5 "$d/console.log" 2>/dev/null)"
		return
	fi
	echo "booted in qemu and back in $((SECONDS - t0)) s" >"$d/seconds"
	guest_checks "$d/out" "$d/root" "$d"
}

# tally LOG: "P F S": the PASS, FAIL and SKIP lines of LOG.
tally() {
	awk '/^PASS / { p++ } /^FAIL / { f++ } /^SKIP / { s++ }
	    END { print p + 0, f + 0, s + 0 }' "$1"
}

t0=$SECONDS
total_p=0 total_f=0 total_s=0
if ! need qemu-system-x86_64 qemu-system-x86; then
	skip "the kernels under qemu" "no qemu-system-x86_64, and apt could not install qemu-system-x86 (root and apt needed)"
	total_s=1
elif ! command -v apt-get >/dev/null || ! why=$(apt_setup $SUITES); then
	skip "the kernels under qemu" "${why:-no apt-get to fetch the kernels with}"
	total_s=1
elif ! bb=$(fetch_busybox); then
	fail "fetch busybox-static" "see $VM/apt.log"
	total_f=1
else
	for s in $SERIES; do
		log=$TMP/$s.log
		one_kernel "$s" "$bb" >"$log" 2>&1
		read -r p f sk < <(tally "$log")
		total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + sk))
		k=$(cat "$TMP/$s/kernel" 2>/dev/null)
		printf '%s %s (%s, %s): %d passed, %d failed%s; %s\n' \
		    "$(series_suite "$s")" "${k#* }" "${k%% *}" \
		    "$(cat "$TMP/$s/out/uname" 2>/dev/null || echo 'not booted')" \
		    "$p" "$f" "$( [ "$sk" = 0 ] || echo ", $sk skipped")" \
		    "$(cat "$TMP/$s/seconds" 2>/dev/null || echo 'no boot')"
		grep -A5 '^FAIL ' "$log" | sed 's/^/    /'
		grep '^SKIP ' "$log" | sed 's/^/    /'
	done
fi
echo "the matrix took $((SECONDS - t0)) s"
printf '%d passed, %d failed%s\n' "$total_p" "$total_f" \
    "$( [ "$total_s" = 0 ] || echo ", $total_s skipped")"
[ "$total_f" = 0 ]
