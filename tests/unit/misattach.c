/* SPDX-License-Identifier: MIT */
/*
 * An embedder's attach calls with a pid that names no process to record
 * (0, a negative pid, pid 1 or the caller itself at exec) or one that
 * cannot be attached (a zombie): each fails with an error of the right
 * kind, and the recorder is left with no live target, so that a
 * `while (sp_recorder_live(r))` loop ends, and none of the events the
 * attach opened.  Public headers only.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "livetest.h"
#include "sp/common/error.h"
#include "sp/record/recorder.h"

/* The recorder after a failed call: nothing alive, nothing else either. */
static void
nothing_live(struct live *l)
{
	cr_assert_eq(sp_recorder_live(l->r), 0, "no live target after a "
	    "failed attach");
	cr_assert_eq(sp_recorder_other_alive(l->r, 1), 0);
	cr_assert_eq(sp_recorder_other_alive(l->r, 0), 0);
}

/* attach in mode fails with -SP_EUSAGE, an invalid argument, and a
 * message that names the pid as given. */
static void
invalid(struct live *l, pid_t pid, enum sp_attach_mode mode)
{
	struct sp_diag diag = { 0 };
	char want[32];
	int err = sp_recorder_attach_mode(l->r, pid, mode, &diag);

	cr_assert_eq(err, -SP_EUSAGE, "pid %d, mode %d: %d (%s)", (int)pid,
	    (int)mode, err, diag.msg);
	cr_assert_eq(sp_error_kind(err), SP_KIND_INVALID);
	(void)snprintf(want, sizeof(want), "pid %d ", (int)pid);
	cr_assert_not_null(strstr(diag.msg, want), "%s", diag.msg);
	cr_assert_null(strstr(diag.msg, "sp-record"), "the library speaks "
	    "as no tool: %s", diag.msg);
	nothing_live(l);
}

Test(misattach, pid_0_and_negative_pids_are_invalid_arguments)
{
	struct live l;

	live_start(&l, NULL);
	invalid(&l, 0, SP_ATTACH_RUNNING);
	invalid(&l, -5, SP_ATTACH_RUNNING);
	invalid(&l, 0, SP_ATTACH_STOPPED);
	invalid(&l, 0, SP_ATTACH_AT_EXEC);
	invalid(&l, -5, SP_ATTACH_AT_EXEC);
	cr_assert_eq(sp_recorder_finish(l.r), 0);
	live_end(&l);
}

Test(misattach, at_exec_takes_only_a_child_of_the_caller)
{
	struct live l;

	live_start(&l, NULL);
	invalid(&l, 1, SP_ATTACH_AT_EXEC);
	invalid(&l, getpid(), SP_ATTACH_AT_EXEC);
	live_end(&l);
}

Test(misattach, a_zombie_fails_to_attach_and_is_not_left_live)
{
	struct sp_diag diag = { 0 };
	struct live l;
	siginfo_t si;
	pid_t pid;
	int err;

	live_start(&l, NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Exited and not reaped: a zombie, which kill(pid, 0) still finds. */
	cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	err = sp_recorder_attach(l.r, pid, &diag);
	cr_assert_neq(err, 0, "a zombie has no thread to sample");
	cr_assert_null(strstr(diag.msg, "sp-record"), "%s", diag.msg);
	nothing_live(&l);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	live_end(&l);
}

/* The perf events this process holds open: descriptors that readlink
 * names anon_inode:[perf_event]. */
static size_t
perf_fds(void)
{
	char path[64], link[64];
	size_t n = 0;
	ssize_t len;
	int fd;

	for (fd = 0; fd < 4096; fd++) {
		(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (strcmp(link, "anon_inode:[perf_event]") == 0)
			n++;
	}
	return n;
}

/* The highest descriptor open now. */
static int
highest_fd(void)
{
	char path[64];
	int fd, top = 0;

	for (fd = 0; fd < 4096; fd++) {
		(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (access(path, F_OK) == 0)
			top = fd;
	}
	return top;
}

static void *
idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		(void)pause();
	return NULL;
}

/* A child with nthreads threads besides its main one, all idle; it dies
 * with the test (a minute's alarm at most). */
static pid_t
threaded_child(int nthreads)
{
	char path[64];
	pid_t pid = fork();
	int i, tries;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pthread_t t;

		(void)alarm(60);
		for (i = 0; i < nthreads; i++)
			if (pthread_create(&t, NULL, idle_thread, NULL) != 0)
				_exit(1);
		for (;;)
			(void)pause();
	}
	for (tries = 0; tries < 5000; tries++) {
		DIR *d;
		struct dirent *de;
		int n = 0;

		(void)snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		if ((d = opendir(path)) == NULL)
			break;
		while ((de = readdir(d)) != NULL)
			n += de->d_name[0] != '.';
		(void)closedir(d);
		if (n == nthreads + 1)
			return pid;
		(void)usleep(1000);
	}
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
	cr_assert_fail("the child did not start its %d threads", nthreads);
	return -1;
}

/*
 * An attach that runs out of descriptors part way through the threads of
 * its target leaves none of the events it opened: the recorder holds as
 * many perf events as before, and the same process attaches once the
 * limit is raised (its threads were not left marked as covered).
 */
Test(misattach, a_failed_attach_closes_the_events_it_opened)
{
	struct sp_recorder_opts o = { .stack_bytes = 8192 };
	struct sp_diag diag = { 0 };
	struct rlimit old, low;
	unsigned long long threads;
	struct live l;
	size_t before;
	pid_t pid;
	int err;

	live_start(&l, &o);
	pid = threaded_child(8);
	before = perf_fds();
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	/* Room for a few events: with -s, one a thread and CPU, so the
	 * first thread's or the second's run out part way. */
	low = old;
	low.rlim_cur = (rlim_t)highest_fd() + 4;
	threads = sp_recorder_counter(l.r, "threads");
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	err = sp_recorder_attach(l.r, pid, &diag);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, -EMFILE, "attach with few descriptors: %d (%s)",
	    err, diag.msg);
	cr_assert_eq(perf_fds(), before, "perf events left open by the "
	    "failed attach: %zu, %zu before", perf_fds(), before);
	cr_assert_eq(sp_recorder_counter(l.r, "threads"), threads,
	    "threads counted by the failed attach: %llu, %llu before",
	    sp_recorder_counter(l.r, "threads"), threads);
	nothing_live(&l);
	err = sp_recorder_attach(l.r, pid, &diag);
	cr_assert_eq(err, 0, "attaching again: %s", diag.msg);
	cr_assert_eq(sp_recorder_live(l.r), 1);
	cr_assert_gt(perf_fds(), before);
	cr_assert_eq(sp_recorder_counter(l.r, "threads"), threads + 9,
	    "threads of the attach: %llu, %llu before (its 9)",
	    sp_recorder_counter(l.r, "threads"), threads);
	record_for(&l, 0.1);
	(void)kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	live_end(&l);
}

/*
 * A target whose child is forked before the attach (a server and its
 * worker); with children followed, the attach follows the child too.
 * *child is the child's pid.  Both die with the test (a minute's alarm).
 */
static pid_t
parent_of_one(pid_t *child)
{
	int fds[2];
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pid_t kid;

		(void)alarm(60);
		kid = fork();
		if (kid == 0) {
			(void)alarm(60); /* fork does not inherit one */
			for (;;)
				(void)pause();
		}
		if (kid < 0 || write(fds[1], &kid, sizeof(kid)) !=
		    (ssize_t)sizeof(kid))
			_exit(1);
		for (;;)
			(void)pause();
	}
	(void)close(fds[1]);
	cr_assert_eq(read(fds[0], child, sizeof(*child)),
	    (ssize_t)sizeof(*child), "the target did not fork its child");
	(void)close(fds[0]);
	return pid;
}

/*
 * An attach that fails after it followed its target's children unfollows
 * them too: nothing is left alive, so that a `while (sp_recorder_live(r))`
 * loop ends, and the child is not alive to sp_recorder_process_alive.
 * The descriptor limit is raised one at a time from where nothing opens
 * to where the attach succeeds: the last attaches that fail run out in
 * the child, after the target's events opened.
 */
Test(misattach, a_failed_attach_unfollows_the_children_it_followed)
{
	struct sp_recorder_opts o = { .stack_bytes = 8192, .children = 1 };
	struct sp_diag diag = { 0 };
	struct rlimit old, low;
	struct live l;
	pid_t pid, child;
	int err = -EMFILE, extra, failed = 0;

	live_start(&l, &o);
	pid = parent_of_one(&child);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	for (extra = 0; extra < 4096 && err == -EMFILE; extra++) {
		low.rlim_cur = (rlim_t)(highest_fd() + 1 + extra);
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
		err = sp_recorder_attach(l.r, pid, &diag);
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
		if (err != -EMFILE)
			break;
		failed++;
		nothing_live(&l);
		/* Both run still: /proc alone would call them alive. */
		cr_assert_eq(sp_recorder_process_alive(l.r, child), 0, "the "
		    "child of a failed attach is not one of the recorder's "
		    "processes (%d descriptors more)", extra);
		cr_assert_eq(sp_recorder_process_alive(l.r, pid), 0);
	}
	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		(void)kill(child, SIGKILL);
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, 0, "attaching with %d descriptors more: %s", extra,
	    diag.msg);
	cr_assert_gt(failed, 0, "no attach ran out of descriptors");
	cr_assert_eq(sp_recorder_live(l.r), 2, "the target and its child");
	cr_assert_eq(sp_recorder_process_alive(l.r, child), 1);
	(void)kill(child, SIGKILL);
	(void)kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	live_end(&l);
}

/*
 * An attach whose spool cannot be written (a full disk: /dev/full) fails
 * with the writer's error, worded as the spool's: it used to read
 * "perf_event_open for pid N: No space left on device".  Nothing is left
 * live and no thread counted.
 */
Test(misattach, a_spool_that_cannot_be_written_fails_as_the_spools)
{
	struct sp_recorder_opts o = { .stack_bytes = 8192 };
	struct sp_diag diag = { 0 };
	struct sp_recorder *r;
	struct sp_writer *w;
	struct sp_header h;
	pid_t pid;
	int fd, err;

	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		cr_skip_test("/dev/full: %s", strerror(errno));
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_writer_flush(w), -ENOSPC);
	pid = threaded_child(1);
	err = sp_recorder_attach(r, pid, &diag);
	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, -ENOSPC, "attach to a full spool: %d (%s)", err,
	    diag.msg);
	cr_assert_not_null(strstr(diag.msg, "the spool could not be written"),
	    "%s", diag.msg);
	cr_assert_null(strstr(diag.msg, "perf_event_open"), "%s", diag.msg);
	cr_assert_eq(sp_recorder_live(r), 0);
	cr_assert_eq(sp_recorder_counter(r, "threads"), 0);
	(void)kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}
