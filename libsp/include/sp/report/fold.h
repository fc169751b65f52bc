/* SPDX-License-Identifier: MIT */
#ifndef SP_FOLD_H
#define SP_FOLD_H

/*
 * Folding: counts a spool's samples by (stack, root) in one pass, then
 * walks each distinct stack once to print it as "folded stacks", the text
 * that flamegraph.pl, inferno and speedscope read:
 *
 *   root;caller;...;leaf COUNT
 *
 * one line per distinct stack, root first, lines sorted bytewise.  A frame
 * prints as its function name when sp-sym named it (demangled when the
 * options give a demangler, sp/report/demangle.h), else as "module+0xOFFSET"
 * (sp_format_frame).  Inline chains expand into one
 * frame per logical frame, outermost first.  Kernel frames end in "_[k]"
 * (stackcollapse-perf's mark, which flame graph colourings know).  With
 * SP_FOLD_MODULES a named frame starts with its module, "module`function"
 * (DTrace's and bcc's form).  Names are written so that every reader
 * (flamegraph.pl, inferno, speedscope, sp-flame) splits a line at each
 * ';' and at its last ' ' into whole frames: a ';' inside a name becomes
 * ':' (as stackcollapse-perf and perf's stackcollapse.py write it),
 * newline "\n", CR "\r", other bytes below 0x20 "\xNN"; '\' and every
 * other byte are kept as they are.
 *
 * Markers (frames that are not code): "[truncated]" is the root of a stack
 * the unwinder could not finish (the spool's marker frame), "[deeper]" the
 * leaf of a stack cut by max_depth, "[unknown]" the only frame of a sample
 * with an empty stack.
 */

#include <stdint.h>
#include <stdio.h>

#include "sp/common/opts.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_demangle;

enum sp_fold_flag {
	SP_FOLD_SHOW_HIDDEN = 1 << 0, /* keep frames flagged SP_SYM_HIDDEN */
	SP_FOLD_NO_INLINE = 1 << 1,   /* one frame per machine frame */
	SP_FOLD_LINES = 1 << 2,       /* append ":file:line" when known */
	SP_FOLD_USER_ONLY = 1 << 3,   /* drop kernel frames */
	SP_FOLD_KERNEL_ONLY = 1 << 4, /* drop user frames and the marker */
	SP_FOLD_PID = 1 << 5,         /* only samples of pid */
	SP_FOLD_TID = 1 << 6,         /* only samples of tid */
	SP_FOLD_FROM = 1 << 7,        /* only samples at or after from_ns */
	SP_FOLD_TO = 1 << 8,          /* only samples before to_ns */
	SP_FOLD_MODULES = 1 << 9,     /* "module`function" for named frames */
	SP_FOLD_ORDER = 1 << 10,      /* also keep every counted sample, in
	                               * order (sp_fold_order: timelines) */
	SP_FOLD_CPU = 1 << 11,        /* only samples taken on cpu */
};

/*
 * Which time a fold counts, for spools with off-CPU samples (sp-record
 * --off-cpu).  CPU samples count one each, off-CPU (blocked) and
 * preempted ones the nanoseconds their thread was off CPU; counted
 * together, a CPU sample stands for the sampling period in nanoseconds,
 * an off-CPU stack gets the root "[off-cpu]" and a preempted one the
 * root "[preempted]" (outside the process or thread root).
 */
enum sp_fold_time {
	SP_FOLD_TIME_AUTO = 0, /* ON_CPU, or BOTH when off-CPU or preempted
	                        * samples were counted */
	SP_FOLD_TIME_ON_CPU,   /* CPU samples, counts in samples */
	SP_FOLD_TIME_OFF_CPU,  /* off-CPU samples (blocked), counts in
	                        * nanoseconds */
	SP_FOLD_TIME_BOTH,     /* all three, counts in nanoseconds */
	SP_FOLD_TIME_PREEMPTED, /* preempted samples (waiting for a CPU),
	                        * counts in nanoseconds */
};

enum sp_fold_root {
	SP_FOLD_ROOT_NONE = 0,
	SP_FOLD_ROOT_PROCESS,  /* "comm-PID" */
	SP_FOLD_ROOT_THREAD,   /* "comm-PID/TID" */
};

struct sp_fold_options {
	/* sizeof(struct sp_fold_options), or 0 for the 0.5.0 struct;
	 * fields past sz read as 0 (sp/common/opts.h) */
	size_t sz;
	unsigned flags;        /* enum sp_fold_flag */
	enum sp_fold_root root;
	uint32_t pid, tid;
	uint32_t cpu;          /* with SP_FOLD_CPU */
	const char *comm;      /* NULL: any; else the thread's comm, exactly */
	/* Nanoseconds since the header's start_mono_ns. */
	uint64_t from_ns, to_ns;
	/*
	 * 0: no limit.  Else keep the max_depth frames nearest the root
	 * (the root marker counts, the comm root does not) and print
	 * "[deeper]" as the leaf of every stack that was cut.
	 */
	uint32_t max_depth;
	enum sp_fold_time time;
	/*
	 * NULL: names as the spool has them.  Else function names are
	 * written as this demangler gives them (sp_demangle_get), by
	 * sp_fold_write and sp_pprof_write (whose Function keeps the
	 * mangled one as system_name); it must outlive the fold, and have
	 * run on the names before they are written.
	 */
	const struct sp_demangle *demangle;
};

struct sp_fold_stats {
	uint64_t samples;      /* samples offered */
	uint64_t filtered;     /* rejected by pid, tid, comm, time or the
	                          time they count (sp_fold_time) */
	uint64_t off_cpu;      /* off-CPU (blocked) samples offered */
	uint64_t off_cpu_ns;   /* the nanoseconds they count */
	uint64_t counted;      /* samples in the counts */
	uint64_t empty;        /* counted, but no frames were left after
	                          SP_FOLD_USER_ONLY/KERNEL_ONLY: not printed */
	uint64_t stacks;       /* distinct (stack, root) pairs */
	uint64_t first_ns, last_ns; /* times of the first and last counted
	                          sample (stream clock; 0 when none) */
	uint64_t span_first_ns, span_last_ns; /* earliest and latest sample
	                          offered, filtered or not, in nanoseconds
	                          since start_mono_ns as from_ns (0: none) */
	uint64_t preempted;    /* preempted samples offered */
	uint64_t preempted_ns; /* the nanoseconds they count */
};

struct sp_fold;

/*
 * Creates a fold with options o (copied; o->comm must outlive the fold)
 * for a spool with header h (start_mono_ns is the time base).  Returns 0,
 * -SP_EUSAGE for contradictory options (USER_ONLY with KERNEL_ONLY), a
 * root or time out of range or an o->sz it cannot read (sp/common/
 * opts.h), or -ENOMEM.
 */
int sp_fold_new(const struct sp_fold_options *o, const struct sp_header *h,
    struct sp_fold **out);

/*
 * Counts sample s, whose thread and stack are defined in d (the reader's
 * definitions so far).  Returns 0, -SP_EREF for an undefined thread or
 * stack, -SP_ELIMIT past 2^30 roots, or -ENOMEM.  A sample of an
 * unknown kind is filtered.
 */
int sp_fold_sample(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_sample *s);

/*
 * Counts every sample of r, reading it to its end.  Returns 0, or the
 * reader's error (sp_replay_diag has the offset and reason), or -ENOMEM.
 * A truncated spool counts its intact prefix (sp_replay_status says so).
 */
int sp_fold_replay(struct sp_fold *f, struct sp_replay *r);

/* Counts every sample of s.  Returns 0 or -ENOMEM. */
int sp_fold_snapshot(struct sp_fold *f, const struct sp_snapshot *s);

/*
 * Writes the folded stacks to out, using d, the definitions of the whole
 * spool (after the last sample).  Returns 0, -EIO when out reports an
 * error, or -ENOMEM.
 */
int sp_fold_write(struct sp_fold *f, const struct sp_defs *d, FILE *out);

void sp_fold_get_stats(const struct sp_fold *f, struct sp_fold_stats *st);

/* Frees f.  f may be NULL. */
void sp_fold_free(struct sp_fold *f);

/*
 * For exporters (sp/report/pprof.h): one counted (stack, root) pair.  group is 0
 * without a root, else the group's id for sp_fold_group.
 */
struct sp_fold_entry {
	uint32_t stack;        /* NODE id, 0 empty */
	uint32_t group;
	uint64_t count;        /* in sp_fold_unit's unit */
	uint32_t kind;         /* enum sp_sample_kind: on CPU, off CPU
	                        * (blocked) or preempted */
};

/*
 * Before sp_fold_write's stacks, where the counts are not samples of time:
 * "# countname: ns" and "# title: Off-CPU Time (blocked)" for off-CPU,
 * preempted or both times, "# countname: EVENT" and a title for an event
 * that counts (sp_fold_counts_events); nothing for CPU samples, nor when
 * no sample was counted (the output stays empty).  sp-flame
 * reads them (sp/report/flame.h); flamegraph.pl skips them as bad lines.
 * 0 or -EIO.
 */
int sp_fold_write_header(const struct sp_fold *f, const struct sp_defs *d,
    FILE *out);

/*
 * What a CPU sample of the spool stands for: 1 when it weighs the events
 * of an event that counts (sp-record -e page-faults: its count is
 * events), 0 when it is one sampling period of time.  *event: the
 * recording's event ("cpu-clock", "page-faults"; len 0 when the spool
 * does not say), valid as d is.
 */
int sp_fold_counts_events(const struct sp_defs *d, struct sp_str *event);

/*
 * The time f counts (AUTO resolved by the samples counted so far), and
 * with period_ns not NULL, the nanoseconds a CPU sample stands for
 * (counted with BOTH; d the spool's definitions).
 */
enum sp_fold_time sp_fold_unit(const struct sp_fold *f,
    const struct sp_defs *d, uint64_t *period_ns);

/* A root: its pid, tid (0 for SP_FOLD_ROOT_PROCESS), host and comm. */
struct sp_fold_group {
	uint32_t host, pid, tid;
	uint32_t comm;         /* STRING id, 0 unknown */
};

/*
 * The counted pairs, in no particular order, into *out and their number
 * into *n; valid until the next sp_fold_sample or sp_fold_free.  d is the
 * definitions of the whole spool.  Returns 0, -SP_EREF, -SP_ELIMIT (as
 * sp_fold_sample) or -ENOMEM.
 */
int sp_fold_entries(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_fold_entry **out, size_t *n);

/* Group id (1..) of an entry, or NULL. */
const struct sp_fold_group *sp_fold_group(const struct sp_fold *f,
    uint32_t group);

const struct sp_fold_options *sp_fold_options(const struct sp_fold *f);

/* A counted sample, for timelines (SP_FOLD_ORDER). */
struct sp_fold_sampled {
	uint64_t time;         /* CLOCK_MONOTONIC ns, 0 unknown */
	uint32_t thread;       /* THREAD id */
	uint32_t stack;        /* NODE id, 0 empty */
	uint32_t kind;         /* enum sp_sample_kind */
	uint64_t weight;       /* 1 for a CPU sample, else nanoseconds */
};

/*
 * With SP_FOLD_ORDER, the counted samples in the order they were counted
 * (a spool's order: by time within a host), valid until the next
 * sp_fold_sample or sp_fold_free; else none.
 */
void sp_fold_order(const struct sp_fold *f, const struct sp_fold_sampled **out,
    size_t *n);

/* Marker pseudo frame ids in sp_fold_frames' output. */
#define SP_FOLD_DEEPER UINT32_MAX
#define SP_FOLD_UNKNOWN (UINT32_MAX - 1)

/*
 * The machine frames of stack that the options keep (those of the other
 * mode dropped, and hidden ones in a stack with a Python frame, except
 * the leaf), root first, into *frames (grown with
 * realloc as needed; *cap its capacity in elements; both start as
 * NULL/0).  A stack 0 gives one SP_FOLD_UNKNOWN.  When max_locations is
 * not 0 and more frames remain, keeps the max_locations frames nearest
 * the root and appends SP_FOLD_DEEPER.  Stores the count in *n (0 when
 * every frame was dropped).  Returns 0, -SP_EREF or -ENOMEM.
 */
int sp_fold_frames(const struct sp_fold *f, const struct sp_defs *d,
    uint32_t stack, uint32_t max_locations, uint32_t **frames, size_t *cap,
    size_t *n);

#ifdef __cplusplus
}
#endif

#endif
