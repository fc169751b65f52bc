/* SPDX-License-Identifier: MIT */
/*
 * sp_sym_spool: the copy loop.  Every input record is put to a writer,
 * its references mapped from input ids to the writer's (the writer
 * interns definitions, so ids may differ), and each new FRAME is
 * followed by its SYMBOL, which a symbolizer over the input's definitions
 * resolves (sp_symbolizer_resolve_frame, the public call): a chunk of
 * frames at a time ahead of the copy, sorted by address (ahead.c), when
 * the input can be read twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead_int.h"
#include "spool/remap_int.h"
#include "sym_int.h"

#define PROGRESS_EVERY 8192u /* records between progress callbacks */

struct sym_run {
	struct sp_sym_options o;     /* the caller's, read by spi_opts_copy */
	struct sp_sym_report *rep;
	struct sp_writer *w;
	struct sp_symbolizer *sym;
	struct sym_ahead *ahead;     /* NULL: the input is a pipe */
	const struct sp_defs *defs;  /* the input's, as the copy reads it */
	struct sp_remap map;
	struct sp_symline lines[SP_INLINE_MAX];
	uint32_t frames_out;   /* the highest output frame id so far */
	int pending;           /* a new frame awaits its symbol */
	uint32_t pending_in, pending_out;
	uint32_t *wid;         /* symbolizer string id - 1 -> the writer's
	                        * id, 0 while not put */
	size_t capwid;
};

static int
put_symbol(struct sym_run *s, const struct sp_symbol *sym)
{
	struct sp_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_SYMBOL;
	rec.u.symbol = *sym;
	spi_sym_report_count(s->rep, sym);
	return sp_writer_put(s->w, &rec, NULL);
}

/*
 * The writer's id of the symbolizer's string own (0: none).  Each string
 * goes to the writer once; after that its id is remembered by own's id,
 * as file names and the functions of many addresses come again and again.
 */
static int
writer_id(struct sym_run *s, uint32_t own, uint32_t *id)
{
	const char *z;
	size_t len;
	int err;

	*id = 0;
	if (own == 0)
		return 0;
	if (own > s->capwid && spi_grow_zeroed(&s->wid, &s->capwid, own,
	    sizeof(*s->wid)) != 0)
		return -ENOMEM;
	if (s->wid[own - 1] != 0) {
		*id = s->wid[own - 1];
		return 0;
	}
	if ((z = spi_symbolizer_str(s->sym, own, &len)) == NULL)
		return 0;
	err = sp_writer_string(s->w, z, len, id);
	if (err == 0)
		s->wid[own - 1] = *id;
	return err;
}

static int
resolve_pending(struct sym_run *s)
{
	const struct sp_symbol *in;
	struct sp_symbol sym;
	uint32_t i;
	int err;

	s->pending = 0;
	err = 0;
	if (s->ahead == NULL || !spi_ahead_symbol(s->ahead, s->pending_in,
	    sp_defs_frame(s->defs, s->pending_in), &in))
		err = spi_symbolizer_frame_symbol(s->sym, NULL, s->pending_in,
		    &in);
	if (err < 0)
		return err;
	if (in->count == 0)
		return -SP_EREF;        /* a frame has a name at worst */
	sym = *in;
	sym.frame = s->pending_out;
	sym.lines = s->lines;
	if ((err = writer_id(s, in->module_name, &sym.module_name)) < 0)
		return err;
	for (i = 0; i < in->count && i < SP_INLINE_MAX; i++) {
		struct sp_symline *l = &s->lines[i];

		l->line = in->lines[i].line;
		if ((err = writer_id(s, in->lines[i].function,
		    &l->function)) < 0 ||
		    (err = writer_id(s, in->lines[i].file, &l->file)) < 0)
			return err;
	}
	sym.count = i;
	return put_symbol(s, &sym);
}

/* The input's own SYMBOL for the pending frame, with its strings mapped. */
static int
copy_symbol(struct sym_run *s, const struct sp_symbol *in)
{
	struct sp_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_SYMBOL;
	rec.u.symbol = *in;
	spi_remap_refs(&s->map, &rec);
	rec.u.symbol.frame = s->pending_out;
	s->pending = 0;
	s->rep->copied++;
	if (in->origin == SP_ORIGIN_ADDRESS && !(in->flags & SP_SYM_TRUNCATED))
		s->rep->copied_address++;
	return put_symbol(s, &rec.u.symbol);
}

static int
copy_record(struct sym_run *s, struct sp_record *rec)
{
	uint32_t in_id = rec->id, out_id = 0;
	int err;

	switch (rec->kind) {
	case SP_REC_END:
		return 0;       /* the writer ends the output with its own */
	case SP_REC_SYMBOL:
		/* Its frame was resolved when the next record came. */
		s->rep->stale_symbols++;
		return 0;
	case SP_REC_PYTHON:
		err = spi_symbolizer_set_python(s->sym, rec->u.python.host,
		    rec->u.python.pid, rec->u.python.is_python);
		if (err < 0)
			return err;
		break;
	default:
		if (rec->kind == 0 || rec->kind >= SP_REC_KINDS_) {
			s->rep->skipped_records++;
			return 0;
		}
		break;
	}
	err = spi_remap_put(&s->map, s->w, rec, &out_id);
	if (err < 0 || !spi_remap_is_definition(rec->kind))
		return err;
	if (err == 0 && rec->kind == SP_REC_FRAME) {
		s->rep->frames++;
		/* An interned frame already has its symbol. */
		if (out_id > s->frames_out) {
			s->frames_out = out_id;
			s->pending = 1;
			s->pending_in = in_id;
			s->pending_out = out_id;
		}
	}
	return err;
}

/*
 * One input record.  While a frame is pending, STRING records pass (a
 * symbolized spool puts a SYMBOL's strings between it and its FRAME) and
 * the frame's own SYMBOL is copied; anything else resolves it first.
 */
static int
step(struct sym_run *s, struct sp_record *rec)
{
	int err;

	if (s->pending) {
		if (rec->kind == SP_REC_STRING)
			return copy_record(s, rec);
		if (rec->kind == SP_REC_SYMBOL &&
		    rec->u.symbol.frame == s->pending_in)
			return copy_symbol(s, &rec->u.symbol);
		err = resolve_pending(s);
		if (err < 0)
			return err;
	}
	return copy_record(s, rec);
}

static void
run_fini(struct sym_run *s)
{
	sp_symbolizer_free(s->sym);
	spi_ahead_free(s->ahead);  /* after: the symbolizer keeps its paths */
	sp_writer_free(s->w);
	spi_remap_fini(&s->map);
	free(s->wid);
}

/* The reader's error: a format error, or -errno from reading (EIO). */
static int
input_failed(struct sym_run *s, struct sp_replay *in, int err,
    struct sp_diag *diag)
{
	const struct sp_diag *d = sp_replay_diag(in);

	s->rep->input_failed = 1;
	if (diag == NULL)
		return err;
	*diag = *d;
	if (d->msg[0] == '\0')
		(void)sp_diag_set(diag, d->offset, err, "%s", sp_strerror(err));
	return err;
}

/*
 * A record the writer refused or could not take.  A libsp code (-SP_EREF,
 * -SP_EUSAGE, -SP_ELIMIT) means the input holds what no spool may: the
 * input's fault, at the record's offset.  -errno is the output's (a write
 * failed) or -ENOMEM.
 */
static int
record_failed(struct sym_run *s, const struct sp_record *rec, int err,
    struct sp_diag *diag)
{
	if (err <= -SP_EFORMAT)
		s->rep->input_failed = 1;
	return sp_diag_set(diag, rec->offset, err, "%s record: %s",
	    sp_kind_name(rec->kind), sp_strerror(err));
}

static int
run_loop(struct sym_run *s, struct sp_replay *in, struct sp_diag *diag)
{
	const struct sp_sym_options *o = &s->o;
	struct sp_record rec;
	uint64_t n = 0;
	int err;

	while ((err = sp_replay_next(in, &rec)) > 0) {
		err = step(s, &rec);
		if (err < 0)
			return record_failed(s, &rec, err, diag);
		if (o->progress != NULL && ++n % PROGRESS_EVERY == 0)
			o->progress(o->progress_arg, rec.offset,
			    s->rep->frames);
	}
	if (err < 0)
		return input_failed(s, in, err, diag);
	if (s->pending && (err = resolve_pending(s)) < 0)
		return err;
	spi_symbolizer_report_finish(s->sym);
	s->rep->input_truncated = sp_replay_status(in)->truncated;
	return 0;
}

int
sp_sym_spool(const struct sp_sym_options *o, struct sp_replay *in,
    int out_fd, struct sp_sym_report *rep, struct sp_diag *diag)
{
	return spi_sym_spool_ahead(o, in, out_fd, rep, diag, SP_AHEAD_FRAMES);
}

int
spi_sym_spool_ahead(const struct sp_sym_options *o, struct sp_replay *in,
    int out_fd, struct sp_sym_report *rep, struct sp_diag *diag,
    size_t chunk)
{
	struct sym_run *s;
	int err;

	memset(rep, 0, sizeof(*rep));
	if (o == NULL || in == NULL)
		return -SP_EUSAGE;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->rep = rep;
	err = spi_opts_copy(&s->o, sizeof(s->o), o, SYM_OPTS_SZ0,
	    "sp_sym_options", diag);
	if (err == 0)
		err = spi_symbolizer_new(sp_replay_defs(in),
		    sp_replay_header(in), &s->o, NULL, rep, &s->sym);
	s->defs = sp_replay_defs(in);
	if (err == 0)
		err = spi_ahead_new(in, s->sym, chunk, &s->ahead);
	if (err == 0)
		err = sp_writer_new(out_fd, sp_replay_header(in), &s->w);
	/* The input's frames and stack nodes are each put once, as it
	 * defines them: looking each up again to intern it would find
	 * nothing (a spool that repeats one keeps it repeated). */
	if (err == 0 && (sp_writer_no_intern(s->w, SP_REC_FRAME) < 0 ||
	    sp_writer_no_intern(s->w, SP_REC_NODE) < 0))
		err = -SP_EUSAGE;
	if (err == 0)
		err = run_loop(s, in, diag);
	if (err == 0)
		err = sp_writer_finish(s->w);
	if (err < 0 && diag != NULL && diag->msg[0] == '\0')
		(void)sp_diag_set(diag, diag->offset, err, "%s",
		    sp_strerror(err));
	run_fini(s);
	free(s);
	return err;
}
