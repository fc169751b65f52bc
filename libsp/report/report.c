/* SPDX-License-Identifier: MIT */
/* Hot functions and their call paths, as text (sp/report/report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/intern_int.h"
#include "fold_int.h"
#include "report_int.h"
#include "sp/common/error.h"
#include "sp/report/report.h"

/* A row: a function, module or thread, and what it counts. */
struct row {
	size_t off, len;        /* its key in names */
	uint64_t self, total;
	size_t seen;            /* the last entry that counted it + 1 */
};

/* A frame of the stack at hand: its folded text, split. */
struct piece {
	const char *s;
	size_t len;
};

/* One table: its rows by key, and the weight its shares are of. */
struct tab {
	struct sp_intern ids;
	struct sp_buf names;
	struct row *rows;
	size_t nrows, caprows;
	uint64_t all;           /* every counted sample's weight */
	int plain;              /* rows are text to show whole (paths) */
};

struct rep {
	struct sp_fold *f;
	const struct sp_defs *d;
	const struct sp_report_options *o;
	struct spi_fold_text *text;
	struct tab t;           /* the report's own table */
	struct piece *fr;
	size_t nfr, capfr;
	unsigned width;
};

static void
tab_fini(struct tab *t)
{
	spi_intern_fini(&t->ids);
	spi_buf_fini(&t->names);
	free(t->rows);
}

/* The row of key[0..len), added when new; NULL: out of memory. */
static struct row *
row_of(struct tab *t, const char *key, size_t len)
{
	uint64_t h;
	uint32_t id = spi_intern_find(&t->ids, 0, (const uint8_t *)key, len,
	    &h);
	struct row *w;

	if (id != 0)
		return &t->rows[id - 1];
	if (spi_grow_zeroed(&t->rows, &t->caprows, t->nrows + 1,
	    sizeof(*t->rows)) < 0 || spi_intern_add(&t->ids, 0,
	    (const uint8_t *)key, len, h, (uint32_t)t->nrows + 1) < 0)
		return NULL;
	w = &t->rows[t->nrows++];
	w->off = t->names.len;
	w->len = len;
	spi_buf_put(&t->names, key, len);
	return t->names.err ? NULL : w;
}

/* Splits the folded text of stack into r->fr, root first. */
static int
split(struct rep *r, uint32_t stack)
{
	const char *text, *p, *end;
	size_t len;
	int err;

	r->nfr = 0;
	if ((err = spi_fold_text_stack(r->text, stack, &text, &len)) < 0)
		return err;
	for (p = text, end = text + len; p < end;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t n = semi != NULL ? (size_t)(semi - p) : (size_t)(end - p);

		if (spi_grow_zeroed(&r->fr, &r->capfr, r->nfr + 1,
		    sizeof(*r->fr)) < 0)
			return -ENOMEM;
		r->fr[r->nfr].s = p;
		r->fr[r->nfr++].len = n;
		p += n + 1;
	}
	return 0;
}

/* A frame's module and function: "module`function", "function_[k]"
 * (the kernel's), or a marker or address alone. */
static void
parts(const struct piece *fr, struct piece *mod, struct piece *fn)
{
	const char *tick = memchr(fr->s, '`', fr->len);

	if (tick != NULL) {
		mod->s = fr->s;
		mod->len = (size_t)(tick - fr->s);
		fn->s = tick + 1;
		fn->len = fr->len - mod->len - 1;
	} else if (fr->len > 4 && memcmp(fr->s + fr->len - 4, "_[k]", 4) == 0) {
		mod->s = "[kernel]";
		mod->len = 8;
		fn->s = fr->s;
		fn->len = fr->len - 4;
	} else {
		const char *plus = memchr(fr->s, '+', fr->len);

		/* "module+0xOFFSET", unnamed: its module is known. */
		mod->s = fr->s;
		mod->len = plus != NULL && fr->s[0] != '[' ?
		    (size_t)(plus - fr->s) : 0;
		*fn = *fr;
	}
}

/* The key a sample of entry e counts to, for the thread sorts. */
static size_t
thread_key(const struct rep *r, const struct sp_fold_entry *e, char *buf,
    size_t cap)
{
	const struct sp_fold_group *g = sp_fold_group(r->f, e->group);
	const struct sp_str *comm = g != NULL && g->comm ?
	    sp_defs_string(r->d, g->comm) : NULL;
	int n;

	if (g == NULL)
		n = snprintf(buf, cap, "?");
	else if (r->o->sort == SP_REPORT_PID)
		n = snprintf(buf, cap, "%u %.*s", g->pid, comm != NULL ?
		    (int)comm->len : 1, comm != NULL ? comm->s : "?");
	else if (r->o->sort == SP_REPORT_TID)
		n = snprintf(buf, cap, "%u/%u %.*s", g->pid, g->tid,
		    comm != NULL ? (int)comm->len : 1, comm != NULL ?
		    comm->s : "?");
	else
		n = snprintf(buf, cap, "%.*s", comm != NULL ? (int)comm->len :
		    1, comm != NULL ? comm->s : "?");
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Counts entry e (index i) into the rows of the sort asked for. */
static int
count(struct rep *r, const struct sp_fold_entry *e, size_t i)
{
	struct piece mod, fn;
	struct row *w;
	char key[256];
	size_t k;
	int err;

	r->t.all += e->count;
	if (r->o->sort >= SP_REPORT_PID) {
		if ((w = row_of(&r->t, key, thread_key(r, e, key, sizeof(key)))) ==
		    NULL)
			return -ENOMEM;
		w->self += e->count;
		w->total += e->count;
		return 0;
	}
	if ((err = split(r, e->stack)) < 0 || r->nfr == 0)
		return err;
	for (k = 0; k < r->nfr; k++) {
		if (r->o->sort == SP_REPORT_MODULE) {
			parts(&r->fr[k], &mod, &fn);
			w = row_of(&r->t, mod.len > 0 ? mod.s : "[unknown]",
			    mod.len > 0 ? mod.len : 9);
		} else {
			w = row_of(&r->t, r->fr[k].s, r->fr[k].len);
		}
		if (w == NULL)
			return -ENOMEM;
		if (k == r->nfr - 1)
			w->self += e->count;
		/* Once per sample, however deep the recursion. */
		if (w->seen != i + 1) {
			w->seen = i + 1;
			w->total += e->count;
		}
	}
	return 0;
}

static double
pct(uint64_t part, uint64_t all)
{
	return all > 0 ? 100.0 * (double)part / (double)all : 0.0;
}

/* Writes s[0..len) in at most cols columns (cut with ".."), padded
 * to cols when pad. */
static void
put_cut(FILE *out, const char *s, size_t len, size_t cols, int pad)
{
	if (len > cols && cols >= 2) {
		(void)fprintf(out, "%.*s..", (int)(cols - 2), s);
		return;
	}
	(void)fprintf(out, "%.*s", (int)len, s);
	while (pad && len++ < cols)
		(void)fputc(' ', out);
}

/* A row as sorted: its share key first, so that qsort needs no
 * context. */
struct ranked {
	uint64_t key, total;
	size_t off, row;
};

static int
by_share(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The rows' indexes in the order shown, into *order. */
static int
ordered(const struct rep *r, const struct tab *t, size_t **order)
{
	struct ranked *rk = calloc(t->nrows ? t->nrows : 1, sizeof(*rk));
	size_t i;

	*order = calloc(t->nrows ? t->nrows : 1, sizeof(**order));
	if (rk == NULL || *order == NULL) {
		free(rk);
		free(*order);
		*order = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < t->nrows; i++) {
		rk[i].key = r->o->sort == SP_REPORT_TOTAL ? t->rows[i].total :
		    t->rows[i].self;
		rk[i].total = t->rows[i].total;
		rk[i].off = t->rows[i].off;
		rk[i].row = i;
	}
	qsort(rk, t->nrows, sizeof(*rk), by_share);
	for (i = 0; i < t->nrows; i++)
		(*order)[i] = rk[i].row;
	free(rk);
	return 0;
}

/* The first column's heading. */
static const char *
heading(const struct rep *r, const struct tab *t)
{
	if (t->plain)
		return "Path";
	switch (r->o->sort) {
	case SP_REPORT_MODULE:
		return "Module";
	case SP_REPORT_PID:
		return "Process";
	case SP_REPORT_TID:
		return "Thread";
	case SP_REPORT_COMM:
		return "Comm";
	default:
		return "Function";
	}
}

/* Table t: a row a function (or module, or thread, or path). */
static int
table(const struct rep *r, const struct tab *t, FILE *out)
{
	const char *head = heading(r, t);
	int fnrows = !t->plain && r->o->sort <= SP_REPORT_TOTAL;
	size_t *order, i, shown = 0, under = 0, past = 0;
	/* "%7.2f %7.2f %8llu  " before the name: 26 columns. */
	size_t namew = r->width > 40 ? r->width - 26 : 14;
	size_t modw = fnrows ? namew / 3 : 0;
	struct sp_str ev;
	int err;

	if ((err = ordered(r, t, &order)) < 0)
		return err;
	if (fnrows)
		namew -= modw + 1;
	/* An event that counts (-e): its events, not samples. */
	(void)fprintf(out, "  Self%%  Total%%  %s  ",
	    sp_fold_counts_events(r->d, &ev) ? " Events" : "Samples");
	put_cut(out, head, strlen(head), namew, fnrows);
	(void)fprintf(out, "%s\n", fnrows ? " Module" : "");
	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[order[i]];
		uint64_t key = r->o->sort == SP_REPORT_TOTAL ? w->total :
		    w->self;
		struct piece p = { (const char *)spi_buf_at(&t->names, w->off),
		    w->len }, mod, fn;

		if (pct(key, t->all) < r->o->percent_limit || key == 0) {
			under++;
			continue;
		}
		if (r->o->max_rows > 0 && shown == r->o->max_rows) {
			past++;
			continue;
		}
		shown++;
		if (fnrows && r->o->on_row != NULL)
			r->o->on_row(r->o->ctx, p.s, p.len);
		(void)fprintf(out, "%7.2f %7.2f %8" PRIu64 "  ",
		    pct(w->self, t->all), pct(w->total, t->all),
		    r->o->sort == SP_REPORT_TOTAL ? w->total : w->self);
		if (fnrows) {
			parts(&p, &mod, &fn);
			put_cut(out, fn.s, fn.len, namew, 1);
			(void)fputc(' ', out);
			put_cut(out, mod.s, mod.len, modw, 0);
		} else {
			put_cut(out, p.s, p.len, namew, 0);
		}
		(void)fputc('\n', out);
	}
	if (under > 0)
		(void)fprintf(out, "  (%zu more under %.2g %%: --percent-limit)"
		    "\n", under, r->o->percent_limit);
	if (past > 0)
		(void)fprintf(out, "  (%zu more past %u rows: -n)\n", past,
		    r->o->max_rows);
	free(order);
	return 0;
}

/* Whether frame fr is the function name: "module`name" or name. */
static int
is_named(const struct piece *fr, const char *name, size_t len)
{
	struct piece mod, fn;

	if (fr->len == len && memcmp(fr->s, name, len) == 0)
		return 1;
	parts(fr, &mod, &fn);
	return fn.len == len && memcmp(fn.s, name, len) == 0;
}

/* The neighbours of the function name, callers (up) or callees: the
 * frame next to its outermost place in each sample, and the paths. */
static int
peek(struct rep *r, const struct sp_fold_entry *es, size_t n, int up,
    FILE *out)
{
	const char *name = up ? r->o->callers : r->o->callees;
	size_t nlen = strlen(name), i, k, at;
	uint64_t in = 0;
	struct sp_buf path = { 0 };
	struct tab next = { 0 }, paths = { .plain = 1 };
	int err = 0, found;

	for (i = 0; i < n && err == 0; i++) {
		struct row *w, *pw;

		if ((err = split(r, es[i].stack)) < 0)
			break;
		for (found = 0, at = 0; at < r->nfr && !found; at++)
			found = is_named(&r->fr[at], name, nlen);
		if (!found)
			continue;
		at--;
		in += es[i].count;
		/* The next frame out (a caller) or in (a callee). */
		if (up)
			w = at > 0 ? row_of(&next, r->fr[at - 1].s,
			    r->fr[at - 1].len) : row_of(&next, "[root]", 6);
		else
			w = at + 1 < r->nfr ? row_of(&next, r->fr[at + 1].s,
			    r->fr[at + 1].len) : row_of(&next, "[self]", 6);
		/* The path's functions, without their modules. */
		path.len = 0;
		for (k = 0; k < (up ? at : r->nfr - at - 1); k++) {
			struct piece mod, fn;

			parts(&r->fr[up ? at - 1 - k : at + 1 + k], &mod, &fn);
			if (k > 0)
				spi_buf_put(&path, up ? " <- " : " -> ", 4);
			spi_buf_put(&path, fn.s, fn.len);
		}
		if (path.len == 0)
			spi_buf_put(&path, up ? "[root]" : "[self]", 6);
		pw = path.err ? NULL : row_of(&paths,
		    (const char *)spi_buf_at(&path, 0), path.len);
		if (w == NULL || pw == NULL) {
			err = -ENOMEM;
			break;
		}
		w->self += es[i].count;
		w->total += es[i].count;
		pw->self += es[i].count;
		pw->total += es[i].count;
	}
	if (err == 0 && in == 0)
		err = -SP_ENOTFOUND;
	if (err == 0) {
		(void)fprintf(out, "%s %s: in %.2f %% of the samples (%" PRIu64
		    ")\n\n", up ? "Callers of" : "Callees of", name,
		    pct(in, r->t.all), in);
		next.all = paths.all = in;
		(void)fprintf(out, "%s, by share of its samples:\n", up ?
		    "The functions that call it" : "The functions it calls "
		    "([self]: it is the leaf)");
		err = table(r, &next, out);
		if (err == 0) {
			(void)fprintf(out, "\nThe paths %s, by share:\n", up ?
			    "into it, its caller first" : "out of it, to the "
			    "leaf");
			err = table(r, &paths, out);
		}
	}
	spi_buf_fini(&path);
	tab_fini(&next);
	tab_fini(&paths);
	return err;
}

int
sp_report_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_report_options *given, FILE *out)
{
	const struct sp_fold_options *fo = sp_fold_options(f);
	const struct sp_report_options *o;
	struct sp_report_options copy;
	const struct sp_fold_entry *es;
	struct rep r;
	size_t n, i;
	int err;

	if (!(fo->flags & SP_FOLD_MODULES) || fo->root != SP_FOLD_ROOT_THREAD)
		return -SP_EUSAGE;
	if (spi_opts_copy(&copy, sizeof(copy), given, REPORT_OPTS_SZ0,
	    "sp_report_options", NULL) < 0)
		return -SP_EUSAGE;
	o = &copy;
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.d = d;
	r.o = o;
	r.width = o->width ? o->width : 80;
	if ((err = sp_fold_entries(f, d, &es, &n)) < 0 ||
	    (err = spi_fold_text_new(f, d, &r.text)) < 0)
		return err;
	if (o->callers != NULL || o->callees != NULL) {
		for (i = 0; i < n; i++)
			r.t.all += es[i].count;
		err = peek(&r, es, n, o->callers != NULL, out);
	} else {
		for (i = 0; i < n && err == 0; i++)
			err = count(&r, &es[i], i);
		if (err == 0)
			err = table(&r, &r.t, out);
	}
	if (err == 0 && ferror(out))
		err = -EIO;
	spi_fold_text_free(r.text);
	tab_fini(&r.t);
	free(r.fr);
	return err;
}
