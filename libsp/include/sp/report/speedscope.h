/* SPDX-License-Identifier: MIT */
#ifndef SP_SPEEDSCOPE_H
#define SP_SPEEDSCOPE_H

/*
 * A fold's samples as a speedscope profile (speedscope's file format,
 * https://www.speedscope.app/file-format-schema.json): one sampled
 * profile per thread, named "comm (pid PID, tid TID)", its samples in
 * the order they were taken, so that speedscope's "Time Order" view shows
 * what each thread did when; a thread's off-CPU samples (SP_SAMPLE_OFF_CPU)
 * make a profile of their own, named with " off-CPU", and its preempted
 * ones (SP_SAMPLE_PREEMPTED) another, named with " preempted", each
 * sample weighing its nanoseconds.  A sample's stack is its folded stack (the
 * fold's options: filters, hidden frames, inline expansion, demangling,
 * kernel marks), root first, frames shared by name; each weighs the
 * sampling period in nanoseconds (the RECORDING rate, else the header's
 * interval, else 1 with unit "none").  A profile's startValue and
 * endValue are its first sample's time and its last one's plus the
 * period, from the first sample of the spool.  The fold must have been
 * made with SP_FOLD_ORDER.
 */

#include <stdio.h>

#include "sp/report/fold.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Writes the profile of f (counting done) to out, with d the definitions
 * of the whole spool and h its header; name (may be NULL) names the
 * profile group.  Returns 0, -SP_EUSAGE (f without SP_FOLD_ORDER), -EIO
 * when out reports an error, -ENOMEM, or -SP_EREF.
 */
int sp_speedscope_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, const char *name, FILE *out);

/*
 * The same samples as Chrome's trace event format (the JSON object form:
 * traceEvents, displayTimeUnit), which Perfetto, chrome://tracing and
 * speedscope open: a track per thread (a thread_name metadata event,
 * its comm), on it a complete event ("X") per frame for as long as the
 * samples in a row keep it on their stack, root first: a CPU sample
 * covers the sampling period before its time (category "cpu"), an
 * off-CPU one its nanoseconds after it, under a leaf "[off-cpu]"
 * (category "off-cpu"), a preempted one likewise under "[preempted]"
 * (category "preempted"); a gap of more than a period between a thread's
 * samples ends its frames.  Times in microseconds from the first sample
 * less a period.  Returns as sp_speedscope_write.
 */
int sp_chrome_trace_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
