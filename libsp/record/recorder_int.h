/* SPDX-License-Identifier: MIT */
#ifndef SP_RECORDER_INT_H
#define SP_RECORDER_INT_H

/* The recorder's state, shared by recorder.c (events, rings, attach,
 * the /proc sweep) and rec_process.c (what each perf record means for
 * the spool).  The helpers under them (rec_emit.c, rec_maps.c,
 * rec_reuse.c, rec_module.c) get struct rec_ctx (rec_ctx_int.h). */

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf_int.h"
#include "common/imap_int.h"
#include "perf_int.h"
#include "rec_ctx_int.h"
#include "sp/recorder.h"
#include "sp/unwind.h"

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

struct rec_event {
	int fd;
	uint32_t tid;
	int cpu;
	int sideband;         /* a dummy event for the side-band records */
	int small;            /* a sampling event with the small stack copy */
	int off_cpu;          /* a context-switch event (--off-cpu) */
};

/* The stack copy's size without -s (SP_STACK_BYTES_SMALL): every thread
 * and CPU has a sampling event of either size, the side-band records come
 * from a dummy event beside them, and one size is on at a time.  An
 * ioctl on each event switches its inherited copies with it: no event is
 * opened or closed on the way, no thread goes without or gets two. */
enum rec_adapt {
	ADAPT_OFF,    /* -s given: one size */
	ADAPT_LEARN,  /* the default copy on, walks counted */
	ADAPT_SMALL,  /* the small copy on, walks it cut counted */
	ADAPT_BIG     /* the default copy on for good */
};

/* One perf record copied out of a ring, for the merge by time. */
struct rec_item {
	uint64_t time;
	const uint8_t *rec;   /* in its ring, or NULL: at off in drain */
	size_t off;
	uint32_t len;
	uint32_t seq;         /* keeps equal times in ring order */
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

struct sp_recorder {
	struct rec_ctx ctx;
	uint64_t jit_top;         /* most jit_cut of one process so far */
	char jit_runtime[32];     /* that process's executable name */
	struct sp_recorder_opts o;
	struct perf_event_attr attr;
	const char *event_name;
	int nr_cpus;
	int *cpus;            /* online CPU numbers */
	struct sp_ring *rings; /* per CPU index; fd -1 until opened */
	size_t ring_size;
	int epfd;
	struct rec_event *events;
	size_t nevents, capevents;
	struct sp_imap procs;     /* pid -> struct rec_proc */
	struct sp_imap threads;   /* tid -> struct rec_thread */
	struct sp_imap covered;   /* tids with events (opened or inherited) */
	struct sp_imap switch_ids; /* --off-cpu: ids of the context-switch
	                           * events (PERF_SAMPLE_IDENTIFIER leads
	                           * every sample and ends every trailer) */
	int system;               /* every process (attach_system), or of
	                           * a cgroup (attach_cgroup) */
	int cgroup_fd;            /* that cgroup's directory, else -1 */
	uint32_t *targets;        /* pids asked for */
	size_t ntargets, captargets;
	int wrote_recording;
	int need_sweep;
	int enabled;              /* sampling on (sp_recorder_enable); events
	                           * opened while off open disabled */
	uint64_t paused_at;       /* when sampling was last turned off, 0:
	                           * never; a switch off CPU held from before
	                           * then has no switch in to time it */
	int at_exec;              /* opening a spawned command's events, which
	                           * start at its exec */
	int sideband;             /* the first events opened disabled: mmap,
	                           * comm and task records come from a dummy
	                           * event beside each one, never disabled */
	uint64_t last_thread_scan;
	enum rec_adapt adapt;
	uint64_t fit, unfit;      /* ADAPT_LEARN: walks the small copy holds,
	                           * walks it would not */
	uint64_t walks, cut;      /* ADAPT_SMALL: walks, and those it cut */
	uint32_t kernel_module;   /* MODULE id of [kernel.kallsyms], 0 unset */
	uint32_t truncated_frame; /* FRAME id of the marker, 0 unset */
	struct rec_exited *exited; /* FIFO, by time, from exited_head */
	size_t nexited, capexited, exited_head;
	struct sp_buf drain;
	struct rec_item *items;
	size_t nitems;
	size_t capitems;
	struct rec_item *sorted;  /* the merge's other half */
	size_t capsorted;
	uint64_t *ips;            /* unwinder output, max_frames */
	uint32_t *frames;         /* frame ids for one stack */
	struct frame_memo *fmemo; /* FRAME_MEMO user frames, by pid and ip */
	struct sp_counter counters[C_COUNT_];
};

/* The bytes PERF_SAMPLE_IDENTIFIER adds to every record (struct sp_ring's
 * id_len): 8 with --off-cpu, whose events share the rings, else 0. */
static inline size_t
spi_rec_id_len(const struct sp_recorder *r)
{
	return r->o.off_cpu ? 8 : 0;
}

/* rec_process.c: one perf record into the spool; a followed process by
 * pid (made when make). */
int spi_rec_process(struct sp_recorder *r, const uint8_t *rec, size_t len);
/* --off-cpu: writes the switches out still waiting, as off CPU until
 * end (CLOCK_MONOTONIC ns), of threads that did not exit.  0 or the
 * writer's error. */
int spi_rec_off_cpu_end(struct sp_recorder *r, uint64_t end);
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

#endif
