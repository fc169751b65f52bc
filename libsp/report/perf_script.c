/* SPDX-License-Identifier: MIT */
/* A fold's samples in perf script's text form (sp/report/perf_script.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/json_int.h"
#include "fold_int.h"
#include "sp/common/error.h"
#include "sp/report/demangle.h"
#include "sp/report/perf_script.h"
#include "sp/spool/format.h"

/* A name on one line: its bytes as UTF-8 (common/json_int.h), with
 * newlines, tabs and other controls as spaces. */
static void
put_name(FILE *out, const char *s, size_t len)
{
	struct sp_buf b = { 0 };
	size_t i;

	spi_utf8_put(&b, s, len);
	for (i = 0; i < b.len; i++)
		if (b.p[i] < 0x20)
			b.p[i] = ' ';
	if (b.len > 0)
		(void)fwrite(b.p, 1, b.len, out);
	spi_buf_fini(&b);
}

/* Frame id's module: its path, "[kernel.kallsyms]", or "[unknown]". */
static void
put_module(FILE *out, const struct sp_defs *d, const struct sp_frame *fr)
{
	const struct sp_module *m = fr->module != 0 ?
	    sp_defs_module(d, fr->module) : NULL;
	const struct sp_str *p = m != NULL ? sp_defs_string(d, m->path) : NULL;

	if (fr->mode == SP_FRAME_KERNEL && (p == NULL || p->len == 0 ||
	    p->s[0] == '['))
		(void)fputs("[kernel.kallsyms]", out);
	else if (p != NULL && p->len > 0)
		put_name(out, p->s, p->len);
	else
		(void)fputs("[unknown]", out);
}

/* The lines of frame id, leaf first: one per inline level. */
static void
put_frame(FILE *out, const struct sp_fold *f, const struct sp_defs *d,
    uint32_t id)
{
	const struct sp_frame *fr = sp_defs_frame(d, id);
	const struct sp_symbol *sym = sp_defs_symbol(d, id);
	const struct sp_demangle *dm = sp_fold_options(f)->demangle;
	uint32_t i, first;
	char name[512];

	if (fr == NULL) {
		(void)fprintf(out, "\t%16x %s ([unknown])\n", 0,
		    id == SP_FOLD_DEEPER ? "[deeper]" : "[unknown]");
		return;
	}
	if (fr->mode == SP_FRAME_TRUNCATED) {
		(void)fprintf(out, "\t%16x [truncated] ([unknown])\n", 0);
		return;
	}
	first = sym != NULL && (sp_fold_options(f)->flags & SP_FOLD_NO_INLINE) ?
	    sym->count - 1 : 0;
	for (i = first; sym != NULL && i < sym->count; i++) {
		const struct sp_str *fn = sp_defs_string(d,
		    sym->lines[i].function);
		const char *shown;
		size_t len;

		if (fn == NULL || fn->len == 0)
			break;
		shown = sp_demangle_get(dm, fn->s, fn->len, &len);
		(void)fprintf(out, "\t%16" PRIx64 " ", fr->abs_ip);
		if (shown != NULL)
			put_name(out, shown, len);
		else
			put_name(out, fn->s, fn->len);
		(void)fputs(" (", out);
		put_module(out, d, fr);
		(void)fputs(")\n", out);
	}
	if (sym != NULL && i > first)
		return;
	/* No symbol: perf's "[unknown]", and the offset in the module
	 * where there is one, as sp-fold names it. */
	(void)sp_format_frame(d, id, name, sizeof(name));
	(void)fprintf(out, "\t%16" PRIx64 " %s (", fr->abs_ip,
	    fr->module != 0 ? "[unknown]" : name);
	put_module(out, d, fr);
	(void)fputs(")\n", out);
}

int
sp_perf_script_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, FILE *out)
{
	const struct sp_fold_sampled *o;
	const struct sp_recording *rec = sp_defs_recording(d);
	const struct sp_thread *t;
	const struct sp_str *comm;
	uint64_t period = spi_fold_period_ns(d, h);
	uint32_t *frames = NULL;
	size_t n, cap = 0, nf, i, k;
	char event[64];
	int err = 0;

	if (!(sp_fold_options(f)->flags & SP_FOLD_ORDER))
		return -SP_EUSAGE;
	(void)snprintf(event, sizeof(event), "%.*s",
	    rec != NULL && rec->event.len > 0 ? (int)rec->event.len : 9,
	    rec != NULL && rec->event.len > 0 ? rec->event.s : "cpu-clock");
	sp_fold_order(f, &o, &n);
	for (i = 0; i < n && err == 0; i++) {
		if ((err = sp_fold_frames(f, d, o[i].stack,
		    sp_fold_options(f)->max_depth, &frames, &cap, &nf)) < 0 ||
		    nf == 0)
			continue;
		t = sp_defs_thread(d, o[i].thread);
		comm = t != NULL ? sp_defs_string(d, t->comm) : NULL;
		if (comm != NULL && comm->len > 0)
			put_name(out, comm->s, comm->len);
		else
			(void)fputs("[unknown]", out);
		(void)fprintf(out, " %" PRIu32 "/%" PRIu32 " %" PRIu64 ".%06"
		    PRIu64 ": %" PRIu64 " %s:\n", t != NULL ? t->pid : 0,
		    t != NULL ? t->tid : 0, o[i].time / 1000000000u,
		    o[i].time % 1000000000u / 1000u,
		    o[i].kind == SP_SAMPLE_CPU ? (period ? period : 1) *
		    o[i].weight : o[i].weight, o[i].kind == SP_SAMPLE_CPU ? event :
		    o[i].kind == SP_SAMPLE_PREEMPTED ? "preempted-time" :
		    "offcpu-time");
		for (k = nf; k-- > 0;)
			put_frame(out, f, d, frames[k]);
		(void)fputc('\n', out);
	}
	free(frames);
	if (err == 0 && ferror(out))
		err = -EIO;
	return err;
}
