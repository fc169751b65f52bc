#!/usr/bin/env bash
# sp-record under faults and load (root, the real kernel): killed at many
# moments, targets that exit or are replaced, thread/fork churn, the
# highest rate, a full disk, a closed pipe; and the limits of
# docs/limits.md that no other test reaches.  Every count is compared with
# what the workload says it did or with its CPU time, never with the wall
# clock: the machine is shared.
. "$(dirname "$0")/../lib.bash"
# A copy of tree at a path of this suite's own, for the checks that look
# for a leftover workload by its command line (pgrep): another suite, or
# another checkout, may be running build/tests/tree meanwhile.
OWN_TREE=$PWD/$TMP/tree
cp $W/tree "$OWN_TREE"

field() { grep -o "$1=[0-9]*" "$2" | head -1 | cut -d= -f2; }	# NAME FILE

# --- SIGKILL at 20 moments -----------------------------------------------------
# Each recording runs in its own process group (setsid) so that the
# workload goes with it.  Moments are counted from the spool's creation:
# the first ones fall in the spawn (events opened, exec pending), then
# early, middle and late in the first 1.5 s of a 3 s run.
moments="0 0.002 0.005 0.01 0.02 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0 1.1 1.3 1.5"
ok=0 truncated=0 series=""
for m in $moments; do
	f=$TMP/kill-$m.spl
	rm -f "$f"
	# 3 s: the last moment, 1.5 s, falls well inside the run even on
	# an idle machine.
	setsid $REC -q -o "$f" -- $W/tree 3000 >/dev/null 2>&1 &
	rp=$!
	for _ in $(seq 2000); do [ -e "$f" ] && break; sleep 0.005; done
	sleep "$m"
	kill -9 $rp
	kill -9 -- -$rp 2>/dev/null
	wait $rp 2>/dev/null
	run $DUMP --check "$f"
	n=$(checked_samples "$OUT")
	[ "$RC" -eq 0 ] && ok=$((ok + 1))
	has "truncated at offset" "$ERR" && truncated=$((truncated + 1))
	series="$series $m:${n:--}"
done
echo "# kill moment (s):samples$series"
check "all 20 killed spools pass sp-dump --check" test "$ok" -eq 20
check "all 20 are reported as a recovered truncated prefix ($truncated)" \
    test "$truncated" -eq 20
# Samples grow with the moment: compare the means of the early, middle
# and late thirds (single runs jitter on a loaded machine).
read -r e mid l < <(tr ' ' '\n' <<<"$series" | awk -F: 'NF == 2 {
	v = $2 == "-" ? 0 : $2; i++
	if (i <= 6) e += v; else if (i <= 13) m += v; else l += v
} END { printf "%d %d %d\n", e / 6, m / 7, l / 7 }')
check "samples before the kill are there, and grow with the moment (means $e < $mid < $l)" \
    test "$mid" -gt 0 -a "$e" -lt "$mid" -a "$mid" -lt "$l"

# --- targets that exit ---------------------------------------------------------
# A zombie: it exists (kill -0 works) but has no thread left to sample.
$W/churn zombie 5 >"$TMP/zombie.out" &
zp=$!
for _ in $(seq 200); do grep -q zombie= "$TMP/zombie.out" && break; sleep 0.02; done
z=$(field zombie "$TMP/zombie.out")
check "the workload made a zombie ($z)" grep -q '^State:.*Z' "/proc/${z:-0}/status"
run $REC -o "$TMP/zombie.spl" -p "$z"
check "attaching to a process that is exiting fails (exit 1)" test "$RC" -eq 1
check "the message names the pid and says it exited during the attach" \
    has "pid $z exited while it was being attached" "$ERR"
kill $zp 2>/dev/null
wait $zp 2>/dev/null

# An attached process that exits, then one killed, during the recording.
$W/tree 400 2>/dev/null &
tp=$!
run $REC -p $tp -o "$TMP/exits.spl"
check "an attached target that exits ends the recording with status 0" test "$RC" -eq 0
check "the message names the pid and says it exited" \
    has "pid $tp exited; its recording ends there" "$ERR"
run $DUMP --check "$TMP/exits.spl"
check "its spool is finished" has "finished" "$OUT"
check "and has its samples" test "$(counter "$TMP/exits.spl" samples)" -gt 0
$W/tree 5000 2>/dev/null &
tp=$!
(
	sleep 0.5
	kill -9 $tp
) &
run $REC -p $tp -o "$TMP/killed.spl"
check "an attached target killed meanwhile: status 0" test "$RC" -eq 0
check "its exit is named" has "pid $tp exited; its recording ends there" "$ERR"
run $DUMP --check "$TMP/killed.spl"
check "and the spool is finished" has "finished" "$OUT"
run $REC -o "$TMP/cmdkilled.spl" -- sh -c 'kill -9 $$'
check "a command killed by a signal: exit 128+9" test "$RC" -eq 137
check "the message names the command, its pid and the signal" \
    grep -qE '^sp-record: sh \(pid [0-9]+\) was killed by signal 9 ' <<<"$ERR"

# --- a pid reused by another image ------------------------------------------------
# In a PID namespace of its own nothing else takes pids, so writing
# ns_last_pid makes the second child get the first one's pid.
run unshare --pid --fork --mount-proc $REC --children -o "$TMP/reuse.spl" -- bash -c "
	$W/tree 300 2>/dev/null & a=\$!; wait \$a
	echo \$((a - 1)) >/proc/sys/kernel/ns_last_pid
	$W/recurse 50 300 & b=\$!; wait \$b
	echo a=\$a b=\$b"
a=$(field a "$TMP/out") b=$(field b "$TMP/out")
check "the pid was reused (a=$a b=$b)" test -n "$a" -a "$a" = "$b"
run $DUMP --check "$TMP/reuse.spl"
check "the reuse spool checks clean" has "finished" "$OUT"
# The first life ends at its exit record; the second starts at the next
# fork of that pid.  Count samples of that pid by which image they hit.
$DUMP --json "$TMP/reuse.spl" | awk -v pid="$a" -v out="$TMP/reuse.verdict" '
	/"kind":"proc"/ && index($0, "\"pid\":" pid ",\"tid\":" pid ",") {
		if ($0 ~ /"event":"exit"/ && life == 1) life = 1.5
		if ($0 ~ /"event":"fork"/) life = life == 0 ? 1 : 2
	}
	/"kind":"sample"/ && index($0, "\"pid\":" pid ",") {
		t = $0 ~ /"tree\+0x/; r = $0 ~ /"recurse\+0x/
		if (life == 1) { one_t += t; bad += r }
		else if (life == 2) { two_r += r; bad += t }
		else if (t || r) bad++
	}
	END { printf "tree=%d recurse=%d wrong=%d\n", one_t, two_r, bad > out }'
v=$(cat "$TMP/reuse.verdict")
check "samples of each life resolve to its own image ($v)" \
    grep -qE '^tree=[1-9][0-9]* recurse=[1-9][0-9]* wrong=0$' "$TMP/reuse.verdict"
# Each image's frames are in the module table of the right life.
tm=$($DUMP "$TMP/reuse.spl" | grep -cE "^module .*: pid $a .*/build/tests/tree$")
rm_=$($DUMP "$TMP/reuse.spl" | grep -cE "^module .*: pid $a .*/build/tests/recurse$")
check "both images are modules of pid $a ($tm tree, $rm_ recurse)" test "$tm" -eq 1 -a "$rm_" -eq 1

# --- churn -------------------------------------------------------------------------
# 10,000 short threads, 50 at a time.
run $REC -o "$TMP/threads.spl" -- $W/churn threads 10000 50
check "10,000 short threads: recorded, exit 0" test "$RC" -eq 0
check "the workload made them all" has "threads=10000" "$OUT"
u=$(field user_ms "$TMP/err")
run $DUMP --check "$TMP/threads.spl"
check "the thread churn spool checks clean" has "finished" "$OUT"
$DUMP "$TMP/threads.spl" >"$TMP/threads.txt"
forks=$(grep -c '^fork ' "$TMP/threads.txt")
exits=$(grep -c '^exit ' "$TMP/threads.txt")
lost=$(counter "$TMP/threads.spl" lost_events)
echo "# 10,000 threads: $forks forks, $exits exits, $lost lost, user_ms $u"
check "each thread start is recorded or counted lost ($forks + $lost)" \
    test "$((forks + lost))" -ge 10000 -a "$forks" -le 10000
check "and each exit ($exits + $lost; the main thread's too)" \
    test "$((exits + lost))" -ge 10001 -a "$exits" -le 10001
# Not a rate: a thread that lives less than a sampling period of CPU
# time is sampled rarely (cpu-clock's period starts anew in each thread;
# perf record -e cpu-clock:u takes 19 samples for 443 ms here), and how
# often depends on the load: 259, 147 and 9 samples in three runs.  What
# must hold: there are samples, they land in the workload's functions,
# and none is left without a module.
s=$(counter "$TMP/threads.spl" samples)
check "the thread churn has samples ($s for ${u}ms of user CPU)" test "${s:-0}" -gt 0
$SYM -q "$TMP/threads.spl" | $FOLD >"$TMP/threads.folded"
own=$(awk '$1 ~ /(^|;)(main|threads|short_thread|burn)(;|$)/ { n += $NF }
    END { print n + 0 }' "$TMP/threads.folded")
check "they land in churn's functions ($own of $s in main, threads, short_thread or burn)" \
    test "$own" -gt 0
bare=$(samples_json "$TMP/threads.spl" | grep -c '"0x')
check "every frame of them resolves to a module ($bare samples with one that does not)" \
    test "$bare" -eq 0

# A thread must never have two events (issue 15): 8 threads at 20 kHz on 2
# CPUs lose records, and each loss sweeps /proc; a thread whose FORK record
# was lost or not yet read inherited its event all the same.  Before, the
# sweep (and the rescan once a second) opened a second one for it, and the
# thread had twice the samples of the others.  The measure is each thread's
# samples against its own CPU time (the workload says it): one cpu-clock
# event at 20 kHz takes about one sample per 50 us of it (0.67-0.76 here:
# a timer that fires late skips the periods it missed; up to 1.03 in a
# loaded CI), two take twice as many (1.80 forced here).  Under load a
# spinner may get little CPU: those under 5 ms are not judged, and 6 of
# the 8 must be.  The gaps between a thread's samples are no measure:
# a late timer's next period comes early, and 3-13 % of them (up to 30 %
# in CI on a loaded machine) are under 30 us with one event.
for round in 1 2 3; do
	run env THREADS_CPU=1 $REC -q -F 20000 -o "$TMP/twice.spl" -- \
	    $W/threads-O2 8 1000
	cp "$TMP/err" "$TMP/twice.cpu"
	$DUMP "$TMP/twice.spl" | awk '/^sample / {
		for (i = 1; i <= NF; i++) if ($i == "tid") n[$(i + 1)]++ }
	    END { for (t in n) print "tid", t, "samples", n[t] }' >"$TMP/twice.n"
	# Spinners over 5 ms of CPU; samples per 50 us of it, worst first.
	awk 'FNR == NR { if ($1 == "tid" && $3 == "cpu_us") cpu[$2] = $4; next }
	    ($2 in cpu) && cpu[$2] >= 5000 {
		printf "%.2f %s\n", $4 / (cpu[$2] / 50), $2 }' \
	    "$TMP/twice.cpu" "$TMP/twice.n" | sort -rn >"$TMP/twice.r"
	spinners=$(wc -l <"$TMP/twice.r")
	worst=$(head -1 "$TMP/twice.r" | cut -d' ' -f1)
	twice=$(awk '$1 > 1.25 { k++ } END { print k + 0 }' "$TMP/twice.r")
	check "round $round: no thread sampled twice ($twice of $spinners spinners over 1.25 samples per 50 us of their CPU, the most ${worst:-none}; $(counter "$TMP/twice.spl" lost_events) lost, $(counter "$TMP/twice.spl" lifecycle_gaps) sweeps)" \
	    test "$RC" -eq 0 -a "$spinners" -ge 6 -a "$twice" -eq 0
done

# 2,000 fork/exit cycles, children followed.
run $REC --children -o "$TMP/forks.spl" -- $W/churn forks 2000
check "2,000 fork/exit cycles with --children: exit 0" test "$RC" -eq 0
check "the workload forked them all" has "forks=2000" "$OUT"
run $DUMP --check "$TMP/forks.spl"
check "the fork churn spool checks clean" has "finished" "$OUT"
$DUMP "$TMP/forks.spl" >"$TMP/forks.txt"
forks=$(grep -c '^fork ' "$TMP/forks.txt")
exits=$(grep -c '^exit ' "$TMP/forks.txt")
lost=$(counter "$TMP/forks.spl" lost_events)
check "each fork is recorded or counted lost ($forks + $lost)" \
    test "$((forks + lost))" -ge 2000 -a "$forks" -le 2000
check "each exit is recorded or counted lost ($exits + $lost)" \
    test "$((exits + lost))" -ge 2001 -a "$exits" -le 2001
pids=$(sample_pids "$TMP/forks.spl" | wc -l)
echo "# 2,000 forks: $forks forks, $exits exits, $lost lost, $pids pids sampled"
check "children are sampled ($pids processes, at most 2,001)" \
    test "$pids" -gt 100 -a "$pids" -le 2001
# A child's samples resolve to the churn executable it inherited.
nchild=$(samples_json "$TMP/forks.spl" | grep -c '"churn+0x')
check "children's frames resolve to the inherited executable ($nchild samples)" \
    test "$nchild" -ge "$(( $(counter "$TMP/forks.spl" samples) * 9 / 10 ))"

# 5,000 dlopen/dlclose cycles of two libraries taking turns at one
# address: libdla.so and libdlb.so have one layout with busy function and
# decoy swapped (tests/workloads/dlchurn_lib.c), so a sample resolved
# through the wrong library's mapping names a decoy, and each cycle's
# interval (CLOCK_MONOTONIC, the spool's clock) says which was mapped.
for l in a b; do
	for f in busy_$l decoy_$l; do
		eval "off_$f=$(nm "$W/libdl$l.so" | awk -v f=$f '$3 == f { print $1 }')"
	done
done
check "the two libraries' layouts are swapped (nm: busy_a at $off_busy_a = decoy_b at $off_decoy_b)" \
    test -n "$off_busy_a" -a "$off_busy_a" = "$off_decoy_b" -a "$off_busy_b" = "$off_decoy_a"
run $REC -q -o "$TMP/dl.spl" -- $W/dlchurn $W 10000 200 libdl
check "10,000 dlopens (5,000 cycles of A then B): exit 0" test "$RC" -eq 0
cp "$TMP/out" "$TMP/dl.intervals"
check "the workload did them all" test "$(grep -c . "$TMP/dl.intervals")" -eq 10000
# The workload's own dladdr says where each was loaded: the other one's
# hole, each time.
reuse=$(awk 'NR > 1 && $4 == base && $1 != lib { n++ } { base = $4; lib = $1 }
    END { print n + 0 }' "$TMP/dl.intervals")
check "each library was loaded where the other had been ($reuse of 9,999 times)" \
    test "$reuse" -ge 9000
run $BIN/sp-sym -q -o "$TMP/dls.spl" "$TMP/dl.spl"
check "the churn spool symbolizes" test "$RC" -eq 0
$DUMP --json "$TMP/dls.spl" >"$TMP/dls.json"
$DUMP "$TMP/dl.spl" | grep -E '^module .*/libdl[ab]\.so$' >"$TMP/dl.modules"
starts=$(awk '{ print $5 }' "$TMP/dl.modules" | sort -u | wc -l)
check "one module each, at one address (the spool names a mapping once): $(wc -l <"$TMP/dl.modules") modules, $starts address" \
    test "$(wc -l <"$TMP/dl.modules")" -eq 2 -a "$starts" -eq 1
check "with their build-ids (read even when the hole is refilled before the record is)" \
    test "$(grep -c 'build-id [0-9a-f]\{40\} ' "$TMP/dl.modules")" -eq 2
loads=$(counter "$TMP/dl.spl" cfi_files)
rel=$(counter "$TMP/dl.spl" cfi_files_released)
# A library's CFI is read when a walk first needs it (sampled in it) and
# freed at its dlclose: each read is released but the few still mapped.
check "the churn shows in the CFI reads: $loads files read, $rel released for 10,000 dlopens" \
    test "${loads:-0}" -ge 100 -a "${rel:-0}" -ge $((${loads:-0} - 5))
# Each symbol of a libdl frame is of its own library; each sample whose
# leaf is busy_X falls in an interval when libdlX.so was loaded.
awk -v out="$TMP/dl.verdict" '
	FILENAME != "-" { lib[NR] = $1; s[NR] = $2; e[NR] = $3; n = NR; next }
	/"kind":"symbol"/ && /"module":"libdl[ab]\.so"/ {
		match($0, /"name":"[^"]*"/); f = substr($0, RSTART + 8, RLENGTH - 9)
		sub(/@plt$/, "", f)	# lib_spin_us calls busy through its PLT stub
		match($0, /"module":"libdl[ab]/); m = substr($0, RSTART + RLENGTH - 1, 1)
		if (f ~ /^decoy_/ || (f ~ /^busy_/ && substr(f, 6) != m)) badsym++
		next
	}
	/"kind":"sample"/ {
		# The first user frame, after the kernel frame when the sample was
		# in it (an interrupt, a page fault in the library code).
		sub(/"frames":\["\[kernel\]",/, "\"frames\":[")
		if (match($0, /"frames":\["decoy_/)) { decoy++; next }
		if (!match($0, /"frames":\["busy_[ab](@plt)?"/)) next
		l = substr($0, RSTART + 16, 1)
		match($0, /"time":[0-9]+/); t = substr($0, RSTART + 7, RLENGTH - 7) + 0
		lo = 1; hi = n
		while (lo < hi) { mid = int((lo + hi + 1) / 2); if (s[mid] <= t) lo = mid; else hi = mid - 1 }
		if (t >= s[lo] && t <= e[lo] && lib[lo] == l) good[l]++; else wrong++
	}
	END { printf "a=%d b=%d wrong=%d decoy=%d badsym=%d\n", good["a"], good["b"],
	    wrong, decoy, badsym > out }
' "$TMP/dl.intervals" - <"$TMP/dls.json"
v=$(cat "$TMP/dl.verdict")
echo "# dlopen churn: 5,000 cycles, $reuse reloads into the other's hole, $loads CFI loads, $v"
check "every busy_a sample is libdla's, every busy_b libdlb's, in its lifetime, no decoy ($v)" \
    grep -qE '^a=[1-9][0-9]* b=[1-9][0-9]* wrong=0 decoy=0 badsym=0$' "$TMP/dl.verdict"

# 2,000 threads alive at once, attached to while they wait: events for
# every thread on every CPU, then they spin 3 ms of CPU each.
rm -f "$TMP/go"
mkfifo "$TMP/go"
exec 7<>"$TMP/go"
$W/churn live 2000 -3 <"$TMP/go" >"$TMP/live.out" 2>"$TMP/live.err" &
lp=$!
for _ in $(seq 1500); do grep -q live= "$TMP/live.out" && break; sleep 0.02; done
nt=$(ls /proc/$lp/task 2>/dev/null | wc -l)
check "the workload has 2,001 threads ($nt)" test "$nt" -eq 2001
$REC -p $lp -o "$TMP/live.spl" >/dev/null 2>"$TMP/live.rec" &
rp=$!
ncpu=$(grep -c '^processor' /proc/cpuinfo)
# Attached once sp-record waits in its loop's epoll (the attach never
# does): the threads may run and exit only then, or they race an attach
# still opening events (several a thread and CPU: the count of fds alone
# is reached early).  /proc/PID/syscall's first field is the call's
# number: epoll_wait, epoll_pwait, epoll_pwait2 (arm64 has only the last
# two).
case $(uname -m) in
aarch64) polls="22 441" ;;
*) polls="232 281 441" ;;
esac
in_loop() {
	local nr rest
	read -r nr rest </proc/$1/syscall 2>/dev/null || return 1
	case " $polls " in *" $nr "*) return 0 ;; esac
	return 1
}
fds=0 attached=no
for _ in $(seq 1500); do
	fds=$(ls /proc/$rp/fd 2>/dev/null | wc -l)
	[ "$fds" -ge $((2001 * ncpu)) ] && in_loop $rp && { attached=yes; break; }
	sleep 0.02
done
check "sp-record attached, waiting in its loop, before the threads run" \
    test $attached = yes
check "events are open for all 2,001 threads on $ncpu CPUs ($fds fds)" \
    test "$fds" -ge $((2001 * ncpu))
echo go >&7
wait $rp
RC=$?
exec 7>&-
wait $lp
check "attached to 2,000 live threads: exit 0" test "$RC" -eq 0
run $DUMP --check "$TMP/live.spl"
check "the live-threads spool checks clean" has "finished" "$OUT"
tids=$(samples_json "$TMP/live.spl" | grep -o '"tid":[0-9]*' | sort -u | wc -l)
s=$(counter "$TMP/live.spl" samples)
lost=$(counter "$TMP/live.spl" lost_events)
u=$(field user_ms "$TMP/live.err")
echo "# 2,000 live threads: $tids tids sampled, $s samples, $lost lost, user_ms $u"
check "samples of many threads, none of others ($tids tids of 2,001)" \
    test "$tids" -ge 50 -a "$tids" -le 2001
check "samples and losses account for the CPU time ($s + $lost for ${u}ms)" \
    test "$(( (s + lost) * 4 ))" -ge "${u:-1}"
if [ "${lost:-0}" -gt 0 ]; then
	check "losses led to recovery sweeps" \
	    test "$(counter "$TMP/live.spl" lifecycle_gaps)" -gt 0
fi

# --- the highest rate ----------------------------------------------------------------
# -F max (perf_event_max_sample_rate) with 8 threads spinning on every
# CPU for 3 s: the kernel drops what the rings cannot hold; the recorder
# counts it, sweeps /proc after each loss, and its memory stays bounded.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
run /usr/bin/time -f "maxrss_kb=%M" $REC -F max -o "$TMP/max.spl" -- $W/churn busy 8 3000
check "-F max ($max Hz) with 8 busy threads: exit 0" test "$RC" -eq 0
check "the summary counts lost events" grep -qE '^  [0-9]+ samples \([0-9]+/s\), [0-9]+ lost \([0-9.]+ %\)' "$TMP/err"
u=$(field user_ms "$TMP/err")
rss=$(field maxrss_kb "$TMP/err")
run $DUMP --check "$TMP/max.spl"
check "the -F max spool checks clean" has "finished" "$OUT"
s=$(counter "$TMP/max.spl" samples)
lost=$(counter "$TMP/max.spl" lost_events)
lr=$(counter "$TMP/max.spl" lost_records)
gaps=$(counter "$TMP/max.spl" lifecycle_gaps)
echo "# -F max: $s samples, $lost lost in $lr records, $gaps sweeps, user_ms $u, recorder peak RSS ${rss} KiB"
check "far above 1 kHz: $s samples + $lost lost for ${u}ms of user CPU (5/ms or more)" \
    test "$((s + lost))" -ge "$((5 * ${u:-1000000}))"
check "each loss report led to a recovery sweep ($lr reports, $gaps sweeps)" \
    test "$gaps" -ge $((lr > 0)) -a "$gaps" -le "$lr"
check "recorder peak RSS ${rss} KiB is below 256 MiB" test "${rss:-999999}" -lt 262144
# The figure for the notes: the highest rate of these with nothing lost.
best=0 ladder=""
for f in 500 1000 2000 5000 10000 20000; do
	run $REC -F $f -o "$TMP/rate$f.spl" -- $W/churn busy 8 1000
	lost=$(counter "$TMP/rate$f.spl" lost_events)
	ladder="$ladder $f:${lost:-?}"
	[ "${lost:-1}" -eq 0 ] && best=$f
done
echo "# rate:lost with 8 busy threads:$ladder; highest zero-loss rate measured: $best Hz"

# --- output faults ----------------------------------------------------------------------
# The spool's filesystem fills up: a 256 KiB tmpfs, and raw stacks (each
# sample carries its 32 KiB stack copy) to fill it at once.
full=$TMP/full
mkdir -p "$full"
umount "$full" 2>/dev/null
if mount -t tmpfs -o size=256k tmpfs "$full"; then
	run timeout 60 $REC --raw-stacks -o "$full/s.spl" -- "$OWN_TREE" 3000
	check "a full filesystem stops the recording, exit 1, no hang ($RC)" test "$RC" -eq 1
	check "the message names the file and the cause" \
	    has "$full/s.spl: writing the spool failed: No space left on device" "$ERR"
	check "and the workload was stopped" test -z "$(pgrep -fx "$OWN_TREE 3000")"
	run $DUMP --check "$full/s.spl"
	check "the spool's prefix reads back" test "$RC" -eq 0
	check "as a recovered truncated prefix with samples" \
	    grep -qE 'ok: [0-9]+ records, [1-9][0-9]* samples, truncated tail recovered' <<<"$OUT"
	# Full from the start: not even the header fits.
	rm -f "$full/s.spl"
	dd if=/dev/zero of="$full/filler" bs=4k count=64 2>/dev/null
	run timeout 60 $REC -o "$full/s.spl" -- $W/tree 300
	check "a filesystem full from the start: exit 1" test "$RC" -eq 1
	check "with the same message" \
	    has "$full/s.spl: writing the spool failed: No space left on device" "$ERR"
	umount "$full"
else
	fail "cannot mount a tmpfs on $full (the test needs root)"
fi
# A pipe whose reader exits after 1,000 bytes.
run timeout 30 bash -c "$REC -o - -- $OWN_TREE 5000 | head -c 1000 >/dev/null; exit \${PIPESTATUS[0]}"
check "a closed pipe ends the recording: exit 1, no hang ($RC)" test "$RC" -eq 1
check "with a message naming standard output and the cause" \
    has "standard output: writing the spool failed: Broken pipe" "$ERR"
check "and the workload was stopped" test -z "$(pgrep -fx "$OWN_TREE 5000")"

# --- limits (docs/limits.md) not reached by other tests -----------------------------
run $REC -q -m 5 -o "$TMP/m5.spl" -- $W/recurse 50 200
$DUMP "$TMP/m5.spl" >"$TMP/m5.txt"
deepest=$(grep -E '^sample ' "$TMP/m5.txt" | awk '{ print $(NF-1) }' | sort -n | tail -1)
check "-m 5: no stack is longer than 5 frames and the marker ($deepest)" test "${deepest:-99}" -le 6
check "-m 5: deeper stacks end in a [truncated] frame" \
    test "$(grep -c '#5   \[truncated\]$' "$TMP/m5.txt")" -gt 0
check "-m 5: and are counted as unwind_depth" \
    test "$(counter "$TMP/m5.spl" unwind_depth)" -gt 0
run $REC -m 65537 -o "$TMP/x.spl" -- true
check "-m 65537 is refused with the range (exit 2)" \
    test "$RC" -eq 2 -a -n "$(grep -F 'from 1 to 65536' <<<"$ERR")"
run $REC -q -s 65528 -o "$TMP/s.spl" -- $W/tree 200
check "-s 65528 (the largest) is accepted" test "$RC" -eq 0
check "and its samples carry stacks" test "$(counter "$TMP/s.spl" samples)" -gt 0
run $REC -s 65536 -o "$TMP/x.spl" -- true
check "-s 65536 is refused (exit 2)" test "$RC" -eq 2
check "naming the range" has "-s stack bytes must be a number from 8 to 65528, not '65536'" "$ERR"
run $REC -s 1004 -o "$TMP/x.spl" -- true
check "-s not a multiple of 8 is refused" has "must be a multiple of 8" "$ERR"
# -p takes at most 256 processes: 256 sleeps are recorded, 257 refused.
sleepers=""
for _ in $(seq 257); do
	sleep 30 &
	sleepers="$sleepers${sleepers:+,}$!"
done
# The last one started runs sleep: the others, started before, do too.
# (Waiting on each took 13 s, long enough under load for them to end.)
running "${sleepers##*,}" "$(readlink -f "$(command -v sleep)")"
run $REC -q -d 1 -o "$TMP/p256.spl" -p "${sleepers%,*}"
check "-p with 256 processes records (exit $RC)" test "$RC" -eq 0
check "and attached to all 256 ($($DUMP "$TMP/p256.spl" | grep -cE '^module .*: pid [0-9]+ .*/sleep$'))" \
    test "$($DUMP "$TMP/p256.spl" | grep -cE '^module .*: pid [0-9]+ .*/sleep$')" -eq 256
run $REC -d 1 -o "$TMP/x.spl" -p "$sleepers"
check "-p with 257 is refused (exit 2), naming the limit" \
    test "$RC" -eq 2 -a -n "$(grep -F 'at most 256 processes' <<<"$ERR")"
kill ${sleepers//,/ } 2>/dev/null
wait 2>/dev/null

done_testing
