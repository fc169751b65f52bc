/* SPDX-License-Identifier: MIT */
#ifndef SP_REPORT_H
#define SP_REPORT_H

/*
 * "What is hot, and who calls it": a fold's samples as a table of
 * functions by their self and total share (perf report --stdio's and
 * pprof -top's question), or grouped by module, process, thread or comm,
 * or the call paths into and out of one function (perf report's call
 * graph, pprof -peek), as text that fits the width given.
 *
 * Functions are named as sp-fold names them (the fold's options:
 * demangling, inline expansion, hidden frames, filters).  A function's
 * self share is that of the samples it is the leaf of, its total share
 * that of the samples it is anywhere in (once per sample, however deep
 * the recursion).  The fold must be made with SP_FOLD_MODULES and
 * SP_FOLD_ROOT_THREAD, which name each frame's module and each sample's
 * thread.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sp/common/opts.h"
#include "sp/report/fold.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sp_report_sort {
	SP_REPORT_SYMBOL = 0,  /* functions, by self share */
	SP_REPORT_TOTAL,       /* functions, by total share (--children) */
	SP_REPORT_MODULE,      /* modules, by self share */
	SP_REPORT_PID,         /* processes */
	SP_REPORT_TID,         /* threads */
	SP_REPORT_COMM,        /* thread names */
};

struct sp_report_options {
	/* sizeof(struct sp_report_options), or 0 for the 0.5.0 struct;
	 * fields past sz read as 0 (sp/common/opts.h) */
	size_t sz;
	enum sp_report_sort sort;
	double percent_limit;  /* rows under this share (%) are left out */
	unsigned max_rows;     /* 0: no limit */
	unsigned width;        /* columns; 0: 80 */
	/* Not NULL: the callers (or callees) of the functions of that name
	 * instead of the table: the name as the table shows it, or
	 * "module`name". */
	const char *callers, *callees;
	/* Not NULL: called with each function row's key (its folded frame,
	 * "module`name", which callers and callees take) just before the
	 * row's line is written: a browser finds the rows of its text so. */
	void (*on_row)(void *ctx, const char *key, size_t len);
	void *ctx;
};

/*
 * Writes the report of f (counting done; d the spool's definitions) to
 * out.  Returns 0, -SP_EUSAGE (f without SP_FOLD_MODULES and
 * SP_FOLD_ROOT_THREAD, or an o->sz it cannot read: sp/common/opts.h),
 * -SP_ENOTFOUND (no function of the callers' or callees' name was
 * sampled), -EIO, -ENOMEM or -SP_EREF.
 */
int sp_report_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_report_options *o, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
