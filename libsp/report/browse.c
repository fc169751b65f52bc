/* SPDX-License-Identifier: MIT */
/*
 * sp-report's text, browsed (sp/report/browse.h).  A view is the text
 * sp_report_write writes for it, kept with its lines and, through the
 * options' on_row, the line and key of each function row: what the
 * text view computes is what the screen shows, whatever the width.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "report_int.h"
#include "sp/common/error.h"
#include "sp/report/browse.h"

/* A view gone through: the function shown (NULL: the table), and where
 * its selection and scroll were. */
struct view {
	char *key;
	size_t sel, top;
};

/* A function row of the text: its line, and its key in keys. */
struct frow {
	size_t line, off, len;
};

struct sp_browse {
	struct sp_fold *f;
	const struct sp_defs *d;
	struct sp_report_options o;
	char *head;
	struct view *views;     /* [0] the table; the last is shown */
	size_t nviews, capviews;
	/* The shown view's text, at width: */
	char *text;
	size_t textlen;
	size_t *lines;          /* each line's offset in text */
	size_t nlines, caplines;
	struct frow *rows;
	size_t nrows, caprows;
	struct sp_buf keys;
	FILE *ms;               /* the text being written, for on_row */
	int err;                /* on_row's, kept */
	unsigned width;         /* of the text; 0: none yet */
	size_t height;          /* the lines of the last draw's body */
	int follow;             /* the next draw scrolls to the selection */
	const char *msg;        /* for the last line, once */
};

static struct view *
shown(const struct sp_browse *b)
{
	return &b->views[b->nviews - 1];
}

/* The table's column heading stays on the screen as it scrolls. */
static size_t
pinned(const struct sp_browse *b)
{
	return shown(b)->key == NULL && b->nlines > 0 ? 1 : 0;
}

static void
on_row(void *ctx, const char *key, size_t len)
{
	struct sp_browse *b = ctx;
	long at = ftell(b->ms);

	if (b->err == 0 && (at < 0 || spi_grow_zeroed(&b->rows, &b->caprows,
	    b->nrows + 1, sizeof(*b->rows)) < 0))
		b->err = -ENOMEM;
	if (b->err != 0)
		return;
	/* The byte offset for now; index() makes it a line. */
	b->rows[b->nrows].line = (size_t)at;
	b->rows[b->nrows].off = b->keys.len;
	b->rows[b->nrows++].len = len;
	/* Each key ends in NUL: sp_browse_selected lends it. */
	spi_buf_put(&b->keys, key, len);
	spi_buf_put(&b->keys, "", 1);
	b->err = b->keys.err;
}

/* The lines of the text, and each row's line from its offset. */
static int
index_lines(struct sp_browse *b)
{
	const char *nl;
	size_t i, k = 0;

	b->nlines = 0;
	for (i = 0; i < b->textlen; i = (size_t)(nl - b->text) + 1) {
		if (spi_grow_zeroed(&b->lines, &b->caplines, b->nlines + 1,
		    sizeof(*b->lines)) < 0)
			return -ENOMEM;
		b->lines[b->nlines++] = i;
		/* sp_report_write ends every line with '\n'. */
		if ((nl = memchr(b->text + i, '\n', b->textlen - i)) == NULL)
			break;
	}
	for (i = 0; i < b->nrows; i++) {
		while (k + 1 < b->nlines && b->lines[k + 1] <= b->rows[i].line)
			k++;
		b->rows[i].line = k;
	}
	return 0;
}

/* Writes the shown view's report: the table, or a function's callers
 * then its callees. */
static int
write_view(struct sp_browse *b, unsigned width)
{
	struct sp_report_options o = b->o;
	const char *key = shown(b)->key;
	int err;

	o.width = width;
	o.on_row = on_row;
	o.ctx = b;
	o.callers = key;
	o.callees = NULL;
	err = sp_report_write(b->f, b->d, &o, b->ms);
	if (err == 0 && key != NULL) {
		(void)fputc('\n', b->ms);
		o.callers = NULL;
		o.callees = key;
		err = sp_report_write(b->f, b->d, &o, b->ms);
	}
	return err < 0 ? err : b->err;
}

static int
render(struct sp_browse *b, unsigned width)
{
	int err;

	free(b->text);
	b->text = NULL;
	b->textlen = b->nrows = b->nlines = 0;
	b->keys.len = 0;
	b->err = 0;
	b->width = 0;
	if ((b->ms = open_memstream(&b->text, &b->textlen)) == NULL)
		return -ENOMEM;
	err = write_view(b, width);
	if (fclose(b->ms) != 0 && err == 0)
		err = -ENOMEM;
	b->ms = NULL;
	if (err == 0)
		err = index_lines(b);
	if (err == 0)
		b->width = width;
	return err;
}

/* The scroll that shows the selected row, within the text. */
static void
keep_in_view(struct sp_browse *b, int follow)
{
	struct view *v = shown(b);
	size_t pin = pinned(b), h = b->height ? b->height : 1;
	size_t last = b->nlines > h + pin ? b->nlines - h : pin;

	if (b->nrows > 0 && v->sel >= b->nrows)
		v->sel = b->nrows - 1;
	if (follow && b->nrows > 0) {
		if (b->rows[v->sel].line < v->top)
			v->top = b->rows[v->sel].line;
		if (b->rows[v->sel].line >= v->top + h)
			v->top = b->rows[v->sel].line - h + 1;
	}
	if (v->top > last)
		v->top = last;
	if (v->top < pin)
		v->top = pin;
}

/* After a page moved: the selection onto the page if it left it. */
static void
select_on_page(struct sp_browse *b)
{
	struct view *v = shown(b);
	size_t h = b->height ? b->height : 1, i;

	if (b->nrows == 0)
		return;
	if (b->rows[v->sel].line < v->top) {
		for (i = v->sel; i < b->nrows && b->rows[i].line < v->top; i++)
			;
		v->sel = i < b->nrows ? i : b->nrows - 1;
	} else if (b->rows[v->sel].line >= v->top + h) {
		for (i = v->sel; i > 0 && b->rows[i].line >= v->top + h; i--)
			;
		v->sel = i;
	}
}

static void
move(struct sp_browse *b, enum sp_browse_action a)
{
	struct view *v = shown(b);
	size_t h = b->height ? b->height : 1;

	switch (a) {
	case SP_BROWSE_UP:
		if (b->nrows > 0 && v->sel > 0 && b->rows[v->sel - 1].line >=
		    pinned(b)) {
			v->sel--;
			keep_in_view(b, 1);
		} else if (v->top > 0) {
			v->top--;
			keep_in_view(b, 0);
		}
		return;
	case SP_BROWSE_DOWN:
		if (v->sel + 1 < b->nrows) {
			v->sel++;
			keep_in_view(b, 1);
		} else {
			v->top++;
			keep_in_view(b, 0);
		}
		return;
	case SP_BROWSE_PAGE_UP:
		v->top = v->top > h ? v->top - h : 0;
		break;
	case SP_BROWSE_PAGE_DOWN:
		v->top += h;
		break;
	case SP_BROWSE_FIRST:
		v->sel = 0;
		v->top = 0;
		break;
	default:
		v->sel = b->nrows > 0 ? b->nrows - 1 : 0;
		v->top = b->nlines;
		break;
	}
	keep_in_view(b, 0);
	select_on_page(b);
}

/* Shows the function key (len bytes), the view before kept behind it.
 * A key no sample has leaves the view as it was, and says so. */
static int
open_key(struct sp_browse *b, const char *key, size_t len)
{
	struct view *v;
	unsigned width = b->width ? b->width : 80;
	char *copy;
	int err;

	if (b->nviews == SP_BROWSE_DEPTH_MAX) {
		b->msg = "too many views deep: go back first";
		return 0;
	}
	if ((copy = strndup(key, len)) == NULL)
		return -ENOMEM;
	if (spi_grow_zeroed(&b->views, &b->capviews, b->nviews + 1,
	    sizeof(*b->views)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	v = &b->views[b->nviews++];
	memset(v, 0, sizeof(*v));
	v->key = copy;
	err = render(b, width);
	if (err == -SP_ENOTFOUND && b->nviews > 1) {
		b->msg = "no sample has that function";
		b->nviews--;
		free(b->views[b->nviews].key);
		b->views[b->nviews].key = NULL;
		err = render(b, width);
	}
	b->follow = 1;
	return err;
}

int
sp_browse_act(struct sp_browse *b, enum sp_browse_action a)
{
	const struct frow *r;
	const char *key;

	b->msg = NULL;
	if (a == SP_BROWSE_BACK) {
		if (b->nviews == 1)
			return 0;
		free(shown(b)->key);
		b->nviews--;
		b->follow = 1;
		return render(b, b->width ? b->width : 80);
	}
	if (a != SP_BROWSE_OPEN) {
		move(b, a);
		return 0;
	}
	if (b->nrows == 0) {
		b->msg = "no function row here to open";
		return 0;
	}
	r = &b->rows[shown(b)->sel];
	key = (const char *)spi_buf_at(&b->keys, r->off);
	if ((r->len == 6 && (memcmp(key, "[root]", 6) == 0 ||
	    memcmp(key, "[self]", 6) == 0))) {
		b->msg = "[root] and [self] are no functions";
		return 0;
	}
	return open_key(b, key, r->len);
}

const char *
sp_browse_selected(const struct sp_browse *b)
{
	if (b->nrows == 0)
		return NULL;
	return (const char *)spi_buf_at(&b->keys, b->rows[shown(b)->sel].off);
}

/* Line i of the text (without its newline) at screen row y, cut to cols -
 * 1 columns; the selected row in reverse video, '>' in its first column. */
static void
put_line(const struct sp_browse *b, size_t i, unsigned y, unsigned cols,
    int selected, FILE *out)
{
	const char *s = b->text + b->lines[i];
	size_t end = i + 1 < b->nlines ? b->lines[i + 1] : b->textlen;
	size_t len = end - b->lines[i];

	if (len > 0 && s[len - 1] == '\n')
		len--;
	if (len > cols - 1)
		len = cols - 1;
	/* ECMA-48: CUP to the row, SGR 7 reverse, EL the rest. */
	(void)fprintf(out, "\033[%u;1H%s", y + 1, selected ? "\033[7m>" : "");
	(void)fprintf(out, "%.*s\033[K%s", (int)(len - (selected && len > 0)),
	    s + (selected && len > 0), selected ? "\033[m" : "");
}

/* The head's lines at the top, at most max of them; how many. */
static unsigned
put_head(const struct sp_browse *b, unsigned max, unsigned cols, FILE *out)
{
	const char *p = b->head, *nl;
	unsigned y = 0;
	size_t len;

	while (p != NULL && *p != '\0' && y < max) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		(void)fprintf(out, "\033[%u;1H%.*s\033[K", y + 1,
		    (int)(len < cols - 1 ? len : cols - 1), p);
		y++;
		p = nl != NULL ? nl + 1 : NULL;
	}
	return y;
}

/* The last line: the keys, and where the selection is or a message. */
static void
put_keys(const struct sp_browse *b, unsigned y, unsigned cols, FILE *out)
{
	char line[256];
	const struct view *v = shown(b);
	int n;

	if (b->msg != NULL)
		n = snprintf(line, sizeof(line), "%s", b->msg);
	else
		n = snprintf(line, sizeof(line), "j/k move  Enter callers+callees"
		    "  Esc back  q quit  row %zu/%zu", b->nrows ? v->sel + 1 :
		    0, b->nrows);
	if (n < 0)
		n = 0;
	if ((unsigned)n > cols - 1)
		n = (int)cols - 1;
	(void)fprintf(out, "\033[%u;1H\033[7m%.*s\033[m\033[K", y + 1, n,
	    line);
}

int
sp_browse_draw(struct sp_browse *b, unsigned rows, unsigned cols,
    FILE *out)
{
	/* sp_report_write fits 40 columns at least; narrower is cut. */
	unsigned width = cols - 1 < 40 ? 40 : cols - 1, y, nh;
	const struct view *v;
	size_t i, pin;
	int err;

	if (rows < 2 || cols < 2)
		return 0;
	if (b->width != width) {
		if ((err = render(b, width)) < 0)
			return err;
		b->follow = 1;
	}
	v = shown(b);
	pin = pinned(b);
	(void)fputs("\033[H\033[2J", out);
	/* The head takes at most a third of the screen. */
	nh = put_head(b, rows / 3, cols, out);
	b->height = rows - 1 - nh > pin ? rows - 1 - nh - pin : 1;
	keep_in_view(b, b->follow);
	b->follow = 0;
	y = nh;
	for (i = 0; i < pin && y < rows - 1; i++)
		put_line(b, i, y++, cols, 0, out);
	for (i = v->top; i < b->nlines && y < rows - 1; i++)
		put_line(b, i, y++, cols, b->nrows > 0 &&
		    b->rows[v->sel].line == i, out);
	put_keys(b, rows - 1, cols, out);
	return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}

int
sp_browse_new(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_report_options *o, const char *head,
    struct sp_browse **out)
{
	struct sp_browse *b;
	const char *first;
	int err;

	*out = NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return -ENOMEM;
	if (spi_opts_copy(&b->o, sizeof(b->o), o, REPORT_OPTS_SZ0,
	    "sp_report_options", NULL) < 0) {
		sp_browse_free(b);
		return -SP_EUSAGE;
	}
	first = b->o.callers != NULL ? b->o.callers : b->o.callees;
	if (spi_grow_zeroed(&b->views, &b->capviews, 1,
	    sizeof(*b->views)) < 0 || (head != NULL &&
	    (b->head = strdup(head)) == NULL)) {
		sp_browse_free(b);
		return -ENOMEM;
	}
	b->f = f;
	b->d = d;
	b->o.callers = b->o.callees = NULL;
	b->nviews = 1;
	err = render(b, 80);
	if (err == 0 && first != NULL) {
		err = open_key(b, first, strlen(first));
		if (err == 0 && b->nviews == 1)
			err = -SP_ENOTFOUND;
	}
	if (err < 0) {
		sp_browse_free(b);
		return err;
	}
	*out = b;
	return 0;
}

void
sp_browse_free(struct sp_browse *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->nviews; i++)
		free(b->views[i].key);
	free(b->views);
	free(b->head);
	free(b->text);
	free(b->lines);
	free(b->rows);
	spi_buf_fini(&b->keys);
	free(b);
}
