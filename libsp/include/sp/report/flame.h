/* SPDX-License-Identifier: MIT */
#ifndef SP_FLAME_H
#define SP_FLAME_H

/*
 * Flame graphs from folded stacks.  The input is the text that sp-fold,
 * stackcollapse-perf.pl and inferno write, and flamegraph.pl, inferno
 * and speedscope read: one line per stack,
 *
 *   root;caller;...;leaf COUNT
 *
 * frames root first, separated by ';', then one or more blanks and a
 * sample count.  What this reader accepts, line by line, as flamegraph.pl
 * does:
 *   - every ';' separates frames; a name has no escapes (sp-fold writes
 *     a ';' inside a name as ':', as stackcollapse-perf and perf's
 *     stackcollapse.py do).  Names may contain spaces: the count is what
 *     follows the last blank.
 *   - a count is decimal digits, optionally with a fraction ("1.5",
 *     "2."), kept to SP_FLAME_DECIMALS_MAX decimals (more are dropped).
 *   - trailing blanks and one CR before the newline are ignored; blank
 *     lines are skipped without being counted as bad.
 *   - a count of 0 is accepted and adds nothing (no frames are made).
 *   - bad lines are skipped, counted, and the first SP_FLAME_BAD_KEEP are
 *     kept with their line number and reason (sp_flame_bad): no count, a
 *     count that is not a number or whose digits pass 2^64 - 1 (alone or
 *     added to the samples before it), an empty stack or frame name, a
 *     NUL byte, more than SP_FLAME_DEPTH_MAX frames, more than
 *     SP_FLAME_LINE_MAX bytes.
 *   - lines that begin with '#' before the first stack are comments
 *     (flamegraph.pl skips them as bad lines, speedscope as no stack);
 *     "# countname: NAME" and "# title: TEXT" among them, which sp-fold
 *     writes when its counts are not samples of time (off-CPU
 *     nanoseconds, an event's count), say what the counts are
 *     (sp_flame_header).
 * Totals are exact: integers while every count is one, else in units of
 * 10^-sp_flame_decimals() samples (the most decimals of any count).
 * Memory stays bounded: one line at a time (at most SP_FLAME_LINE_MAX
 * bytes) is held besides the tree, and the tree holds at most
 * SP_FLAME_NODES_MAX frames and SP_FLAME_NAMES_MAX bytes of names.
 *
 * Equal stacks merge into one tree of frames (a frame per distinct
 * root-to-frame path); the SVG writer draws the tree, not the lines, so
 * thousands of stacks make one element per visible frame.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sp/common/error.h"
#include "sp/common/opts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_FLAME_LINE_MAX 65536          /* bytes of a line, no newline */
#define SP_FLAME_DEPTH_MAX 1024          /* frames of a stack */
#define SP_FLAME_NODES_MAX ((size_t)4 << 20)     /* distinct frames */
#define SP_FLAME_NAMES_MAX ((size_t)256 << 20)   /* bytes of names */
#define SP_FLAME_BAD_KEEP 16             /* bad lines kept for reports */
#define SP_FLAME_DECIMALS_MAX 9          /* decimals of a count kept */
#define SP_FLAME_HEADER_MAX 128          /* bytes of a header's value */

struct sp_flame;
struct sp_demangle;

struct sp_flame_bad {
	uint64_t line;      /* 1-based line number */
	const char *why;    /* static text, e.g. "count is not a number" */
};

/* Returns 0 with an empty tree in *out (free with sp_flame_free), or
 * -ENOMEM. */
int sp_flame_new(struct sp_flame **out);

/* Frees the tree; accepts NULL. */
void sp_flame_free(struct sp_flame *f);

/*
 * Adds the lines in buf[0..len) (a piece of the input of any size: a
 * line may span pieces; it is held until its newline or sp_flame_end).
 * Returns 0 (bad lines are not errors: see sp_flame_bad), -ENOMEM,
 * -SP_ELIMIT when the tree would pass SP_FLAME_NODES_MAX frames or
 * SP_FLAME_NAMES_MAX bytes of names, or -SP_EFORMAT when the input is a
 * stackpulse spool (its first line is SP_MAGIC's), not folded text;
 * after an error the tree must only be freed.
 */
int sp_flame_feed(struct sp_flame *f, const char *buf, size_t len);

/* Adds a last line that had no newline.  Returns as sp_flame_feed. */
int sp_flame_end(struct sp_flame *f);

/* sp_flame_new, sp_flame_feed of all of text, sp_flame_end. */
int sp_flame_parse(const char *text, size_t len, struct sp_flame **out);

/* Samples of all stacks (the root's width), in 10^-sp_flame_decimals()
 * samples. */
uint64_t sp_flame_samples(const struct sp_flame *f);

/* What the input's header said the counts are ("ns", "page-faults") and
 * its title; "" for what it did not say.  Valid as f is. */
const char *sp_flame_countname(const struct sp_flame *f);
const char *sp_flame_title(const struct sp_flame *f);

/* Decimals of the tree's unit: 0 while every count was an integer, else
 * the most decimals of a count (at most SP_FLAME_DECIMALS_MAX). */
unsigned sp_flame_decimals(const struct sp_flame *f);

/* Frames whose name says its module as "module`function" (what
 * sp-fold --modules writes, and DTrace and bcc): with none, --colors
 * module has only unsymbolized frames to colour. */
size_t sp_flame_module_frames(const struct sp_flame *f);

/* Distinct frames in the tree, the root not counted. */
size_t sp_flame_frames(const struct sp_flame *f);

/* Lines read so far (blank and bad ones included). */
uint64_t sp_flame_lines(const struct sp_flame *f);

/* Number of bad lines skipped. */
size_t sp_flame_bad_count(const struct sp_flame *f);

/* The i-th bad line in input order, for i < SP_FLAME_BAD_KEEP and
 * i < sp_flame_bad_count, else NULL.  Valid until sp_flame_free. */
const struct sp_flame_bad *sp_flame_bad(const struct sp_flame *f, size_t i);

/*
 * The samples of the frame at path[0..depth) (names root first, depth 0
 * is the root), in *samples (in the unit of sp_flame_samples): the
 * frame's own samples plus those of every frame above it.  Returns 0 or
 * -SP_ENOTFOUND.
 */
int sp_flame_lookup(const struct sp_flame *f, const char *const *path,
    size_t depth, uint64_t *samples);

enum sp_flame_colors {
	SP_FLAME_HOT,       /* warm colours, stable per name */
	SP_FLAME_MODULE,    /* one hue per module (see sp-flame(1)) */
	SP_FLAME_LANG,      /* by language: native, Python, kernel, JIT */
};

struct sp_flame_svg_opts {
	/* sizeof(struct sp_flame_svg_opts), or 0 for the 0.5.0 struct;
	 * fields past sz read as 0 (sp/common/opts.h) */
	size_t sz;
	const char *title;  /* NULL: "Flame Graph" or "Icicle Graph" */
	const char *countname; /* what the counts are, NULL: "samples" */
	unsigned width;     /* pixels, 0: 1200; at most 100000 */
	int icicle;         /* root at the top, callees below */
	enum sp_flame_colors colors;
	double minwidth;    /* frames narrower (pixels) are left out */
	/* Differential graph: colour each frame by the change of its share
	 * of all samples from this profile (red: grew, blue: shrank); NULL
	 * for none.  colors is then ignored.  Frames only in before are
	 * drawn too ("0 samples"), as wide as their share of before; each
	 * frame is as wide as the larger of its two shares and its callees
	 * side by side (data-n is that width, in samples). */
	const struct sp_flame *before;
	/* NULL, or a demangler (sp/report/demangle.h) that has run on the names:
	 * each frame is shown (label, title, colour) as it gives the name. */
	const struct sp_demangle *demangle;
};

/* The defaults above (width 1200, minwidth 0.1, hot colours), sz set. */
void sp_flame_svg_defaults(struct sp_flame_svg_opts *o);

/*
 * Writes f as a self-contained SVG document (inline style and script,
 * nothing fetched) to out: one <g class="f"> per frame at least
 * o->minwidth pixels wide, with a <title> "NAME (N samples, P%)" (N with
 * o->countname for "samples";
 * its decimals when the counts had any), a
 * <rect> and a label; every name XML-escaped, bytes that are not UTF-8
 * written as U+FFFD.  Returns 0, -SP_EUSAGE for bad options (an o->sz
 * it cannot read too: sp/common/opts.h), -SP_ENOTFOUND
 * when f has no samples, -ENOMEM, or -EIO when out reports a write error.
 */
int sp_flame_svg(const struct sp_flame *f, const struct sp_flame_svg_opts *o,
    FILE *out);

#ifdef __cplusplus
}
#endif

#endif
