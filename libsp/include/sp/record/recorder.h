/* SPDX-License-Identifier: MIT */
#ifndef SP_RECORDER_H
#define SP_RECORDER_H

/*
 * The recorder: samples target threads through perf_event_open(2),
 * unwinds their user stacks as samples arrive, tracks mappings and
 * process lifecycle, and writes everything to a caller-owned spool writer.
 *
 * Events: cpu-clock at intervals drawn per event (the default), cycles at
 * fixed ones (or cpu-clock where the kernel refuses cycles), or the event
 * asked for.  One event per target thread and CPU, with inherit so
 * new threads (and, with children set, new processes) are followed; all
 * events of one CPU share that CPU's ring, and rings are drained together
 * and merged by timestamp, so an mmap or exec takes effect before the
 * samples that follow it.  A recorder turned off before it starts (see
 * sp_recorder_enable) adds a dummy event beside each, for the side-band
 * records (mmap, comm, fork, exit) that an event turned off does not get.
 */

#include <stddef.h>
#include <sys/types.h>

#include "sp/common/bundle.h"
#include "sp/common/error.h"
#include "sp/common/opts.h"
#include "sp/spool/spool.h"
#include "sp/spool/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_STACK_BYTES_DEFAULT 32768u
/* Without a stack size the recorder copies SP_STACK_BYTES_DEFAULT, and
 * SP_STACK_BYTES_SMALL once SP_STACK_LEARN_WALKS walks in a row fit in
 * it with 256 bytes to spare; it keeps the default for good after a tenth
 * as many that do not, or when more than 1 in 1000 of the recent walks
 * (and more than 2) end at the small copy's end.  The copy is made in
 * the target's time: at 10 kHz, a single thread did 10 % less work with
 * 32 KiB than with 4 KiB (bench/README.md). */
#define SP_STACK_BYTES_SMALL 4096u
#define SP_STACK_LEARN_WALKS 1000u
#define SP_STACK_BYTES_MAX 65528u      /* perf's 16-bit record size limit */
/* Ring size in samples with full stack copies, when not given: as many as
 * SP_RING_AUTO_BYTES holds over all CPUs, from SP_RING_STACKS_DEFAULT to
 * SP_RING_STACKS_AUTO_MAX (at -s 32768: 256 stacks, 8 MiB a ring, on up
 * to 2 CPUs; 64 from 8 CPUs on).  32 (perf's usual margin) lost bursts of
 * 20-75 samples at 1 kHz when the recorder went unscheduled for ~30 ms on
 * a busy 2-CPU machine; 64 still lost 0.5-1 % at 10 kHz with 8 busy
 * threads on 2 CPUs, 256 none. */
#define SP_RING_STACKS_DEFAULT 64u
#define SP_RING_STACKS_AUTO_MAX 256u
#define SP_RING_AUTO_BYTES ((size_t)16 << 20)
#define SP_RING_MAX ((size_t)256 << 20)       /* per ring */
#define SP_RING_TOTAL_MAX ((size_t)1 << 30)   /* all rings */
#define SP_FRAMES_MAX_DEFAULT 1024u
#define SP_FREQ_DEFAULT 1000u   /* Hz, when the options give 0 */
#define SP_FREQ_MAX 0xffffffffu /* perf_event_max_sample_rate */
/* sp-record's budget for files no host path reaches (keep_unreachable):
 * a container's binaries run from a few MiB to 100 or so. */
#define SP_KEEP_UNREACHABLE_DEFAULT (256ull << 20)

struct sp_recorder_opts {
	/* sizeof(struct sp_recorder_opts), or 0 for the 0.5.0 struct;
	 * fields past sz read as 0 (sp/common/opts.h) */
	size_t sz;
	unsigned frequency;    /* Hz, 0: SP_FREQ_DEFAULT, SP_FREQ_MAX: the
	                        * kernel's limit */
	unsigned stack_bytes;  /* per sample; 0: chosen as it goes, from
	                        * SP_STACK_BYTES_DEFAULT or _SMALL */
	unsigned ring_stacks;  /* ring size in stacks (room for two samples at
	                        * least), 0: by SP_RING_AUTO_BYTES */
	unsigned max_frames;   /* 0: SP_FRAMES_MAX_DEFAULT */
	int kernel;            /* kernel callchains */
	int children;          /* follow processes forked after start */
	int stop;              /* attach under SIGSTOP (the target sees it:
	                        * a blocked call returns EINTR) */
	int off_cpu;           /* also a sample at each switch of a thread
	                        * off CPU, weighed by the nanoseconds until
	                        * it runs again (SP_SAMPLE_OFF_CPU): needs
	                        * kernel events (the switch is the kernel's) */
	int fixed_intervals;   /* sample at fixed intervals, as perf does (on
	                        * cycles where there is a PMU).  0: each
	                        * sampling event counts cpu-clock at an
	                        * interval of its own, drawn once from 20 %
	                        * below 1 / frequency up to it, and each
	                        * sample is kept with the chance of its
	                        * interval over 1 / frequency: the rate is
	                        * the one asked for, and a loop whose period
	                        * the interval divides is not seen at one
	                        * phase (docs/limits.md) */
	/* What the events count, as perf spells it (perf's -e): cpu-clock,
	 * task-clock, page-faults (faults), minor-faults, major-faults,
	 * context-switches (cs), cpu-migrations (migrations), and with a PMU
	 * cycles, instructions, cache-misses, branch-misses; ":u" after one
	 * samples user time only (sp_event_info lists them).  NULL: as
	 * fixed_intervals says.  Of an event that counts something other than
	 * time, each sample weighs the events it stands for (sp_sample.weight,
	 * SP_RECORDING_COUNTS): its intervals are the kernel's, by frequency
	 * (a PMU's) or period, not drawn; and not with off_cpu, whose
	 * weights are time.  A software event that counts (faults, switches,
	 * migrations) samples every event unless period says otherwise: the
	 * kernel's frequency mode misweighs their bursts.  A PMU event the
	 * machine has not is refused (-ENOENT), never replaced. */
	const char *event;
	/* A sample every period events (perf's -c), nanoseconds of the
	 * clocks; fixed, not drawn.  0: frequency decides (or 1, above). */
	unsigned long long period;
	/* User stacks as the kernel walks them by frame pointers (perf
	 * --call-graph fp): no stack copy and no unwinding, the cheapest
	 * mode; whole only for code that keeps frame pointers.  A walk ends
	 * where one is missing, and is never counted complete (it ends in
	 * [truncated], counter unwind_fp_end): a function without a frame
	 * record (a leaf) is skipped without a trace, and the walk may still
	 * reach _start. */
	int fp_chains;
	/* The CPUs to sample on (perf's -C): events open on those only, so
	 * a thread is sampled while it runs there.  NULL: every online CPU.
	 * A CPU listed that is not online is refused. */
	const int *cpus;
	size_t ncpus;
	/* Only these threads of the processes attached (perf's -t), and the
	 * threads they start (which inherit their events); the others get
	 * no events.  The caller's, read while recording.  NULL: all. */
	const uint32_t *tids;
	size_t ntids;
	int raw_stacks;        /* also write each sample's registers and
	                        * stack bytes (RAWSTACK), for replaying the
	                        * unwinder offline; large */
	const char *command;   /* for the RECORDING record; may be NULL */
	/* Preserve perf maps, kallsyms and (if the bundle wants them) ELF
	 * files for offline symbolization; the caller's, may be NULL.  The
	 * caller calls sp_bundle_finish after sp_recorder_finish. */
	struct sp_bundle *bundle;
	/* Files sp-sym could not find on this host by the path a process
	 * mapped them by (the host has no such path, or another file
	 * there: a container's binaries, a file deleted or replaced since)
	 * are kept by build-id when a sample touches them, up to
	 * keep_unreachable bytes in all (0: none; sp-record gives
	 * SP_KEEP_UNREACHABLE_DEFAULT), with their debug files (theirs
	 * through /proc/PID/root, else this host's): in bundle when there
	 * is one, else in a bundle made at keep_dir when the first is kept
	 * (sp_bundle_beside names it; NULL: none, and they are skipped).
	 * The counters unreachable_files_kept, _bytes_kept, _files_skipped
	 * and _bytes_skipped say what came of them. */
	unsigned long long keep_unreachable;
	const char *keep_dir;
	/* Warnings (e.g. "kernel sampling denied, recording user frames
	 * only"); may be NULL.  The library prints nothing itself. */
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

struct sp_recorder;

/*
 * Threads: a recorder is one thread's at a time: every call on it,
 * sp_recorder_counters and the other readers of its state too, from one
 * thread, or with the caller's lock around each.  It starts no thread of
 * its own.  Its writer is its own while it records: put nothing else
 * into w meanwhile.  A tail (sp_recorder_tail) may be read in another
 * thread: it shares nothing with r but the file.
 */

/*
 * Creates a recorder that will write to w (still the caller's).  Checks
 * the frequency against /proc/sys/kernel/perf_event_max_sample_rate.  The
 * header's sample_interval_us is the recorder's to fill: while w has not
 * flushed yet (create w, then the recorder, then flush), it is set to the
 * interval of the rate in use (SP_FREQ_MAX resolved), of a clock's period
 * (-c), or 0 for an event that counts; a header flushed before keeps the
 * caller's, and the RECORDING record says the rate either way.  Returns 0;
 * -SP_EUSAGE for an option out of range (diag says which and the
 * permitted range) or an o->sz it cannot read (sp/common/opts.h);
 * -SP_EFREQ for a rate above the kernel's limit (diag->requested and
 * diag->permitted give both); -ENOMEM.  On failure *out is NULL (nothing
 * to free), as with every constructor of libsp.
 */
int sp_recorder_new(struct sp_writer *w, const struct sp_recorder_opts *o,
    struct sp_recorder **out, struct sp_diag *diag);

/*
 * Attaches to the running process pid: opens events for each of its
 * threads and records its mappings and threads from /proc, leaving no
 * trace the process can observe; threads started meanwhile by a thread not
 * yet covered are found by a rescan of /proc/PID/task once a second.  With
 * the stop option it is stopped with SIGSTOP meanwhile and continued (one
 * that was stopped already stays stopped).  A pid attached already is one
 * target: 0.
 * Returns 0 or -errno with diag saying what to do (ESRCH no such
 * process, EACCES/EPERM permission, naming the call refused: the events
 * or /proc/PID/maps); -SP_EUSAGE for a pid below 1.  After a failure pid
 * is no target: sp_recorder_live does not count it, nor the children the
 * attach began to follow (with children set), and their events are
 * closed.
 */
int sp_recorder_attach(struct sp_recorder *r, pid_t pid, struct sp_diag *diag);

/* How sp_recorder_attach_mode attaches. */
enum sp_attach_mode {
	SP_ATTACH_RUNNING = 0,  /* as sp_recorder_attach, never stopping it */
	SP_ATTACH_STOPPED = 1,  /* under SIGSTOP while attaching (the stop
	                         * option, for this process only) */
	SP_ATTACH_AT_EXEC = 2,  /* a child suspended before its execve
	                         * (sp_process_launch): events that start at
	                         * its exec; release it afterwards */
};

/*
 * Attaches pid in one of the modes above; a recorder may attach several
 * processes, in any modes, to one recording.  Returns as
 * sp_recorder_attach; -SP_EUSAGE for an unknown mode.
 */
int sp_recorder_attach_mode(struct sp_recorder *r, pid_t pid,
    enum sp_attach_mode mode, struct sp_diag *diag);

/*
 * SP_ATTACH_AT_EXEC: opens events on pid, a child of this process that
 * waits before its execve (sp/common/process.h), enabled by the exec (sampling
 * only if the recorder is on).  The caller then lets it exec
 * (sp_process_release).  0 or -errno with diag; -SP_EUSAGE for a pid
 * below 1 or one that is not this process's child (pid 1, the caller).
 */
int sp_recorder_attach_exec(struct sp_recorder *r, pid_t pid,
    struct sp_diag *diag);

/*
 * Records every process on every CPU (perf record -a): one event set per
 * CPU for all tasks, every process running now registered from /proc (its
 * mappings, build-ids, CFI), and every one started later from its FORK,
 * COMM and MMAP2 records; one whose start was not seen (the records were
 * lost) is registered from /proc at its first sample.  Kernel threads are
 * sampled as any task, their kernel frames as the kernel option says.
 * Files and their CFI are shared by every process that maps them, by
 * device and inode, and freed with their last mapping; a process is freed
 * at its exit (or, when that was lost, by the sweep).  The recording runs
 * until the caller stops it; sp_recorder_live counts the processes alive.
 * Not with attached processes: -SP_EUSAGE either way.  Returns 0 or
 * -errno with diag saying what to do (-EACCES: root, CAP_PERFMON or
 * perf_event_paranoid 0 or lower is needed).
 */
int sp_recorder_attach_system(struct sp_recorder *r, struct sp_diag *diag);

/*
 * As sp_recorder_attach_system, for the processes of one cgroup v2
 * directory (path, /sys/fs/cgroup/...) and its descendants (perf's cgroup
 * mode, PERF_FLAG_PID_CGROUP): those in it now (cgroup.procs), those
 * started in it later, and one moved into it (from its first sample).  A
 * process in another mount or PID namespace (a container's) is read
 * through /proc/PID/root and /proc/PID/map_files.  Returns as
 * sp_recorder_attach_system; -SP_EUSAGE (diag says so) for a path that is
 * not a cgroup v2 directory, -ENOENT when it does not exist.
 */
int sp_recorder_attach_cgroup(struct sp_recorder *r, const char *path,
    struct sp_diag *diag);

/*
 * Starts argv[0] (searched in PATH) as a child that waits before exec,
 * opens events on it that enable at exec (sampling only if the recorder
 * is on), then lets it exec, so nothing of its start is missed.  Stores
 * its pid.  The caller reaps it.
 */
int sp_recorder_spawn(struct sp_recorder *r, char *const argv[], pid_t *pid,
    struct sp_diag *diag);

/*
 * Waits up to timeout_ms for sample data, then drains every ring and
 * writes what it found.  While the small stack copy is in use and samples
 * come in it waits a few sampling periods at most, so that stacks that
 * deepen are seen soon.  Returns 0, or an error from the writer (-EPIPE,
 * -ENOSPC, ...) after which recording cannot go on.
 */
int sp_recorder_poll(struct sp_recorder *r, int timeout_ms);

/*
 * Turns sampling off (on = 0) or on: every event, the copies that new
 * threads and processes inherit from them, and events opened later
 * (threads a rescan or a sweep finds) follow.  Before the first
 * sp_recorder_spawn or sp_recorder_attach nothing is open and it only
 * records the state (and returns 0): a recorder that starts off samples
 * nothing until turned on (perf record --delay), yet follows its targets
 * all along, their mappings, execs, new threads and processes and exits,
 * through a side-band event beside each event (twice the descriptors).
 * One turned off after it started has none: while off it misses those
 * records too (an unknown address later rereads /proc/PID/maps, new
 * threads and processes still inherit the events, but an exit is not
 * seen as it happens: /proc tells it within a second, as for an exit
 * whose record was lost (sp_recorder_live); with off_cpu, a
 * thread off CPU when it was turned off has no switch in to weigh its
 * wait by, and that switch is dropped, counted as off_cpu_unmatched).
 * Returns 0 or the first -errno (the other events are switched all the
 * same).
 */
int sp_recorder_enable(struct sp_recorder *r, int on);

/* Number of processes alive: targets and followed children (recording
 * the whole system, the processes followed) not seen exiting.  The
 * recorder's own view, as the records drained so far tell it; a process
 * whose exit is not drained yet counts (sp_recorder_process_alive asks
 * /proc too).  One whose EXIT record never comes (lost with a full ring,
 * or an exit while it was being attached) stops counting within a second
 * of polling, once /proc shows it ended. */
size_t sp_recorder_live(const struct sp_recorder *r);

/* 1 when a process other than pid is alive as sp_recorder_live counts
 * them, else 0. */
int sp_recorder_other_alive(const struct sp_recorder *r, pid_t pid);

/*
 * Looks for threads of the targets that have no event now (poll does so
 * once a second), and opens theirs.  0 or -errno.
 */
int sp_recorder_refresh(struct sp_recorder *r);

/* 1 when a ring holds records not drained yet, 0 when none. */
int sp_recorder_pending(const struct sp_recorder *r);

/*
 * Drains every ring now (poll leaves the last quarter millisecond, to
 * write records in time order across CPUs), runs the /proc recovery
 * sweep when events were lost, and flushes the writer, so that a reader
 * of the file (sp/spool/tail.h) sees every sample so far.  0 or the writer's
 * error.
 */
int sp_recorder_flush(struct sp_recorder *r);

/*
 * The counters so far (samples, lost_events, processes and threads
 * followed, ...), valid until the next call on r.  Returns their number.
 */
size_t sp_recorder_counters(struct sp_recorder *r,
    const struct sp_counter **out);

/* The counter called name so far (as sp_recorder_counters names them),
 * 0 for a name it does not have. */
unsigned long long sp_recorder_counter(struct sp_recorder *r,
    const char *name);

/*
 * The executable name of the process with the most stacks cut short in
 * code with no file (a JIT's without frame pointers; counted as
 * jit_truncated_stacks), "java" say, or NULL when none was.  The caller
 * can name the runtime's option that keeps frame pointers.
 */
const char *sp_recorder_jit_runtime(const struct sp_recorder *r);

/* The event actually used: "cycles" or "cpu-clock" by default, else the
 * one asked for (NULL before attach). */
const char *sp_recorder_event(const struct sp_recorder *r);

/* The sampling period in use, in events (nanoseconds of a clock): the
 * one asked for, or 1 for a software event that counts (every event);
 * 0 when a frequency decides. */
unsigned long long sp_recorder_period(const struct sp_recorder *r);

/* 1 when the event counts time (a clock: the period is nanoseconds, a
 * sample weighs its interval), 0 when it counts events (faults, cycles
 * asked for: the period is events, sp_sample.weight their number). */
int sp_recorder_counts_time(const struct sp_recorder *r);

/* The sampling rate in use in Hz (SP_FREQ_MAX resolved to the kernel's
 * limit, 0 resolved to SP_FREQ_DEFAULT), or 0 when a period decides
 * (sp_recorder_period). */
unsigned sp_recorder_frequency(const struct sp_recorder *r);

/*
 * Whether pid is a process r records and alive: 1 when it is alive as
 * sp_recorder_live counts them (a target or a followed child, the whole
 * system: any process seen, not seen exiting) and, beyond that, /proc
 * shows it running still as the same process (not a zombie whose threads
 * all ended, not another process that took its pid); 0 when it exited or
 * was never one of r's; -SP_EUSAGE for a pid below 1; -errno when
 * /proc/PID/stat cannot be read for another reason than its absence.
 */
int sp_recorder_process_alive(const struct sp_recorder *r, pid_t pid);

/*
 * The kernel's limit on sampling rates, in Hz
 * (/proc/sys/kernel/perf_event_max_sample_rate), which SP_FREQ_MAX
 * resolves to and sp_recorder_new checks a rate against; the kernel
 * lowers it itself when sampling takes too long.  Returns 0 with *hz
 * set (above 0), or -errno with *hz 0 when it cannot be read (-ENOENT:
 * no perf events, or no /proc), -ERANGE for a value of 0 or past what a
 * frequency can hold.
 */
int sp_max_sample_rate(unsigned *hz);

/*
 * The in-process reader of what r writes: flushes r (sp_recorder_flush),
 * then opens a tail (sp/spool/tail.h) on the writer's file through its
 * descriptor, so no path is needed: a file opened O_TMPFILE or unlinked
 * works.  The tail has descriptors of its own (its read position is its
 * own, the writer's is untouched); free it with sp_tail_free, before or
 * after r.  It sees what r flushed: call sp_recorder_flush (or
 * sp_recorder_poll, which writes as its buffer fills) before polling it
 * for everything so far.  Only such a tail may release what it read
 * (sp_tail_discard_consumed).  For names, a symbolizer over it with
 * sp_sym_options.live_images reads the very images the processes map
 * (/proc/PID/map_files), as the recorder does.
 * The spool must start at the file's offset 0 (the tail reads from
 * there): a file with bytes before the writer's is refused.
 * Returns 0; -SP_EUSAGE when the writer's descriptor is not a regular
 * file (a pipe or socket: diag says to write to a file; nothing is
 * flushed into it) or the spool does not start at offset 0; the writer's
 * error from the flush; -errno reopening it (/proc/self/fd), or reading
 * the spool's header; -ENOMEM.  On failure *out is NULL.
 */
struct sp_tail;
int sp_recorder_tail(struct sp_recorder *r, struct sp_tail **out,
    struct sp_diag *diag);

/* The events sp_recorder_opts.event knows, i from 0: 1 with *name and
 * *what (a few words) set, 0 past the last. */
int sp_event_info(size_t i, const char **name, const char **what);

/*
 * Advice: what the counters of a recording say a person would want to
 * know, or change before the next run, as lines of text with a kind to
 * switch on.  sp-record prints them after its summary, sp-top when it
 * exits; the library prints nothing.  The text names sp-record's options
 * (-F, -s/--stack, -m/--max-frames, --children, --kernel, --delay), which
 * are the fields of struct sp_recorder_opts.
 */
#define SP_ADVICE_TEXT_MAX 256u
#define SP_ADVICE_MAX 16u       /* more than there are kinds: enough */

enum sp_advice_kind {
	/* Notes (SP_ADVICE_NOTE), facts of the run for a summary: */
	SP_ADVICE_COST = 1,     /* CPU time and peak memory of the process
	                         * (getrusage(2) RUSAGE_SELF), per sample */
	SP_ADVICE_STACK_USED,   /* how much of the stack copy whole walks
	                         * needed (99 % of them) next to the copy */
	/* Warnings (SP_ADVICE_WARNING), each with what to do: */
	SP_ADVICE_NO_SAMPLES,   /* none: sampling never on (--delay), every
	                         * CPU or the target idle */
	SP_ADVICE_NO_KERNEL,    /* kernel time not sampled (perf_event_paranoid) */
	SP_ADVICE_CHILDREN,     /* samples of child processes not followed */
	SP_ADVICE_GONE,         /* 1 % or more of the samples of processes that
	                         * exited before their mappings were read */
	SP_ADVICE_CHILDREN_RUNNING, /* children running at attach, not followed */
	SP_ADVICE_TRUNCATED,    /* 5 % or more of the stacks cut short, with
	                         * the likeliest fix */
	SP_ADVICE_LOST,         /* 1 % or more of the samples lost */
};

enum sp_advice_level {
	SP_ADVICE_NOTE,         /* worth a line of a summary */
	SP_ADVICE_WARNING,      /* something to change, or to know, before
	                         * trusting the profile */
};

struct sp_advice {
	enum sp_advice_kind kind;
	enum sp_advice_level level;
	double percent;         /* the share of the samples (or stacks) it is
	                         * about; 0 when it is about none */
	char text[SP_ADVICE_TEXT_MAX]; /* one line: no newline, no program
	                         * name in front */
};

struct sp_advice_opts {
	size_t sz;              /* sizeof(struct sp_advice_opts): fields past
	                         * sz read as 0 */
	const char *tool;       /* the program the text names ("sp-record
	                         * used 0.05 s of CPU"); NULL: "the recorder" */
	unsigned long long delay_ms; /* how long the caller waited before
	                         * turning sampling on (sp_recorder_enable):
	                         * a run that ended first says so */
};

/*
 * The advice the counters of r give so far (after sp_recorder_finish:
 * for the whole run), notes first, then warnings, each kind at most once,
 * in a fixed order.  Writes the first max of them (at most SP_ADVICE_MAX
 * there are) to out, which the caller owns; o may be NULL (every field
 * 0).  Reads /proc/sys/kernel/perf_event_paranoid when kernel time was
 * not sampled, and the process's resource use.  Returns how many there
 * are, which may be more than max (as snprintf); never fails.
 */
size_t sp_recorder_advice(struct sp_recorder *r, const struct sp_advice_opts *o,
    struct sp_advice *out, size_t max);

/*
 * Drains what is left, writes the summary and the END record, flushes.
 * Returns 0 or the writer's error.  Events are closed.
 */
int sp_recorder_finish(struct sp_recorder *r);

/* Closes events and frees r (not the writer).  r may be NULL. */
void sp_recorder_free(struct sp_recorder *r);

/*
 * Error statistics: why walks ended before the outermost frame, one kind
 * per unwind_* counter (docs/counters.md, "Unwind errors"), taken out of
 * a counter array: sp_recorder_counters' during a recording, or
 * sp_defs_counters' of a spool.  A caller-owned struct, no allocation.
 * A release may add kinds, up to SP_SAMPLE_ERR_ROOM: the struct keeps
 * its size, and the functions below read and write count[k] for the
 * library's kinds only (k below its SP_SAMPLE_ERR_KINDS), never past, so
 * a program built against fewer kinds works with a newer library.
 */
enum sp_sample_error {
	SP_SAMPLE_ERR_STACK_BOUNDS,  /* unwind_stack_bounds */
	SP_SAMPLE_ERR_NO_PROGRESS,   /* unwind_no_progress */
	SP_SAMPLE_ERR_BAD_FP,        /* unwind_bad_fp */
	SP_SAMPLE_ERR_DEPTH,         /* unwind_depth */
	SP_SAMPLE_ERR_NO_REGS,       /* unwind_no_regs */
	SP_SAMPLE_ERR_BAD_RA,        /* unwind_bad_ra */
	SP_SAMPLE_ERR_NO_STACK,      /* unwind_no_stack */
	SP_SAMPLE_ERR_STACK_SWITCH,  /* unwind_stack_switch */
	SP_SAMPLE_ERR_FP_END,        /* unwind_fp_end */
	SP_SAMPLE_ERR_KINDS          /* how many kinds there are */
};

#define SP_SAMPLE_ERR_ROOM 32

struct sp_error_stats {
	unsigned long long count[SP_SAMPLE_ERR_ROOM]; /* [0, KINDS) used */
};

/* The counter name of kind k ("unwind_stack_bounds"), or NULL for a
 * number that is no kind. */
const char *sp_sample_error_name(enum sp_sample_error k);

/*
 * Sets st from the n counters c: each kind's count is the sum of the
 * counters of its name (a spool's several SUMMARY records name one
 * several times), saturating at ULLONG_MAX; counters of other names are
 * not looked at.  c may be NULL when n is 0.
 */
void sp_error_stats_from_counters(struct sp_error_stats *st,
    const struct sp_counter *c, size_t n);

/* The count of kind k; 0 for a number that is no kind. */
unsigned long long sp_error_stats_count(const struct sp_error_stats *st,
    enum sp_sample_error k);

/* The sum over the kinds (saturating): the walks that ended early.  Any
 * error at all: a total above 0. */
unsigned long long sp_error_stats_total(const struct sp_error_stats *st);

/*
 * The kinds with a count above 0, in the order of the enum, stored in
 * out (at most max of them; out may be NULL when max is 0).  Returns how
 * many there are, which may exceed max, as snprintf does.
 */
size_t sp_error_stats_nonzero(const struct sp_error_stats *st,
    enum sp_sample_error *out, size_t max);

/* Sets every count to 0. */
void sp_error_stats_reset(struct sp_error_stats *st);

#ifdef __cplusplus
}
#endif

#endif
