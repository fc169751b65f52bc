/* SPDX-License-Identifier: MIT */
#ifndef SP_PPROF_H
#define SP_PPROF_H

/*
 * pprof export: a fold's counts as a gzip-compressed Profile message of
 * the public profile.proto (github.com/google/pprof, proto/profile.proto),
 * the format `go tool pprof` and continuous-profiling services read.
 *
 *   sample_type  {samples, count}, and {cpu, nanoseconds} when the
 *                sampling period is known (RECORDING frequency, else the
 *                header's sample interval); period_type/period likewise;
 *                when the fold counts off-CPU time (sp_fold_unit), also
 *                {off_cpu, nanoseconds}, alone with SP_FOLD_TIME_OFF_CPU
 *                (`go tool pprof -sample_index=off_cpu` selects it), and
 *                {preempted, nanoseconds} (time waiting for a CPU) when
 *                the spool keeps preemption apart (SP_RECORDING_PREEMPTED)
 *                or has preempted samples, alone with
 *                SP_FOLD_TIME_PREEMPTED
 *   sample       one per counted (stack, root) pair: location ids leaf
 *                first (the frames sp_fold_frames keeps, max_depth counted
 *                in locations), values {count, count * period} (and 0
 *                for the other types) for CPU samples, nanoseconds in the
 *                off_cpu or preempted value (the others 0) for off-CPU
 *                or preempted ones; labels
 *                "pid", "tid" (numbers) and "comm" with a root option
 *   location     one per machine frame: mapping, abs address, and one
 *                Line per logical frame, innermost first (pprof's order,
 *                as in SYMBOL records); one Line with --no-inline.  Raw
 *                frames get a function named like sp_format_frame; the
 *                markers "[truncated]", "[deeper]", "[unknown]" are
 *                locations without mapping
 *   mapping      one per module a location uses: start, limit, file
 *                offset, path, build-id in hex
 *   function     one per (system name, file): system_name as the spool
 *                has it, name demangled when the fold's options give a
 *                demangler (sp/report/fold.h)
 *   time_nanos   the header's start_time_us; duration_nanos from the
 *                stream clock of the first and last counted sample
 */

#include <stdio.h>

#include "sp/report/fold.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Writes the profile of f (counting done) to out, with d the definitions
 * of the whole spool and h its header.  Returns 0, -EIO when out reports
 * an error, -ENOMEM, or -SP_EREF.
 */
int sp_pprof_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, FILE *out);

/*
 * As sp_pprof_write, without compression: the Profile message's bytes in
 * *out (malloc'd, the caller frees) and *len.
 */
int sp_pprof_encode(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, unsigned char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
