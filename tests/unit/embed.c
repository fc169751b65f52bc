/* SPDX-License-Identifier: MIT */
/*
 * The embedder's smaller calls, on real processes through the kernel: the
 * library's version, the exit watcher's descriptor in a poll loop, a
 * process attached stopped (stopped, then continued), a thread started
 * after the attach found by sp_recorder_refresh, the ring size option,
 * and a loss that sp_recorder_flush sweeps.  Public headers only.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "livetest.h"
#include "sp/common/process.h"
#include "sp/record/recorder.h"
#include "sp/tool/version.h"

Test(embed, the_library_version_is_the_headers)
{
	char want[16];

	cr_assert_eq(sp_version_number(), SP_VERSION_NUMBER);
	cr_assert_str_eq(sp_version(), SP_PROJECT_VERSION);
	(void)snprintf(want, sizeof(want), "%d.%d.%d", SP_VERSION_MAJOR,
	    SP_VERSION_MINOR, SP_VERSION_PATCH);
	cr_assert_str_eq(SP_PROJECT_VERSION, want);
	cr_assert_eq(SP_VERSION_NUMBER, SP_VERSION_MAJOR * 10000 +
	    SP_VERSION_MINOR * 100 + SP_VERSION_PATCH);
}

Test(embed, the_exit_watch_fd_polls_readable_once_the_process_exits)
{
	struct sp_exit_watch *w;
	struct pollfd p;
	pid_t child = fork();
	int err;

	cr_assert_geq(child, 0);
	if (child == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	err = sp_exit_watch_new(child, &w);
	if (err == -ENOSYS) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		cr_skip_test("no pidfd_open in this kernel");
	}
	cr_assert_eq(err, 0);
	p.fd = sp_exit_watch_fd(w);
	p.events = POLLIN;
	cr_assert_geq(p.fd, 0);
	cr_assert_eq(poll(&p, 1, 0), 0, "alive: not readable");
	cr_assert_eq(kill(child, SIGKILL), 0);
	cr_assert_eq(poll(&p, 1, 20000), 1, "readable at its exit");
	cr_assert(p.revents & POLLIN);
	cr_assert_eq(sp_exit_watch_wait(w, 0), 1);
	cr_assert_eq(waitpid(child, NULL, 0), child);
	sp_exit_watch_free(w);
}

/* ------------------------------------- a target that starts a thread */

static int tid_fd;
/* The target, for end_target and, when an assertion ended the test
 * early, kill_target (a stopped target would outlive it). */
static pid_t target;

static void
kill_target(void)
{
	if (target > 0) {
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
		target = 0;
	}
}

static void *
spin(void *arg)
{
	pid_t tid = gettid();
	volatile unsigned long n = 0;

	(void)!write(tid_fd, &tid, sizeof(tid));
	for (;;)
		n++;
	return arg;
}

/*
 * A child blocked reading go; on a byte it starts a spinning thread, whose
 * tid it writes to tids, and waits to be killed (with the test).
 */
static pid_t
fork_target(int go[2], int tids[2])
{
	pthread_t t;
	pid_t pid;
	char c;

	cr_assert(pipe(go) == 0 && pipe(tids) == 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid > 0)
		return target = pid;
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	tid_fd = tids[1];
	while (read(go[0], &c, 1) < 0)
		if (errno != EINTR)
			_exit(1);
	if (pthread_create(&t, NULL, spin, NULL) != 0)
		_exit(1);
	for (;;)
		pause();
}

/* Lets the target start its thread; returns the thread's tid. */
static pid_t
start_thread(int go[2], int tids[2])
{
	pid_t tid;

	cr_assert_eq(write(go[1], "g", 1), 1);
	cr_assert_eq(read(tids[0], &tid, sizeof(tid)), sizeof(tid));
	return tid;
}

/* Records until a sample of thread tid is in the tail, or 20 s: 1 if so. */
static int
sampled(struct live *l, pid_t tid)
{
	static struct sp_sample s[4096];
	double end = now_s() + 20;
	size_t n, i;

	while (now_s() < end) {
		record_for(l, 0.2);
		n = read_tail(l, s, 4096);
		for (i = 0; i < n; i++)
			if (sp_defs_thread(sp_tail_defs(l->t),
			    s[i].thread)->tid == (uint32_t)tid)
				return 1;
	}
	return 0;
}

/* The state letter of /proc/PID/stat: R, S, T... */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	(void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	(void)fclose(f);
	p = strrchr(buf, ')');
	cr_assert(p != NULL && p[1] == ' ');
	return p[2];
}

static void
end_target(int go[2], int tids[2])
{
	kill_target();
	(void)close(go[0]);
	(void)close(go[1]);
	(void)close(tids[0]);
	(void)close(tids[1]);
}

/* Attaches pid in mode; skips the test when perf events are refused. */
static void
attach(struct live *l, pid_t pid, enum sp_attach_mode mode)
{
	struct sp_diag diag = { 0 };
	int err = sp_recorder_attach_mode(l->r, pid, mode, &diag);

	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		kill_target();
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, 0, "%s", diag.msg);
}

Test(embed, attached_stopped_the_target_is_stopped_then_continued,
    .fini = kill_target)
{
	struct live l;
	int go[2], tids[2], st;
	pid_t pid, tid;

	live_start(&l, NULL);
	pid = fork_target(go, tids);
	attach(&l, pid, SP_ATTACH_STOPPED);
	/* wait(2): a continued report only comes for a process that a
	 * SIGCONT found stopped (or stopping). */
	cr_assert_eq(waitpid(pid, &st, WCONTINUED | WUNTRACED | WNOHANG), pid,
	    "stopped and continued while attaching");
	cr_assert(WIFCONTINUED(st), "continued, not left stopped (%#x)", st);
	cr_assert_neq(proc_state(pid), 'T');
	tid = start_thread(go, tids);
	cr_assert(sampled(&l, tid), "it runs on, sampled");
	end_target(go, tids);
	live_end(&l);
}

Test(embed, refresh_finds_a_thread_started_after_the_attach,
    .fini = kill_target)
{
	struct live l;
	int go[2], tids[2];
	pid_t pid, tid;

	live_start(&l, NULL);
	pid = fork_target(go, tids);
	attach(&l, pid, SP_ATTACH_RUNNING);
	cr_assert_eq(sp_recorder_counter(l.r, "threads"), 1);
	/* Two clock ticks after the listing: a thread that began after it
	 * inherited its event (see inherited() in the recorder). */
	usleep(50000);
	tid = start_thread(go, tids);
	/* No poll yet: its FORK record waits in a ring. */
	cr_assert_eq(sp_recorder_refresh(l.r), 0);
	cr_assert_eq(sp_recorder_counter(l.r, "threads"), 2,
	    "the refresh found the new thread");
	cr_assert(sampled(&l, tid), "the new thread is sampled");
	cr_assert_eq(sp_recorder_counter(l.r, "threads"), 2,
	    "its FORK record does not count it again");
	end_target(go, tids);
	live_end(&l);
}

/* ------------------------------------------------------------ rings */

/* Records spin with rings of stacks 8 KiB stacks until 100 samples (or
 * 20 s); the ring sizes it had are the counters' min and max. */
static void
record_rings(unsigned stacks, unsigned long long *min,
    unsigned long long *max)
{
	struct sp_recorder_opts o;
	struct sp_sample s[4096];
	struct live l;
	pid_t pid;
	size_t n;

	memset(&o, 0, sizeof(o));
	o.ring_stacks = stacks;
	o.stack_bytes = 8192;
	live_start(&l, &o);
	pid = live_launch(&l, spin_argv);
	n = record_samples(&l, s, 4096, 100);
	cr_assert_geq(n, 100, "recorded (%zu samples, %llu lost)", n,
	    sp_recorder_counter(l.r, "lost_events"));
	*min = sp_recorder_counter(l.r, "ring_bytes_min");
	*max = sp_recorder_counter(l.r, "ring_bytes_max");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	live_end(&l);
}

Test(embed, ring_stacks_sizes_each_ring)
{
	unsigned long long min, max;

	/* 5 stacks of 8 KiB, rounded up to a power of 2. */
	record_rings(5, &min, &max);
	cr_assert_eq(min, 65536);
	cr_assert_eq(max, 65536);
}

/* A ring of one stack still holds two samples with their headers (it
 * held none: every sample was lost). */
Test(embed, one_stack_rings_still_record)
{
	unsigned long long min, max;

	record_rings(1, &min, &max);
	cr_assert_eq(min, 32768);
	cr_assert_eq(max, 32768);
}

/*
 * Rings of two stacks, 10 kHz, drained a tenth of a second apart: the
 * kernel drops samples and says so (PERF_RECORD_LOST); the flush sweeps
 * /proc after it (a lifecycle gap) and recording goes on.
 */
Test(embed, a_loss_is_counted_and_swept_by_the_flush)
{
	struct sp_recorder_opts o;
	struct sp_sample s[4096];
	struct live l;
	unsigned long long lost = 0, reports, gaps, before;
	double end;
	pid_t pid;
	size_t n;

	memset(&o, 0, sizeof(o));
	o.ring_stacks = 2;
	o.stack_bytes = 8192;
	o.frequency = 10000;
	live_start(&l, &o);
	pid = live_launch(&l, spin_argv);
	for (end = now_s() + 20; lost == 0 && now_s() < end;) {
		usleep(100000);
		cr_assert_eq(sp_recorder_flush(l.r), 0);
		lost = sp_recorder_counter(l.r, "lost_events");
	}
	cr_assert_gt(lost, 0, "samples lost");
	reports = sp_recorder_counter(l.r, "lost_records");
	gaps = sp_recorder_counter(l.r, "lifecycle_gaps");
	cr_assert(gaps >= 1 && gaps <= reports, "%llu sweeps after %llu "
	    "loss reports", gaps, reports);
	before = sp_recorder_counter(l.r, "samples");
	n = record_samples(&l, s, 4096, 100);
	cr_assert_geq(n, 100, "the tail reads on (%zu samples)", n);
	cr_assert_gt(sp_recorder_counter(l.r, "samples"), before,
	    "recording went on");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	live_end(&l);
}

/* ---------------------------------------------------------- off-CPU */

/*
 * Off-CPU samples across a pause: turned off, the recorder sees no
 * switch in, so a wait that began before the pause has nothing to end it
 * but the first switch in after: it must be dropped (counted unmatched),
 * not weighed the whole pause.  offcpu's threads wait 3 to 6 ms at a
 * time; the pauses last 1.5 s.
 */
Test(embed, an_off_cpu_wait_is_not_weighed_across_a_pause)
{
	static struct sp_sample s[65536];
	static char *const argv[] = { "build/tests/offcpu", "30", NULL };
	struct sp_recorder_opts o;
	struct live l;
	uint64_t max = 0;
	size_t n = 0, off = 0, i;
	pid_t pid;
	int k;

	memset(&o, 0, sizeof(o));
	o.off_cpu = 1;
	live_start(&l, &o);
	pid = live_launch(&l, argv);
	for (k = 0; k < 2; k++) {
		record_for(&l, 0.3);
		cr_assert_eq(sp_recorder_enable(l.r, 0), 0);
		record_for(&l, 1.5);
		cr_assert_eq(sp_recorder_enable(l.r, 1), 0);
	}
	record_for(&l, 0.3);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	record_for(&l, 0.1);
	n = read_tail(&l, s, sizeof(s) / sizeof(*s));
	for (i = 0; i < n; i++)
		if (s[i].kind == SP_SAMPLE_OFF_CPU) {
			off++;
			if (s[i].weight > max)
				max = s[i].weight;
		}
	cr_assert_gt(off, 100, "switches recorded (%zu of %zu samples)", off,
	    n);
	cr_assert_lt(max, 750000000, "no wait weighs a pause: the longest "
	    "%.3f s (%llu unmatched)", max / 1e9,
	    sp_recorder_counter(l.r, "off_cpu_unmatched"));
	live_end(&l);
}
