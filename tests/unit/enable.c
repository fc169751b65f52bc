/* SPDX-License-Identifier: MIT */
/* sp_recorder_enable through the kernel: a recorder turned off before it
 * attaches samples nothing, yet follows the threads its target starts
 * meanwhile, and samples them once turned on (sp-record --delay). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "record/perf_int.h"
#include "record/recorder_int.h"
#include "sp/spool/spool.h"
#include "sp/spool/writer.h"

static volatile unsigned long sink;
static int tid_fd;

static void *
spin(void *arg)
{
	pid_t tid = gettid();

	(void)arg;
	(void)!write(tid_fd, &tid, sizeof(tid));
	for (;;)
		sink++;
	return NULL;
}

/* The target: on a byte from go, two spinning threads, which write their
 * tids to tids; then it waits to be killed (with the test). */
static void
target(int go, int tids)
{
	pthread_t t;
	char c;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	tid_fd = tids;
	while (read(go, &c, 1) < 0)
		if (errno != EINTR) /* SIGSTOP, SIGCONT at the attach */
			_exit(1);
	if (pthread_create(&t, NULL, spin, NULL) != 0 ||
	    pthread_create(&t, NULL, spin, NULL) != 0)
		_exit(1);
	for (;;)
		pause();
}

/* Whether a sample of thread tid wrote its THREAD record (the thread
 * is known from its FORK record already, named). */
static int
thread_written(struct sp_recorder *r, pid_t tid)
{
	const struct rec_thread *t = spi_imap_get(&r->threads, (uint32_t)tid);

	return t != NULL && t->id != 0;
}

/* Polls r for secs seconds. */
static void
poll_for(struct sp_recorder *r, double secs)
{
	double end = now_s() + secs;

	while (now_s() < end)
		cr_assert_eq(sp_recorder_poll(r, 20), 0);
}

/* A writer on /dev/null; returns its fd. */
static int
null_writer(struct sp_writer **w)
{
	struct sp_header h;
	int fd;

	cr_assert_eq(sp_header_init_host(&h), 0);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(sp_writer_new(fd, &h, w), 0);
	return fd;
}

/* Attaches r to child, or skips the test (killing child) where perf
 * events are refused. */
static void
attach(struct sp_recorder *r, pid_t child)
{
	struct sp_diag diag;
	int err;

	memset(&diag, 0, sizeof(diag));
	err = sp_recorder_attach(r, child, &diag);
	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, 0, "%s", diag.msg);
}

Test(enable, threads_started_while_off_are_followed_and_sampled_only_when_on)
{
	struct sp_recorder_opts o;
	struct sp_recorder *r;
	struct sp_writer *w;
	struct sp_diag diag;
	int go[2], tids[2], fd;
	pid_t child, tid[2];
	uint64_t n;
	size_t i, sb = 0, small = 0;

	fd = null_writer(&w);
	memset(&o, 0, sizeof(o));
	memset(&diag, 0, sizeof(diag));
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_recorder_enable(r, 0), 0,
	    "before the first event it only records the state");
	cr_assert_eq(r->ev.n, 0);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(tids, O_CLOEXEC), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0)
		target(go[0], tids[1]);
	attach(r, child);
	for (i = 0; i < r->ev.n; i++) {
		sb += r->ev.v[i].sideband != 0;
		small += r->ev.v[i].small != 0;
	}
	/* Without a stack size, a sampling event of each copy size. */
	cr_assert(sb == small && sb * 3 == r->ev.n,
	    "a side-band event beside each pair of sampling events (%zu and "
	    "%zu small of %zu)", sb, small, r->ev.n);

	/* Off: the threads start and are followed (their FORK records come
	 * from the side-band events), but nothing is sampled. */
	cr_assert_eq(write(go[1], "x", 1), 1);
	cr_assert_eq(read(tids[0], &tid[0], sizeof(tid[0])), sizeof(tid[0]));
	cr_assert_eq(read(tids[0], &tid[1], sizeof(tid[1])), sizeof(tid[1]));
	poll_for(r, 0.4);
	cr_assert_eq(r->ctx.c[C_SAMPLES], 0, "%llu samples while off",
	    (unsigned long long)r->ctx.c[C_SAMPLES]);
	for (i = 0; i < 2; i++) {
		cr_assert_not_null(spi_imap_get(&r->tg.covered, (uint32_t)tid[i]),
		    "thread %d's start was seen while off", (int)tid[i]);
		cr_assert_eq(thread_written(r, tid[i]), 0,
		    "thread %d was sampled while off", (int)tid[i]);
	}
	cr_assert_geq(r->ctx.c[C_THREADS], 3);

	/* On: the enable reaches the events the new threads inherited. */
	cr_assert_eq(sp_recorder_enable(r, 1), 0);
	poll_for(r, 0.4);
	for (i = 0; i < 2; i++)
		cr_assert(thread_written(r, tid[i]),
		    "thread %d is sampled once on", (int)tid[i]);

	/* Off again: what is in the rings drains, then nothing comes. */
	cr_assert_eq(sp_recorder_enable(r, 0), 0);
	poll_for(r, 0.05);
	n = r->ctx.c[C_SAMPLES];
	cr_assert_gt(n, 0);
	poll_for(r, 0.3);
	cr_assert_eq(r->ctx.c[C_SAMPLES], n, "%llu samples after turning off",
	    (unsigned long long)(r->ctx.c[C_SAMPLES] - n));
	cr_assert_eq(spi_imap_get(&r->procs, (uint32_t)child) != NULL, 1,
	    "the target is still followed");

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}

/* An embedder switches on the kind, and reads both rates (issue 16). */
Test(enable, a_rate_over_the_limit_is_its_own_kind_with_both_rates)
{
	struct sp_recorder_opts o;
	struct sp_recorder *r = NULL;
	struct sp_writer *w;
	struct sp_diag diag;
	long max = 0;
	int fd, err;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	if (f == NULL || fscanf(f, "%ld", &max) != 1 || max <= 0) {
		if (f != NULL)
			fclose(f);
		cr_skip_test("perf_event_max_sample_rate unreadable here");
	}
	fclose(f);
	fd = null_writer(&w);
	memset(&o, 0, sizeof(o));
	memset(&diag, 0, sizeof(diag));
	o.frequency = (unsigned)max + 1;
	err = sp_recorder_new(w, &o, &r, &diag);
	cr_assert_eq(err, -SP_EFREQ, "%d: %s", err, diag.msg);
	cr_assert_eq(sp_error_kind(err), SP_KIND_FREQUENCY);
	cr_assert_str_eq(sp_error_kind_name(sp_error_kind(err)), "frequency");
	cr_assert_eq(diag.err, err);
	cr_assert_eq(diag.requested, (unsigned long)max + 1);
	cr_assert_eq(diag.permitted, (unsigned long)max);
	cr_assert(strstr(diag.msg, "perf_event_max_sample_rate") != NULL);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}

Test(enable, error_kinds_of_system_and_library_codes)
{
	cr_assert_eq(sp_error_kind(0), SP_KIND_NONE);
	cr_assert_eq(sp_error_kind(-ESRCH), SP_KIND_GONE);
	cr_assert_eq(sp_error_kind(ESRCH), SP_KIND_GONE);
	cr_assert_eq(sp_error_kind(-EPERM), SP_KIND_PERMISSION);
	cr_assert_eq(sp_error_kind(-EACCES), SP_KIND_PERMISSION);
	cr_assert_eq(sp_error_kind(-SP_EUSAGE), SP_KIND_INVALID);
	cr_assert_eq(sp_error_kind(-SP_EMAGIC), SP_KIND_FORMAT);
	cr_assert_eq(sp_error_kind(-SP_ETRUNC), SP_KIND_FORMAT);
	cr_assert_eq(sp_error_kind(-SP_ELIMIT), SP_KIND_LIMIT);
	cr_assert_eq(sp_error_kind(-ENOMEM), SP_KIND_LIMIT);
	cr_assert_eq(sp_error_kind(-ENOENT), SP_KIND_NOT_FOUND);
	cr_assert_eq(sp_error_kind(-SP_EAGAIN), SP_KIND_AGAIN);
	cr_assert_eq(sp_error_kind(-ENOSPC), SP_KIND_IO);
	cr_assert_eq(sp_error_kind(-EPIPE), SP_KIND_IO);
	cr_assert_str_eq(sp_error_kind_name(SP_KIND_IO), "io");
	cr_assert_str_eq(sp_strerror(-SP_EFREQ),
	    "sampling rate above the kernel's limit");
}

/* Empties every ring of r unread: what a full ring's loss does to the
 * records in it. */
static void
drop_rings(struct sp_recorder *r)
{
	struct perf_event_mmap_page *meta;
	uint64_t head;
	int i;

	for (i = 0; i < r->ev.nr_cpus; i++) {
		if (r->ev.rings[i].fd < 0)
			continue;
		meta = (struct perf_event_mmap_page *)(void *)r->ev.rings[i].base;
		head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		r->ev.rings[i].next_tail = head;
		__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	}
}

/* A target whose EXIT record never comes (lost with a full ring, or sent
 * before its events could deliver it: it exited while being attached)
 * still ends the recording: /proc says it ended.  Else a loop on
 * sp_recorder_live, sp-record's, would never end. */
Test(enable, a_target_whose_exit_record_is_lost_still_ends)
{
	struct sp_recorder_opts o;
	struct sp_recorder *r;
	struct sp_writer *w;
	struct sp_diag diag;
	double end;
	pid_t child;
	int fd;

	fd = null_writer(&w);
	memset(&o, 0, sizeof(o));
	memset(&diag, 0, sizeof(diag));
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	attach(r, child);
	poll_for(r, 0.05);
	cr_assert_eq(sp_recorder_live(r), 1);
	/* Killed and reaped, its EXIT record dropped before it is read. */
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, NULL, 0), child);
	drop_rings(r);
	/* The recorder looks at /proc once a second: a few seconds of
	 * polling are plenty, however loaded the machine. */
	end = now_s() + 10;
	while (sp_recorder_live(r) != 0 && now_s() < end)
		cr_assert_eq(sp_recorder_poll(r, 50), 0);
	cr_assert_eq(sp_recorder_live(r), 0,
	    "the target's exit went unseen and it still counts as live");
	cr_assert_eq(sp_recorder_process_alive(r, child), 0);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}
