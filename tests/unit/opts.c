/* SPDX-License-Identifier: MIT */
/* Options structs that grow (sp/common/opts.h), through the entry points
 * that take them: an older caller's shorter struct reads as defaults past
 * its sz whatever follows it in memory; a newer caller's longer one is
 * taken when its extra bytes are 0 and refused when one is set; sz 0 is
 * the struct of 0.5.0; an sz that is no size is refused. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"
#include "record/recorder_int.h"
#include "sym/symbolizer_int.h"
#include "sp/report/browse.h"
#include "sp/report/flame.h"
#include "sp/report/fold.h"
#include "sp/report/report.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"
#include "sp/sym/sym.h"
#include "sp/sym/symbolizer.h"

/* Stands for memory a caller never meant as options: read, it would be
 * out of range (widths, enums) or a wild pointer. */
#define GARBAGE 0xa5

/* What every entry point is run on: the reference spool, folded by
 * thread with modules (as sp_report_write wants). */
static struct mem spool;
static struct sp_snapshot *snap;
static struct sp_fold *byth;

static void
setup(void)
{
	struct sp_fold_options fo = { 0 };

	spool = make_reference(50, 1);
	cr_assert_eq(sp_snapshot_open_mem(spool.p, spool.len, &snap, NULL), 0);
	fo.flags = SP_FOLD_MODULES;
	fo.root = SP_FOLD_ROOT_THREAD;
	cr_assert_eq(sp_fold_new(&fo, sp_snapshot_header(snap), &byth), 0);
	cr_assert_eq(sp_fold_snapshot(byth, snap), 0);
}

static void
teardown(void)
{
	sp_fold_free(byth);
	sp_snapshot_free(snap);
	mem_free(&spool);
}

TestSuite(opts, .init = setup, .fini = teardown);

/* Each entry point on options o: its return, diag filled where it takes
 * one, what it wrote (if any) in a new string at *text. */
struct entry {
	const char *name;       /* the struct, as messages name it */
	size_t size;
	int (*call)(const void *o, struct sp_diag *diag, char **text);
};

static FILE *
text_stream(char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	cr_assert_not_null(f);
	return f;
}

static int
call_recorder(const void *o, struct sp_diag *diag, char **text)
{
	struct sp_recorder *r;
	struct sp_writer *w;
	int fd, err;

	w = mem_writer(&fd);
	err = sp_recorder_new(w, o, &r, diag);
	/* The options as the recorder took them. */
	if (err == 0)
		cr_assert_neq(asprintf(text, "%u %u %u %u %d %p %llu %p %p",
		    r->o.frequency, r->o.stack_bytes, r->o.ring_stacks,
		    r->o.max_frames, r->o.kernel, (const void *)r->o.event,
		    r->o.period, (void *)r->o.bundle, (void *)r->o.log), -1);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
	return err;
}

static int
call_fold(const void *o, struct sp_diag *diag, char **text)
{
	struct sp_fold *f;
	size_t len;
	FILE *out;
	int err;

	(void)diag;
	if ((err = sp_fold_new(o, sp_snapshot_header(snap), &f)) < 0)
		return err;
	out = text_stream(text, &len);
	cr_assert_eq(sp_fold_snapshot(f, snap), 0);
	cr_assert_eq(sp_fold_write(f, sp_snapshot_defs(snap), out), 0);
	cr_assert_eq(fclose(out), 0);
	sp_fold_free(f);
	return 0;
}

static int
call_flame(const void *o, struct sp_diag *diag, char **text)
{
	static const char folded[] = "main;outer;inner 4\nmain;other 2\n";
	struct sp_flame *f;
	size_t len;
	FILE *out = text_stream(text, &len);
	int err;

	(void)diag;
	cr_assert_eq(sp_flame_parse(folded, sizeof(folded) - 1, &f), 0);
	err = sp_flame_svg(f, o, out);
	cr_assert_eq(fclose(out), 0);
	sp_flame_free(f);
	return err;
}

static int
call_report(const void *o, struct sp_diag *diag, char **text)
{
	size_t len;
	FILE *out = text_stream(text, &len);
	int err;

	(void)diag;
	err = sp_report_write(byth, sp_snapshot_defs(snap), o, out);
	cr_assert_eq(fclose(out), 0);
	return err;
}

static int
call_browse(const void *o, struct sp_diag *diag, char **text)
{
	struct sp_browse *b;
	int err;

	(void)diag;
	(void)text;
	err = sp_browse_new(byth, sp_snapshot_defs(snap), o, NULL, &b);
	sp_browse_free(b);
	return err;
}

static int
call_symbolizer(const void *o, struct sp_diag *diag, char **text)
{
	struct sp_symbolizer *s;
	int err;

	(void)diag;
	(void)text;
	err = sp_symbolizer_new(sp_snapshot_defs(snap),
	    sp_snapshot_header(snap), o, NULL, &s);
	sp_symbolizer_free(s);
	return err;
}

/* sp_sym_spool's output spool, as hex text. */
static int
call_sym_spool(const void *o, struct sp_diag *diag, char **text)
{
	struct sp_sym_report rep;
	struct sp_replay *in;
	struct mem got;
	int fd = memfd_create("sym", MFD_CLOEXEC), err;
	size_t i;

	cr_assert_geq(fd, 0);
	cr_assert_eq(sp_replay_open_mem(spool.p, spool.len, &in, NULL), 0);
	err = sp_sym_spool(o, in, fd, &rep, diag);
	sp_sym_report_fini(&rep);
	sp_replay_free(in);
	got = mem_collect(fd);
	*text = calloc(2 * got.len + 1, 1);
	cr_assert_not_null(*text);
	for (i = 0; i < got.len; i++)
		(void)snprintf(*text + 2 * i, 3, "%02x", got.p[i]);
	mem_free(&got);
	return err;
}

#define ENTRY(T, fn) { #T, sizeof(struct T), fn }
static const struct entry entries[] = {
	ENTRY(sp_recorder_opts, call_recorder),
	ENTRY(sp_fold_options, call_fold),
	ENTRY(sp_flame_svg_opts, call_flame),
	ENTRY(sp_report_options, call_report),
	ENTRY(sp_report_options, call_browse),
	ENTRY(sp_sym_options, call_symbolizer),
	ENTRY(sp_sym_options, call_sym_spool),
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

/* A caller's struct of size bytes plus tail more, zeroed, sz set. */
static uint8_t *
caller_struct(size_t size, size_t tail, size_t sz)
{
	/* size_t-aligned, as the struct would be. */
	size_t *p = calloc((size + tail) / sizeof(size_t) + 1, sizeof(size_t));

	cr_assert_not_null(p);
	*p = sz;
	return (uint8_t *)p;
}

/* e on o: returns the error, and *text what it wrote (freed by caller). */
static int
run(const struct entry *e, const void *o, struct sp_diag *diag, char **text)
{
	*text = NULL;
	memset(diag, 0, sizeof(*diag));
	return e->call(o, diag, text);
}

Test(opts, a_longer_struct_with_a_byte_set_past_the_known_is_refused)
{
	size_t i;

	for (i = 0; i < NENTRIES; i++) {
		const struct entry *e = &entries[i];
		uint8_t *o = caller_struct(e->size, 16, e->size + 16);
		struct sp_diag diag;
		char *text;
		int err;

		o[e->size + 9] = 1;
		err = run(e, o, &diag, &text);
		cr_expect_eq(err, -SP_EUSAGE, "%s (%s): %d", e->name,
		    diag.msg, err);
		cr_expect_eq(sp_error_kind(err), SP_KIND_INVALID, "%s",
		    e->name);
		/* The entry points with a diagnostic name the struct. */
		if (diag.msg[0] != '\0')
			cr_expect_not_null(strstr(diag.msg, e->name), "%s",
			    diag.msg);
		free(text);
		free(o);
	}
}

Test(opts, the_recorder_and_sp_sym_spool_say_which_struct_and_byte)
{
	static const size_t with_diag[] = { 0, NENTRIES - 1 };
	size_t k;

	for (k = 0; k < 2; k++) {
		const struct entry *e = &entries[with_diag[k]];
		uint8_t *o = caller_struct(e->size, 16, e->size + 16);
		struct sp_diag diag;
		char want[64], *text;

		o[e->size + 3] = 0x80;
		cr_expect_eq(run(e, o, &diag, &text), -SP_EUSAGE, "%s", e->name);
		(void)snprintf(want, sizeof(want), "struct %s: byte %zu",
		    e->name, e->size + 3);
		cr_expect_not_null(strstr(diag.msg, want), "want \"%s\" in "
		    "\"%s\"", want, diag.msg);
		free(text);
		free(o);
	}
}

/* A newer caller's struct whose extra fields are 0 works as this
 * release's, and as a zeroed struct with sz 0. */
Test(opts, a_longer_struct_with_zero_tail_and_sz_0_work_as_the_defaults)
{
	size_t i;

	for (i = 0; i < NENTRIES; i++) {
		const struct entry *e = &entries[i];
		uint8_t *longer = caller_struct(e->size, 64, e->size + 64);
		uint8_t *same = caller_struct(e->size, 0, e->size);
		uint8_t *zero = caller_struct(e->size, 0, 0);
		struct sp_diag diag;
		char *t0, *t1, *t2;

		cr_expect_eq(run(e, zero, &diag, &t0), 0, "%s sz 0: %s",
		    e->name, diag.msg);
		cr_expect_eq(run(e, same, &diag, &t1), 0, "%s: %s", e->name,
		    diag.msg);
		cr_expect_eq(run(e, longer, &diag, &t2), 0, "%s + 64: %s",
		    e->name, diag.msg);
		if (t0 != NULL || t1 != NULL || t2 != NULL) {
			cr_assert(t0 != NULL && t1 != NULL && t2 != NULL);
			cr_expect_str_eq(t1, t0, "%s", e->name);
			cr_expect_str_eq(t2, t0, "%s", e->name);
		}
		free(t0);
		free(t1);
		free(t2);
		free(longer);
		free(same);
		free(zero);
	}
}

Test(opts, an_sz_that_is_no_size_is_refused)
{
	/* Each with that many bytes there, zeroed: no read past them could
	 * refuse it for another cause.  (size_t)-1 has only the struct. */
	static const size_t bad[] = { 1, sizeof(size_t) - 1, 4097, 1u << 16,
	    (size_t)-1 };
	size_t i, k;

	for (i = 0; i < NENTRIES; i++)
		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			const struct entry *e = &entries[i];
			size_t tail = bad[k] > e->size && bad[k] <= 1u << 16 ?
			    bad[k] - e->size : 0;
			uint8_t *o = caller_struct(e->size, tail, bad[k]);
			struct sp_diag diag;
			char *text;

			cr_expect_eq(run(e, o, &diag, &text), -SP_EUSAGE,
			    "%s sz %zu", e->name, bad[k]);
			free(text);
			free(o);
		}
}

static void
count_row(void *ctx, const char *key, size_t len)
{
	(void)key;
	(void)len;
	++*(int *)ctx;
}

/* sz 0 is the struct of 0.5.0, whole: a caller that set fields and left
 * sz 0 (as every caller before sz did) has them read, the last too. */
Test(opts, sz_0_reads_every_field_of_the_0_4_0_struct)
{
	struct sp_recorder_opts ro = { 0 };
	struct sp_fold_options fo = { 0 };
	struct sp_flame_svg_opts so = { 0 };
	struct sp_report_options po = { 0 };
	struct sp_sym_options yo = { 0 };
	struct sp_symbolizer *sym;
	struct sp_recorder *r;
	struct sp_writer *w;
	struct sp_diag diag;
	struct sp_fold *f;
	int marker, rows = 0, fd;
	char *text;

	ro.frequency = 99;
	ro.log_ctx = &marker;
	cr_assert_eq(run(&entries[0], &ro, &diag, &text), 0, "%s", diag.msg);
	cr_expect_str_eq(strtok(text, " "), "99");
	free(text);
	w = mem_writer(&fd);
	cr_assert_eq(sp_recorder_new(w, &ro, &r, &diag), 0, "%s", diag.msg);
	cr_expect_eq(r->o.log_ctx, &marker);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);

	fo.max_depth = 2;
	fo.demangle = (const struct sp_demangle *)&marker;
	cr_assert_eq(sp_fold_new(&fo, sp_snapshot_header(snap), &f), 0);
	cr_expect_eq(sp_fold_options(f)->max_depth, 2);
	cr_expect_eq(sp_fold_options(f)->demangle, fo.demangle);
	sp_fold_free(f);

	so.title = "opts-title";
	cr_assert_eq(run(&entries[2], &so, &diag, &text), 0);
	cr_expect_not_null(strstr(text, "opts-title"));
	free(text);

	po.on_row = count_row;
	po.ctx = &rows;
	cr_assert_eq(run(&entries[3], &po, &diag, &text), 0);
	cr_expect_gt(rows, 0);
	free(text);

	yo.progress_arg = &marker;
	cr_assert_eq(sp_symbolizer_new(sp_snapshot_defs(snap),
	    sp_snapshot_header(snap), &yo, NULL, &sym), 0);
	cr_expect_eq(sym->o.progress_arg, &marker);
	sp_symbolizer_free(sym);
}

/*
 * An older caller's struct ends at field `end`: what lies past it is
 * not its (here GARBAGE, which read as a width, an enum or a pointer
 * would be refused or crash).  The entry point takes the defaults there:
 * its output is the zeroed struct's.
 */
static void
older(const struct entry *e, size_t end)
{
	uint8_t *o = caller_struct(e->size, 0, 0);
	uint8_t *zero = caller_struct(e->size, 0, 0);
	struct sp_diag diag;
	char *got, *want;

	memset(o + end, GARBAGE, e->size - end);
	memcpy(o, &end, sizeof(end));
	cr_assert_eq(run(e, zero, &diag, &want), 0, "%s: %s", e->name,
	    diag.msg);
	cr_assert_eq(run(e, o, &diag, &got), 0, "%s sz %zu: %s", e->name,
	    end, diag.msg);
	if (want != NULL || got != NULL) {
		cr_assert(want != NULL && got != NULL);
		cr_assert_gt(strlen(want), 0, "%s wrote nothing", e->name);
		cr_expect_str_eq(got, want, "%s sz %zu", e->name, end);
	}
	free(got);
	free(want);
	free(o);
	free(zero);
}

Test(opts, an_older_shorter_struct_reads_defaults_past_its_sz)
{
	older(&entries[0], offsetof(struct sp_recorder_opts, ring_stacks));
	older(&entries[0], sizeof(size_t));
	older(&entries[1], offsetof(struct sp_fold_options, max_depth));
	older(&entries[2], offsetof(struct sp_flame_svg_opts, width));
	older(&entries[3], offsetof(struct sp_report_options, callers));
	older(&entries[4], offsetof(struct sp_report_options, width));
	older(&entries[5], offsetof(struct sp_sym_options, perf_map_pids));
	older(&entries[6], offsetof(struct sp_sym_options, sysroot));
}

/* NULL keeps meaning the defaults where it did (sp_sym_spool wants
 * options; sp_symbolizer_new's NULL reads the environment). */
Test(opts, sp_sym_spool_still_wants_options)
{
	struct sp_diag diag;
	char *text;

	cr_expect_eq(run(&entries[6], NULL, &diag, &text), -SP_EUSAGE);
	free(text);
}
