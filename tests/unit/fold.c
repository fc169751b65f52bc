/* SPDX-License-Identifier: MIT */
/*
 * sp_fold and sp_pprof on a spool this file writes, with samples whose
 * folded form is known by construction:
 *
 *   frames  F1 main (app.c:10)          F2 outer (app.c:20) with inner
 *           F3 raw, app+0x1234             (inl.h:5) inlined into it
 *           F4 hidden by default        F5 kernel, do_syscall
 *           F6 the truncated marker     F7 a name that needs escaping
 *   stacks  SA = main<-outer/inner<-app+0x1234, SB = main<-hidden<-
 *           do_syscall, SC = [truncated]<-F7, and the empty stack
 *   threads worker (100/101), app (100/100), other (200/200)
 *   samples app: 3 SA at 0.5 s, 2 SB at 1.5 s; worker: SA and SC at
 *           2.5 s; other: SB and the empty stack at 3.5 s
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common.h"
#include "sp/report/fold.h"
#include "sp/report/pprof.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"

#define ESCAPED "a:b\\c\\nd\\re"
#define SEC 1000000000ull

static uint32_t
put(struct sp_writer *w, struct sp_record *r)
{
	uint32_t id = 0;

	cr_assert_eq(sp_writer_put(w, r, &id), 0, "kind %u", r->kind);
	return id;
}

static uint32_t
str(struct sp_writer *w, const char *s)
{
	uint32_t id;

	cr_assert_eq(sp_writer_string(w, s, strlen(s), &id), 0);
	return id;
}

static uint32_t
frame(struct sp_writer *w, uint32_t module, uint32_t mode, uint64_t rel)
{
	struct sp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_FRAME;
	r.u.frame.module = module;
	r.u.frame.mode = mode;
	r.u.frame.rel_ip = rel;
	r.u.frame.abs_ip = module ? 0x400000 + rel - 0x1000 : rel;
	return put(w, &r);
}

static void
symbol(struct sp_writer *w, uint32_t fr, uint32_t flags,
    const struct sp_symline *l, uint32_t n)
{
	struct sp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SYMBOL;
	r.u.symbol.frame = fr;
	r.u.symbol.origin = SP_ORIGIN_ELF;
	r.u.symbol.flags = flags;
	r.u.symbol.count = n;
	r.u.symbol.lines = l;
	(void)put(w, &r);
}

static uint32_t
thread(struct sp_writer *w, uint32_t pid, uint32_t tid, const char *comm)
{
	struct sp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = pid;
	r.u.thread.tid = tid;
	r.u.thread.comm = str(w, comm);
	return put(w, &r);
}

static uint32_t
stack(struct sp_writer *w, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t fr[3] = { a, b, c }, id;

	cr_assert_eq(sp_writer_stack(w, fr, c ? 3 : 2, &id), 0);
	return id;
}

/* One sample of kind weighing ns (0 for a CPU sample: 1) at sec. */
static void
timed(struct sp_writer *w, uint32_t th, uint32_t st, double sec,
    uint32_t kind, uint64_t ns)
{
	struct sp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SAMPLE;
	r.u.sample.thread = th;
	r.u.sample.stack = st;
	/* ref_header: start_mono_ns 1000. */
	r.u.sample.time = 1000 + (uint64_t)(sec * SEC);
	r.u.sample.kind = kind;
	r.u.sample.weight = ns;
	(void)put(w, &r);
}

static void
samples(struct sp_writer *w, uint32_t th, uint32_t st, double sec, int n)
{
	while (n-- > 0)
		timed(w, th, st, sec, SP_SAMPLE_CPU, 0);
}

static void
defs(struct sp_writer *w, uint32_t f[8])
{
	struct sp_record r;
	struct sp_symline l[2];

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_RECORDING;
	r.u.recording.event.s = "cpu-clock";
	r.u.recording.event.len = 9;
	r.u.recording.frequency = 250; /* a 4 ms period */
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = 100;
	r.u.module.start = 0x400000;
	r.u.module.size = 0x10000;
	r.u.module.file_offset = 0x1000;
	r.u.module.build_id_len = 4;
	memcpy(r.u.module.build_id, "\xde\xad\xbe\xef", 4);
	r.u.module.path = str(w, "/opt/app");
	(void)put(w, &r);
	/* main is a Python function here (as from a perf map): it stands in
	 * for the interpreter machinery below it, which is then hidden. */
	f[1] = frame(w, 1, SP_FRAME_USER, 0x1100);
	l[0] = (struct sp_symline){ str(w, "main"), str(w, "app.c"), 10 };
	symbol(w, f[1], SP_SYM_PYTHON_FRAME, l, 1);
	f[2] = frame(w, 1, SP_FRAME_USER, 0x1200);
	l[0] = (struct sp_symline){ str(w, "inner"), str(w, "inl.h"), 5 };
	l[1] = (struct sp_symline){ str(w, "outer"), str(w, "app.c"), 20 };
	symbol(w, f[2], 0, l, 2);
	f[3] = frame(w, 1, SP_FRAME_USER, 0x1234);
	f[4] = frame(w, 1, SP_FRAME_USER, 0x1300);
	l[0] = (struct sp_symline){ str(w, "_PyEval_EvalFrameDefault"), 0, 0 };
	symbol(w, f[4], SP_SYM_HIDDEN | SP_SYM_PYTHON_RUNTIME, l, 1);
	f[5] = frame(w, 0, SP_FRAME_KERNEL, 0xffffffff81000010ull);
	l[0] = (struct sp_symline){ str(w, "do_syscall"), 0, 0 };
	symbol(w, f[5], 0, l, 1);
	f[6] = frame(w, 0, SP_FRAME_TRUNCATED, 0);
	f[7] = frame(w, 1, SP_FRAME_USER, 0x1400);
	l[0] = (struct sp_symline){ str(w, "a;b\\c\nd\re"), 0, 0 };
	symbol(w, f[7], 0, l, 1);
}

static struct mem
make_spool(int finish)
{
	int fd;
	struct sp_writer *w = mem_writer(&fd);
	uint32_t f[8], sa, sb, sc, worker, app, other;

	defs(w, f);
	/* The worker first: the process must still be named "app". */
	worker = thread(w, 100, 101, "worker");
	app = thread(w, 100, 100, "app");
	other = thread(w, 200, 200, "other");
	sa = stack(w, f[3], f[2], f[1]);
	sb = stack(w, f[5], f[4], f[1]);
	sc = stack(w, f[7], f[6], 0);
	samples(w, app, sa, 0.5, 3);
	samples(w, app, sb, 1.5, 2);
	samples(w, worker, sa, 2.5, 1);
	samples(w, worker, sc, 2.5, 1);
	samples(w, other, sb, 3.5, 1);
	samples(w, other, 0, 3.5, 1);
	cr_assert_eq(finish ? sp_writer_finish(w) : sp_writer_flush(w), 0);
	sp_writer_free(w);
	return mem_collect(fd);
}

/* Folds m through Replay with o; returns the text (caller frees). */
static char *
fold_replay(const struct mem *m, const struct sp_fold_options *o,
    struct sp_fold_stats *st)
{
	struct sp_replay *r;
	struct sp_fold *f;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_not_null(out);
	cr_assert_eq(sp_replay_open_mem(m->p, m->len, &r, NULL), 0);
	cr_assert_eq(sp_fold_new(o, sp_replay_header(r), &f), 0);
	cr_assert_eq(sp_fold_replay(f, r), 0);
	cr_assert_eq(sp_fold_write(f, sp_replay_defs(r), out), 0);
	cr_assert_eq(fclose(out), 0);
	if (st != NULL)
		sp_fold_get_stats(f, st);
	sp_fold_free(f);
	sp_replay_free(r);
	return text;
}

static void
expect(const struct sp_fold_options *o, const char *want)
{
	struct mem m = make_spool(1);
	char *got = fold_replay(&m, o, NULL);

	cr_assert_str_eq(got, want);
	free(got);
	mem_free(&m);
}

Test(fold, default_output)
{
	struct sp_fold_options o = { 0 };

	expect(&o, "[truncated];" ESCAPED " 1\n"
	    "[unknown] 1\n"
	    "main;do_syscall_[k] 3\n"
	    "main;outer;inner;app+0x1234 4\n");
}

/* Folds snapshot s (then frees it) with default options and checks the
 * text equals Replay's of m. */
static void
snapshot_folds_as_replay(struct sp_snapshot *s, const struct mem *m)
{
	struct sp_fold_options o = { 0 };
	struct sp_fold *f;
	char *text = NULL, *want = fold_replay(m, &o, NULL);
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_eq(sp_fold_new(&o, sp_snapshot_header(s), &f), 0);
	cr_assert_eq(sp_fold_snapshot(f, s), 0);
	cr_assert_eq(sp_fold_write(f, sp_snapshot_defs(s), out), 0);
	cr_assert_eq(fclose(out), 0);
	cr_assert_str_eq(text, want);
	sp_fold_free(f);
	sp_snapshot_free(s);
	free(text);
	free(want);
}

Test(fold, snapshot_equals_replay)
{
	struct mem m = make_spool(1);
	struct sp_snapshot *s;

	cr_assert_eq(sp_snapshot_open_mem(m.p, m.len, &s, NULL), 0);
	snapshot_folds_as_replay(s, &m);
	mem_free(&m);
}

/* sp_snapshot_open reads a file by its path as _mem reads the bytes, and
 * names a path it cannot open. */
Test(fold, snapshot_of_a_file_equals_replay)
{
	struct mem m = make_spool(1);
	struct sp_snapshot *s;
	struct sp_diag diag = { 0 };
	char path[] = "/tmp/sp-unit-snapshot-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, m.p, m.len), (ssize_t)m.len);
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(sp_snapshot_open(path, &s, &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_snapshot_nsamples(s), 9);
	snapshot_folds_as_replay(s, &m);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(sp_snapshot_open(path, &s, &diag), -ENOENT);
	cr_assert_not_null(strstr(diag.msg, path), "%s", diag.msg);
	mem_free(&m);
}

Test(fold, filters_pid_tid_comm)
{
	struct sp_fold_options o = { .flags = SP_FOLD_PID, .pid = 100 };

	expect(&o, "[truncated];" ESCAPED " 1\nmain;do_syscall_[k] 2\n"
	    "main;outer;inner;app+0x1234 4\n");
	o = (struct sp_fold_options){ .flags = SP_FOLD_TID, .tid = 101 };
	expect(&o, "[truncated];" ESCAPED " 1\nmain;outer;inner;app+0x1234 1\n");
	o = (struct sp_fold_options){ .comm = "other" };
	expect(&o, "[unknown] 1\nmain;do_syscall_[k] 1\n");
	o = (struct sp_fold_options){ .comm = "nobody" };
	expect(&o, "");
}

Test(fold, time_window)
{
	struct sp_fold_options o = { .flags = SP_FOLD_FROM | SP_FOLD_TO,
		.from_ns = 1 * SEC, .to_ns = 3 * SEC };

	expect(&o, "[truncated];" ESCAPED " 1\nmain;do_syscall_[k] 2\n"
	    "main;outer;inner;app+0x1234 1\n");
	/* from is inclusive, to exclusive. */
	o.from_ns = SEC / 2;
	o.to_ns = SEC * 3 / 2;
	expect(&o, "main;outer;inner;app+0x1234 3\n");
}

Test(fold, per_process_and_per_thread_roots)
{
	struct sp_fold_options o = { .root = SP_FOLD_ROOT_PROCESS };

	expect(&o, "app-100;[truncated];" ESCAPED " 1\n"
	    "app-100;main;do_syscall_[k] 2\n"
	    "app-100;main;outer;inner;app+0x1234 4\n"
	    "other-200;[unknown] 1\n"
	    "other-200;main;do_syscall_[k] 1\n");
	o.root = SP_FOLD_ROOT_THREAD;
	expect(&o, "app-100/100;main;do_syscall_[k] 2\n"
	    "app-100/100;main;outer;inner;app+0x1234 3\n"
	    "other-200/200;[unknown] 1\n"
	    "other-200/200;main;do_syscall_[k] 1\n"
	    "worker-100/101;[truncated];" ESCAPED " 1\n"
	    "worker-100/101;main;outer;inner;app+0x1234 1\n");
}

Test(fold, hidden_frames)
{
	struct sp_fold_options o = { .flags = SP_FOLD_SHOW_HIDDEN };

	expect(&o, "[truncated];" ESCAPED " 1\n[unknown] 1\n"
	    "main;_PyEval_EvalFrameDefault;do_syscall_[k] 3\n"
	    "main;outer;inner;app+0x1234 4\n");
}

Test(fold, user_and_kernel_only)
{
	struct sp_fold_options o = { .flags = SP_FOLD_USER_ONLY };
	struct sp_fold_stats st;
	struct mem m = make_spool(1);
	char *got;

	expect(&o, "[truncated];" ESCAPED " 1\n[unknown] 1\nmain 3\n"
	    "main;outer;inner;app+0x1234 4\n");
	o.flags = SP_FOLD_KERNEL_ONLY;
	got = fold_replay(&m, &o, &st);
	cr_assert_str_eq(got, "[unknown] 1\ndo_syscall_[k] 3\n");
	/* SA (4) and SC (1) have no kernel frame. */
	cr_assert_eq(st.empty, 5);
	cr_assert_eq(st.counted, 9);
	free(got);
	mem_free(&m);
	o.flags = SP_FOLD_KERNEL_ONLY | SP_FOLD_USER_ONLY;
	cr_assert_eq(sp_fold_new(&o, &(struct sp_header){ 0 },
	    &(struct sp_fold *){ NULL }), -SP_EUSAGE);
}

Test(fold, inline_and_lines)
{
	struct sp_fold_options o = { .flags = SP_FOLD_NO_INLINE };

	expect(&o, "[truncated];" ESCAPED " 1\n[unknown] 1\n"
	    "main;do_syscall_[k] 3\nmain;outer;app+0x1234 4\n");
	o.flags = SP_FOLD_LINES;
	expect(&o, "[truncated];" ESCAPED " 1\n[unknown] 1\n"
	    "main:app.c:10;do_syscall_[k] 3\n"
	    "main:app.c:10;outer:app.c:20;inner:inl.h:5;app+0x1234 4\n");
	o.flags = SP_FOLD_LINES | SP_FOLD_NO_INLINE;
	expect(&o, "[truncated];" ESCAPED " 1\n[unknown] 1\n"
	    "main:app.c:10;do_syscall_[k] 3\n"
	    "main:app.c:10;outer:app.c:20;app+0x1234 4\n");
}

Test(fold, max_depth_keeps_the_root_side)
{
	struct sp_fold_options o = { .max_depth = 2 };

	/* The cut falls inside F2's inline chain. */
	expect(&o, "[truncated];" ESCAPED " 1\n[unknown] 1\n"
	    "main;do_syscall_[k] 3\nmain;outer;[deeper] 4\n");
	o.max_depth = 1;
	/* SA and SB now fold alike: one line. */
	expect(&o, "[truncated];[deeper] 1\n[unknown] 1\nmain;[deeper] 7\n");
	o.max_depth = 3;
	o.root = SP_FOLD_ROOT_PROCESS;
	expect(&o, "app-100;[truncated];" ESCAPED " 1\n"
	    "app-100;main;do_syscall_[k] 2\n"
	    "app-100;main;outer;inner;[deeper] 4\n"
	    "other-200;[unknown] 1\nother-200;main;do_syscall_[k] 1\n");
}

Test(fold, truncated_spool_folds_its_prefix)
{
	struct mem m = make_spool(0);
	struct sp_fold_options o = { 0 };
	struct sp_replay *r;
	struct sp_fold *f;
	size_t cut;
	uint64_t total;
	struct sp_fold_stats st;
	FILE *null = fopen("/dev/null", "w");

	cr_assert_not_null(null);
	/* Every cut after the header (shorter is not a spool): no error,
	 * and never more samples than before. */
	for (cut = SP_HEADER_LEN, total = 0; cut <= m.len; cut++) {
		cr_assert_eq(sp_replay_open_mem(m.p, cut, &r, NULL), 0);
		cr_assert_eq(sp_fold_new(&o, sp_replay_header(r), &f), 0);
		cr_assert_eq(sp_fold_replay(f, r), 0, "cut %zu", cut);
		cr_assert_eq(sp_replay_status(r)->truncated, 1);
		cr_assert_eq(sp_fold_write(f, sp_replay_defs(r), null), 0);
		sp_fold_get_stats(f, &st);
		cr_assert_geq(st.counted, total);
		cr_assert_eq(st.counted, sp_replay_status(r)->samples);
		total = st.counted;
		sp_fold_free(f);
		sp_replay_free(r);
	}
	cr_assert_eq(total, 9);
	fclose(null);
	mem_free(&m);
}

/* --- time off CPU: blocked and preempted apart -------------------------- */

/* app: 3 CPU samples of SA (4 ms each at 250 Hz), blocked 5000 ns in SB;
 * worker, with preempted: preempted 7000 ns in SA, twice. */
static struct mem
make_kinds(int preempted)
{
	int fd;
	struct sp_writer *w = mem_writer(&fd);
	uint32_t f[8], sa, sb, worker, app;

	defs(w, f);
	worker = thread(w, 100, 101, "worker");
	app = thread(w, 100, 100, "app");
	sa = stack(w, f[3], f[2], f[1]);
	sb = stack(w, f[5], f[4], f[1]);
	samples(w, app, sa, 0.5, 3);
	timed(w, app, sb, 1.0, SP_SAMPLE_OFF_CPU, 5000);
	if (preempted) {
		timed(w, worker, sa, 1.5, SP_SAMPLE_PREEMPTED, 3000);
		timed(w, worker, sa, 1.6, SP_SAMPLE_PREEMPTED, 4000);
	}
	cr_assert_eq(sp_writer_finish(w), 0);
	sp_writer_free(w);
	return mem_collect(fd);
}

Test(fold, blocked_and_preempted_time_apart)
{
	static const struct {
		enum sp_fold_time time;
		enum sp_fold_root root;
		const char *want;
	} cases[] = {
		{ SP_FOLD_TIME_ON_CPU, 0, "main;outer;inner;app+0x1234 3\n" },
		{ SP_FOLD_TIME_OFF_CPU, 0, "main;do_syscall_[k] 5000\n" },
		{ SP_FOLD_TIME_PREEMPTED, 0,
		    "main;outer;inner;app+0x1234 7000\n" },
		{ SP_FOLD_TIME_BOTH, 0, "[off-cpu];main;do_syscall_[k] 5000\n"
		    "[preempted];main;outer;inner;app+0x1234 7000\n"
		    "main;outer;inner;app+0x1234 12000000\n" },
		{ SP_FOLD_TIME_AUTO, SP_FOLD_ROOT_THREAD,
		    "[off-cpu];app-100/100;main;do_syscall_[k] 5000\n"
		    "[preempted];worker-100/101;main;outer;inner;app+0x1234 "
		    "7000\n"
		    "app-100/100;main;outer;inner;app+0x1234 12000000\n" },
	};
	struct mem m = make_kinds(1);
	struct sp_fold_options o;
	struct sp_fold_stats st;
	size_t i;
	char *got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.time = cases[i].time;
		o.root = cases[i].root;
		got = fold_replay(&m, &o, &st);
		cr_expect_str_eq(got, cases[i].want, "case %zu", i);
		cr_expect_eq(st.off_cpu, 1);
		cr_expect_eq(st.off_cpu_ns, 5000);
		cr_expect_eq(st.preempted, 2);
		cr_expect_eq(st.preempted_ns, 7000);
		free(got);
	}
	mem_free(&m);
}

/* --- pprof, read back with a small protobuf reader --------------------- */

struct pb {
	const uint8_t *p;
	size_t len, pos;
};

static uint64_t
pb_varint(struct pb *b)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		cr_assert_lt(b->pos, b->len, "varint runs off the end");
		cr_assert_lt(shift, 64);
		v |= (uint64_t)(b->p[b->pos] & 0x7f) << shift;
		shift += 7;
		if (!(b->p[b->pos++] & 0x80))
			return v;
	}
}

/* Next field: its number, and a sub-reader (type 2) or value (type 0). */
static int
pb_next(struct pb *b, unsigned *field, struct pb *sub, uint64_t *v)
{
	uint64_t k, n;

	if (b->pos == b->len)
		return 0;
	k = pb_varint(b);
	*field = (unsigned)(k >> 3);
	if ((k & 7) == 0) {
		*v = pb_varint(b);
		return 1;
	}
	cr_assert_eq(k & 7, 2, "wire type %u", (unsigned)(k & 7));
	n = pb_varint(b);
	cr_assert_leq(n, b->len - b->pos);
	*sub = (struct pb){ b->p + b->pos, n, 0 };
	b->pos += n;
	return 1;
}

struct prof {
	char strings[64][64];
	size_t nstrings;
	uint64_t fn_name[32];            /* function id -> name index */
	uint64_t loc_fn[32][4];          /* location id -> function ids */
	size_t loc_nlines[32];
	uint64_t loc_mapping[32];
	uint64_t total[2], nsamples, period, time_nanos;
	uint64_t nvalues;
	char leaf_first[16][256];        /* per sample: names, leaf first */
	uint64_t sample_count[16];
	size_t nmappings;
	uint64_t mapping_build_id;
};

static void
read_sample(struct prof *pr, struct pb *b, uint64_t ids[16], size_t *nids)
{
	struct pb sub, pk;
	unsigned f;
	uint64_t v;
	size_t nv = 0;

	*nids = 0;
	while (pb_next(b, &f, &sub, &v)) {
		if (f == 1)
			while (sub.pos < sub.len)
				ids[(*nids)++] = pb_varint(&sub);
		if (f == 2) {
			pk = sub;
			while (pk.pos < pk.len) {
				v = pb_varint(&pk);
				pr->total[nv < 2 ? nv : 1] += v;
				if (nv == 0)
					pr->sample_count[pr->nsamples] = v;
				nv++;
			}
			pr->nvalues = nv;
		}
	}
}

static void
read_location(struct prof *pr, struct pb *b)
{
	struct pb sub, l;
	unsigned f, lf;
	uint64_t v, id = 0, fn = 0;

	while (pb_next(b, &f, &sub, &v)) {
		if (f == 1)
			id = v;
		else if (f == 2)
			pr->loc_mapping[id] = v;
		else if (f == 4) {
			l = sub;
			while (pb_next(&l, &lf, &sub, &v))
				if (lf == 1)
					fn = v;
			cr_assert_lt(id, 32);
			pr->loc_fn[id][pr->loc_nlines[id]++] = fn;
		}
	}
}

static void
read_profile(struct prof *pr, const uint8_t *p, size_t len,
    uint64_t sample_ids[16][16], size_t nids[16])
{
	struct pb b = { p, len, 0 }, sub, m;
	unsigned f, mf;
	uint64_t v, id = 0, name = 0;

	memset(pr, 0, sizeof(*pr));
	while (pb_next(&b, &f, &sub, &v)) {
		switch (f) {
		case 2:
			read_sample(pr, &sub, sample_ids[pr->nsamples],
			    &nids[pr->nsamples]);
			pr->nsamples++;
			break;
		case 3:
			pr->nmappings++;
			while (pb_next(&sub, &mf, &m, &v))
				if (mf == 6)
					pr->mapping_build_id = v;
			break;
		case 4:
			read_location(pr, &sub);
			break;
		case 5:
			while (pb_next(&sub, &mf, &m, &v)) {
				if (mf == 1)
					id = v;
				if (mf == 2)
					name = v;
			}
			pr->fn_name[id] = name;
			break;
		case 6:
			cr_assert_lt(sub.len, 64);
			memcpy(pr->strings[pr->nstrings], sub.p, sub.len);
			pr->strings[pr->nstrings++][sub.len] = '\0';
			break;
		case 9:
			pr->time_nanos = v;
			break;
		case 12:
			pr->period = v;
			break;
		}
	}
}

/* Names of sample i's locations, leaf first, lines innermost first. */
static void
sample_names(struct prof *pr, size_t i, const uint64_t *ids, size_t n)
{
	char *out = pr->leaf_first[i];
	size_t k, j;

	out[0] = '\0';
	for (k = 0; k < n; k++)
		for (j = 0; j < pr->loc_nlines[ids[k]]; j++) {
			if (out[0] != '\0')
				strcat(out, ",");
			strcat(out, pr->strings[pr->fn_name[
			    pr->loc_fn[ids[k]][j]]]);
		}
}

static int
has_sample(const struct prof *pr, const char *names, uint64_t count)
{
	size_t i;
	uint64_t n = 0;

	for (i = 0; i < pr->nsamples; i++)
		if (strcmp(pr->leaf_first[i], names) == 0)
			n += pr->sample_count[i];
	return n == count;
}

Test(pprof, decodes_to_the_folded_counts)
{
	struct mem m = make_spool(1);
	struct sp_fold_options o = { 0 };
	struct sp_replay *r;
	struct sp_fold *f;
	unsigned char *pb, *gz = NULL, *back;
	size_t len, gzlen = 0, i;
	uLongf backlen;
	uint64_t ids[16][16];
	size_t nids[16];
	static struct prof pr;
	FILE *out = open_memstream((char **)&gz, &gzlen);
	z_stream z;

	cr_assert_eq(sp_replay_open_mem(m.p, m.len, &r, NULL), 0);
	cr_assert_eq(sp_fold_new(&o, sp_replay_header(r), &f), 0);
	cr_assert_eq(sp_fold_replay(f, r), 0);
	cr_assert_eq(sp_pprof_encode(f, sp_replay_defs(r), sp_replay_header(r),
	    &pb, &len), 0);
	cr_assert_eq(sp_pprof_write(f, sp_replay_defs(r), sp_replay_header(r),
	    out), 0);
	cr_assert_eq(fclose(out), 0);
	/* The gzip'd output inflates to the encoded bytes. */
	cr_assert(gzlen > 18 && gz[0] == 0x1f && gz[1] == 0x8b);
	backlen = len + 16;
	back = malloc(backlen);
	memset(&z, 0, sizeof(z));
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = back;
	z.avail_out = (uInt)backlen;
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	cr_assert_eq(z.total_out, len);
	cr_assert_eq(memcmp(back, pb, len), 0);
	inflateEnd(&z);

	read_profile(&pr, pb, len, ids, nids);
	cr_assert_str_eq(pr.strings[0], "");
	cr_assert_eq(pr.nvalues, 2);
	cr_assert_eq(pr.total[0], 9);
	cr_assert_eq(pr.period, 4000000); /* RECORDING: 250 Hz */
	cr_assert_eq(pr.total[1], 9 * 4000000ull);
	cr_assert_eq(pr.time_nanos, 1700000000000000ull * 1000);
	cr_assert_eq(pr.nmappings, 1);
	cr_assert_str_eq(pr.strings[pr.mapping_build_id], "deadbeef");
	for (i = 0; i < pr.nsamples; i++)
		sample_names(&pr, i, ids[i], nids[i]);
	/* Leaf first; F2's lines innermost first, as pprof expects. */
	cr_assert(has_sample(&pr, "app+0x1234,inner,outer,main", 4));
	cr_assert(has_sample(&pr, "do_syscall,main", 3));
	cr_assert(has_sample(&pr, "a;b\\c\nd\re,[truncated]", 1));
	cr_assert(has_sample(&pr, "[unknown]", 1));
	free(back);
	free(gz);
	free(pb);
	sp_fold_free(f);
	sp_replay_free(r);
	mem_free(&m);
}

/* The profile of m folded for time, read back into pr. */
static void
pprof_of(const struct mem *m, enum sp_fold_time time, struct prof *pr)
{
	struct sp_fold_options o = { 0 };
	struct sp_replay *r;
	struct sp_fold *f;
	unsigned char *pb;
	uint64_t ids[16][16];
	size_t len, nids[16];

	o.time = time;
	cr_assert_eq(sp_replay_open_mem(m->p, m->len, &r, NULL), 0);
	cr_assert_eq(sp_fold_new(&o, sp_replay_header(r), &f), 0);
	cr_assert_eq(sp_fold_replay(f, r), 0);
	cr_assert_eq(sp_pprof_encode(f, sp_replay_defs(r), sp_replay_header(r),
	    &pb, &len), 0);
	read_profile(pr, pb, len, ids, nids);
	free(pb);
	sp_fold_free(f);
	sp_replay_free(r);
}

static int
has_string(const struct prof *pr, const char *s)
{
	size_t i;

	for (i = 0; i < pr->nstrings; i++)
		if (strcmp(pr->strings[i], s) == 0)
			return 1;
	return 0;
}

/* Sample types: samples, cpu, off_cpu, and preempted where the spool has
 * it; --off-cpu and --preempted alone. */
Test(pprof, preempted_time_is_a_sample_type_of_its_own)
{
	struct mem with = make_kinds(1), without = make_kinds(0);
	static struct prof pr;

	pprof_of(&with, SP_FOLD_TIME_AUTO, &pr);
	cr_expect_eq(pr.nvalues, 4);
	cr_expect(has_string(&pr, "off_cpu") && has_string(&pr, "preempted"));
	pprof_of(&with, SP_FOLD_TIME_PREEMPTED, &pr);
	cr_expect_eq(pr.nvalues, 1);
	cr_expect_eq(pr.total[0], 7000);
	cr_expect(has_string(&pr, "preempted") && !has_string(&pr, "off_cpu"));
	pprof_of(&with, SP_FOLD_TIME_OFF_CPU, &pr);
	cr_expect_eq(pr.nvalues, 1);
	cr_expect_eq(pr.total[0], 5000);
	cr_expect(!has_string(&pr, "preempted") && has_string(&pr, "off_cpu"));
	/* No preempted sample, no RECORDING flag: no such type. */
	pprof_of(&without, SP_FOLD_TIME_AUTO, &pr);
	cr_expect_eq(pr.nvalues, 3);
	cr_expect(!has_string(&pr, "preempted"));
	mem_free(&with);
	mem_free(&without);
}
