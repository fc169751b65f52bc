/* SPDX-License-Identifier: MIT */
/*
 * Folding, the printing half: each counted (stack, root) pair is walked
 * once and rendered; a machine frame's text is rendered once and cached
 * by frame id.  Different stack ids can render alike (hidden frames
 * dropped, --no-inline, equal offsets in two processes), so the lines are
 * sorted and equal ones merged: every line of the output is distinct.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "fold_int.h"
#include "sp/report/demangle.h"
#include "sp/spool/format.h"

/*
 * Appended to every kernel frame's name: the suffix stackcollapse-perf
 * writes for kernel frames, which flame graph colour schemes (sp-flame's
 * --colors lang among them) key on, since a kernel function's bare name
 * looks like any other C function's.
 */
#define KERNEL_MARK "_[k]"

struct cached {
	size_t off;
	uint32_t len;
	uint32_t nlog;        /* logical frames in the text; 0: not cached */
};

struct line {
	const uint8_t *p;     /* set once every line is in `all` */
	size_t off;
	size_t len;
	uint64_t count;
};

struct text {
	struct sp_fold *f;
	const struct sp_defs *d;
	struct sp_buf names;  /* cached frame texts */
	struct cached *cache; /* by frame id */
	size_t ncache;
	struct sp_buf line;   /* the line being built */
	struct sp_buf all;    /* every line's text */
	struct line *lines;
	size_t nlines;
	uint32_t *frames;
	size_t capframes;
};

/*
 * Appends s[0..len) as sp/report/fold.h describes: ';' as ':', because every
 * reader of folded stacks splits at every ';' (stackcollapse-perf and
 * perf's stackcollapse.py make the same replacement); line breaks and
 * other control bytes as "\n", "\r", "\xNN", so a line stays a line.
 */
static void
put_escaped(struct sp_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;
	unsigned char c;
	char e[4];

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == ';') {
			spi_buf_u8(b, ':');
		} else if (c == '\n') {
			spi_buf_put(b, "\\n", 2);
		} else if (c == '\r') {
			spi_buf_put(b, "\\r", 2);
		} else if (c < 0x20) {
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			spi_buf_put(b, e, 4);
		} else {
			spi_buf_u8(b, c);
		}
	}
}

static void
put_cstr(struct sp_buf *b, const char *s)
{
	put_escaped(b, s, strlen(s));
}

/*
 * With SP_FOLD_MODULES, "module`" before a named frame (DTrace's and
 * bcc's form, which sp-flame --colors module keys on): the module sp-sym
 * named, else the basename of the frame's module.
 */
static void
put_module(const struct text *t, struct sp_buf *b, const struct sp_frame *fr,
    const struct sp_symbol *sym)
{
	const struct sp_str *m = sp_defs_string(t->d, sym->module_name);
	const char *base;

	if (!(t->f->o.flags & SP_FOLD_MODULES))
		return;
	if (m != NULL && m->len > 0) {
		put_escaped(b, m->s, m->len);
	} else if (fr != NULL && fr->module != 0) {
		base = sp_module_basename(t->d, fr->module);
		put_escaped(b, base, strlen(base));
	} else {
		return;
	}
	spi_buf_u8(b, '`');
}

/* One logical frame: "function" or "function:file:line" with LINES;
 * the function demangled when the options give a demangler that has it. */
static void
put_logical(const struct text *t, struct sp_buf *b, const struct sp_symline *l)
{
	const struct sp_str *fn = sp_defs_string(t->d, l->function);
	const struct sp_str *file = sp_defs_string(t->d, l->file);
	const char *shown;
	char num[16];
	size_t len;

	if (fn != NULL && fn->len > 0 && (shown = sp_demangle_get(
	    t->f->o.demangle, fn->s, fn->len, &len)) != NULL)
		put_escaped(b, shown, len);
	else if (fn != NULL && fn->len > 0)
		put_escaped(b, fn->s, fn->len);
	else
		spi_buf_put(b, "??", 2);
	if (!(t->f->o.flags & SP_FOLD_LINES) || file == NULL || file->len == 0)
		return;
	spi_buf_u8(b, ':');
	put_escaped(b, file->s, file->len);
	(void)snprintf(num, sizeof(num), ":%" PRIu32, l->line);
	spi_buf_put(b, num, strlen(num));
}

/* Logical frames that machine frame id prints as. */
static uint32_t
logical_count(const struct text *t, uint32_t id)
{
	const struct sp_frame *fr = sp_defs_frame(t->d, id);
	const struct sp_symbol *sym = sp_defs_symbol(t->d, id);

	if (fr == NULL || fr->mode == SP_FRAME_TRUNCATED || sym == NULL ||
	    (t->f->o.flags & SP_FOLD_NO_INLINE))
		return 1;
	return sym->count;
}

/*
 * Appends the outermost `limit` logical frames of frame id, outermost
 * first, ';'-separated.
 */
static void
render_frame(const struct text *t, struct sp_buf *b, uint32_t id,
    uint32_t limit)
{
	const struct sp_frame *fr = sp_defs_frame(t->d, id);
	const struct sp_symbol *sym = sp_defs_symbol(t->d, id);
	const struct sp_str *fn;
	uint32_t i, n;
	int kernel;
	char name[512];

	if (id == SP_FOLD_UNKNOWN || id == SP_FOLD_DEEPER) {
		put_cstr(b, id == SP_FOLD_UNKNOWN ? "[unknown]" : "[deeper]");
		return;
	}
	if (fr != NULL && fr->mode == SP_FRAME_TRUNCATED) {
		put_cstr(b, "[truncated]");
		return;
	}
	kernel = fr != NULL && fr->mode == SP_FRAME_KERNEL;
	fn = sym != NULL ? sp_defs_string(t->d,
	    sym->lines[sym->count - 1].function) : NULL;
	/* An address-only symbol's name is module+0xOFFSET already. */
	if (fn == NULL || fn->len == 0 || sym->origin == SP_ORIGIN_ADDRESS) {
		(void)sp_format_frame(t->d, id, name, sizeof(name));
		put_cstr(b, name);
		if (kernel)
			spi_buf_put(b, KERNEL_MARK, strlen(KERNEL_MARK));
		return;
	}
	n = logical_count(t, id);
	if (limit < n)
		n = limit;
	/* SYMBOL lists innermost first (docs/spool-format.md). */
	for (i = 0; i < n; i++) {
		if (i > 0)
			spi_buf_u8(b, ';');
		put_module(t, b, fr, sym);
		put_logical(t, b, &sym->lines[sym->count - 1 - i]);
		if (kernel)
			spi_buf_put(b, KERNEL_MARK, strlen(KERNEL_MARK));
	}
}

/* Appends frame id whole, from the cache or rendered into it. */
static int
put_frame(struct text *t, uint32_t id)
{
	struct cached *c;
	size_t off;

	if (id >= t->ncache) {
		render_frame(t, &t->line, id, UINT32_MAX);
		return t->line.err;
	}
	c = &t->cache[id];
	if (c->nlog == 0) {
		off = t->names.len;
		render_frame(t, &t->names, id, UINT32_MAX);
		if (t->names.err)
			return t->names.err;
		if (t->names.len - off > UINT32_MAX)
			return -ENOMEM;
		c->off = off;
		c->len = (uint32_t)(t->names.len - off);
		c->nlog = logical_count(t, id);
	}
	spi_buf_put(&t->line, spi_buf_at(&t->names, c->off), c->len);
	return t->line.err;
}

/* "comm-PID", "comm-PID/TID", with "@host" for merged hosts. */
static void
put_root(struct text *t, uint32_t group)
{
	const struct sp_fold_group *g = sp_fold_group(t->f, group);
	const struct sp_str *comm;
	const struct sp_host *h;
	char num[32];

	if (g == NULL)
		return;
	comm = sp_defs_string(t->d, g->comm);
	if (comm != NULL && comm->len > 0)
		put_escaped(&t->line, comm->s, comm->len);
	else
		spi_buf_u8(&t->line, '?');
	if (t->f->o.root == SP_FOLD_ROOT_THREAD)
		(void)snprintf(num, sizeof(num), "-%" PRIu32 "/%" PRIu32,
		    g->pid, g->tid);
	else
		(void)snprintf(num, sizeof(num), "-%" PRIu32, g->pid);
	spi_buf_put(&t->line, num, strlen(num));
	if (g->host != 0 && (h = sp_defs_host(t->d, g->host)) != NULL) {
		spi_buf_u8(&t->line, '@');
		put_escaped(&t->line, h->hostname.s, h->hostname.len);
	}
}

/* Builds the line of e in t->line; *empty when no frame was kept. */
static int
build_line(struct text *t, const struct sp_fold_entry *e, int *empty)
{
	uint32_t max = t->f->o.max_depth, used = 0, nl;
	size_t n, i;
	int err;

	t->line.len = 0;
	err = sp_fold_frames(t->f, t->d, e->stack, 0, &t->frames,
	    &t->capframes, &n);
	if (err < 0)
		return err;
	*empty = n == 0;
	if (n == 0)
		return 0;
	/* Blocked time and CPU contention apart, each under its root. */
	if (e->kind != SP_SAMPLE_CPU &&
	    sp_fold_unit(t->f, t->d, NULL) == SP_FOLD_TIME_BOTH) {
		put_cstr(&t->line, e->kind == SP_SAMPLE_PREEMPTED ?
		    "[preempted]" : "[off-cpu]");
		if (e->group != 0)
			spi_buf_u8(&t->line, ';');
	}
	put_root(t, e->group);
	for (i = 0; i < n; i++) {
		if (t->line.len > 0)
			spi_buf_u8(&t->line, ';');
		if (max != 0 && used == max) {
			put_cstr(&t->line, "[deeper]");
			break;
		}
		nl = t->frames[i] < t->ncache ? logical_count(t, t->frames[i]) :
		    1;
		if (max != 0 && nl > max - used) {
			render_frame(t, &t->line, t->frames[i], max - used);
			spi_buf_u8(&t->line, ';');
			put_cstr(&t->line, "[deeper]");
			break;
		}
		if ((err = put_frame(t, t->frames[i])) < 0)
			return err;
		used += nl;
	}
	return t->line.err;
}

static int
add_line(struct text *t, uint64_t count)
{
	struct line *l;
	size_t off = t->all.len;

	spi_buf_put(&t->all, t->line.p, t->line.len);
	if (t->all.err)
		return t->all.err;
	l = &t->lines[t->nlines++];
	l->off = off;
	l->len = t->line.len;
	l->count = count;
	return 0;
}

/* qsort has no context argument in C11: lines carry their own bytes. */
static int
cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = n ? memcmp(x->p, y->p, n) : 0;

	if (c != 0)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static int
emit(struct text *t, FILE *out)
{
	size_t i, j;
	uint64_t count;

	for (i = 0; i < t->nlines; i++)
		t->lines[i].p = spi_buf_at(&t->all, t->lines[i].off);
	if (t->nlines > 1)
		qsort(t->lines, t->nlines, sizeof(*t->lines), cmp_line);
	for (i = 0; i < t->nlines; i = j) {
		count = 0;
		for (j = i; j < t->nlines && cmp_line(&t->lines[i],
		    &t->lines[j]) == 0; j++)
			count += t->lines[j].count;
		if (fwrite(t->lines[i].p, 1, t->lines[i].len,
		    out) != t->lines[i].len ||
		    fprintf(out, " %" PRIu64 "\n", count) < 0)
			return -EIO;
	}
	return ferror(out) ? -EIO : 0;
}

int
sp_fold_write(struct sp_fold *f, const struct sp_defs *d, FILE *out)
{
	struct text t;
	const struct sp_fold_entry *e;
	size_t n, i;
	int err, empty;

	memset(&t, 0, sizeof(t));
	t.f = f;
	t.d = d;
	if ((err = sp_fold_entries(f, d, &e, &n)) < 0)
		return err;
	f->st.empty = 0;
	t.ncache = (size_t)sp_defs_count(d, SP_REC_FRAME) + 1;
	t.cache = calloc(t.ncache, sizeof(*t.cache));
	t.lines = calloc(n ? n : 1, sizeof(*t.lines));
	err = t.cache == NULL || t.lines == NULL ? -ENOMEM : 0;
	for (i = 0; i < n && err == 0; i++) {
		if ((err = build_line(&t, &e[i], &empty)) < 0)
			break;
		if (empty)
			f->st.empty += e[i].count;
		else
			err = add_line(&t, e[i].count);
	}
	if (err == 0)
		err = emit(&t, out);
	spi_buf_fini(&t.names);
	spi_buf_fini(&t.line);
	spi_buf_fini(&t.all);
	free(t.cache);
	free(t.lines);
	free(t.frames);
	return err;
}

struct spi_fold_text {
	struct text t;
};

int
spi_fold_text_new(struct sp_fold *f, const struct sp_defs *d,
    struct spi_fold_text **out)
{
	struct spi_fold_text *ft = calloc(1, sizeof(*ft));

	*out = NULL;
	if (ft == NULL)
		return -ENOMEM;
	ft->t.f = f;
	ft->t.d = d;
	ft->t.ncache = (size_t)sp_defs_count(d, SP_REC_FRAME) + 1;
	ft->t.cache = calloc(ft->t.ncache, sizeof(*ft->t.cache));
	if (ft->t.cache == NULL) {
		free(ft);
		return -ENOMEM;
	}
	*out = ft;
	return 0;
}

int
spi_fold_text_stack(struct spi_fold_text *ft, uint32_t stack,
    const char **text, size_t *len)
{
	struct sp_fold_entry e = { stack, 0, 1, 0 };
	int empty, err;

	*text = NULL;
	*len = 0;
	if ((err = build_line(&ft->t, &e, &empty)) < 0)
		return err;
	if (!empty) {
		*text = (const char *)ft->t.line.p;
		*len = ft->t.line.len;
	}
	return 0;
}

void
spi_fold_text_free(struct spi_fold_text *ft)
{
	if (ft == NULL)
		return;
	spi_buf_fini(&ft->t.names);
	spi_buf_fini(&ft->t.line);
	spi_buf_fini(&ft->t.all);
	free(ft->t.cache);
	free(ft->t.lines);
	free(ft->t.frames);
	free(ft);
}

int
sp_fold_write_header(const struct sp_fold *f, const struct sp_defs *d,
    FILE *out)
{
	struct sp_str ev;
	int counts = sp_fold_counts_events(d, &ev);
	struct sp_fold_stats st;
	const char *title;

	/* No stacks, no header: the output stays empty. */
	sp_fold_get_stats(f, &st);
	if (st.counted == 0)
		return 0;
	if (counts) {
		if (fprintf(out, "# countname: %.*s\n# title: Flame Graph of "
		    "%.*s\n", (int)ev.len, ev.s, (int)ev.len, ev.s) < 0)
			return -EIO;
		return 0;
	}
	switch (sp_fold_unit(f, d, NULL)) {
	case SP_FOLD_TIME_OFF_CPU:
		title = "Off-CPU Time (blocked)";
		break;
	case SP_FOLD_TIME_PREEMPTED:
		title = "Preempted Time (waiting for a CPU)";
		break;
	case SP_FOLD_TIME_BOTH:
		title = "On- and Off-CPU Time";
		break;
	default:
		return 0;
	}
	if (fprintf(out, "# countname: ns\n# title: %s\n", title) < 0)
		return -EIO;
	return 0;
}
