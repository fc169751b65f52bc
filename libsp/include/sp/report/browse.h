/* SPDX-License-Identifier: MIT */
#ifndef SP_BROWSE_H
#define SP_BROWSE_H

/*
 * sp-report's text, browsed (sp-report -i, perf report's TUI): the table
 * of functions, a row selected; opening a row shows that function's
 * callers and callees (sp_report_write's --callers then --callees text),
 * whose rows open in turn; going back returns to the view before, its
 * selection kept.  Every view is sp_report_write's text for the options
 * given, at the width of the screen, so it says what the text view says.
 * The caller reads keys and draws; this holds the views and the
 * selection.  Memory: each view's text while it is shown, and the names
 * of the views gone through (at most SP_BROWSE_DEPTH_MAX).
 */

#include <stdio.h>

#include "sp/report/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_BROWSE_DEPTH_MAX 256

struct sp_browse;

enum sp_browse_action {
	SP_BROWSE_UP,           /* the row above (at the first: scroll) */
	SP_BROWSE_DOWN,         /* the row below (at the last: scroll) */
	SP_BROWSE_PAGE_UP,
	SP_BROWSE_PAGE_DOWN,
	SP_BROWSE_FIRST,
	SP_BROWSE_LAST,
	SP_BROWSE_OPEN,         /* the selected function's callers and
	                         * callees */
	SP_BROWSE_BACK,         /* the view before (at the table: nothing) */
};

/*
 * A browser of f's report (counting done; d the spool's definitions; o
 * the text view's options, copied; its width is the screen's at each
 * draw, its on_row is the browser's).  With o->callers or o->callees it
 * opens at that function, the table behind it.  head (may be NULL) is
 * text shown above every view, copied (the recording's quality).  f and
 * d are borrowed: they outlive the browser.  Returns 0, -ENOMEM, or
 * sp_report_write's errors (-SP_ENOTFOUND: no function of o's callers'
 * or callees' name was sampled).
 */
int sp_browse_new(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_report_options *o, const char *head,
    struct sp_browse **out);

/*
 * Acts on the view last drawn: moves the selection, opens a function or
 * goes back.  Opening a row that is no function ([root], [self]) or one
 * with no sample leaves the view, with a message on its last line.
 * Returns 0, -ENOMEM or sp_report_write's errors.
 */
int sp_browse_act(struct sp_browse *b, enum sp_browse_action a);

/*
 * Draws the view on a screen of rows x cols (a terminal that takes ECMA-48
 * cursor moves and SGR reverse video), every line cut to cols - 1
 * columns: the head, the view's lines from where it is scrolled to (the
 * table's column heading held in place), the selected row in reverse
 * with '>' in its first column, and a last line of keys and where the
 * selection is.  Returns 0, -ENOMEM, sp_report_write's errors, or -EIO
 * (out could not be written).
 */
int sp_browse_draw(struct sp_browse *b, unsigned rows, unsigned cols,
    FILE *out);

/* The key of the selected row ("module`name"; NULL none), borrowed until
 * the next call. */
const char *sp_browse_selected(const struct sp_browse *b);

void sp_browse_free(struct sp_browse *b);

#ifdef __cplusplus
}
#endif

#endif
