/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_EVENTS_INT_H
#define SP_REC_EVENTS_INT_H

/*
 * The recorder's perf events and their rings: one ring per online CPU,
 * into which every event of that CPU writes (PERF_EVENT_IOC_SET_OUTPUT).
 * Per thread (or, for the whole system or a cgroup, per CPU for every
 * task) and CPU: a sampling event of each stack copy size in question
 * (rec_adapt_int.h), a dummy event for the side-band records where the
 * sampling events may be off, and with --off-cpu a context-switch event.
 * rec_events.c owns all of it; recorder.c asks it to open, switch and
 * close, and reads the rings.
 */

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "common/imap_int.h"
#include "perf_int.h"
#include "rec_ctx_int.h"
#include "rec_evsel_int.h"
#include "rec_jitter_int.h"
#include "sp/record/recorder.h"

/*
 * The oldest kernel the recorder supports, by the newest perf_event
 * feature it cannot do without: context-switch records (4.3), after
 * CLOCK_MONOTONIC timestamps (use_clockid, 4.1), mmap2 and comm_exec
 * (3.16) and user registers and stacks (3.7).  docs/limits.md has the
 * table of every feature with its kernel.
 */
#define SPI_KERNEL_MIN_MAJOR 4
#define SPI_KERNEL_MIN_MINOR 3

/* Whether release (uname -r: "6.1.0-41-amd64", "4.19.0") is at least
 * SPI_KERNEL_MIN_*: 1, 0, or -1 when it does not begin with a version. */
int spi_kernel_supported(const char *release);
/* Whether release is at least major.minor: 1, 0, or -1 as above. */
int spi_kernel_at_least(const char *release, unsigned long major,
    unsigned long minor);

struct rec_event {
	int fd;
	uint32_t tid;
	int cpu;
	int sideband;         /* a dummy event for the side-band records */
	int small;            /* a sampling event with the small stack copy */
	int off_cpu;          /* a context-switch event (--off-cpu) */
	uint32_t id;          /* jittered, a sampling event's (IOC_ID) */
	uint64_t ns;          /* jittered, its interval for life */
};

struct rec_events {
	struct rec_ctx *ctx;      /* the log, and the ring counters */
	struct perf_event_attr attr; /* the sampling events' */
	const char *name;         /* the event's: "cycles", or "cpu-clock"
	                           * after a fallback, or the one asked for */
	struct rec_evsel sel;     /* what was asked for (o->event); an
	                           * event that is no clock counts: its
	                           * samples weigh the events since the last
	                           * (PERF_SAMPLE_PERIOD) */
	int fp;                   /* user stacks are the kernel's frame-
	                           * pointer chains: no registers, no copy */
	unsigned stack_bytes;     /* the default copy's size (-s) */
	int kernel;               /* kernel callchains asked for */
	int user_chains;          /* the kernel's user callchains too (a Go
	                           * program's: spi_events_user_chains) */
	int off_cpu;              /* --off-cpu: context-switch events */
	struct rec_jitter *jitter; /* the intervals', NULL: fixed */
	int nr_cpus;
	int *cpus;                /* online CPU numbers (of those asked) */
	int bad_cpu;              /* one asked for that is not online */
	struct sp_ring *rings;    /* per CPU index; fd -1 until mapped */
	size_t ring_size;         /* the next ring's: the mlock limits may
	                           * have halved it (map_ring) */
	size_t ring_size_asked;   /* as sized for the options, before any */
	int epfd;                 /* readable when a ring wakes */
	int cgroup_fd;            /* events of every task are that cgroup's;
	                           * -1: the whole system's */
	struct rec_event *v;
	size_t n, cap;
	struct sp_imap first;     /* tid (UINT32_MAX: every task's) -> 1 +
	                           * the index in v of its first event */
	struct sp_imap sampler_ids; /* jittered: a sampling event's id -> 1 +
	                           * its index in v */
	struct sp_imap switch_ids; /* ids of the context-switch events
	                           * (PERF_SAMPLE_IDENTIFIER leads every
	                           * sample and ends every trailer) */
	int enabled;              /* sampling on (sp_recorder_enable):
	                           * events opened while off open disabled */
	int small_on;             /* the small copy is the one in use */
	int at_exec;              /* opening a spawned command's events,
	                           * which start at its exec */
	int sideband;             /* the side-band records come from dummy
	                           * events: the first events opened off, or
	                           * of two sizes */
};

/*
 * Reads the online CPUs and sizes the rings for o (o->frequency and
 * o->stack_bytes resolved; o->ring_stacks 0 is chosen here and written
 * back), sampling sel, with jitter drawing the sampling events' intervals
 * (of a clock; NULL: fixed, cycles first by default).  Opens nothing but the epoll
 * descriptor.  0, -ENOMEM, or -ENODEV when a CPU o asks for is not
 * online (e->bad_cpu); then spi_events_fini frees what was made.
 */
int spi_events_init(struct rec_events *e, struct rec_ctx *ctx,
    struct sp_recorder_opts *o, const struct rec_evsel *sel,
    struct rec_jitter *jitter);
/*
 * Whether the kernel has the event asked for: opened once on this thread,
 * off, and closed.  0; or -ENOENT (also for EOPNOTSUPP, ENODEV, EINVAL: a
 * PMU event on a machine without one), with diag saying so; other errors
 * are the attaching's to report.  The default event is not tried (cycles
 * falls back to cpu-clock).
 */
int spi_events_probe(struct rec_events *e, struct sp_diag *diag);
/*
 * Asks the kernel for the user callchain of every sample too, by frame
 * pointers, before the first event is opened (later, nothing changes:
 * every event shares one sample layout).  For Go programs, whose frames
 * above a stack switch are on a stack the copy lacks (spi_unwind_splice).
 * 1 when they are on.
 */
int spi_events_user_chains(struct rec_events *e);
/* Whether samples carry the kernel's own callchain (--kernel, allowed). */
int spi_events_kernel_chains(const struct rec_events *e);
/* Closes every event and ring, frees the rest (after spi_events_init). */
void spi_events_fini(struct rec_events *e);

/*
 * Opens the events of thread tid on every CPU (tid (uint32_t)-1: of every
 * task, or the cgroup's): the sampling event of the default copy, with
 * both: of the small one too, the dummy where the side-band records need
 * it, and the context-switch event.  The first call decides whether the
 * side-band records come from dummies (both sizes, or sampling off).
 * 0 or -errno (of perf_event_open(2), the mmap, or -ENOMEM).
 */
int spi_events_open(struct rec_events *e, uint32_t tid, int both);
/* Turns the sampling events on (those of the size in use) or off, as
 * e->enabled and e->small_on say.  0 or the first -errno. */
int spi_events_switch(struct rec_events *e);
/* Closes the small copy's events: the default copy is in use for good. */
void spi_events_drop_small(struct rec_events *e);
/* Closes the events opened since there were from of them (an attach
 * that failed), with a ring one of them holds: a later event of that CPU
 * maps it anew. */
void spi_events_close_from(struct rec_events *e, size_t from);
/* Turns every event off, the side-band ones too: the end. */
void spi_events_stop(struct rec_events *e);
/* Closes every event and unmaps the rings. */
void spi_events_close(struct rec_events *e);

/*
 * Whether to keep a sample of the sampling event of id (or of a copy of
 * it, which reports its id): by the event's interval, spi_jitter_keep.
 * 1 when the intervals are fixed, or id is no sampling event's.
 */
int spi_events_keep(struct rec_events *e, uint64_t id);

/* Whether a context-switch event's sample carries id. */
static inline int
spi_events_is_switch(const struct rec_events *e, uint64_t id)
{
	return id <= UINT32_MAX &&
	    spi_imap_get(&e->switch_ids, (uint32_t)id) != NULL;
}

/* The bytes PERF_SAMPLE_IDENTIFIER adds to every record (struct sp_ring's
 * id_len): 8 with --off-cpu, whose events share the rings, or
 * jittered, whose samples are kept by their event's interval, else 0. */
static inline size_t
spi_events_id_len(const struct rec_events *e)
{
	return e->off_cpu || e->jitter != NULL ? 8 : 0;
}

#endif
