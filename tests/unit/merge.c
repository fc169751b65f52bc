/* SPDX-License-Identifier: MIT */
/*
 * sp_merge on spools this file writes: sample counts, hosts kept apart,
 * time order within a host across inputs, hosts one after another,
 * damaged inputs.  Each sample's leaf frame has its time as address, so a
 * sample that lost its stack or its time shows.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"
#include "sp/spool/merge.h"
#include "sp/spool/replay.h"

/* One input: its host, one thread, samples (and a PROC event) at times. */
struct spec {
	const char *host;
	uint8_t boot;
	uint32_t pid;
	const char *comm;
	const uint64_t *t;
	size_t n;
	uint64_t proc_t;      /* a PROC exit at this time; 0: none */
};

/* What the merged spool holds, record by record. */
struct seen {
	char comm[16][8];     /* the thread's comm, per timestamped record */
	char host[16][16];    /* its host's name */
	uint32_t kind[16];
	uint64_t t[16];
	size_t n;
	uint32_t threads;
};

static void
put(struct sp_writer *w, struct sp_record *r, uint32_t *id)
{
	cr_assert_eq(sp_writer_put(w, r, id), 0, "put kind %u", r->kind);
}

static void
put_exit(struct sp_writer *w, const struct spec *s)
{
	struct sp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_PROC;
	r.u.proc.time = s->proc_t;
	r.u.proc.event = SP_PROC_EXIT;
	r.u.proc.pid = r.u.proc.tid = s->pid;
	put(w, &r, NULL);
}

static struct mem
mk(const struct spec *s)
{
	struct sp_header h;
	struct sp_writer *w = NULL;
	struct sp_record r;
	uint32_t comm, thread, frame, stack;
	size_t i;
	int pending = s->proc_t != 0;
	int fd = memfd_create("spool", MFD_CLOEXEC);

	cr_assert(fd >= 0);
	memset(&h, 0, sizeof(h));
	h.start_mono_ns = 1;
	h.page_size = 4096;
	strcpy(h.hostname, s->host);
	strcpy(h.machine, "x86_64");
	h.boot_id[0] = s->boot;
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_writer_string(w, s->comm, strlen(s->comm), &comm), 0);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = r.u.thread.tid = s->pid;
	r.u.thread.comm = comm;
	put(w, &r, &thread);
	for (i = 0; i < s->n; i++) {
		if (pending && s->t[i] > s->proc_t) {
			put_exit(w, s);
			pending = 0;
		}
		/* A frame and a node defined between samples. */
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_FRAME;
		r.u.frame.rel_ip = r.u.frame.abs_ip = s->t[i];
		put(w, &r, &frame);
		cr_assert_eq(sp_writer_stack(w, &frame, 1, &stack), 0);
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_SAMPLE;
		r.u.sample.thread = thread;
		r.u.sample.stack = stack;
		r.u.sample.time = s->t[i];
		put(w, &r, NULL);
	}
	if (pending)
		put_exit(w, s);
	cr_assert_eq(sp_writer_finish(w), 0);
	sp_writer_free(w);
	return mem_collect(fd);
}

static void
read_merged(struct mem *out, struct seen *sn)
{
	struct sp_replay *r = NULL;
	struct sp_record rec;
	const struct sp_defs *d;
	const struct sp_thread *th;
	const struct sp_node *node;
	uint32_t host = 0;
	int err;

	memset(sn, 0, sizeof(*sn));
	cr_assert_eq(sp_replay_open_mem(out->p, out->len, &r, NULL), 0);
	d = sp_replay_defs(r);
	while ((err = sp_replay_next(r, &rec)) > 0) {
		if (rec.kind != SP_REC_SAMPLE && rec.kind != SP_REC_PROC)
			continue;
		cr_assert_lt(sn->n, 16);
		sn->kind[sn->n] = rec.kind;
		if (rec.kind == SP_REC_PROC) {
			sn->t[sn->n] = rec.u.proc.time;
			host = rec.u.proc.host;
			strcpy(sn->comm[sn->n], "exit");
		} else {
			sn->t[sn->n] = rec.u.sample.time;
			th = sp_defs_thread(d, rec.u.sample.thread);
			host = th->host;
			strcpy(sn->comm[sn->n], sp_defs_string(d, th->comm)->s);
			/* The stack still ends in the frame of this time. */
			node = sp_defs_node(d, rec.u.sample.stack);
			cr_assert_eq(sp_defs_frame(d, node->frame)->abs_ip,
			    rec.u.sample.time);
		}
		cr_assert_neq(host, 0, "every record keeps a HOST");
		strcpy(sn->host[sn->n], sp_defs_host(d, host)->hostname.s);
		sn->n++;
	}
	cr_assert_eq(err, 0);
	cr_assert_not(sp_replay_status(r)->truncated, "END written");
	sn->threads = sp_defs_count(d, SP_REC_THREAD);
	sp_replay_free(r);
}

/* Merges n spools as one batch into *out; fills in[]. */
static void
merge(struct mem *spl, size_t n, struct sp_merge_input *in, struct mem *out)
{
	struct sp_merge *m = NULL;
	size_t i;
	int fd = memfd_create("out", MFD_CLOEXEC);

	cr_assert(fd >= 0);
	cr_assert_eq(sp_merge_new(fd, &m), 0);
	memset(in, 0, n * sizeof(*in));
	for (i = 0; i < n; i++)
		cr_assert_eq(sp_replay_open_mem(spl[i].p, spl[i].len,
		    &in[i].replay, NULL), 0);
	cr_assert_eq(sp_merge_inputs(m, in, n), 0);
	cr_assert_eq(sp_merge_finish(m), 0);
	sp_merge_free(m);
	for (i = 0; i < n; i++)
		sp_replay_free(in[i].replay);
	*out = mem_collect(fd);
}

/* Merges the spools of s[0] and s[1] as one batch and reads the result. */
static void
merge_two(const struct spec s[2], struct seen *sn)
{
	struct mem spl[2], out;
	struct sp_merge_input in[2];

	spl[0] = mk(&s[0]);
	spl[1] = mk(&s[1]);
	merge(spl, 2, in, &out);
	cr_assert_eq(in[0].err, 0);
	cr_assert_eq(in[1].err, 0);
	read_merged(&out, sn);
	mem_free(&spl[0]);
	mem_free(&spl[1]);
	mem_free(&out);
}

static const uint64_t ta[] = { 100, 300, 500 };
static const uint64_t tb[] = { 200, 400, 600, 700 };
static const uint64_t tc[] = { 50, 150 };

Test(merge, same_host_in_time_order_other_hosts_after)
{
	/* a and b: one host and boot; c another host, with the same pid. */
	const struct spec s[3] = {
		{ "h1", 1, 42, "a", ta, 3, 0 },
		{ "h2", 1, 42, "c", tc, 2, 0 },
		{ "h1", 1, 43, "b", tb, 4, 0 },
	};
	static const char *order[] = { "a", "b", "a", "b", "a", "b", "b",
	    "c", "c" };
	static const uint64_t times[] = { 100, 200, 300, 400, 500, 600, 700,
	    50, 150 };
	struct mem spl[3], out;
	struct sp_merge_input in[3];
	struct seen sn;
	size_t i;

	for (i = 0; i < 3; i++)
		spl[i] = mk(&s[i]);
	merge(spl, 3, in, &out);
	cr_assert_eq(in[0].st.samples, 3);
	cr_assert_eq(in[1].st.samples, 2);
	cr_assert_eq(in[2].st.samples, 4);
	for (i = 0; i < 3; i++)
		cr_assert_eq(in[i].err, 0);
	read_merged(&out, &sn);
	cr_assert_eq(sn.n, 9);
	for (i = 0; i < 9; i++) {
		cr_assert_str_eq(sn.comm[i], order[i], "record %zu", i);
		cr_assert_eq(sn.t[i], times[i], "record %zu", i);
		cr_assert_str_eq(sn.host[i], sn.comm[i][0] == 'c' ? "h2" :
		    "h1");
	}
	/* pid 42 on h1 and on h2: two threads, and 43 on h1. */
	cr_assert_eq(sn.threads, 3);
	for (i = 0; i < 3; i++)
		mem_free(&spl[i]);
	mem_free(&out);
}

Test(merge, equal_times_keep_input_order_and_proc_events_interleave)
{
	static const uint64_t t1[] = { 10, 20, 30 };
	const struct spec s[2] = {
		{ "h", 7, 1, "x", t1, 3, 25 },
		{ "h", 7, 2, "y", t1, 3, 0 },
	};
	static const char *order[] = { "x", "y", "x", "y", "exit", "x",
	    "y" };
	static const uint64_t times[] = { 10, 10, 20, 20, 25, 30, 30 };
	struct seen sn;
	size_t i;

	merge_two(s, &sn);
	cr_assert_eq(sn.n, 7);
	for (i = 0; i < 7; i++) {
		cr_assert_str_eq(sn.comm[i], order[i], "record %zu", i);
		cr_assert_eq(sn.t[i], times[i], "record %zu", i);
	}
}

Test(merge, other_boot_is_another_host)
{
	/* Same name, another boot: monotonic clocks differ, no interleave. */
	const struct spec s[2] = {
		{ "h", 1, 5, "a", tb, 4, 0 },
		{ "h", 2, 5, "b", ta, 3, 0 },
	};
	struct seen sn;
	size_t i;

	merge_two(s, &sn);
	cr_assert_eq(sn.n, 7);
	for (i = 0; i < 7; i++)
		cr_assert_str_eq(sn.comm[i], i < 4 ? "a" : "b");
	cr_assert_eq(sn.threads, 2, "pid 5 of two boots stays two threads");
}

/* The offset of the last SAMPLE record of spl. */
static uint64_t
last_sample(const struct mem *spl)
{
	struct sp_replay *r = NULL;
	struct sp_record rec;
	uint64_t off = 0;

	cr_assert_eq(sp_replay_open_mem(spl->p, spl->len, &r, NULL), 0);
	while (sp_replay_next(r, &rec) > 0)
		if (rec.kind == SP_REC_SAMPLE)
			off = rec.offset;
	sp_replay_free(r);
	cr_assert_gt(off, 0);
	return off;
}

Test(merge, truncated_and_corrupt_inputs)
{
	const struct spec s[3] = {
		{ "h", 1, 1, "a", ta, 3, 0 },
		{ "h", 1, 2, "b", tb, 4, 0 },
		{ "h", 1, 3, "c", tc, 2, 0 },
	};
	struct mem spl[3], out;
	struct sp_merge_input in[3];
	struct seen sn;
	size_t i, nb = 0;

	for (i = 0; i < 3; i++)
		spl[i] = mk(&s[i]);
	/* a cut one byte into its END: all samples, truncated. */
	spl[0].len -= 4;
	/* b's last sample refers to thread 9, which no record defines. */
	spl[1].p[last_sample(&spl[1]) + 2] = 9;
	merge(spl, 3, in, &out);
	cr_assert(in[0].st.truncated);
	cr_assert_eq(in[0].err, 0);
	cr_assert_eq(in[0].st.samples, 3);
	cr_assert_lt(in[1].err, 0, "b's damage is an error");
	cr_assert_neq(in[1].diag.msg[0], '\0');
	cr_assert_eq(in[2].err, 0);
	cr_assert_eq(in[2].st.samples, 2);
	read_merged(&out, &sn);
	for (i = 0; i < sn.n; i++)
		nb += strcmp(sn.comm[i], "b") == 0;
	cr_assert_eq(in[1].st.samples, 3, "b's prefix is merged");
	cr_assert_eq(nb, 3);
	cr_assert_eq(sn.n, 3 + nb + 2);
	for (i = 1; i < sn.n; i++)
		cr_assert_leq(sn.t[i - 1], sn.t[i], "still in time order");
	for (i = 0; i < 3; i++)
		mem_free(&spl[i]);
	mem_free(&out);
}

Test(merge, add_appends_after_what_was_merged)
{
	const struct spec s[2] = {
		{ "h", 1, 1, "a", tb, 4, 0 },
		{ "h", 1, 2, "b", ta, 3, 0 },
	};
	struct sp_merge *m = NULL;
	struct sp_replay *r;
	struct sp_merge_stats st;
	struct mem spl[2], out;
	struct seen sn;
	size_t i;
	int fd = memfd_create("out", MFD_CLOEXEC);

	cr_assert_eq(sp_merge_new(fd, &m), 0);
	for (i = 0; i < 2; i++) {
		spl[i] = mk(&s[i]);
		cr_assert_eq(sp_replay_open_mem(spl[i].p, spl[i].len, &r, NULL),
		    0);
		cr_assert_eq(sp_merge_add(m, r, &st, NULL), 0);
		cr_assert_eq(st.samples, s[i].n);
		sp_replay_free(r);
	}
	cr_assert_eq(sp_merge_finish(m), 0);
	sp_merge_free(m);
	out = mem_collect(fd);
	read_merged(&out, &sn);
	cr_assert_eq(sn.n, 7);
	for (i = 0; i < 7; i++)
		cr_assert_str_eq(sn.comm[i], i < 4 ? "a" : "b");
	cr_assert_eq(sn.threads, 2);
	mem_free(&spl[0]);
	mem_free(&spl[1]);
	mem_free(&out);
}

Test(merge, no_input_is_an_empty_spool)
{
	struct sp_merge *m = NULL;
	struct mem out;
	struct seen sn;
	int fd = memfd_create("out", MFD_CLOEXEC);

	cr_assert_eq(sp_merge_new(fd, &m), 0);
	cr_assert_eq(sp_merge_inputs(m, NULL, 0), 0);
	cr_assert_eq(sp_merge_finish(m), 0);
	sp_merge_free(m);
	out = mem_collect(fd);
	read_merged(&out, &sn);
	cr_assert_eq(sn.n, 0);
	mem_free(&out);
}

/* sp_merge_failed tells an input's fault from the output's. */
Test(merge, failed_tells_the_output_from_an_input)
{
	const struct spec s = { "h", 1, 2, "b", tb, 4, 0 };
	struct sp_merge *m = NULL;
	struct sp_replay *r;
	struct sp_merge_stats st;
	struct sp_diag d;
	struct mem spl = mk(&s);
	int fd = memfd_create("out", MFD_CLOEXEC), full;

	/* A damaged input: its error, the merger not failed. */
	spl.p[last_sample(&spl) + 2] = 9;
	cr_assert_eq(sp_merge_new(fd, &m), 0);
	cr_assert_eq(sp_replay_open_mem(spl.p, spl.len, &r, NULL), 0);
	cr_assert_lt(sp_merge_add(m, r, &st, &d), 0);
	cr_assert_eq(sp_merge_failed(m), 0, "an input's fault");
	sp_replay_free(r);
	sp_merge_free(m);
	(void)close(fd);
	/* A full output: the merger's error, kept. */
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	cr_assert_geq(full, 0);
	mem_free(&spl);
	spl = mk(&s);
	cr_assert_eq(sp_merge_new(full, &m), 0);
	cr_assert_eq(sp_replay_open_mem(spl.p, spl.len, &r, NULL), 0);
	(void)sp_merge_add(m, r, &st, &d);
	cr_assert_lt(sp_merge_finish(m), 0);
	cr_assert_eq(sp_merge_failed(m), -ENOSPC, "the output's fault");
	sp_replay_free(r);
	sp_merge_free(m);
	(void)close(full);
	mem_free(&spl);
}
