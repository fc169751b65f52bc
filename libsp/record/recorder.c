/* SPDX-License-Identifier: MIT */
/*
 * The recorder: made of its parts (rec_events.c, rec_drain.c,
 * rec_adapt.c, rec_targets.c, and rec_process.c for what each record
 * means), it polls, drains, adapts the stack copy, and finishes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "common/opts_int.h"
#include "common/procfs_int.h"
#include "elf/elf_int.h"
#include "recorder_int.h"
#include "spool/live_int.h"
#include "sp/common/process.h"
#include "unwind/cfi_table_int.h"


static const char *const counter_names[C_FALLBACK_FIRST_] = {
	[C_SAMPLE_EVENTS] = "sample_events",
	[C_SAMPLES] = "samples",
	[C_LOST_EVENTS] = "lost_events",
	[C_LOST_RECORDS] = "lost_records",
	[C_PROCESSES] = "processes",
	[C_THREADS] = "threads",
	[C_LIFECYCLE_GAPS] = "lifecycle_gaps",
	[C_KERNEL_ENABLED] = "kernel_enabled",
	[C_KERNEL_CALLCHAINS] = "kernel_callchains",
	[C_KERNEL_SAMPLES] = "kernel_samples",
	[C_RING_BYTES_MIN] = "ring_bytes_min",
	[C_RING_BYTES_MAX] = "ring_bytes_max",
	[C_MISSING_PID] = "missing_pid_samples",
	[C_IDLE] = "idle_samples",
	[C_MISSING_TIME] = "missing_time_samples",
	[C_UNTRACKED] = "untracked_samples",
	[C_GONE] = "gone_process_samples",
	[C_CHILDREN_NOT_FOLLOWED] = "children_not_followed",
	[C_EMPTY_STACKS] = "empty_stacks",
	[C_TRUNCATED_STACKS] = "truncated_stacks",
	[C_JIT_TRUNCATED] = "jit_truncated_stacks",
	[C_EXEC_SAMPLES] = "exec_samples",
	[C_IGNORED_USER_CALLCHAIN] = "ignored_user_callchain_frames",
	[C_UNKNOWN_MODULE] = "unknown_module_frames",
	[C_MAPS_RESCANS] = "maps_rescans",
	[C_PID_REUSES] = "pid_reuses",
	[C_THROTTLES] = "throttles",
	[C_JITTER_PERCENT] = "jitter_percent",
	[C_JITTER_DROPPED] = "jitter_dropped",
	[C_EVENT_COUNT] = "event_count",
	[C_CODE_READS] = "code_pages_read",
	[C_CODE_READ_HITS] = "code_read_hits",
	[C_BAD_RECORDS] = "bad_perf_records",
	[C_CFI_STEPS] = "cfi_steps",
	[C_CFI_FILES] = "cfi_files",
	[C_CFI_CACHE_HITS] = "cfi_cache_hits",
	[C_CFI_RELEASED] = "cfi_files_released",
	[C_CFI_REFUSED] = "cfi_sections_refused",
	[C_UNREACHABLE_KEPT] = "unreachable_files_kept",
	[C_UNREACHABLE_KEPT_BYTES] = "unreachable_bytes_kept",
	[C_UNREACHABLE_SKIPPED] = "unreachable_files_skipped",
	[C_UNREACHABLE_SKIPPED_BYTES] = "unreachable_bytes_skipped",
	[C_LEAF_INSN] = "leaf_insn_analysed",
	[C_LEAF_INSN_UNKNOWN] = "leaf_insn_unknown",
	[C_LEAF_MEMO_HITS] = "leaf_memo_hits",
	[C_SCANNED] = "unwind_scanned",
	[C_SIGNAL_FRAMES] = "unwind_signal_frames",
	[C_STACK_BYTES] = "stack_bytes",
	[C_STACK_SWITCHES] = "stack_switches",
	[C_OFF_CPU] = "off_cpu_samples",
	[C_OFF_CPU_NS] = "off_cpu_ns",
	[C_OFF_CPU_PREEMPTED] = "off_cpu_preempted",
	[C_OFF_CPU_PREEMPTED_NS] = "off_cpu_preempted_ns",
	[C_OFF_CPU_APART] = "off_cpu_preempted_apart",
	[C_OFF_CPU_UNMATCHED] = "off_cpu_unmatched",
	[C_STACK_USED_FIRST_] = "stack_used_4k",
	[C_STACK_USED_FIRST_ + 1] = "stack_used_8k",
	[C_STACK_USED_FIRST_ + 2] = "stack_used_16k",
	[C_STACK_USED_FIRST_ + 3] = "stack_used_32k",
	[C_STACK_USED_LAST_] = "stack_used_64k",
};

/* The event asked for (o->event), and the options that go with it. */
static int
check_event(struct sp_recorder *r, struct rec_evsel *sel, struct sp_diag *diag)
{
	char why[512];

	if (spi_evsel_parse(r->o.event, sel, why, sizeof(why)) < 0)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "%s", why);
	if (!sel->clock && r->o.off_cpu)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "off-CPU samples weigh "
		    "time, and %s counts events: record them apart (-e %s "
		    "without --off-cpu)", sel->name, sel->name);
	if (r->o.fp_chains && r->o.raw_stacks)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "--raw-stacks stores "
		    "the stack copies that frame-pointer callchains go "
		    "without: not with --call-graph fp");
	/* The kernel's frequency mode misweighs a software event that
	 * counts: its period follows the rate of the last tick, so a burst
	 * of faults weighs what a steady rate would have (perf -e
	 * minor-faults -F 1000 reported 178960 faults of 19258).  So every
	 * one is a sample, unless a period is given. */
	if (!sel->clock && sel->type == PERF_TYPE_SOFTWARE && r->o.period == 0)
		r->o.period = 1;
	if (r->o.period > (1ull << 62))
		return sp_diag_set(diag, 0, -SP_EUSAGE, "period %llu is out of "
		    "range (1 to 2^62)", r->o.period);
	return 0;
}

int
sp_max_sample_rate(unsigned *hz)
{
	long v;
	int err = spi_read_long("/proc/sys/kernel/perf_event_max_sample_rate",
	    &v);

	*hz = 0;
	if (err < 0)
		return err;
	/* 0 or a rate past what a frequency can say is no limit to use. */
	if (v <= 0 || (unsigned long)v >= SP_FREQ_MAX)
		return -ERANGE;
	*hz = (unsigned)v;
	return 0;
}

/*
 * The nominal interval of one thread's samples, in microseconds, for the
 * header: of a clock by its period or its rate; an event that counts
 * (faults, cycles asked for) has none in time (0, "unknown").
 */
static uint32_t
interval_us(const struct sp_recorder *r)
{
	if (!r->ev.sel.clock)
		return 0;
	if (r->o.period != 0)
		return r->o.period / 1000 >= UINT32_MAX ? UINT32_MAX :
		    r->o.period < 1000 ? 1 : (uint32_t)(r->o.period / 1000);
	return 1000000u / r->o.frequency;
}

/* The options resolved and checked, the parts made: 0 or an error that
 * diag explains.  sp_recorder_free undoes a half-made recorder. */
static int
make(struct sp_recorder *r, struct sp_diag *diag)
{
	struct utsname u;
	struct rec_evsel sel;
	unsigned max_rate;
	size_t i;
	int err;

	if (r->o.frequency == 0)
		r->o.frequency = SP_FREQ_DEFAULT;
	if ((err = check_event(r, &sel, diag)) < 0)
		return err;
	/* Raw stacks are for replaying walks: whole copies.  By frame
	 * pointers there is no copy. */
	spi_adapt_init(&r->adapt, r->o.stack_bytes == 0 && !r->o.raw_stacks &&
	    !r->o.fp_chains);
	if (r->o.stack_bytes == 0)
		r->o.stack_bytes = SP_STACK_BYTES_DEFAULT;
	r->ctx.c[C_STACK_BYTES] = r->o.fp_chains ? 0 : r->o.stack_bytes;
	if (uname(&u) != 0)
		u.release[0] = '\0';	/* unknown: taken as new enough */
	if (spi_kernel_supported(u.release) == 0)
		return sp_diag_set(diag, 0, -ENOSYS, "Linux %s is older than "
		    "%d.%d, the oldest the recorder supports: it needs "
		    "context-switch records (4.3), monotonic timestamps (4.1), "
		    "mmap2 records (3.16) and user stacks in samples (3.7); "
		    "record with perf on this kernel", u.release,
		    SPI_KERNEL_MIN_MAJOR, SPI_KERNEL_MIN_MINOR);
	/* perf_event_open(2): PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, since
	 * Linux 4.17; before it a preemption looks like a block. */
	r->ctx.c[C_OFF_CPU_APART] = r->o.off_cpu &&
	    spi_kernel_at_least(u.release, 4, 17) != 0;
	if (r->o.max_frames == 0)
		r->o.max_frames = SP_FRAMES_MAX_DEFAULT;
	/* Unreadable: 0, no limit known (the kernel's own check stands). */
	if (sp_max_sample_rate(&max_rate) == 0 &&
	    r->o.frequency == SP_FREQ_MAX)
		r->o.frequency = max_rate;
	if (r->o.frequency == SP_FREQ_MAX)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "sp_recorder_opts."
		    "frequency SP_FREQ_MAX: cannot read /proc/sys/kernel/"
		    "perf_event_max_sample_rate; give a rate in Hz");
	if (max_rate > 0 && r->o.frequency > max_rate) {
		if (diag != NULL) {
			diag->requested = r->o.frequency;
			diag->permitted = max_rate;
		}
		return sp_diag_set(diag, 0, -SP_EFREQ, "sampling rate %u Hz is "
		    "above the permitted %u Hz (/proc/sys/kernel/"
		    "perf_event_max_sample_rate); set sp_recorder_opts."
		    "frequency to %u or lower, or to SP_FREQ_MAX",
		    r->o.frequency, max_rate, max_rate);
	}
	if (r->o.stack_bytes > SP_STACK_BYTES_MAX || r->o.stack_bytes % 8)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "stack size %u is not a "
		    "multiple of 8 from 8 to %u bytes", r->o.stack_bytes,
		    SP_STACK_BYTES_MAX);
	r->ips = calloc(r->o.max_frames, sizeof(*r->ips));
	r->uchain = calloc(r->o.max_frames, sizeof(*r->uchain));
	r->frames = calloc((size_t)r->o.max_frames + 1, sizeof(*r->frames));
	r->ctx.cache = spi_unwind_cache_new();
	r->ctx.leaf_memo = spi_leaf_memo_new();
	r->ctx.maps_gen = 1; /* a memo of generation 0 is empty */
	r->fmemo = calloc(FRAME_MEMO, sizeof(*r->fmemo));
	if (r->ips == NULL || r->uchain == NULL || r->frames == NULL || r->fmemo == NULL ||
	    r->ctx.cache == NULL || r->ctx.leaf_memo == NULL)
		return sp_diag_set(diag, 0, -ENOMEM, "out of memory");
	/* Drawn intervals are of time, and of a rate: not of a count, nor
	 * of a period given. */
	spi_jitter_init(&r->jitter, !r->o.fixed_intervals && sel.clock &&
	    r->o.period == 0, r->o.frequency, max_rate);
	r->ctx.c[C_JITTER_PERCENT] = r->jitter.percent;
	err = spi_events_init(&r->ev, &r->ctx, &r->o, &sel,
	    r->jitter.percent > 0 ? &r->jitter : NULL);
	if (err == -ENODEV)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "CPU %d is not online "
		    "(/sys/devices/system/cpu/cpu%d/online); the online CPUs are "
		    "listed in /sys/devices/system/cpu/online", r->ev.bad_cpu,
		    r->ev.bad_cpu);
	if (err < 0)
		return sp_diag_set(diag, 0, -ENOMEM, "out of memory");
	if ((err = spi_events_probe(&r->ev, diag)) < 0)
		return err;
	r->drain.id_len = spi_events_id_len(&r->ev);
	for (i = 0; i < C_COUNT_; i++)
		r->counters[i].name.s = i < C_FALLBACK_FIRST_ ? counter_names[i] :
		    i < C_UNWIND_FIRST_ ? spi_unwind_fallback_name(
		    (enum sp_unwind_fallback)(i - C_FALLBACK_FIRST_)) :
		    spi_unwind_error_name((enum sp_unwind_error)(i -
		    C_UNWIND_FIRST_ + 1));
	return 0;
}

/* sz 0: the struct of 0.5.0, whose last field is log_ctx (frozen: a
 * field added later lies past it). */
#define RECORDER_OPTS_SZ0 SPI_OPTS_END(struct sp_recorder_opts, log_ctx)

int
sp_recorder_new(struct sp_writer *w, const struct sp_recorder_opts *o,
    struct sp_recorder **out, struct sp_diag *diag)
{
	struct sp_recorder *r;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return sp_diag_set(diag, 0, -ENOMEM, "out of memory");
	r->ctx.w = w;
	if ((err = spi_opts_copy(&r->o, sizeof(r->o), o, RECORDER_OPTS_SZ0,
	    "sp_recorder_opts", diag)) < 0) {
		free(r);
		return err;
	}
	r->ctx.log = r->o.log;
	r->ctx.log_ctx = r->o.log_ctx;
	r->ctx.bundle = r->o.bundle;
	r->ctx.keep.dir = r->o.keep_dir;
	r->ctx.keep.max = r->o.keep_unreachable;
	r->ev.epfd = r->ev.cgroup_fd = -1;
	if ((err = make(r, diag)) < 0) {
		sp_recorder_free(r);
		return err;
	}
	/* rec_thread keeps each thread's id while the thread lives; threads
	 * come and go, so the writer need not remember them. */
	(void)sp_writer_no_intern(w, SP_REC_THREAD);
	/* Only the recorder knows the rate (SP_FREQ_MAX is the kernel's)
	 * and what the event counts: it says so in the header, unless the
	 * caller flushed it already (then RECORDING alone says it). */
	(void)spi_writer_interval(w, interval_us(r));
	*out = r;
	return 0;
}

/*
 * Carries out what the walks drained so far say of the stack copy's size
 * (rec_adapt.c): decided after a drain, as the records still in the rings
 * were taken with the size before.
 */
static void
adapt_stack(struct sp_recorder *r)
{
	enum rec_adapt_move m = spi_adapt_decide(&r->adapt);

	if (m == ADAPT_TO_SMALL || m == ADAPT_TO_BIG) {
		r->ev.small_on = m == ADAPT_TO_SMALL;
		(void)spi_events_switch(&r->ev);
		r->ctx.c[C_STACK_BYTES] = m == ADAPT_TO_SMALL ?
		    SP_STACK_BYTES_SMALL : r->o.stack_bytes;
		r->ctx.c[C_STACK_SWITCHES]++;
	}
	if (m == ADAPT_TO_BIG || m == ADAPT_DROP_SMALL)
		spi_events_drop_small(&r->ev);
}

/*
 * Reads the rings (all: to their heads; else the records older than this
 * call less REC_DRAIN_WRITE_NS), sorts the records by time and processes them where
 * they lie in the rings (only those that wrap around a ring's end are
 * copied), then frees their space.
 */
static int
drain(struct sp_recorder *r, int all)
{
	uint64_t until = all ? UINT64_MAX : spi_rec_mono_ns() - REC_DRAIN_WRITE_NS;
	size_t i;
	int k, swept = 0, err;

	r->ctx.drain_gen++;
	if ((err = spi_drain_read(&r->drain, r->ev.rings, r->ev.nr_cpus,
	    until)) != 0)
		return err;
	/* A loss is swept at once, so that the records after it are read
	 * with /proc's view; /proc is newer than every record drained, so
	 * one sweep serves every later loss in this batch. */
	for (i = 0; i < r->drain.n && err == 0; i++) {
		err = spi_rec_process(r, r->drain.items[i].rec,
		    r->drain.items[i].len);
		if (err == 0 && r->need_sweep && !swept) {
			err = spi_rec_sweep(r);
			swept = 1;
		}
		r->need_sweep = 0;
	}
	for (k = 0; k < r->ev.nr_cpus; k++)
		if (r->ev.rings[k].base != NULL)
			spi_ring_release(&r->ev.rings[k]);
	adapt_stack(r);
	return err;
}

int
sp_recorder_enable(struct sp_recorder *r, int on)
{
	int err, pausing = !on && r->ev.enabled;

	/* Resuming: what the rings hold from before is read first; then a
	 * wait off the CPU still held from before the pause lost its switch
	 * in (the switch events were off), whenever its records are read. */
	if (on && !r->ev.enabled && r->paused_at != 0) {
		if ((err = drain(r, 1)) != 0)
			return err;
		spi_rec_off_cpu_forget(r, r->paused_at);
	}
	r->ev.enabled = on != 0;
	err = spi_events_switch(&r->ev);
	/* The pause begins once the events are off: a switch out in the
	 * ioctls before (slow on a loaded machine) is still sampled, and
	 * its wait must count as one from before the pause. */
	if (pausing)
		r->paused_at = spi_rec_mono_ns();
	return err;
}

int
sp_recorder_poll(struct sp_recorder *r, int timeout_ms)
{
	struct epoll_event ev[16];
	int err;

	timeout_ms = spi_adapt_wait_ms(&r->adapt, r->o.frequency, timeout_ms);
	if (epoll_wait(r->ev.epfd, ev, 16, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	err = drain(r, 0);
	if (err == 0)
		err = spi_rec_rescan_threads(r, 0);
	return err;
}

int
sp_recorder_pending(const struct sp_recorder *r)
{
	int k;

	for (k = 0; k < r->ev.nr_cpus; k++)
		if (spi_ring_pending(&r->ev.rings[k]))
			return 1;
	return 0;
}

int
sp_recorder_flush(struct sp_recorder *r)
{
	/* A loss read on the way is swept there (drain). */
	int err = drain(r, 1);

	return err < 0 ? err : sp_writer_flush(r->ctx.w);
}

size_t
sp_recorder_counters(struct sp_recorder *r, const struct sp_counter **out)
{
	size_t i;

	for (i = 0; i < C_COUNT_; i++) {
		r->counters[i].name.len = (uint32_t)strlen(r->counters[i].name.s);
		r->counters[i].value = r->ctx.c[i];
	}
	*out = r->counters;
	return C_COUNT_;
}

unsigned long long
sp_recorder_counter(struct sp_recorder *r, const char *name)
{
	size_t i;

	for (i = 0; i < C_COUNT_; i++)
		if (strcmp(r->counters[i].name.s, name) == 0)
			return (unsigned long long)r->ctx.c[i];
	return 0;
}

const char *
sp_recorder_jit_runtime(const struct sp_recorder *r)
{
	return r->jit_top > 0 && r->jit_runtime[0] != '\0' ? r->jit_runtime :
	    NULL;
}

const char *
sp_recorder_event(const struct sp_recorder *r)
{
	return r->tg.wrote_recording ? r->ev.name : NULL;
}

unsigned long long
sp_recorder_period(const struct sp_recorder *r)
{
	return r->o.period;
}

int
sp_recorder_counts_time(const struct sp_recorder *r)
{
	return r->ev.sel.clock != 0;
}

unsigned
sp_recorder_frequency(const struct sp_recorder *r)
{
	return r->o.period != 0 ? 0 : r->o.frequency;
}

/*
 * The writer's file, opened again for reading (/proc/self/fd: a file
 * of its own position, and one with no name, O_TMPFILE or unlinked,
 * reopens too), and a second descriptor of the writer's to release
 * blocks through, which needs write access the reading one lacks.
 */
/*
 * Whether the writer's file holds the spool from offset 0, where a tail
 * reads it from and which sp_tail_discard_consumed takes its offsets
 * from: after the flush, the file's offset is the bytes written (a file
 * with bytes before the spool, or O_APPEND to one, is further on).
 */
static int
spool_at_start(struct sp_recorder *r, int wfd, struct sp_diag *diag)
{
	unsigned long long wrote = sp_writer_bytes(r->ctx.w);
	off_t at = lseek(wfd, 0, SEEK_CUR);

	if (at < 0)
		return sp_diag_set(diag, 0, -errno, "the spool's fd %d: lseek: "
		    "%s", wfd, sp_strerror(-errno));
	if ((unsigned long long)at != wrote)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "the spool's fd %d is "
		    "at offset %lld after the writer's %llu bytes: the spool "
		    "does not start at the file's offset 0, where a tail reads "
		    "it from; give sp_writer_new a file positioned at 0 (not "
		    "opened O_APPEND to one with data)", wfd, (long long)at,
		    wrote);
	return 0;
}

/*
 * The writer's file, opened again for reading (/proc/self/fd: a file
 * of its own position, and one with no name, O_TMPFILE or unlinked,
 * reopens too), and a second descriptor of the writer's to release
 * blocks through, which needs write access the reading one lacks.  A
 * pipe is refused before the flush, which would write into it.
 */
int
sp_recorder_tail(struct sp_recorder *r, struct sp_tail **out,
    struct sp_diag *diag)
{
	int wfd = spi_writer_fd(r->ctx.w), fd, punch, err;
	char path[64];
	struct stat st;

	*out = NULL;
	if (fstat(wfd, &st) != 0)
		return sp_diag_set(diag, 0, -errno, "the spool's fd %d: %s",
		    wfd, sp_strerror(-errno));
	if (!S_ISREG(st.st_mode))
		return sp_diag_set(diag, 0, -SP_EUSAGE, "the spool's fd %d is "
		    "not a regular file (a pipe or socket is read once, by "
		    "its reader): write the spool to a file, O_TMPFILE if it "
		    "needs no name, to tail it in this process", wfd);
	if ((err = sp_recorder_flush(r)) < 0)
		return sp_diag_set(diag, 0, err, "flushing the spool (fd %d): "
		    "%s", wfd, sp_strerror(err));
	if ((err = spool_at_start(r, wfd, diag)) < 0)
		return err;
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", wfd);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return sp_diag_set(diag, 0, -errno, "reopening the spool "
		    "(%s) for reading: %s; is /proc mounted?", path,
		    sp_strerror(-errno));
	if ((punch = fcntl(wfd, F_DUPFD_CLOEXEC, 0)) < 0) {
		err = -errno;
		(void)close(fd);
		return sp_diag_set(diag, 0, err, "the spool's fd %d: dup: %s",
		    wfd, sp_strerror(err));
	}
	/* It closes both on failure. */
	if ((err = spi_tail_fd(fd, punch, out)) < 0)
		return sp_diag_set(diag, 0, err, "a tail of the spool (fd %d): "
		    "%s", wfd, sp_strerror(err));
	return 0;
}

static void
bundle_maps(void *val, void *ctx)
{
	const struct rec_proc *p = val;
	struct sp_recorder *r = ctx;

	if (p->tracked && sp_bundle_perf_map(r->ctx.bundle, (pid_t)p->pid,
	    p->uid) == -EPERM)
		spi_rec_log(&r->ctx, "bundle: /tmp/perf-%u.map is not a regular file of "
		    "the process's owner; not kept", p->pid);
}

int
sp_recorder_finish(struct sp_recorder *r)
{
	struct sp_record rec;
	const struct sp_counter *c;
	int err = 0;

	spi_events_stop(&r->ev);
	err = drain(r, 1);
	spi_events_close(&r->ev);
	/* Threads still off CPU: until now. */
	if (err == 0 && r->o.off_cpu)
		err = spi_rec_off_cpu_end(r, spi_rec_mono_ns());
	if (r->ctx.bundle != NULL) {
		spi_imap_each(&r->procs, bundle_maps, r);
		/* Real kernel addresses reveal the KASLR layout: kept only
		 * when kernel frames were asked for. */
		if (r->o.kernel && sp_bundle_kallsyms(r->ctx.bundle) < 0)
			spi_rec_log(&r->ctx, "bundle: /proc/kallsyms not kept (addresses "
			    "hidden or unreadable)");
	}
	if (spi_rec_keep_finish(&r->ctx) < 0)
		spi_rec_log(&r->ctx, "%s/manifest could not be written: "
		    "sp-sym reads the files beside it all the same",
		    r->ctx.keep.dir);
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_SUMMARY;
	rec.u.summary.count = (uint32_t)sp_recorder_counters(r, &c);
	rec.u.summary.counters = c;
	if (err == 0)
		err = sp_writer_put(r->ctx.w, &rec, NULL);
	if (err == 0)
		err = sp_writer_finish(r->ctx.w);
	return err;
}

static void
free_val(void *val, void *ctx)
{
	(void)ctx;
	free(val);
}

static void
free_proc(void *val, void *ctx)
{
	spi_rec_proc_free(ctx, val);
}

void
sp_recorder_free(struct sp_recorder *r)
{
	if (r == NULL)
		return;
	spi_events_fini(&r->ev);
	spi_drain_fini(&r->drain);
	spi_imap_each(&r->procs, free_proc, &r->ctx);
	spi_imap_each(&r->threads, free_val, NULL);
	spi_imap_fini(&r->procs);
	spi_imap_fini(&r->threads);
	spi_imap_fini(&r->tg.covered);
	free(r->exited);
	free(r->tg.pids);
	spi_unwind_cache_free(r->ctx.cache); /* before the tables it points into */
	spi_leaf_memo_free(r->ctx.leaf_memo);
	free(r->ctx.code);
	spi_cfi_table_free(r->ctx.vdso);
	while (r->ctx.files != NULL) {
		struct rec_file *f = r->ctx.files;

		r->ctx.files = f->next;
		spi_cfi_table_free(f->cfi);
		spi_elf_file_free(f->elf);
		if (f->unreachable && f->keep_fd >= 0)
			(void)close(f->keep_fd);
		free(f->path);
		free(f);
	}
	spi_rec_keep_fini(&r->ctx);
	free(r->ips);
	free(r->uchain);
	free(r->frames);
	free(r->fmemo);
	free(r);
}
