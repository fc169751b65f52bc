/* SPDX-License-Identifier: MIT */
/* Writer and readers together: every record kind, interning, refusals. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sp/spool/format.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"
#include "sp/spool/tail.h"

#define NSAMPLES 30

/* Checks what make_reference wrote, through any reader's definitions. */
static void
check_defs(const struct sp_defs *d)
{
	const struct sp_module *m = sp_defs_module(d, 1);
	const struct sp_thread *t = sp_defs_thread(d, 2);
	const struct sp_symbol *sym = sp_defs_symbol(d, 1);
	const struct sp_recording *rec = sp_defs_recording(d);
	const struct sp_counter *c;
	char name[64];

	cr_assert_not_null(sp_defs_host(d, 1));
	cr_assert_str_eq(sp_defs_host(d, 1)->hostname.s, "otherhost");
	cr_assert_str_eq(sp_defs_host(d, 1)->release.s, "5.10.0");
	cr_assert(sp_defs_host(d, 1)->has_boot_id);
	cr_assert_eq(sp_defs_host(d, 1)->boot_id[15], 0xcd);
	cr_assert_not_null(m);
	cr_assert_eq(m->pid, REF_PID);
	cr_assert_eq(m->start, REF_MOD_START);
	cr_assert_eq(m->size, REF_MOD_SIZE);
	cr_assert_eq(m->build_id_len, 20);
	cr_assert_str_eq(sp_defs_string(d, m->path)->s, "/usr/bin/ref");
	cr_assert_eq(sp_defs_count(d, SP_REC_FRAME), 6);
	cr_assert_eq(sp_defs_frame(d, 4)->module, 0);
	cr_assert_not_null(t);
	cr_assert_eq(t->tid, REF_TID2);
	cr_assert_str_eq(sp_defs_string(d, t->comm)->s, "ref-main");
	cr_assert_not_null(sym);
	cr_assert_eq(sym->lines[0].line, 42);
	cr_assert_str_eq(sp_defs_string(d, sym->lines[0].function)->s, "main");
	cr_assert_null(sp_defs_symbol(d, 2));
	cr_assert_not_null(rec);
	cr_assert_str_eq(rec->event.s, "cpu-clock");
	cr_assert_eq(rec->frequency, 1000);
	cr_assert_eq(sp_defs_counters(d, &c), 2);
	cr_assert_str_eq(c[1].name.s, "lost_events");
	cr_assert_eq(c[1].value, 3);
	sp_format_frame(d, 1, name, sizeof(name));
	cr_assert_str_eq(name, "main");
	sp_format_frame(d, 2, name, sizeof(name));
	cr_assert_str_eq(name, "ref+0x1200");
	sp_format_frame(d, 6, name, sizeof(name));
	cr_assert_str_eq(name, "[truncated]");
	sp_format_frame(d, 5, name, sizeof(name));
	cr_assert_str_eq(name, "0xffffffff81000000");
}

/* Checks sample i against the reference, expanding its stack. */
static void
check_sample(const struct sp_defs *d, const struct sp_sample *s, size_t i)
{
	uint32_t want[8], got[8];
	size_t n = ref_stack(i, want), depth;

	cr_assert_eq(s->thread, 1 + i % 2);
	cr_assert_eq(s->time, REF_T0 + i * REF_DT);
	cr_assert_eq(s->cpu, i % 2);
	cr_assert_eq(sp_defs_stack(d, s->stack, got, 8, &depth), 0);
	cr_assert_eq(depth, n);
	cr_assert_arr_eq(got, want, n * sizeof(uint32_t));
}

Test(spool, snapshot_reads_every_kind)
{
	struct mem m = make_reference(NSAMPLES, 1);
	struct sp_snapshot *s;
	struct sp_diag diag;
	size_t i;

	cr_assert_eq(sp_snapshot_open_mem(m.p, m.len, &s, &diag), 0, "%s",
	    diag.msg);
	cr_assert_str_eq(sp_snapshot_header(s)->hostname, "testhost");
	cr_assert(sp_snapshot_status(s)->finished);
	cr_assert_not(sp_snapshot_status(s)->truncated);
	cr_assert_eq(sp_snapshot_status(s)->end_offset, m.len);
	check_defs(sp_snapshot_defs(s));
	cr_assert_eq(sp_snapshot_nsamples(s), NSAMPLES);
	for (i = 0; i < NSAMPLES; i++)
		check_sample(sp_snapshot_defs(s), &sp_snapshot_samples(s)[i], i);
	sp_snapshot_free(s);
	mem_free(&m);
}

Test(spool, replay_reads_every_kind_in_order)
{
	struct mem m = make_reference(NSAMPLES, 1);
	struct sp_replay *r;
	struct sp_record rec;
	size_t samples = 0, kinds[SP_REC_KINDS_] = { 0 };
	int err;

	cr_assert_eq(sp_replay_open_mem(m.p, m.len, &r, NULL), 0);
	while ((err = sp_replay_next(r, &rec)) > 0) {
		kinds[rec.kind]++;
		if (rec.kind == SP_REC_SAMPLE)
			check_sample(sp_replay_defs(r), &rec.u.sample,
			    samples++);
		if (rec.kind == SP_REC_PYTHON)
			cr_assert_eq(rec.u.python.time, 2000);
		if (rec.kind == SP_REC_RAWSTACK) {
			cr_assert_eq(rec.u.rawstack.nregs, REF_RAW_REGS);
			cr_assert_eq(rec.u.rawstack.regs[8 * 2], 3);
			cr_assert_eq(rec.u.rawstack.stack_len, REF_RAW_BYTES);
			cr_assert_eq(rec.u.rawstack.stack[REF_RAW_BYTES - 1],
			    REF_RAW_BYTES - 1);
		}
		if (rec.kind == SP_REC_PROC) {
			cr_assert_eq(rec.u.proc.event, SP_PROC_EXIT);
			cr_assert_eq(rec.u.proc.tid, REF_TID2);
			cr_assert_eq(rec.u.proc.time, REF_T0 + NSAMPLES * REF_DT);
		}
	}
	cr_assert_eq(err, 0);
	cr_assert_eq(samples, NSAMPLES);
	for (size_t k = 1; k < SP_REC_KINDS_; k++)
		cr_assert_gt(kinds[k], 0, "kind %s seen", sp_kind_name((unsigned)k));
	cr_assert(sp_replay_status(r)->finished);
	check_defs(sp_replay_defs(r));
	sp_replay_free(r);
	mem_free(&m);
}

Test(spool, replay_reads_from_a_pipe)
{
	struct mem m = make_reference(NSAMPLES, 1);
	struct sp_replay *r;
	struct sp_record rec;
	int p[2], err;
	size_t samples = 0;

	cr_assert_eq(pipe(p), 0);
	/* The reference spool is small enough for the pipe buffer. */
	cr_assert_eq(write(p[1], m.p, m.len), (ssize_t)m.len);
	close(p[1]);
	cr_assert_eq(sp_replay_open_fd(p[0], &r, NULL), 0);
	while ((err = sp_replay_next(r, &rec)) > 0)
		samples += rec.kind == SP_REC_SAMPLE;
	cr_assert_eq(err, 0);
	cr_assert_eq(samples, NSAMPLES);
	cr_assert(sp_replay_status(r)->finished);
	sp_replay_free(r);
	close(p[0]);
	mem_free(&m);
}

Test(spool, tail_reads_every_kind)
{
	struct mem m = make_reference(NSAMPLES, 1);
	char path[] = "/tmp/sp-tail-XXXXXX";
	int fd = mkstemp(path);
	struct sp_tail *t;
	struct sp_sample out[7];
	size_t n, total = 0, i;
	int st;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, m.p, m.len), (ssize_t)m.len);
	cr_assert_eq(sp_tail_open(path, &t), 0);
	do {
		st = sp_tail_poll(t, out, 7, &n);
		cr_assert_geq(st, 0);
		cr_assert_leq(n, 7);
		for (i = 0; i < n; i++)
			check_sample(sp_tail_defs(t), &out[i], total + i);
		total += n;
	} while (st == 0 && n > 0);
	cr_assert_eq(st, 1);
	cr_assert_eq(total, NSAMPLES);
	check_defs(sp_tail_defs(t));
	sp_tail_free(t);
	close(fd);
	unlink(path);
	mem_free(&m);
}

Test(spool, ten_thousand_samples_of_one_stack_make_one_set_of_nodes)
{
	uint32_t frames[5] = { 5, 4, 3, 2, 1 }, stack = 0, first = 0;
	struct sp_record r;
	struct sp_snapshot *s;
	struct mem m;
	int fd, i;
	struct sp_writer *w = mem_writer(&fd);

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = r.u.thread.tid = 1;
	cr_assert_eq(sp_writer_put(w, &r, NULL), 0);
	for (i = 0; i < 5; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_FRAME;
		r.u.frame.rel_ip = r.u.frame.abs_ip = 0x1000 + (uint64_t)i;
		cr_assert_eq(sp_writer_put(w, &r, NULL), 0);
	}
	for (i = 0; i < 10000; i++) {
		cr_assert_eq(sp_writer_stack(w, frames, 5, &stack), 0);
		if (i == 0)
			first = stack;
		cr_assert_eq(stack, first);
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_SAMPLE;
		r.u.sample.thread = 1;
		r.u.sample.stack = stack;
		r.u.sample.time = 2000 + (uint64_t)i * 1000000;
		cr_assert_eq(sp_writer_put(w, &r, NULL), 0);
	}
	cr_assert_eq(sp_writer_count(w, SP_REC_NODE), 5);
	cr_assert_eq(sp_writer_finish(w), 0);
	sp_writer_free(w);
	m = mem_collect(fd);
	cr_assert_eq(sp_snapshot_open_mem(m.p, m.len, &s, NULL), 0);
	cr_assert_eq(sp_defs_count(sp_snapshot_defs(s), SP_REC_NODE), 5);
	cr_assert_eq(sp_snapshot_nsamples(s), 10000);
	/* A 1 ms sample costs kind, length, thread, stack, a 3-byte delta
	 * and the cpu: 8 bytes. */
	cr_assert_lt(m.len, 10000 * 8 + 400);
	sp_snapshot_free(s);
	mem_free(&m);
}

/* The memo of the stack before grows with the stacks (past its first 64
 * frames, then doubling): each stack reads back whole.  All are root
 * paths of the deepest, so they share its nodes. */
Test(spool, deeper_stacks_grow_the_memo)
{
	enum { DEEPEST = 1000 };
	static const size_t depths[] = { 1, 64, 65, 130, 129, DEEPEST, 999, 2 };
	static uint32_t frames[DEEPEST], got[DEEPEST], stacks[8];
	struct sp_record r;
	struct sp_snapshot *s;
	struct mem m;
	size_t i, k, depth;
	int fd;
	struct sp_writer *w = mem_writer(&fd);

	for (i = 0; i < DEEPEST; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_FRAME;
		r.u.frame.rel_ip = r.u.frame.abs_ip = 0x1000 + (uint64_t)i;
		cr_assert_eq(sp_writer_put(w, &r, NULL), 0);
	}
	for (i = 0; i < 8; i++) {
		/* Leaf first: frame d at the leaf, frame 1 at the root. */
		for (k = 0; k < depths[i]; k++)
			frames[k] = (uint32_t)(depths[i] - k);
		cr_assert_eq(sp_writer_stack(w, frames, depths[i], &stacks[i]),
		    0);
	}
	cr_assert_eq(sp_writer_count(w, SP_REC_NODE), DEEPEST);
	cr_assert_eq(sp_writer_finish(w), 0);
	sp_writer_free(w);
	m = mem_collect(fd);
	cr_assert_eq(sp_snapshot_open_mem(m.p, m.len, &s, NULL), 0);
	for (i = 0; i < 8; i++) {
		cr_assert_eq(sp_defs_stack(sp_snapshot_defs(s), stacks[i], got,
		    DEEPEST, &depth), 0);
		cr_assert_eq(depth, depths[i], "stack %zu: depth %zu", i, depth);
		for (k = 0; k < depth; k++)
			cr_assert_eq(got[k], depths[i] - k);
	}
	sp_snapshot_free(s);
	mem_free(&m);
}

Test(spool, interning_returns_the_first_id)
{
	uint32_t a, b, c;
	int fd;
	struct sp_writer *w = mem_writer(&fd);

	cr_assert_eq(sp_writer_string(w, "x", 1, &a), 0);
	cr_assert_eq(sp_writer_string(w, "y", 1, &b), 0);
	cr_assert_eq(sp_writer_string(w, "x", 1, &c), 0);
	cr_assert_eq(a, 1);
	cr_assert_eq(b, 2);
	cr_assert_eq(c, 1);
	cr_assert_eq(sp_writer_count(w, SP_REC_STRING), 2);
	sp_writer_free(w);
	close(fd);
}

Test(spool, a_kind_not_interned_gets_a_new_id_each_time)
{
	struct sp_record r;
	uint32_t a, b, s1, s2;
	int fd;
	struct sp_writer *w = mem_writer(&fd);

	cr_assert_eq(sp_writer_no_intern(w, SP_REC_SAMPLE), -SP_EUSAGE);
	cr_assert_eq(sp_writer_no_intern(w, SP_REC_THREAD), 0);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = r.u.thread.tid = 7;
	cr_assert_eq(sp_writer_put(w, &r, &a), 0);
	cr_assert_eq(sp_writer_put(w, &r, &b), 0);
	cr_assert_eq(a, 1);
	cr_assert_eq(b, 2);
	cr_assert_eq(sp_writer_count(w, SP_REC_THREAD), 2);
	/* Other kinds are still interned. */
	cr_assert_eq(sp_writer_string(w, "x", 1, &s1), 0);
	cr_assert_eq(sp_writer_string(w, "x", 1, &s2), 0);
	cr_assert_eq(s1, s2);
	sp_writer_free(w);
	close(fd);
}

Test(spool, writer_refuses_what_readers_would_reject)
{
	struct sp_record r;
	struct sp_symline lines[SP_INLINE_MAX + 1];
	uint32_t id;
	int fd;
	struct sp_writer *w = mem_writer(&fd);

	memset(lines, 0, sizeof(lines));
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SAMPLE;
	r.u.sample.thread = 1; /* no thread defined yet */
	r.u.sample.time = 5000;
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EREF);
	r.u.sample.thread = 0;
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_FRAME;
	r.u.frame.mode = 7;
	cr_assert_eq(sp_writer_put(w, &r, &id), -SP_EUSAGE);
	r.u.frame.mode = SP_FRAME_USER;
	cr_assert_eq(sp_writer_put(w, &r, &id), 0);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SYMBOL;
	r.u.symbol.origin = SP_ORIGIN_ADDRESS;
	r.u.symbol.count = 1;
	r.u.symbol.lines = lines;
	/* Checked on the record, as the decoder checks them. */
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE, "no frame");
	r.u.symbol.frame = id;
	r.u.symbol.origin = SP_ORIGIN_PERF_MAP - 1;
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE, "origin 0");
	r.u.symbol.origin = SP_ORIGIN_ADDRESS + 1;
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE, "origin 5");
	r.u.symbol.origin = SP_ORIGIN_ADDRESS;
	r.u.symbol.count = 0;
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE, "no lines");
	r.u.symbol.count = SP_INLINE_MAX + 1;
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE, "65 lines");
	r.u.symbol.count = 1;
	cr_assert_eq(sp_writer_put(w, &r, NULL), 0);
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE, "one symbol "
	    "per frame");
	cr_assert_eq(sp_writer_finish(w), 0);
	cr_assert_eq(sp_writer_put(w, &r, NULL), -SP_EUSAGE);
	sp_writer_free(w);
	close(fd);
}

Test(spool, flush_error_is_reported_and_sticks)
{
	struct sp_header h;
	struct sp_writer *w;
	int p[2];

	memset(&h, 0, sizeof(h));
	cr_assert_eq(pipe(p), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(sp_writer_new(p[1], &h, &w), 0);
	cr_assert_eq(sp_writer_flush(w), -EPIPE);
	cr_assert_eq(sp_writer_string(w, "a", 1, NULL), -EPIPE);
	sp_writer_free(w);
	close(p[1]);
}

/* Whether SIGPIPE is in this thread's pending set, or its mask. */
static int
sigpipe_in(int pending)
{
	sigset_t set;

	if (pending)
		cr_assert_eq(sigpending(&set), 0);
	else
		cr_assert_eq(pthread_sigmask(SIG_BLOCK, NULL, &set), 0);
	return sigismember(&set, SIGPIPE) == 1;
}

/* A closed pipe under SIGPIPE's default disposition (which kills): the
 * flush says -EPIPE, the process lives on, no SIGPIPE is left pending
 * or blocked; one pending before stays pending. */
Test(spool, a_closed_pipe_is_epipe_not_sigpipe)
{
	struct sp_header h;
	struct sp_writer *w;
	sigset_t set;
	int p[2];

	memset(&h, 0, sizeof(h));
	cr_assert_neq(signal(SIGPIPE, SIG_DFL), SIG_ERR);
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(close(p[0]), 0);
	cr_assert_eq(sp_writer_new(p[1], &h, &w), 0);
	cr_assert_eq(sp_writer_flush(w), -EPIPE);
	cr_assert_not(sigpipe_in(1), "no SIGPIPE left pending");
	cr_assert_not(sigpipe_in(0), "SIGPIPE unblocked again");
	sp_writer_free(w);

	(void)sigemptyset(&set);
	(void)sigaddset(&set, SIGPIPE);
	cr_assert_eq(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
	cr_assert_eq(raise(SIGPIPE), 0);
	cr_assert_eq(sp_writer_new(p[1], &h, &w), 0);
	cr_assert_eq(sp_writer_flush(w), -EPIPE);
	cr_assert(sigpipe_in(1), "the caller's own SIGPIPE is still pending");
	cr_assert(sigpipe_in(0), "and its mask as it was");
	sp_writer_free(w);
	cr_assert_neq(signal(SIGPIPE, SIG_IGN), SIG_ERR);
	cr_assert_eq(pthread_sigmask(SIG_UNBLOCK, &set, NULL), 0);
	cr_assert_eq(close(p[1]), 0);
}

Test(spool, unknown_kinds_and_trailing_fields_are_skipped)
{
	struct mem m = make_reference(3, 0);
	struct sp_snapshot *s;
	/* An unknown kind 99 with 3 payload bytes, then a STRING. */
	static const uint8_t extra[] = { 99, 3, 1, 2, 3, 1, 2, 'o', 'k' };
	uint8_t *p = malloc(m.len + sizeof(extra));
	const struct sp_defs *d;

	memcpy(p, m.p, m.len);
	memcpy(p + m.len, extra, sizeof(extra));
	cr_assert_eq(sp_snapshot_open_mem(p, m.len + sizeof(extra), &s, NULL),
	    0);
	d = sp_snapshot_defs(s);
	cr_assert_str_eq(sp_defs_string(d, sp_defs_count(d, SP_REC_STRING))->s,
	    "ok");
	cr_assert(sp_snapshot_status(s)->truncated, "no END record");
	sp_snapshot_free(s);
	free(p);
	mem_free(&m);
}

Test(spool, end_crc_catches_a_flipped_byte)
{
	struct mem m = make_reference(NSAMPLES, 1);
	struct sp_snapshot *s;
	struct sp_diag diag;

	/* Byte 60 is inside the hostname: any value still decodes. */
	m.p[60] ^= 0x01;
	cr_assert_eq(sp_snapshot_open_mem(m.p, m.len, &s, &diag),
	    -SP_ECHECKSUM);
	cr_assert_eq(diag.offset, m.len - 6, "offset of the END record");
	mem_free(&m);
}
