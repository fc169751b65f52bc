/* SPDX-License-Identifier: MIT */
#ifndef SP_RECORDER_INT_H
#define SP_RECORDER_INT_H

/* The recorder, composed of its parts (docs/architecture.md, "The
 * recorder, part by part"): the events (rec_events_int.h), the drain
 * (rec_drain_int.h), the stack copy's policy (rec_adapt_int.h), the
 * targets (struct rec_targets below), and the state the handlers keep
 * (rec_process.c, rec_offcpu.c, rec_threads.c: processes, threads, the
 * exited FIFO, the frame memo).  The helpers under them (rec_emit.c,
 * rec_maps.c, rec_reuse.c, rec_module.c) get struct rec_ctx
 * (rec_ctx_int.h). */

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/buf_int.h"
#include "common/imap_int.h"
#include "perf_int.h"
#include "rec_adapt_int.h"
#include "rec_ctx_int.h"
#include "rec_decode_int.h"
#include "rec_drain_int.h"
#include "rec_events_int.h"
#include "rec_jitter_int.h"
#include "sp/record/recorder.h"
#include "unwind/unwind_int.h"

struct rec_thread {
	uint32_t tid, pid;
	uint32_t id;          /* THREAD id, 0 until first written */
	uint64_t exited;      /* time of its EXIT record, 0 alive */
	char comm[16];
	/* Its switch off CPU (--off-cpu), written at its next switch in
	 * with the time between as weight; off.time 0: none waiting. */
	struct sp_sample off;
};

/*
 * A thread (and with the leader, its process) whose EXIT record was read:
 * recording the whole system, a CPU's event still samples it as it ends
 * in the kernel (after perf_event_exit_task), so it is freed only once
 * the records reach its exit time + EXIT_GRACE_NS.
 */
#define EXIT_GRACE_NS 100000000ull
struct rec_exited {
	uint32_t tid, pid;
	uint64_t time;
};

/*
 * The FRAME id of a user return address, as user_frame last gave it: a
 * sample's frames are nearly all those of the samples before it, and a
 * hit skips the mapping's search and the writer's lookup.  Valid while
 * gen is the context's maps_gen (no process's mappings changed since).
 */
#define FRAME_MEMO 4096u /* power of two */
struct frame_memo {
	uint64_t ip;
	uint64_t gen;             /* 0: empty */
	uint32_t pid;
	uint32_t frame;
};

/* What the recorder was asked to record, and the threads it covers. */
struct rec_targets {
	uint32_t *pids;           /* the processes asked for */
	size_t n, cap;
	struct sp_imap covered;   /* tids with events (opened or inherited) */
	int system;               /* every process (attach_system), or of
	                           * a cgroup (attach_cgroup) */
	int wrote_recording;      /* the RECORDING record is out */
	uint64_t last_scan;       /* the last rescan of their threads */
	uint32_t attach;          /* sp_recorder_attach calls so far: the
	                           * one under way, in rec_proc followed_by */
};

struct sp_recorder {
	struct rec_ctx ctx;
	uint64_t jit_top;         /* most jit_cut of one process so far */
	char jit_runtime[32];     /* that process's executable name */
	uint32_t jit_pid;         /* that process */
	char jit_args[256];       /* its arguments, read when it took the
	                           * lead: the advice's options */
	struct sp_recorder_opts o;
	struct rec_events ev;     /* events and rings */
	struct sp_imap procs;     /* pid -> struct rec_proc */
	struct sp_imap threads;   /* tid -> struct rec_thread */
	struct rec_targets tg;    /* what was asked for (rec_targets.c) */
	int need_sweep;
	uint64_t paused_at;       /* when sampling was last turned off, 0:
	                           * never; a switch off CPU held from before
	                           * then has no switch in to time it */
	struct rec_adapt adapt;   /* the stack copy's size without -s */
	struct rec_jitter jitter; /* the sampling intervals' */
	uint32_t kernel_module;   /* MODULE id of [kernel.kallsyms], 0 unset */
	uint32_t truncated_frame; /* FRAME id of the marker, 0 unset */
	struct rec_exited *exited; /* FIFO, by time, from exited_head */
	size_t nexited, capexited, exited_head;
	struct rec_drain drain;   /* the records of one drain, by time */
	uint64_t *ips;            /* unwinder output, max_frames */
	uint64_t *uchain;         /* a sample's user callchain from the
	                           * kernel (Go: spi_events_user_chains),
	                           * max_frames */
	size_t nuchain;
	uint32_t *frames;         /* frame ids for one stack */
	struct frame_memo *fmemo; /* FRAME_MEMO user frames, by pid and ip */
	struct sp_counter counters[C_COUNT_];
};

/* CLOCK_MONOTONIC now, in ns: the clock of the events' records. */
static inline uint64_t
spi_rec_mono_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* rec_targets.c: after lost records, each target's threads and maps
 * read again from /proc (the whole system: the processes gone freed).
 * 0, -ENOMEM or the writer's error. */
int spi_rec_sweep(struct sp_recorder *r);
/* Threads that inheritance cannot cover (created between listing
 * /proc/PID/task and opening their events when attaching without
 * stopping, or any when asked), and processes that ended with their EXIT
 * records unseen, looked for once a second.  0 or -errno. */
int spi_rec_rescan_threads(struct sp_recorder *r, int asked);

/* rec_process.c: one perf record into the spool.  0, -ENOMEM or the
 * writer's error (a malformed record is counted and skipped). */
int spi_rec_process(struct sp_recorder *r, const uint8_t *rec, size_t len);

/* rec_offcpu.c, --off-cpu: writes the switches out still waiting, as off
 * CPU until end (CLOCK_MONOTONIC ns), of threads that did not exit.  0 or
 * the writer's error. */
int spi_rec_off_cpu_end(struct sp_recorder *r, uint64_t end);
/* Drops the waits off the CPU held since before time before (a pause:
 * their switch in went unseen), counted unmatched. */
void spi_rec_off_cpu_forget(struct sp_recorder *r, uint64_t before);
/* A switch off CPU of tid, sample s (its stack and thread written), waits
 * for the thread's switch in.  0. */
int spi_rec_hold_off_cpu(struct sp_recorder *r, uint32_t tid,
    const struct sp_sample *s);
/* PERF_RECORD_SWITCH(_CPU_WIDE) of d->tid: a switch in writes the sample
 * waiting, a switch out of a thread still runnable makes it a preempted
 * one.  0 or the writer's error. */
int spi_rec_on_switch(struct sp_recorder *r, const struct rec_decoded *d,
    uint16_t misc);

/* rec_threads.c: a followed process by pid (made when make; NULL when
 * not followed, or out of memory). */
struct rec_proc *spi_rec_proc_get(struct sp_recorder *r, uint32_t pid,
    int make);
/* Follows pid from now on, its mappings read from /proc (the whole
 * system: one whose start was not seen).  *out is NULL when it is gone
 * (its samples are not recorded).  0, -ENOMEM or the writer's error. */
int spi_rec_adopt(struct sp_recorder *r, uint32_t pid, struct rec_proc **out);
/* Names thread tid of pid from /proc now (its samples may be read after
 * it exited, when /proc has no name left).  0 or -ENOMEM. */
int spi_rec_name_thread(struct sp_recorder *r, uint32_t pid, uint32_t tid);
/* Its first half: *out followed, its /proc/PID/maps in *buf for
 * spi_rec_add_maps (NULL: refused, or *out NULL: gone). */
int spi_rec_adopt_read(struct sp_recorder *r, uint32_t pid,
    struct rec_proc **out, char **buf, size_t *len);
/* The THREAD id of (pid, tid), its record written on first use and after
 * a rename.  0, -ENOMEM or the writer's error. */
int spi_rec_thread_id(struct sp_recorder *r, uint32_t pid, uint32_t tid,
    uint32_t *id);
/* Frees the whole system's threads and processes that exited before
 * now - EXIT_GRACE_NS. */
void spi_rec_reap(struct sp_recorder *r, uint64_t now);
/* The lifecycle records, decoded: MMAP2, COMM, and FORK (fork) or EXIT.
 * 0, -ENOMEM or the writer's error. */
int spi_rec_on_mmap2(struct sp_recorder *r, const struct rec_decoded *d);
int spi_rec_on_comm(struct sp_recorder *r, const struct rec_decoded *d);
int spi_rec_on_task(struct sp_recorder *r, const struct rec_decoded *d,
    int fork);
/* Target pid is gone from /proc and no EXIT record said so (it was lost,
 * or came before its events could deliver it): its exit is written now,
 * as the record's would have been.  0 or the writer's error. */
int spi_rec_exit_unseen(struct sp_recorder *r, uint32_t pid);

#endif
