/* SPDX-License-Identifier: MIT */
/*
 * The readers' rows for embedders, written from docs/api.md: a sample's
 * time on the profile's timeline (Snapshot, Replay, Tail), the PYTHON
 * records of a Snapshot, and Replay's sample count before and after a
 * pass, on whole, truncated, piped and fd-given spools.  Spools made by
 * the writer; public headers only.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"

#define START_US 1700000000123456ull
#define START_NS 5000000000ull
#define NSAMPLES 5

/* Sample i's time: one before the start (rings slightly out of order),
 * the others 1.5 ms apart after it. */
static uint64_t
sample_ns(size_t i)
{
	return i == 0 ? START_NS - 2500 : START_NS + i * 1500000ull;
}

static void
put(struct sp_writer *w, const struct sp_record *r, uint32_t *id)
{
	cr_assert_eq(sp_writer_put(w, r, id), 0, "put %s",
	    sp_kind_name(r->kind));
}

/* A spool on a memfd: a thread, NSAMPLES samples, a process that becomes
 * a Python runtime and then stops being one; start_us 0: no anchor. */
static int
make_spool(uint64_t start_us, int finish)
{
	struct sp_header h;
	struct sp_writer *w;
	struct sp_record r;
	uint32_t thread;
	size_t i;
	int fd = memfd_create("rows", MFD_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(sp_header_init_host(&h), 0);
	h.start_time_us = start_us;
	h.start_mono_ns = START_NS;
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = 77;
	r.u.thread.tid = 78;
	put(w, &r, &thread);
	for (i = 0; i < NSAMPLES; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_SAMPLE;
		r.u.sample.thread = thread;
		r.u.sample.time = sample_ns(i);
		put(w, &r, NULL);
		if (i == 1 || i == 3) {
			memset(&r, 0, sizeof(r));
			r.kind = SP_REC_PYTHON;
			r.u.python.time = sample_ns(i) + 1;
			r.u.python.pid = 77;
			r.u.python.is_python = i == 1;
			put(w, &r, NULL);
		}
	}
	cr_assert_eq(finish ? sp_writer_finish(w) : sp_writer_flush(w), 0);
	sp_writer_free(w);
	return fd;
}

/* The path of fd, for the readers that open a path. */
static const char *
path_of(int fd, char *buf, size_t cap)
{
	(void)snprintf(buf, cap, "/proc/self/fd/%d", fd);
	return buf;
}

/* The documented formula: start_time_us + (time - start_mono_ns) / 1000. */
static int64_t
want_us(size_t i)
{
	return (int64_t)START_US + ((int64_t)sample_ns(i) -
	    (int64_t)START_NS) / 1000;
}

Test(rows, timestamp_us_on_all_three_readers)
{
	char path[64];
	int fd = make_spool(START_US, 1);
	struct sp_snapshot *s;
	struct sp_replay *r;
	struct sp_tail *t;
	struct sp_record rec;
	struct sp_sample smp[NSAMPLES + 1];
	size_t i = 0, n;
	int64_t us;

	cr_assert_eq(sp_snapshot_open(path_of(fd, path, sizeof(path)), &s,
	    NULL), 0);
	cr_assert_eq(sp_snapshot_nsamples(s), NSAMPLES);
	for (i = 0; i < NSAMPLES; i++) {
		cr_assert_eq(sp_snapshot_timestamp_us(s,
		    &sp_snapshot_samples(s)[i], &us), 1);
		cr_assert_eq(us, want_us(i), "sample %zu: %lld", i,
		    (long long)us);
	}
	cr_assert_lt(want_us(0), (int64_t)START_US, "before the start");
	sp_snapshot_free(s);

	cr_assert_eq(sp_replay_open(path, &r, NULL), 0);
	for (i = 0; sp_replay_next(r, &rec) > 0;) {
		if (rec.kind != SP_REC_SAMPLE)
			continue;
		cr_assert_eq(sp_replay_timestamp_us(r, &rec.u.sample, &us), 1);
		cr_assert_eq(us, want_us(i), "replay sample %zu", i);
		i++;
	}
	cr_assert_eq(i, NSAMPLES);
	sp_replay_free(r);

	cr_assert_eq(sp_tail_open(path, &t), 0);
	cr_assert_eq(sp_tail_poll(t, smp, NSAMPLES + 1, &n), 1);
	cr_assert_eq(n, NSAMPLES);
	for (i = 0; i < n; i++) {
		cr_assert_eq(sp_tail_timestamp_us(t, &smp[i], &us), 1);
		cr_assert_eq(us, want_us(i), "tail sample %zu", i);
	}
	sp_tail_free(t);
	close(fd);
}

Test(rows, timestamp_us_is_none_without_an_anchor)
{
	char path[64];
	int fd = make_spool(0, 1), empty = memfd_create("empty", MFD_CLOEXEC);
	struct sp_snapshot *s;
	struct sp_replay *r;
	struct sp_tail *t;
	struct sp_sample smp = { 0 };
	size_t n;
	int64_t us = 42;

	cr_assert_eq(sp_snapshot_open(path_of(fd, path, sizeof(path)), &s,
	    NULL), 0);
	cr_assert_eq(sp_snapshot_timestamp_us(s, &sp_snapshot_samples(s)[1],
	    &us), 0);
	sp_snapshot_free(s);
	cr_assert_eq(sp_replay_open(path, &r, NULL), 0);
	cr_assert_eq(sp_replay_timestamp_us(r, &smp, &us), 0);
	sp_replay_free(r);
	cr_assert_eq(us, 42, "left alone");
	/* A tail before its header has no anchor either. */
	cr_assert_geq(empty, 0);
	cr_assert_eq(sp_tail_open(path_of(empty, path, sizeof(path)), &t), 0);
	cr_assert_eq(sp_tail_poll(t, &smp, 1, &n), 0);
	cr_assert_eq(sp_tail_timestamp_us(t, &smp, &us), 0);
	sp_tail_free(t);
	close(empty);
	close(fd);
}

Test(rows, snapshot_python_records_in_stream_order)
{
	char path[64];
	int fd = make_spool(START_US, 1);
	struct sp_snapshot *s;
	const struct sp_python *py;

	cr_assert_eq(sp_snapshot_open(path_of(fd, path, sizeof(path)), &s,
	    NULL), 0);
	cr_assert_eq(sp_snapshot_python(s, &py), 2);
	cr_assert(py[0].pid == 77 && py[0].is_python == 1 &&
	    py[0].time == sample_ns(1) + 1);
	cr_assert(py[1].pid == 77 && py[1].is_python == 0 &&
	    py[1].time == sample_ns(3) + 1);
	sp_snapshot_free(s);
	close(fd);
}

/* Replay's count by a pass of its own, then from its status. */
static void
check_count(struct sp_replay *r, uint64_t want)
{
	struct sp_record rec;
	uint64_t n = 0, seen = 0;

	cr_assert_eq(sp_replay_sample_count(r, &n), 0);
	cr_assert_eq(n, want, "before reading: %llu", (unsigned long long)n);
	cr_assert_eq(sp_replay_sample_count(r, &n), 0);
	cr_assert_eq(n, want, "asked again");
	while (sp_replay_next(r, &rec) > 0)
		seen += rec.kind == SP_REC_SAMPLE;
	cr_assert_eq(seen, want, "the position did not move");
	cr_assert_eq(sp_replay_sample_count(r, &n), 0);
	cr_assert_eq(n, want, "after the end");
}

Test(rows, replay_sample_count_whole_truncated_fd_and_memory)
{
	char path[64];
	int fd = make_spool(START_US, 1), cut = make_spool(START_US, 1);
	struct sp_replay *r;
	struct sp_snapshot *s;
	off_t len = lseek(cut, 0, SEEK_END);
	size_t want;
	void *p;

	cr_assert_eq(sp_replay_open(path_of(fd, path, sizeof(path)), &r,
	    NULL), 0);
	check_count(r, NSAMPLES);
	sp_replay_free(r);
	/* 4 bytes off cuts the END record alone (its crc32 is 4 bytes):
	 * every sample stays, and the spool is truncated. */
	cr_assert_eq(ftruncate(cut, len - 4), 0);
	cr_assert_eq(sp_replay_open(path_of(cut, path, sizeof(path)), &r,
	    NULL), 0);
	check_count(r, NSAMPLES);
	cr_assert(sp_replay_status(r)->truncated);
	sp_replay_free(r);
	/* Shorter, through a caller's fd: as many as a Snapshot keeps. */
	cr_assert_eq(ftruncate(cut, len - 40), 0);
	cr_assert_eq(sp_snapshot_open(path, &s, NULL), 0);
	want = sp_snapshot_nsamples(s);
	sp_snapshot_free(s);
	cr_assert_lt(want, NSAMPLES, "cut shorter");
	cr_assert_eq(lseek(cut, 0, SEEK_SET), 0);
	cr_assert_eq(sp_replay_open_fd(cut, &r, NULL), 0);
	check_count(r, want);
	sp_replay_free(r);

	p = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert_eq(sp_replay_open_mem(p, (size_t)len, &r, NULL), 0);
	check_count(r, NSAMPLES);
	sp_replay_free(r);
	munmap(p, (size_t)len);
	close(cut);
	close(fd);
}

Test(rows, replay_sample_count_of_a_pipe_after_the_end)
{
	int fd = make_spool(START_US, 1), pfd[2];
	char buf[65536];
	ssize_t len = pread(fd, buf, sizeof(buf), 0);
	struct sp_replay *r;
	struct sp_record rec;
	uint64_t n;

	cr_assert(len > 0 && len < (ssize_t)sizeof(buf), "spool fits");
	cr_assert_eq(pipe(pfd), 0);
	cr_assert_eq(write(pfd[1], buf, (size_t)len), len);
	close(pfd[1]);
	cr_assert_eq(sp_replay_open_fd(pfd[0], &r, NULL), 0);
	cr_assert_eq(sp_replay_sample_count(r, &n), -ESPIPE, "read once");
	while (sp_replay_next(r, &rec) > 0)
		;
	cr_assert_eq(sp_replay_sample_count(r, &n), 0);
	cr_assert_eq(n, NSAMPLES);
	sp_replay_free(r);
	close(pfd[0]);
	close(fd);
}
