/* SPDX-License-Identifier: MIT */
#ifndef SP_PERF_SCRIPT_H
#define SP_PERF_SCRIPT_H

/*
 * A fold's samples as text in perf script's default form, which
 * speedscope, the Firefox Profiler, FlameGraph's stackcollapse-perf.pl
 * and inferno import: per sample, in the order they were taken,
 *
 *   comm PID/TID SECONDS.MICROS: PERIOD EVENT:
 *   \t    ADDRESS FUNCTION (MODULE)
 *   ...                              (leaf first)
 *   (an empty line)
 *
 * EVENT is the recording's (cpu-clock, cycles) with the sampling period
 * in nanoseconds for a CPU sample; "offcpu-time" (perf's name) with its
 * nanoseconds for one off the CPU, and "preempted-time" for time waiting
 * for one.  Importers that count events (speedscope's, stackcollapse-
 * perf.pl) give each sample 1 whatever its period.  A frame is its
 * function as the fold names it (demangled, inline chains one line each,
 * innermost first, at one address), "[unknown]" where it has no symbol;
 * MODULE is the module's path, "[kernel.kallsyms]" for the kernel's
 * frames, "[unknown]" without one.  SECONDS is CLOCK_MONOTONIC, as
 * perf's.  The fold must have been made with SP_FOLD_ORDER.
 */

#include <stdio.h>

#include "sp/report/fold.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes f's samples (counting done) to out, with d the definitions of
 * the whole spool and h its header.  Returns 0, -SP_EUSAGE (f without
 * SP_FOLD_ORDER), -EIO when out reports an error, -ENOMEM, or -SP_EREF. */
int sp_perf_script_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
