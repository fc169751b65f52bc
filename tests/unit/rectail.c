/* SPDX-License-Identifier: MIT */
/*
 * What an embedder asks of a recorder besides the recording, on real
 * processes through the kernel, from the public headers only: the rate
 * the header says, whether a process is alive, the kernel's rate limit,
 * and the tail the recorder makes on its own file, which can release
 * what it read.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "livetest.h"
#include "sp/common/error.h"
#include "sp/record/recorder.h"
#include "sp/spool/tail.h"

/* A file with no name, for a spool no path needs to reach. */
static int
tmpfile_fd(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		cr_skip_test("O_TMPFILE on /tmp: %s", strerror(errno));
	return fd;
}

/* A recorder of o on a new file, the header set to preset and flushed
 * before the recorder was made (early) or after; its header as a reader
 * reads it.  Skips where the event asked for is refused. */
static struct sp_header
header_of(const struct sp_recorder_opts *o, uint32_t preset, int early,
    struct sp_recorder **rp)
{
	struct sp_diag diag = { 0 };
	struct sp_sample s[16];
	struct sp_writer *w;
	struct sp_tail *t;
	struct sp_header h;
	size_t n;
	int fd = tmpfile_fd(), err;

	cr_assert_eq(sp_header_init_host(&h), 0);
	h.sample_interval_us = preset;
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	if (early)
		cr_assert_eq(sp_writer_flush(w), 0);
	err = sp_recorder_new(w, o, rp, &diag);
	if (err == -ENOENT || err == -EACCES || err == -EPERM)
		cr_skip_test("the event is refused here: %s", diag.msg);
	cr_assert_eq(err, 0, "%s", diag.msg);
	cr_assert_eq(sp_writer_flush(w), 0);
	/* A reader of its own, from the file's start. */
	cr_assert_eq(sp_recorder_tail(*rp, &t, &diag), 0, "%s", diag.msg);
	cr_assert_geq(sp_tail_poll(t, s, 16, &n), 0);
	cr_assert_not_null(sp_tail_header(t));
	h = *sp_tail_header(t);
	sp_tail_free(t);
	sp_writer_free(w);
	(void)close(fd);
	return h;
}

Test(rate, sp_freq_max_is_the_kernels_limit_and_the_headers_interval)
{
	struct sp_recorder_opts o = { .frequency = SP_FREQ_MAX };
	struct sp_recorder *r;
	struct sp_header h;
	unsigned max = 12345;
	int err = sp_max_sample_rate(&max);

	if (err == -ENOENT)
		cr_skip_test("no /proc/sys/kernel/perf_event_max_sample_rate");
	cr_assert_eq(err, 0, "sp_max_sample_rate: %s", sp_strerror(err));
	cr_assert_gt(max, 0);
	h = header_of(&o, 0, 0, &r);
	cr_assert_eq(sp_recorder_frequency(r), max);
	cr_assert_eq(h.sample_interval_us, 1000000u / max,
	    "interval %u us at %u Hz", h.sample_interval_us, max);
	sp_recorder_free(r);
	/* The default rate, whatever the caller put in the header. */
	o.frequency = 0;
	h = header_of(&o, 12345, 0, &r);
	cr_assert_eq(sp_recorder_frequency(r), SP_FREQ_DEFAULT);
	cr_assert_eq(h.sample_interval_us, 1000000u / SP_FREQ_DEFAULT);
	cr_assert_eq(sp_recorder_counts_time(r), 1);
	sp_recorder_free(r);
}

Test(rate, a_clocks_period_is_the_interval_and_a_count_has_none)
{
	struct sp_recorder_opts o = { .period = 2500000 };
	struct sp_recorder *r;
	struct sp_header h;

	h = header_of(&o, 0, 0, &r);
	cr_assert_eq(h.sample_interval_us, 2500, "-c 2500000 ns: %u us",
	    h.sample_interval_us);
	cr_assert_eq(sp_recorder_frequency(r), 0, "a period decides");
	cr_assert_eq(sp_recorder_counts_time(r), 1);
	sp_recorder_free(r);
	memset(&o, 0, sizeof(o));
	o.event = "page-faults";
	h = header_of(&o, 1000, 0, &r);
	cr_assert_eq(h.sample_interval_us, 0, "faults have no interval in "
	    "time: %u us", h.sample_interval_us);
	cr_assert_eq(sp_recorder_counts_time(r), 0);
	sp_recorder_free(r);
}

/* A header flushed before the recorder is the caller's (the bytes are
 * out, and END's CRC covers them). */
Test(rate, a_header_flushed_first_stays_as_written)
{
	struct sp_recorder_opts o = { .period = 2500000 };
	struct sp_recorder *r;
	struct sp_header h = header_of(&o, 777, 1, &r);

	cr_assert_eq(h.sample_interval_us, 777);
	sp_recorder_free(r);
}

Test(alive, a_target_is_alive_until_it_exits_others_never)
{
	struct live l;
	siginfo_t si;
	pid_t pid;

	live_start(&l, NULL);
	pid = live_launch(&l, spin_argv);
	cr_assert_eq(sp_recorder_process_alive(l.r, pid), 1);
	cr_assert_eq(sp_recorder_process_alive(l.r, getpid()), 0,
	    "the caller is no target");
	cr_assert_eq(sp_recorder_process_alive(l.r, 0), -SP_EUSAGE);
	cr_assert_eq(sp_recorder_process_alive(l.r, -3), -SP_EUSAGE);
	/* Dead, not reaped and its exit not drained yet: a zombie runs no
	 * more. */
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	cr_assert_eq(sp_recorder_process_alive(l.r, pid), 0,
	    "a zombie is not alive");
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	record_for(&l, 0.1);
	cr_assert_eq(sp_recorder_process_alive(l.r, pid), 0);
	live_end(&l);
}

/* The blocks the file holds now. */
static long long
blocks(int fd)
{
	struct stat st;

	cr_assert_eq(fstat(fd, &st), 0);
	return (long long)st.st_blocks;
}

/* Records and polls t until it has read want samples more, or 20 s of a
 * loaded machine; returns how many it read. */
static size_t
tail_more(struct sp_recorder *r, struct sp_tail *t, size_t want)
{
	static struct sp_sample s[4096];
	double end = now_s() + 20;
	size_t n = 0, got;

	while (n < want && now_s() < end) {
		cr_assert_eq(sp_recorder_poll(r, 50), 0);
		cr_assert_eq(sp_recorder_flush(r), 0);
		do {
			cr_assert_geq(sp_tail_poll(t, s, 4096, &got), 0, "%s",
			    sp_tail_diag(t)->msg);
			n += got;
		} while (got > 0);
	}
	return n;
}

/*
 * As docs/api.md says: a spool in a file with no name, the recorder's
 * tail reading it, the records it read released.  Raw stacks make each
 * sample some KiB, so that what is read fills many blocks.
 */
Test(tail, the_recorders_tail_reads_an_unnamed_file_and_releases_it)
{
	struct sp_recorder_opts o = { .raw_stacks = 1, .stack_bytes = 8192 };
	struct sp_diag diag = { 0 };
	struct sp_writer *w;
	struct sp_recorder *r;
	struct sp_tail *t;
	struct sp_header h;
	long long full, after;
	size_t n;
	pid_t pid;
	int fd = tmpfile_fd(), err;

	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_recorder_tail(r, &t, &diag), 0, "%s", diag.msg);
	{
		struct live l = { .w = w, .r = r };

		pid = live_launch(&l, spin_argv);
	}
	n = tail_more(r, t, 300);
	cr_assert_geq(n, 300, "samples read by the recorder's tail: %zu", n);
	full = blocks(fd);
	err = sp_tail_discard_consumed(t);
	if (err == -EOPNOTSUPP) {
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		cr_skip_test("/tmp's file system cannot punch holes");
	}
	cr_assert_eq(err, 0, "%s", sp_strerror(err));
	after = blocks(fd);
	cr_assert_lt(after, full, "blocks after discarding: %lld of %lld",
	    after, full);
	/* It reads on, and releases again. */
	n = tail_more(r, t, 100);
	cr_assert_geq(n, 100, "samples after the discard: %zu", n);
	full = blocks(fd);
	cr_assert_eq(sp_tail_discard_consumed(t), 0);
	cr_assert_lt(blocks(fd), full);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_assert_eq(sp_recorder_finish(r), 0);
	sp_tail_free(t);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}

/* A pipe is read once, by its reader: no tail of it; and a tail opened
 * by path releases nothing of a file that others may read. */
Test(tail, a_pipe_has_no_tail_and_a_path_tail_discards_nothing)
{
	struct sp_diag diag = { 0 };
	struct sp_writer *w;
	struct sp_recorder *r;
	struct sp_tail *t;
	struct sp_header h;
	struct sp_recorder_opts o = { 0 };
	int p[2], queued = -1;
	struct live l;

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(p[1], &h, &w), 0);
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_recorder_tail(r, &t, &diag), -SP_EUSAGE);
	cr_assert_null(t);
	cr_assert_not_null(strstr(diag.msg, "not a regular file"), "%s",
	    diag.msg);
	/* Refused before anything was flushed into it: the header is
	 * still the writer's to write, for the pipe's reader. */
	cr_assert_eq(ioctl(p[0], FIONREAD, &queued), 0);
	cr_assert_eq(queued, 0, "%d bytes written to the pipe by a refused "
	    "sp_recorder_tail", queued);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(p[0]);
	(void)close(p[1]);
	live_start(&l, NULL);
	cr_assert_eq(sp_tail_discard_consumed(l.t), -SP_EUSAGE);
	live_end(&l);
}

/* A tail reads the file from offset 0: a spool written after other bytes
 * (here a line of text) has no tail, and the reason is said. */
Test(tail, a_spool_not_at_the_files_start_has_no_tail)
{
	static const char before[] = "not a spool\n";
	struct sp_recorder_opts o = { 0 };
	struct sp_diag diag = { 0 };
	struct sp_writer *w;
	struct sp_recorder *r;
	struct sp_tail *t = NULL;
	struct sp_header h;
	int fd = tmpfile_fd(), err;

	cr_assert_eq(write(fd, before, sizeof(before) - 1),
	    (ssize_t)sizeof(before) - 1);
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	err = sp_recorder_tail(r, &t, &diag);
	cr_assert_eq(err, -SP_EUSAGE, "%d (%s)", err, diag.msg);
	cr_assert_null(t);
	cr_assert_not_null(strstr(diag.msg, "offset 0"), "%s", diag.msg);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
	/* The same at the file's start has one. */
	fd = tmpfile_fd();
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_recorder_new(w, &o, &r, &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_recorder_tail(r, &t, &diag), 0, "%s", diag.msg);
	cr_assert_not_null(t);
	sp_tail_free(t);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}
