/* SPDX-License-Identifier: MIT */
#ifndef SP_SPEEDSCOPE_H
#define SP_SPEEDSCOPE_H

/*
 * A fold's samples as a speedscope profile (speedscope's file format,
 * https://www.speedscope.app/file-format-schema.json): one sampled
 * profile per thread, named "comm (pid PID, tid TID)", its samples in
 * the order they were taken, so that speedscope's "Time Order" view shows
 * what each thread did when.  A sample's stack is its folded stack (the
 * fold's options: filters, hidden frames, inline expansion, demangling,
 * kernel marks), root first, frames shared by name; each weighs the
 * sampling period in nanoseconds (the RECORDING rate, else the header's
 * interval, else 1 with unit "none").  A profile's startValue and
 * endValue are its first sample's time and its last one's plus the
 * period, from the first sample of the spool.  The fold must have been
 * made with SP_FOLD_ORDER.
 */

#include <stdio.h>

#include "sp/fold.h"

/*
 * Writes the profile of f (counting done) to out, with d the definitions
 * of the whole spool and h its header; name (may be NULL) names the
 * profile group.  Returns 0, -SP_EUSAGE (f without SP_FOLD_ORDER), -EIO
 * when out reports an error, -ENOMEM, or -SP_EREF.
 */
int sp_speedscope_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, const char *name, FILE *out);

#endif
