#!/bin/busybox sh
# The guest's /init (busybox sh, in the initramfs tests/vm/run.sh packs):
# mounts what sp-record needs, runs the smoke recordings, and sends /out
# (spools, stderr, exit statuses) to the host through a serial port of its
# own (stackpulse.port= on the kernel's command line: x86-64's second
# 16550, arm64's PCI one; the console is the other), as base64 of a
# gzipped tar between two marker lines; then powers off.  It judges
# nothing: tests/vm/checks.bash does, on the host.  /w holds the
# workloads, /bin busybox and the tools; the same script serves every
# architecture.
export PATH=/bin
/bin/busybox --install -s /bin
O=/out
mkdir -p $O
{
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mount -t tmpfs tmp /tmp
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	echo "kptr_restrict $(cat /proc/sys/kernel/kptr_restrict)"
	head -2 /proc/kallsyms
	echo "cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
	grep perf /proc/cgroups
	grep -m1 -i '^features' /proc/cpuinfo
} >$O/setup.log 2>&1
# The PMUs the kernel offers (armv8_pmuv3 on arm64 when qemu emulates
# one, cpu on x86-64 with a PMU): the event sp-record should pick.
ls /sys/bus/event_source/devices >$O/pmus 2>&1
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
# The kernel times each PMU interrupt and lowers perf_event_max_sample_rate
# when they take more than perf_cpu_time_max_percent of the CPU.  Under
# TCG an emulated PMU's interrupt took 132 us of the guest's clock, more
# while the host is busy, and the limit fell from 100000 to 1500 Hz in 8 s,
# on its way below the 1 kHz the checks record at.  That is the
# emulator's time, not the recorder's: the mechanism is off (0).
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent

# keep NAME CMD...: CMD's stdout, stderr and status in /out/NAME.out, .err
# and .rc.
keep() {
	n=$1
	shift
	"$@" >$O/$n.out 2>$O/$n.err
	echo $? >$O/$n.rc
}

# rec NAME ARGS...: keep NAME sp-record ARGS, 120 s at most, so that one
# hung recording cannot take the others' results with it.
rec() {
	n=$1
	shift
	keep $n timeout 120 sp-record "$@"
}

# user CMD: the shell command CMD as "user" (uid and gid 1000), a user
# without privileges; 120 s at most.
user() { timeout 120 su -s /bin/sh -c "$1" user; }

# background NAME CMD...: starts CMD, its stderr in /out/NAME.err; its pid
# in $bg.
background() {
	n=$1
	shift
	"$@" 2>$O/$n.err &
	bg=$!
}

# finish NAME: waits for $bg, its status in /out/NAME.rc.
finish() {
	wait $bg
	echo $? >$O/$1.rc
}

uname -r >$O/uname
echo "$paranoid" >$O/paranoid

# A command: tree's split, complete stacks, nothing lost at 1 kHz.
rec cmd -o $O/cmd.spl -- /w/tree 2000 cpu
# Fixed intervals, as perf's: cycles where the guest has a PMU.
rec fixed --no-jitter -o $O/fixed.spl -- /w/tree 500 cpu
# A hardware event that counts (-e), recorded where the guest has a PMU
# and refused by name where not (cycles: qemu's TCG PMU counts
# instructions only with -icount); a software one everywhere.
rec instr -e cycles -o $O/instr.spl -- /w/tree 500 cpu
rec faults -e page-faults -o $O/faults.spl -- /w/tree 300 cpu
# The kernel's frame-pointer walks (--call-graph fp): never claimed
# whole.
rec fp --call-graph fp -o $O/fp.spl -- /w/tree 500 cpu

# Through a signal frame: a handler that spins, interrupting wait_loop.
rec sig -o $O/sig.spl -- /w/sigspin 1000
# Signals raised in a loop: samples in the kernel's delivery and in
# rt_sigreturn.  3 s of CPU: about 5 % of the samples land at the end of
# arm64's trampoline (42-59 of 1,000 a second), but one guest's run gave
# 9, under the 10 its checks need to judge.
rec storm -o $O/storm.spl -- /w/sigstorm 3000

# The same from a build with return addresses signed (arm64's PAC), where
# the guest has one.
[ -x /w/pacprobe ] && /w/pacprobe >$O/pacprobe.out 2>&1
[ -x /w/tree-pac ] && rec pac -o $O/pac.spl -- /w/tree-pac 2000 cpu

# C++ exceptions in flight, from clang++ linked by lld, and Go, where
# run.sh built them (arm64).
[ -x /w/except ] && rec cxx -o $O/cxx.spl -- /w/except 2000
[ -x /w/gowork ] && rec go -o $O/go.spl -- /w/gowork 1500

# SIGINT to the recorder of a command (its own session, so that the
# workload it leaves can be ended with it).
setsid sp-record -o $O/int.spl -- /w/tree 30000 cpu 2>$O/int.err &
p=$!
sleep 2
kill -INT $p
wait $p
echo $? >$O/int.rc
kill -9 -- -$p 2>/dev/null

# -p, without and with --stop: the target runs on and exits 0.
for m in pid stop; do
	opt=
	[ $m = stop ] && opt=--stop
	background $m-target /w/tree 2500 cpu
	sleep 0.5
	rec $m -p $bg $opt -d 1 -o $O/$m.spl
	kill -0 $bg 2>/dev/null
	echo $? >$O/$m-target.alive
	finish $m-target
done

# -p on a process blocked in epoll_wait: without --stop the call goes on
# (it prints "timeout"), --stop interrupts it (EINTR), as documented.
for m in wait waitstop; do
	opt=
	[ $m = waitstop ] && opt=--stop
	/w/waiter 3 >$O/$m-target.out 2>&1 &
	bg=$!
	sleep 0.5
	rec $m -p $bg $opt -d 0.5 -o $O/$m.spl
	wait $bg
done

# A command's children.
rec children -o $O/children.spl -- /w/forker 2 400

# Kernel callchains, kallsyms kept in a bundle: dd reads /dev/zero.
rec kernel --kernel -b $O/bundle -o $O/kernel.spl -- \
    dd if=/dev/zero of=/dev/null bs=64k count=6000

# Off the CPU.
rec offcpu --off-cpu -o $O/offcpu.spl -- /w/offcpu 3

# -D: nothing sampled in the first 600 ms.
rec delay -D 600 -o $O/delay.spl -- /w/tree 1500

# -a and -G: tree inside the cgroup spv, tree outside it.
mkdir /sys/fs/cgroup/spv
background in sh -c 'echo $$ >/sys/fs/cgroup/spv/cgroup.procs && exec /w/tree 4000 cpu'
in=$bg
background out /w/tree 4000 cpu
out=$bg
sleep 0.5
echo "$in" >$O/in.pid
echo "$out" >$O/out.pid
rec all -a -d 1 -o $O/all.spl
# A hierarchy whose root never had a controller enabled gives its
# children no perf_event state: sp-record says how to mend it, and after
# the mend (systemd's at boot) records the cgroup.
rec cgroup0 -G spv -d 1 -o $O/cgroup0.spl
echo +pids >/sys/fs/cgroup/cgroup.subtree_control
rec cgroup -G spv -d 1 -o $O/cgroup.spl
kill $in $out 2>/dev/null
wait

# A rate above perf_event_max_sample_rate, as it is now (the kernel may
# have lowered it before its mechanism was off).
cat /proc/sys/kernel/perf_event_max_sample_rate >$O/max_rate
rec maxrate -F $(($(cat $O/max_rate) + 1)) -o $O/maxrate.spl -- true

# A user without privileges at perf_event_paranoid 2 and 3, and with a
# small RLIMIT_MEMLOCK (64 KiB).
mkdir -p $O/u
chmod 777 $O/u
for lvl in 2 3; do
	echo $lvl >/proc/sys/kernel/perf_event_paranoid
	keep user$lvl user "sp-record -o $O/u/user$lvl.spl -- /w/tree 500 cpu"
done
echo 2 >/proc/sys/kernel/perf_event_paranoid
ulimit -l 64
keep memlock user "sp-record -o $O/u/memlock.spl -- /w/tree 500 cpu"
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid

# The offline use the other way round: an x86-64 spool from the host,
# symbolized there, where run.sh put one, read by this guest's tools.
if [ -s /w/host.spl ]; then
	keep host-check sp-dump --check /w/host.spl
	keep host-fold sp-fold /w/host.spl
fi

dmesg >$O/dmesg

# Back to the host.
port=$(sed -n 's/.*stackpulse\.port=\([^ ]*\).*/\1/p' /proc/cmdline)
{
	echo "--- stackpulse-vm begin"
	tar -C / -cf - out | gzip | base64
	echo "--- stackpulse-vm end"
} >"${port:-/dev/ttyS1}"
sync
poweroff -f
