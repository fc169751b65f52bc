/* SPDX-License-Identifier: MIT */
/* The recorder: events, rings, attaching and spawning, draining. */
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
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "sp/cfi.h"
#include "sp/elffile.h"
#include "common/cursor_int.h"
#include "common/procfs_int.h"
#include "sp/process.h"
#include "recorder_int.h"

/* linux/capability.h */
#define CAP_SYS_PTRACE_BIT 19
#define CAP_PERFMON_BIT 38

/* asm/perf_regs.h: every x86-64 user register but DS, ES, FS and GS. */
#define REGS_MASK (((1ull << 24) - 1) & ~(0xfull << 12))

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
	[C_IGNORED_USER_CALLCHAIN] = "ignored_user_callchain_frames",
	[C_UNKNOWN_MODULE] = "unknown_module_frames",
	[C_MAPS_RESCANS] = "maps_rescans",
	[C_PID_REUSES] = "pid_reuses",
	[C_THROTTLES] = "throttles",
	[C_BAD_RECORDS] = "bad_perf_records",
	[C_CFI_STEPS] = "cfi_steps",
	[C_CFI_FILES] = "cfi_files",
	[C_CFI_CACHE_HITS] = "cfi_cache_hits",
	[C_CFI_RELEASED] = "cfi_files_released",
	[C_CFI_REFUSED] = "cfi_sections_refused",
	[C_LEAF_INSN] = "leaf_insn_analysed",
	[C_LEAF_INSN_UNKNOWN] = "leaf_insn_unknown",
	[C_SCANNED] = "unwind_scanned",
	[C_STACK_BYTES] = "stack_bytes",
	[C_STACK_SWITCHES] = "stack_switches",
	[C_OFF_CPU] = "off_cpu_samples",
	[C_OFF_CPU_NS] = "off_cpu_ns",
	[C_OFF_CPU_PREEMPTED] = "off_cpu_preempted",
	[C_OFF_CPU_UNMATCHED] = "off_cpu_unmatched",
	[C_STACK_USED_FIRST_] = "stack_used_4k",
	[C_STACK_USED_FIRST_ + 1] = "stack_used_8k",
	[C_STACK_USED_FIRST_ + 2] = "stack_used_16k",
	[C_STACK_USED_FIRST_ + 3] = "stack_used_32k",
	[C_STACK_USED_LAST_] = "stack_used_64k",
};

static int
online_cpus(struct sp_recorder *r)
{
	long n = sysconf(_SC_NPROCESSORS_CONF), i, k = 0;
	char path[64];

	if (n <= 0 || n > 4096)
		n = 1;
	r->cpus = calloc((size_t)n, sizeof(*r->cpus));
	r->rings = calloc((size_t)n, sizeof(*r->rings));
	if (r->cpus == NULL || r->rings == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		long on = 1;

		(void)snprintf(path, sizeof(path),
		    "/sys/devices/system/cpu/cpu%ld/online", i);
		if (spi_read_long(path, &on) == 0 && on == 0)
			continue; /* cpu0 has no such file: online */
		r->rings[k].fd = -1;
		r->cpus[k++] = (int)i;
	}
	r->nr_cpus = (int)k;
	return 0;
}

static unsigned
pow2_at_least(size_t v)
{
	unsigned s = 0;

	while (((size_t)1 << s) < v)
		s++;
	return s;
}

static void
init_attr(struct sp_recorder *r)
{
	struct perf_event_attr *a = &r->attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	a->freq = 1;
	a->sample_freq = r->o.frequency;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (r->o.kernel)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	/* Off-CPU samples share the rings: the event's id tells them. */
	if (r->o.off_cpu)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	a->sample_regs_user = REGS_MASK;
	a->sample_stack_user = r->o.stack_bytes;
	a->exclude_callchain_user = 1;
	/* Time in the kernel is sampled whenever the kernel allows it (a
	 * profile without it answers another question than perf's); its
	 * callchains only with --kernel. */
	a->exclude_kernel = 0;
	a->exclude_hv = 1;
	/* mmap turns the side-band records on; mmap2 picks their format
	 * (with inode and device). */
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->inherit = 1;
	/* Wake the drain when a quarter of a ring is used: 64 samples of a
	 * 256-stack ring, leaving 192 (19 ms at 10 kHz) of slack for a
	 * recorder that is not scheduled at once.  Each wakeup is two
	 * context switches: at an eighth they were 40 % of the recorder's
	 * CPU (10 kHz, 8 threads, a 2-CPU VM). */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(r->ring_size / 4);
	r->event_name = "cycles";
}

int
sp_recorder_new(struct sp_writer *w, const struct sp_recorder_opts *o,
    struct sp_recorder **out, struct sp_diag *diag)
{
	struct sp_recorder *r;
	long max_rate = 0;
	size_t i, stack;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->ctx.w = w;
	/* rec_thread keeps each thread's id while the thread lives; threads
	 * come and go, so the writer need not remember them. */
	(void)sp_writer_no_intern(w, SP_REC_THREAD);
	r->o = *o;
	r->ctx.log = o->log;
	r->ctx.log_ctx = o->log_ctx;
	r->ctx.bundle = o->bundle;
	r->epfd = -1;
	r->cgroup_fd = -1;
	r->enabled = 1;
	if (r->o.frequency == 0)
		r->o.frequency = 1000;
	/* Raw stacks are for replaying walks: whole copies. */
	if (r->o.stack_bytes == 0 && !r->o.raw_stacks)
		r->adapt = ADAPT_LEARN;
	if (r->o.stack_bytes == 0)
		r->o.stack_bytes = SP_STACK_BYTES_DEFAULT;
	r->ctx.c[C_STACK_BYTES] = r->o.stack_bytes;
	if (r->o.max_frames == 0)
		r->o.max_frames = SP_FRAMES_MAX_DEFAULT;
	*out = r;
	if (spi_read_long("/proc/sys/kernel/perf_event_max_sample_rate",
	    &max_rate) == 0 && r->o.frequency == SP_FREQ_MAX && max_rate > 0)
		r->o.frequency = (unsigned)max_rate;
	if (r->o.frequency == SP_FREQ_MAX)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "-F max: cannot read "
		    "/proc/sys/kernel/perf_event_max_sample_rate");
	if (max_rate > 0 && r->o.frequency > (unsigned long)max_rate) {
		if (diag != NULL) {
			diag->requested = r->o.frequency;
			diag->permitted = (unsigned long)max_rate;
		}
		return sp_diag_set(diag, 0, -SP_EFREQ, "sampling rate %u Hz is above "
		    "the permitted %ld Hz (/proc/sys/kernel/"
		    "perf_event_max_sample_rate); use -F %ld or lower, or -F "
		    "max", r->o.frequency, max_rate, max_rate);
	}
	if (r->o.stack_bytes > SP_STACK_BYTES_MAX || r->o.stack_bytes % 8)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "stack size %u is not a "
		    "multiple of 8 from 8 to %u bytes", r->o.stack_bytes,
		    SP_STACK_BYTES_MAX);
	r->ips = calloc(r->o.max_frames, sizeof(*r->ips));
	r->frames = calloc((size_t)r->o.max_frames + 1, sizeof(*r->frames));
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->ctx.cache = sp_unwind_cache_new();
	r->ctx.maps_gen = 1; /* a memo of generation 0 is empty */
	r->fmemo = calloc(FRAME_MEMO, sizeof(*r->fmemo));
	if (r->ips == NULL || r->frames == NULL || r->epfd < 0 ||
	    r->fmemo == NULL ||
	    r->ctx.cache == NULL ||
	    online_cpus(r) < 0)
		return sp_diag_set(diag, 0, -ENOMEM, "out of memory");
	stack = r->o.stack_bytes > 4096 ? r->o.stack_bytes : 4096;
	if (r->o.ring_stacks == 0) {
		size_t n = SP_RING_AUTO_BYTES / stack /
		    (r->nr_cpus > 0 ? (size_t)r->nr_cpus : 1);

		r->o.ring_stacks = n < SP_RING_STACKS_DEFAULT ?
		    SP_RING_STACKS_DEFAULT : n > SP_RING_STACKS_AUTO_MAX ?
		    SP_RING_STACKS_AUTO_MAX : (unsigned)n;
	}
	r->ring_size = (size_t)1 << pow2_at_least((size_t)r->o.ring_stacks *
	    stack);
	/* A sample is its stack and a header, registers and sizes: a ring
	 * of one stack held none (ring_stacks 1 lost every sample). */
	if (r->ring_size < (size_t)2 << pow2_at_least(r->o.stack_bytes + 1024))
		r->ring_size = (size_t)2 << pow2_at_least(r->o.stack_bytes +
		    1024);
	if (r->ring_size > SP_RING_MAX)
		r->ring_size = SP_RING_MAX;
	while ((size_t)r->nr_cpus * r->ring_size > SP_RING_TOTAL_MAX)
		r->ring_size /= 2;
	init_attr(r);
	for (i = 0; i < C_COUNT_; i++)
		r->counters[i].name.s = i < C_FALLBACK_FIRST_ ? counter_names[i] :
		    i < C_UNWIND_FIRST_ ? sp_unwind_fallback_name(
		    (enum sp_unwind_fallback)(i - C_FALLBACK_FIRST_)) :
		    sp_unwind_error_name((enum sp_unwind_error)(i -
		    C_UNWIND_FIRST_ + 1));
	return 0;
}

/* perf_event_open(2) with attr a on tid's events of cpu: tid
 * (uint32_t)-1 is every task's, or the cgroup's when there is one. */
static int
perf_open(const struct sp_recorder *r, struct perf_event_attr *a,
    uint32_t tid, int cpu)
{
	if (tid == UINT32_MAX && r->cgroup_fd >= 0)
		return spi_perf_open(a, r->cgroup_fd, cpu, -1,
		    PERF_FLAG_FD_CLOEXEC | PERF_FLAG_PID_CGROUP);
	return spi_perf_open(a, (pid_t)tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* perf_event_open(2) on (tid, cpu), falling back from cycles to
 * cpu-clock, and from kernel to user-only sampling when that is denied. */
static int
open_event(struct sp_recorder *r, uint32_t tid, int cpu)
{
	int fd = perf_open(r, &r->attr, tid, cpu);

	if (fd >= 0)
		return fd;
	if (r->attr.type == PERF_TYPE_HARDWARE &&
	    (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV ||
	    fd == -EINVAL)) {
		r->attr.type = PERF_TYPE_SOFTWARE;
		r->attr.config = PERF_COUNT_SW_CPU_CLOCK;
		r->event_name = "cpu-clock";
		return open_event(r, tid, cpu);
	}
	if (!r->attr.exclude_kernel && (fd == -EACCES || fd == -EPERM)) {
		r->attr.exclude_kernel = 1;
		r->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		/* Asked for: said now.  By default the summary says it. */
		if (r->o.kernel)
			spi_rec_log(&r->ctx, "kernel sampling is denied "
			    "(perf_event_paranoid or missing CAP_PERFMON): "
			    "recording user frames only");
		return open_event(r, tid, cpu);
	}
	return fd;
}

/* Maps the ring of CPU index i on fd, halving on mlock limits. */
static int
map_ring(struct sp_recorder *r, int i, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = r->ring_size;
	/* A ring must hold at least one sample with its stack copy. */
	size_t min = (size_t)1 << pow2_at_least(r->o.stack_bytes + 1024);
	struct epoll_event ev;
	int err;

	for (;;) {
		err = spi_ring_map(&r->rings[i], fd, size, page);
		if (err != -EPERM && err != -ENOMEM)
			break;
		if (size / 2 < min || size / 2 < page)
			break;
		size /= 2;
	}
	if (err)
		return err;
	r->rings[i].id_len = spi_rec_id_len(r);
	if (size < r->ring_size) {
		r->ring_size = size;
		r->attr.wakeup_watermark = (uint32_t)(size / 4);
	}
	if (r->ctx.c[C_RING_BYTES_MIN] == 0 || size < r->ctx.c[C_RING_BYTES_MIN])
		r->ctx.c[C_RING_BYTES_MIN] = size;
	if (size > r->ctx.c[C_RING_BYTES_MAX])
		r->ctx.c[C_RING_BYTES_MAX] = size;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = (uint32_t)i;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

static int
keep_event(struct sp_recorder *r, int fd, uint32_t tid, int cpu,
    int sideband, int small)
{
	if (spi_grow_zeroed(&r->events, &r->capevents, r->nevents + 1,
	    sizeof(*r->events)) != 0)
		return -ENOMEM;
	r->events[r->nevents].fd = fd;
	r->events[r->nevents].tid = tid;
	r->events[r->nevents].sideband = sideband;
	r->events[r->nevents].small = small;
	r->events[r->nevents++].cpu = cpu;
	return 0;
}

/*
 * A disabled event writes no side-band records (the kernel skips events
 * that are off): while sampling waits, mmaps, execs, new threads and
 * processes and exits would go unseen, and an attached process that
 * exits would never end the recording.  A recorder that opens its first
 * events disabled (perf record --delay) therefore moves them to a dummy
 * event (PERF_COUNT_SW_DUMMY, no samples) per thread and CPU, written into
 * the same ring, which stays on; the sampling events carry none.
 */
static void
split_sideband(struct sp_recorder *r)
{
	r->sideband = 1;
	r->attr.mmap = 0;
	r->attr.mmap2 = 0;
	r->attr.comm = 0;
	r->attr.comm_exec = 0;
	r->attr.task = 0;
}

/*
 * Opens event a of (tid, CPU index i) into ring i, a side-band event (the
 * dummy) or with id not NULL a context-switch event whose id it stores
 * there, and keeps it.  Returns 0 or -errno.
 */
static int
open_into_ring(struct sp_recorder *r, struct perf_event_attr *a,
    uint32_t tid, int i, uint64_t *id)
{
	int fd = perf_open(r, a, tid, r->cpus[i]), err = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->rings[i].fd) < 0 ||
	    (id != NULL && ioctl(fd, PERF_EVENT_IOC_ID, id) < 0))
		err = -errno;
	if (err == 0 && (err = keep_event(r, fd, tid, r->cpus[i], id == NULL,
	    0)) == 0)
		r->events[r->nevents - 1].off_cpu = id != NULL;
	if (err)
		(void)close(fd);
	return err;
}

/* The dummy event of (tid, CPU index i) into ring i: from the exec of a
 * spawned command, as its samples would have been, else at once. */
static int
open_sideband(struct sp_recorder *r, uint32_t tid, int i)
{
	struct perf_event_attr a = r->attr;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.disabled = r->at_exec;
	a.enable_on_exec = r->at_exec;
	return open_into_ring(r, &a, tid, i, NULL);
}

/*
 * Maps ring i on *fd, the first event of CPU index i.  A ring the mlock
 * limits made smaller than asked for would never wake the drain: the
 * event was opened waking at a quarter of the size asked for (an
 * unprivileged user's 512 KiB against 2 MiB lost 56 % at 1 kHz).  Then
 * the event is opened again, with the watermark of the ring it has.
 */
static int
map_ring_event(struct sp_recorder *r, int i, int *fd, uint32_t tid)
{
	size_t asked = r->ring_size;
	int err = map_ring(r, i, *fd);

	if (err || r->ring_size == asked)
		return err;
	spi_ring_unmap(&r->rings[i]);
	(void)close(*fd);
	*fd = open_event(r, tid, r->cpus[i]);
	if (*fd < 0)
		return *fd;
	return map_ring(r, i, *fd);
}

/*
 * The sampling event of (tid, CPU index i) into ring i, with the small
 * stack copy or the default one, on while sampling is and its size is the
 * one in use: a spawned command's from its exec on, others at once.
 */
static int
open_sampler(struct sp_recorder *r, uint32_t tid, int i, int small)
{
	int on = r->enabled && small == (r->adapt == ADAPT_SMALL);
	int fd, err;

	r->attr.sample_stack_user = small ? SP_STACK_BYTES_SMALL :
	    r->o.stack_bytes;
	r->attr.disabled = r->at_exec || !on;
	r->attr.enable_on_exec = r->at_exec && on;
	fd = open_event(r, tid, r->cpus[i]);
	if (fd < 0)
		err = fd;
	else if (r->rings[i].base == NULL)
		err = map_ring_event(r, i, &fd, tid);
	else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->rings[i].fd) < 0)
		err = -errno;
	else
		err = 0;
	if (err == 0)
		err = keep_event(r, fd, tid, r->cpus[i], 0, small);
	if (err && fd >= 0)
		(void)close(fd);
	r->attr.sample_stack_user = r->o.stack_bytes;
	return err;
}

/*
 * --off-cpu: the context-switch event of (tid, CPU index i) into ring i.
 * It samples every switch of the thread off the CPU, in the kernel as it
 * switches (so never with exclude_kernel), with the user registers and
 * stack of the thread going off; context_switch adds its switches in
 * (PERF_RECORD_SWITCH), which end the time off.  Its samples are known
 * by its id, which inherited copies report too.
 */
static int
open_switches(struct sp_recorder *r, uint32_t tid, int i)
{
	struct perf_event_attr a = r->attr;
	uint64_t id = 0;
	int err;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.freq = 0;
	a.sample_period = 1;
	a.exclude_kernel = 0;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 0;
	a.context_switch = 1;
	a.sample_stack_user = r->o.stack_bytes;
	a.disabled = r->at_exec || !r->enabled;
	a.enable_on_exec = r->at_exec && r->enabled;
	if ((err = open_into_ring(r, &a, tid, i, &id)) != 0)
		return err;
	/* Ids count events opened since boot: 2^32 is far. */
	if (id > UINT32_MAX)
		return -EOVERFLOW;
	return spi_imap_put(&r->switch_ids, (uint32_t)id, &r->switch_ids);
}

/* Opens the events of thread tid on every CPU (see open_sampler), and
 * both sizes while the small one is in question; tid (uint32_t)-1: of
 * every task (the whole system). */
static int
open_events(struct sp_recorder *r, uint32_t tid)
{
	int i, err;

	if (r->nevents == 0 && (!r->enabled || r->adapt != ADAPT_OFF))
		split_sideband(r);
	for (i = 0; i < r->nr_cpus; i++) {
		if ((err = open_sampler(r, tid, i, 0)) != 0)
			return err;
		if ((r->adapt == ADAPT_LEARN || r->adapt == ADAPT_SMALL) &&
		    (err = open_sampler(r, tid, i, 1)) != 0)
			return err;
		if (r->sideband && (err = open_sideband(r, tid, i)) != 0)
			return err;
		if (r->o.off_cpu && (err = open_switches(r, tid, i)) != 0)
			return err;
	}
	return 0;
}

static int
open_thread(struct sp_recorder *r, uint32_t tid)
{
	int err = open_events(r, tid);

	return err ? err : spi_imap_put(&r->covered, tid, &r->covered);
}

static int
write_recording(struct sp_recorder *r)
{
	struct sp_record rec;
	const char *cmd = r->o.command != NULL ? r->o.command : "";

	if (r->wrote_recording)
		return 0;
	r->wrote_recording = 1;
	r->ctx.c[C_KERNEL_ENABLED] = !r->attr.exclude_kernel;
	r->ctx.c[C_KERNEL_CALLCHAINS] =
	    (r->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_RECORDING;
	rec.u.recording.event.s = r->event_name;
	rec.u.recording.event.len = (uint32_t)strlen(r->event_name);
	rec.u.recording.frequency = r->o.frequency;
	rec.u.recording.stack_bytes = r->o.stack_bytes;
	rec.u.recording.flags = ((r->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ?
	    SP_RECORDING_KERNEL : 0) |
	    (r->o.children ? SP_RECORDING_CHILDREN : 0) |
	    (r->system && r->cgroup_fd < 0 ? SP_RECORDING_SYSTEM : 0) |
	    (r->cgroup_fd >= 0 ? SP_RECORDING_CGROUP : 0) |
	    (r->o.off_cpu ? SP_RECORDING_OFF_CPU : 0) |
	    (r->attr.exclude_kernel ? 0 : SP_RECORDING_KERNEL_TIME);
	rec.u.recording.command.s = cmd;
	rec.u.recording.command.len = (uint32_t)strlen(cmd);
	return sp_writer_put(r->ctx.w, &rec, NULL);
}

static uint64_t
mono_now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
add_target(struct sp_recorder *r, uint32_t pid)
{
	struct rec_proc *p;

	if (spi_grow_zeroed(&r->targets, &r->captargets, r->ntargets + 1,
	    sizeof(*r->targets)) != 0)
		return -ENOMEM;
	r->targets[r->ntargets++] = pid;
	p = spi_rec_proc_get(r, pid, 1);
	if (p == NULL)
		return -ENOMEM;
	p->tracked = 1;
	r->ctx.c[C_PROCESSES]++;
	return 0;
}

static int
open_error(struct sp_recorder *r, int err, uint32_t pid, struct sp_diag *d)
{
	long paranoid = 0;

	if (err == -ESRCH)
		return sp_diag_set(d, 0, err, "no such process: %u", pid);
	if (err == -EACCES || err == -EPERM) {
		struct rec_proc *p = spi_rec_proc_get(r, pid, 0);

		(void)spi_read_long("/proc/sys/kernel/perf_event_paranoid",
		    &paranoid);
		if (p != NULL && p->uid != (uid_t)-1 && p->uid != geteuid())
			return sp_diag_set(d, 0, err, "not permitted to profile pid "
			    "%u: it belongs to uid %u, and profiling another "
			    "user's process needs root or CAP_PERFMON "
			    "(perf_event_paranoid is %ld); run sp-record as "
			    "root or as that user", pid, (unsigned)p->uid,
			    paranoid);
		return sp_diag_set(d, 0, err, "not permitted to profile pid %u: "
		    "perf_event_paranoid is %ld; run as root or with "
		    "CAP_PERFMON (or CAP_SYS_ADMIN), or set "
		    "/proc/sys/kernel/perf_event_paranoid to 1 or lower to "
		    "profile your own processes", pid, paranoid);
	}
	if (err == -EMFILE || err == -ENFILE)
		return sp_diag_set(d, 0, err, "out of file descriptors opening "
		    "events for pid %u; raise the limit (ulimit -n)", pid);
	if (err == -ENOMEM)
		return sp_diag_set(d, 0, err, "out of locked memory for the ring "
		    "buffers; raise ulimit -l or "
		    "/proc/sys/kernel/perf_event_mlock_kb");
	return sp_diag_set(d, 0, err, "perf_event_open for pid %u: %s", pid,
	    sp_strerror(err));
}

/* Is capability cap (linux/capability.h) in this process's effective set? */
static int
have_cap(unsigned cap)
{
	char *buf, *line;
	size_t len;
	int on = 0;

	if (spi_read_file("/proc/self/status", SP_PROC_FILE_MAX, &buf, &len))
		return 0;
	line = strstr(buf, "\nCapEff:");
	if (line != NULL)
		on = (int)(strtoull(line + 9, NULL, 16) >> cap & 1);
	free(buf);
	return on;
}

/*
 * The events are open but /proc/PID/maps is refused.  Opening it takes
 * ptrace read access (proc(5); ptrace(2), "Ptrace access mode
 * checking"): the process's owner while it is dumpable, or
 * CAP_SYS_PTRACE, unless a security module refuses; recent kernels also
 * let CAP_PERFMON read it (kernel/fork.c, may_access_mm).  perf_event_open
 * skips that check for CAP_PERFMON, so it can succeed where this fails.
 * Seen as root in a sandbox VM whose pid 1 is the sandbox's supervisor.
 */
static int
maps_error(int err, uint32_t pid, struct sp_diag *d)
{
	if (have_cap(CAP_SYS_PTRACE_BIT) && have_cap(CAP_PERFMON_BIT))
		return sp_diag_set(d, 0, err, "pid %u: open /proc/%u/maps: %s, although "
		    "sp-record has CAP_SYS_PTRACE and CAP_PERFMON: a security "
		    "policy protects that process (a security module, or the "
		    "sandbox or container that runs it); its events could be "
		    "opened, its mappings cannot be read", pid, pid,
		    sp_strerror(err));
	return sp_diag_set(d, 0, err, "pid %u: open /proc/%u/maps: %s: the kernel's "
	    "ptrace access check refused it (the process runs a set-user-ID "
	    "program or made itself undumpable, or a security module forbids "
	    "it); run sp-record as root or with CAP_SYS_PTRACE", pid, pid,
	    sp_strerror(err));
}

/* Clock ticks since boot now, as /proc's start times count them. */
static uint64_t
boot_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	(void)clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) /
	    (1000000000u / (uint64_t)(hz > 0 ? hz : 100));
}

/*
 * Whether thread tid of p, found in /proc and not covered, inherited its
 * event from the thread that created it: it began after p's threads had
 * theirs (a tick after listed_until: the start time counts in ticks), or
 * p's threads all inherit.  Its FORK record was lost or is not processed
 * yet; a second event would sample it twice.
 */
static int
inherited(const struct rec_proc *p, uint32_t tid)
{
	uint64_t start;

	if (p == NULL || p->listed_until == 0)
		return 1;
	return spi_rec_start_time(p->pid, tid, &start) == 0 &&
	    start > p->listed_until + 1;
}

/*
 * Opens the events of every thread of pid not covered yet.  late: after
 * the attach, where a thread not covered is most often one whose event is
 * inherited: it is only marked covered (see inherited()).
 */
static int
open_threads(struct sp_recorder *r, uint32_t pid, int late, int *opened)
{
	const struct rec_proc *p = spi_rec_proc_get(r, pid, 0);
	pid_t *tids;
	size_t n, i;
	int err = spi_proc_tasks((pid_t)pid, &tids, &n);

	*opened = 0;
	for (i = 0; err == 0 && i < n; i++) {
		if (spi_imap_get(&r->covered, (uint32_t)tids[i]) != NULL)
			continue;
		if (late && inherited(p, (uint32_t)tids[i])) {
			err = spi_imap_put(&r->covered, (uint32_t)tids[i],
			    &r->covered);
			r->ctx.c[C_THREADS]++;
			continue;
		}
		err = open_thread(r, (uint32_t)tids[i]);
		if (err == -ESRCH) /* it exited meanwhile */
			err = 0;
		else if (err == 0) {
			(*opened)++;
			r->ctx.c[C_THREADS]++;
		}
	}
	free(tids);
	return err;
}

/* Is pid one of the targets asked for already? */
static int
is_target(const struct sp_recorder *r, uint32_t pid)
{
	size_t i;

	for (i = 0; i < r->ntargets; i++)
		if (r->targets[i] == pid)
			return 1;
	return 0;
}

/*
 * With children followed, the processes pid forked before the start are
 * followed too (a server's workers, PostgreSQL's backends): each one's
 * threads get events and its mappings are read.  One that exits meanwhile
 * is skipped.  Without, they are counted.  0, -ENOMEM or the writer's
 * error.
 */
static int
follow_descendants(struct sp_recorder *r, uint32_t pid)
{
	pid_t *kids;
	char *buf;
	size_t n, i, len;
	int opened, err = sp_process_descendants((pid_t)pid, &kids, &n);

	/* Not followed: counted, for the summary to say so. */
	if (err == 0 && !r->o.children)
		r->ctx.c[C_CHILDREN_NOT_FOLLOWED] += n;
	for (i = 0; err == 0 && r->o.children && i < n; i++) {
		struct rec_proc *p = spi_rec_proc_get(r, (uint32_t)kids[i], 1);

		if (p == NULL) {
			err = -ENOMEM;
			break;
		}
		if (p->tracked)
			continue;
		p->tracked = 1;
		r->ctx.c[C_PROCESSES]++;
		err = open_threads(r, p->pid, 0, &opened);
		p->listed_until = boot_ticks();
		p->last_rescan = r->ctx.now;
		if (err == 0)
			err = spi_rec_read_maps(&r->ctx, p, &buf, &len);
		if (err == 0)
			err = spi_rec_add_maps(&r->ctx, p, buf, len);
		else if (err != -ENOMEM)
			err = 0; /* gone, or its maps refused: its samples
			          * still count, address-only */
	}
	free(kids);
	return err;
}

/* Is pid in state T (stopped by a signal), as /proc/PID/stat says? */
static int
stopped_already(pid_t pid)
{
	char state;
	pid_t ppid;

	return spi_proc_stat(pid, &state, &ppid) == 0 && state == 'T';
}

/*
 * Without -s a thread takes three events a CPU (see enum rec_adapt), with
 * it one (and one more with --off-cpu): a first target whose threads
 * would take more descriptors than RLIMIT_NOFILE leaves (2,001 threads
 * on 8 CPUs: 48,024 against 16,008) is recorded with the default copy
 * alone.
 */
static void
fit_descriptors(struct sp_recorder *r, pid_t pid)
{
	struct rlimit rl;
	pid_t *tids;
	size_t n;

	if (r->adapt != ADAPT_LEARN || r->nevents != 0 ||
	    spi_proc_tasks(pid, &tids, &n) != 0)
		return;
	free(tids);
	/* --off-cpu: a context-switch event a CPU more. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (n + 16) * (size_t)r->nr_cpus * (r->o.off_cpu ? 4 : 3) + 64 >
	    rl.rlim_cur)
		r->adapt = ADAPT_OFF;
}

int
sp_recorder_attach(struct sp_recorder *r, pid_t pid, struct sp_diag *diag)
{
	struct rec_proc *p;
	int stopped = 0, opened = 0, maps_err = 0, err;

	if (r->system)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "pid %d: every process "
		    "is recorded already (system-wide)", (int)pid);
	if (is_target(r, (uint32_t)pid))
		return 0; /* -p 3152,3152: one target */
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return open_error(r, -ESRCH, (uint32_t)pid, diag);
	/* One that is stopped already (kill -STOP) stays so. */
	if (r->o.stop && !stopped_already(pid) && kill(pid, SIGSTOP) == 0)
		stopped = 1;
	err = add_target(r, (uint32_t)pid);
	fit_descriptors(r, pid);
	if (err == 0)
		err = open_threads(r, (uint32_t)pid, 0, &opened);
	if (err == 0 && opened == 0)
		err = -ESRCH;
	r->ctx.now = mono_now();
	/* The first rescan a second from now: a thread started in this
	 * listing's tick whose FORK record is not read yet would look
	 * uncovered and not inherited (see inherited()). */
	r->last_thread_scan = r->ctx.now;
	p = spi_rec_proc_get(r, (uint32_t)pid, 0);
	if (err == 0 && p != NULL) {
		p->listed_until = boot_ticks();
		p->attached = 1;
		p->last_rescan = r->ctx.now;
		err = spi_rec_scan_maps(&r->ctx, p);
		maps_err = err == -EACCES || err == -EPERM;
	}
	if (err == 0)
		err = follow_descendants(r, (uint32_t)pid);
	if (err == 0)
		err = write_recording(r);
	if (stopped)
		(void)kill(pid, SIGCONT);
	if (maps_err)
		return maps_error(err, (uint32_t)pid, diag);
	/* It was there a moment ago: a zombie, or it exited meanwhile. */
	if (err == -ESRCH || err == -ENOENT)
		return sp_diag_set(diag, 0, -ESRCH, "pid %d exited while sp-record "
		    "was attaching to it (no thread left to sample)", (int)pid);
	if (err)
		return open_error(r, err, (uint32_t)pid, diag);
	return 0;
}

int
sp_recorder_attach_exec(struct sp_recorder *r, pid_t pid,
    struct sp_diag *diag)
{
	int err;

	if (r->system)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "pid %d: every process "
		    "is recorded already (system-wide)", (int)pid);
	if (is_target(r, (uint32_t)pid))
		return 0;
	r->at_exec = 1;
	err = add_target(r, (uint32_t)pid);
	if (err == 0)
		err = open_thread(r, (uint32_t)pid);
	if (err == 0) {
		r->ctx.c[C_THREADS]++;
		err = write_recording(r);
	}
	r->at_exec = 0;
	return err ? open_error(r, err, (uint32_t)pid, diag) : 0;
}

int
sp_recorder_attach_mode(struct sp_recorder *r, pid_t pid,
    enum sp_attach_mode mode, struct sp_diag *diag)
{
	int stop = r->o.stop, err;

	switch (mode) {
	case SP_ATTACH_RUNNING:
	case SP_ATTACH_STOPPED:
		r->o.stop = mode == SP_ATTACH_STOPPED;
		err = sp_recorder_attach(r, pid, diag);
		r->o.stop = stop;
		return err;
	case SP_ATTACH_AT_EXEC:
		return sp_recorder_attach_exec(r, pid, diag);
	}
	return sp_diag_set(diag, 0, -SP_EUSAGE, "unknown attach mode %d",
	    (int)mode);
}

/* Opening the events of every CPU for all tasks (of cgroup, when not
 * NULL) failed with err. */
static int
system_error(int err, const char *cgroup, struct sp_diag *d)
{
	long paranoid = 0;

	if (cgroup != NULL && (err == -EBADF || err == -EINVAL ||
	    err == -EOPNOTSUPP))
		return sp_diag_set(d, 0, err, "cgroup %s: perf_event_open "
		    "refused it (%s): the kernel may lack CONFIG_CGROUP_PERF, "
		    "or the directory is not one of cgroup v2", cgroup,
		    sp_strerror(err));
	if (err == -EACCES || err == -EPERM) {
		(void)spi_read_long("/proc/sys/kernel/perf_event_paranoid",
		    &paranoid);
		return sp_diag_set(d, 0, err, "not permitted to record %s%s: "
		    "perf_event_paranoid is %ld; run as root or with "
		    "CAP_PERFMON (or CAP_SYS_ADMIN), or set "
		    "/proc/sys/kernel/perf_event_paranoid to 0 or lower",
		    cgroup != NULL ? "cgroup " : "every process",
		    cgroup != NULL ? cgroup : "", paranoid);
	}
	if (err == -EMFILE || err == -ENFILE)
		return sp_diag_set(d, 0, err, "out of file descriptors opening "
		    "an event per CPU; raise the limit (ulimit -n)");
	if (err == -ENOMEM)
		return sp_diag_set(d, 0, err, "out of locked memory for the ring "
		    "buffers; raise ulimit -l or "
		    "/proc/sys/kernel/perf_event_mlock_kb");
	if (cgroup != NULL)
		return sp_diag_set(d, 0, err, "cgroup %s: %s", cgroup,
		    sp_strerror(err));
	return sp_diag_set(d, 0, err, "perf_event_open for every process: %s",
	    sp_strerror(err));
}

static int switch_events(struct sp_recorder *r);

/* A process running at the start of a system-wide recording. */
struct early {
	struct rec_proc *p;
	char *maps;
	size_t len;
};

/*
 * The whole system, or the cgroup open on r->cgroup_fd (named cgroup):
 * events per CPU, then the processes running, then sampling.
 */
static int
attach_all(struct sp_recorder *r, const char *cgroup, struct sp_diag *diag)
{
	struct early *e;
	pid_t *pids, *tids;
	size_t n, nt, i, k;
	int on = r->enabled, err;

	r->system = 1;
	r->o.children = 1;
	r->ctx.now = mono_now();
	/*
	 * The events open off, with the side-band records on (a dummy event
	 * beside them: see sp_recorder_enable), and sampling starts once
	 * every process running is known: a process that exits while the
	 * events open and /proc is read (hundreds of milliseconds on a busy
	 * machine) would have samples and no mappings.
	 */
	r->enabled = 0;
	err = open_events(r, UINT32_MAX);
	r->enabled = on;
	if (err)
		return system_error(err, cgroup, diag);
	/*
	 * The processes running now, after the events opened (one started
	 * meanwhile has a FORK record too and is followed once).  Their
	 * maps are read first, all of them, and their files (build-ids,
	 * CFI) after.
	 */
	err = r->cgroup_fd >= 0 ? spi_cgroup_pids(r->cgroup_fd, &pids, &n) :
	    spi_proc_pids(&pids, &n);
	if (err)
		return system_error(err, cgroup, diag);
	e = calloc(n + 1, sizeof(*e));
	if (e == NULL)
		err = -ENOMEM;
	for (i = 0; i < n && err == 0; i++)
		if (spi_rec_proc_get(r, (uint32_t)pids[i], 0) == NULL)
			err = spi_rec_adopt_read(r, (uint32_t)pids[i], &e[i].p,
			    &e[i].maps, &e[i].len);
	for (i = 0; i < n && e != NULL; i++) {
		if (err == 0 && e[i].maps != NULL)
			err = spi_rec_add_maps(&r->ctx, e[i].p, e[i].maps,
			    e[i].len);
		else
			free(e[i].maps);
		if (err == 0 && e[i].p != NULL &&
		    spi_proc_tasks(pids[i], &tids, &nt) == 0) {
			r->ctx.c[C_THREADS] += nt;
			for (k = 0; k < nt && err == 0; k++)
				err = spi_rec_name_thread(r, (uint32_t)pids[i],
				    (uint32_t)tids[k]);
			free(tids);
		}
	}
	free(e);
	free(pids);
	if (err == 0)
		err = write_recording(r);
	if (err == 0 && on)
		err = switch_events(r);
	return err ? system_error(err, cgroup, diag) : 0;
}

/* Neither the whole system nor a cgroup with attached processes. */
static int
attached_already(const struct sp_recorder *r, struct sp_diag *diag)
{
	if (r->system || r->ntargets > 0)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "%s", r->system ?
		    "every process (or a cgroup's) is recorded already" :
		    "processes are attached already: record the whole system "
		    "or a cgroup, or those");
	return 0;
}

int
sp_recorder_attach_system(struct sp_recorder *r, struct sp_diag *diag)
{
	int err = attached_already(r, diag);

	return err ? err : attach_all(r, NULL, diag);
}

int
sp_recorder_attach_cgroup(struct sp_recorder *r, const char *path,
    struct sp_diag *diag)
{
	struct statfs sf;
	int fd, err = attached_already(r, diag);

	if (err)
		return err;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return sp_diag_set(diag, 0, err, "cgroup %s: %s%s", path,
		    sp_strerror(err), err == -ENOENT ? " (a directory of "
		    "the cgroup v2 hierarchy, /sys/fs/cgroup/...)" : "");
	}
	if (fstatfs(fd, &sf) != 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		(void)close(fd);
		return sp_diag_set(diag, 0, -SP_EUSAGE, "cgroup %s: not a "
		    "directory of the cgroup v2 hierarchy (mounted at "
		    "/sys/fs/cgroup on current systems)", path);
	}
	r->cgroup_fd = fd;
	return attach_all(r, path, diag);
}

int
sp_recorder_spawn(struct sp_recorder *r, char *const argv[], pid_t *pid,
    struct sp_diag *diag)
{
	struct sp_launch l;
	int err;

	err = sp_process_launch(argv, &l, diag);
	if (err < 0)
		return err;
	*pid = l.pid;
	err = sp_recorder_attach_exec(r, l.pid, diag);
	if (err < 0) {
		sp_process_abandon(&l);
		return err;
	}
	return sp_process_release(&l, argv[0], diag);
}

/* Gone from /proc with no EXIT record read (one read waits for reap). */
static int
gone(const struct rec_proc *p)
{
	return p->exited == 0 && !sp_process_exists((pid_t)p->pid);
}

struct orphans {
	const struct sp_imap *procs;
	uint32_t *tids;
	size_t n, cap;
};

static void
collect_orphan(void *val, void *ctx)
{
	const struct rec_thread *t = val;
	struct orphans *o = ctx;

	if (o->n < o->cap && spi_imap_get(o->procs, t->pid) == NULL)
		o->tids[o->n++] = t->tid;
}

/*
 * The whole system: processes whose exit was among the lost records are
 * freed (with their mappings and files), and then the threads of no
 * process (a switch off CPU one held is never ended), so that the tables
 * stay as large as the machine's processes.  0 or -ENOMEM.
 */
static int
drop_gone(struct sp_recorder *r)
{
	struct orphans o = { &r->procs, NULL, 0, r->threads.used };
	uint32_t *pids;
	size_t i, n;
	int err = spi_rec_pids(&r->procs, gone, &pids, &n);

	for (i = 0; i < n; i++)
		spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pids[i]));
	free(pids);
	if (err == 0 && (o.tids = malloc((o.cap + 1) * sizeof(*o.tids))) == NULL)
		err = -ENOMEM;
	if (err == 0)
		/* Walked first, freed after: freeing changes the map. */
		spi_imap_each(&r->threads, collect_orphan, &o);
	for (i = 0; i < o.n; i++)
		free(spi_imap_del(&r->threads, o.tids[i]));
	free(o.tids);
	return err;
}

/* Recovery after lost events: rescan each target's threads and maps. */
static int
sweep(struct sp_recorder *r)
{
	size_t i;
	int opened, err;

	r->need_sweep = 0;
	r->ctx.c[C_LIFECYCLE_GAPS]++;
	err = spi_rec_sweep_reused(&r->ctx, &r->procs);
	if (err == 0 && r->system)
		err = drop_gone(r);
	for (i = 0; i < r->ntargets && err == 0; i++) {
		struct rec_proc *p = spi_rec_proc_get(r, r->targets[i], 0);

		if (p == NULL)
			continue;
		err = open_threads(r, p->pid, 1, &opened);
		if (err == -ESRCH)
			err = 0;
		if (err == 0)
			err = spi_rec_scan_maps(&r->ctx, p);
		if (err == -ENOENT || err == -ESRCH)
			err = 0;
	}
	return err;
}

/* Whether item x goes before item y: by time, then in ring order. */
static int
before(const struct rec_item *x, const struct rec_item *y)
{
	return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

/* The end of the run of items in order that starts at i. */
static size_t
run_end(const struct rec_item *a, size_t i, size_t n)
{
	for (i++; i < n && !before(&a[i], &a[i - 1]); i++)
		;
	return i;
}

/*
 * Sorts the items by time.  A ring's records come in time order, or
 * nearly: the runs in order are merged pairwise (a natural merge sort),
 * one pass for two rings in order, none for one.  Not qsort: musl's moves
 * the items with memcpy in cycles, a fifth of the recorder's CPU with 8
 * threads.  Returns 0 or -ENOMEM.
 */
static int
sort_items(struct sp_recorder *r)
{
	struct rec_item *a = r->items, *b, *t;
	size_t n = r->nitems, runs, cap;

	if (run_end(a, 0, n) == n)
		return 0;
	if (spi_grow_zeroed(&r->sorted, &r->capsorted, n,
	    sizeof(*r->sorted)) != 0)
		return -ENOMEM;
	b = r->sorted;
	do {
		size_t i = 0, o = 0;

		for (runs = 0; i < n; runs++) {
			size_t m = run_end(a, i, n), x = i, y = m;
			size_t e = m < n ? run_end(a, m, n) : n;

			while (x < m && y < e)
				b[o++] = before(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < m)
				b[o++] = a[x++];
			while (y < e)
				b[o++] = a[y++];
			i = e;
		}
		t = a;
		a = b;
		b = t;
	} while (runs > 1);
	if (a != r->items) {
		r->sorted = r->items;
		r->items = a;
		cap = r->capsorted;
		r->capsorted = r->capitems;
		r->capitems = cap;
	}
	return 0;
}

/*
 * Switches the sampling events: on, those of the stack copy's size in use;
 * off, all.  Each event's inherited copies (new threads, forked
 * processes) follow it: the kernel switches them with it.  The side-band
 * events stay on.  Those to turn off go first: no thread is sampled twice
 * meanwhile.  Returns 0 or the first -errno.
 */
static int
switch_events(struct sp_recorder *r)
{
	int small = r->adapt == ADAPT_SMALL, pass, err = 0;
	size_t i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < r->nevents; i++) {
			const struct rec_event *e = &r->events[i];
			int on = r->enabled && (e->small == small ||
			    e->off_cpu);

			if (e->sideband || on != pass)
				continue;
			if (ioctl(e->fd, on ? PERF_EVENT_IOC_ENABLE :
			    PERF_EVENT_IOC_DISABLE, 0) < 0 && errno != ESRCH &&
			    err == 0)
				err = -errno;
		}
	return err;
}

int
sp_recorder_enable(struct sp_recorder *r, int on)
{
	if (!on && r->enabled)
		r->paused_at = mono_now();
	r->enabled = on != 0;
	return switch_events(r);
}

/* Closes the small copy's events (and so their inherited copies): the
 * default copy is in use for good. */
static void
drop_small(struct sp_recorder *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nevents; i++)
		if (r->events[i].small)
			(void)close(r->events[i].fd);
		else
			r->events[n++] = r->events[i];
	r->nevents = n;
}

/* The copy's size in use becomes small or the default one. */
static void
use_stack(struct sp_recorder *r, enum rec_adapt to)
{
	r->adapt = to;
	(void)switch_events(r);
	r->ctx.c[C_STACK_BYTES] = to == ADAPT_SMALL ? SP_STACK_BYTES_SMALL :
	    r->o.stack_bytes;
	r->ctx.c[C_STACK_SWITCHES]++;
	if (to == ADAPT_BIG)
		drop_small(r);
}

/*
 * What the walks drained so far say of the stack copy's size (counted by
 * rec_process.c): the small one after SP_STACK_LEARN_WALKS walks in a row
 * fit in it, the default one for good after a tenth as many that would
 * not, or when the small one cut more than 1 walk in 1000 (and more than
 * 2).  Decided after a drain: the records still in the rings were taken
 * with the size before.
 */
static void
choose_stack(struct sp_recorder *r)
{
	if (r->adapt == ADAPT_LEARN) {
		if (r->fit >= SP_STACK_LEARN_WALKS)
			use_stack(r, ADAPT_SMALL);
		else if (r->unfit >= SP_STACK_LEARN_WALKS / 10) {
			r->adapt = ADAPT_BIG;
			drop_small(r);
		}
	} else if (r->adapt == ADAPT_SMALL && r->cut > 2 &&
	    r->cut * 1000 > r->walks)
		use_stack(r, ADAPT_BIG);
}

/*
 * How long a record may take from its timestamp to its ring's head: the
 * kernel takes the time, then copies the stack.  A drain takes records
 * up to its own start less this, so that none written later on another
 * CPU comes out of order (a sample of a library processed after the
 * mmap that replaced it would be named through the new one).
 */
#define WRITE_NS 250000ull

/* spi_ring_read's add: one more item to sort. */
static int
add_item(void *ctx, const struct sp_ring_rec *rec)
{
	struct sp_recorder *r = ctx;
	struct rec_item *it;

	if (spi_grow_zeroed(&r->items, &r->capitems, r->nitems + 1,
	    sizeof(*r->items)) != 0)
		return -ENOMEM;
	it = &r->items[r->nitems];
	it->rec = rec->p;
	it->off = rec->off;
	it->len = (uint32_t)rec->len;
	it->seq = (uint32_t)r->nitems++;
	it->time = rec->p != NULL ? spi_perf_record_time(rec->p, rec->len,
	    spi_rec_id_len(r)) : 0;
	return 0;
}

/*
 * Reads the rings (all: to their heads; else the records older than this
 * call less WRITE_NS), sorts the records by time and processes them where
 * they lie in the rings (only those that wrap around a ring's end are
 * copied), then frees their space.
 */
static int
drain(struct sp_recorder *r, int all)
{
	uint64_t until = all ? UINT64_MAX : mono_now() - WRITE_NS;
	size_t i;
	int k, swept = 0, err = 0;

	r->drain.len = 0;
	r->nitems = 0;
	for (k = 0; k < r->nr_cpus; k++)
		if (r->rings[k].base != NULL &&
		    spi_ring_read(&r->rings[k], until, &r->drain, add_item, r) ==
		    -ENOMEM)
			return -ENOMEM;
	/* The wrapped ones, now that the buffer moves no more. */
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].rec == NULL) {
			r->items[i].rec = r->drain.p + r->items[i].off;
			r->items[i].time = spi_perf_record_time(r->items[i].rec,
			    r->items[i].len, spi_rec_id_len(r));
		}
	if (r->nitems > 1 && sort_items(r) != 0)
		return -ENOMEM;
	/* A loss is swept at once, so that the records after it are read
	 * with /proc's view; /proc is newer than every record drained, so
	 * one sweep serves every later loss in this batch. */
	for (i = 0; i < r->nitems && err == 0; i++) {
		err = spi_rec_process(r, r->items[i].rec, r->items[i].len);
		if (err == 0 && r->need_sweep && !swept) {
			err = sweep(r);
			swept = 1;
		}
		r->need_sweep = 0;
	}
	for (k = 0; k < r->nr_cpus; k++)
		if (r->rings[k].base != NULL)
			spi_ring_release(&r->rings[k]);
	choose_stack(r);
	return err;
}

/*
 * Threads that inheritance cannot cover: those created between listing
 * /proc/PID/task and opening their events when attaching without
 * stopping.  Look for them once a second.
 */
static int
rescan_threads(struct sp_recorder *r)
{
	uint64_t now = mono_now();
	size_t i;
	int opened, err = 0;

	if (now - r->last_thread_scan < 1000000000ull)
		return 0;
	r->last_thread_scan = now;
	for (i = 0; i < r->ntargets && err == 0; i++) {
		if (spi_rec_proc_get(r, r->targets[i], 0) == NULL)
			continue; /* exited */
		err = open_threads(r, r->targets[i], 1, &opened);
		if (err == -ESRCH || err == -ENOENT)
			err = 0;
	}
	return err;
}

int
sp_recorder_poll(struct sp_recorder *r, int timeout_ms)
{
	struct epoll_event ev[16];
	int err;

	if (epoll_wait(r->epfd, ev, 16, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	err = drain(r, 0);
	if (err == 0 && !r->o.stop)
		err = rescan_threads(r);
	return err;
}

static void
count_live(void *val, void *ctx)
{
	const struct rec_proc *p = val;

	/* Exited processes are already out of the table (rec_process.c). */
	if (p->tracked)
		(*(size_t *)ctx)++;
}

struct live_other {
	uint32_t pid;
	size_t n;
};

static void
count_other(void *val, void *ctx)
{
	const struct rec_proc *p = val;
	struct live_other *lo = ctx;

	if (p->tracked && p->pid != lo->pid)
		lo->n++;
}

size_t
sp_recorder_live(const struct sp_recorder *r)
{
	size_t n = 0;

	spi_imap_each(&r->procs, count_live, &n);
	return n;
}

int
sp_recorder_other_alive(const struct sp_recorder *r, pid_t pid)
{
	struct live_other lo = { (uint32_t)pid, 0 };

	spi_imap_each(&r->procs, count_other, &lo);
	return lo.n > 0;
}

int
sp_recorder_refresh(struct sp_recorder *r)
{
	r->last_thread_scan = 0;
	return rescan_threads(r);
}

int
sp_recorder_pending(const struct sp_recorder *r)
{
	int k;

	for (k = 0; k < r->nr_cpus; k++)
		if (spi_ring_pending(&r->rings[k]))
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
	return r->wrote_recording ? r->event_name : NULL;
}

static void
close_events(struct sp_recorder *r)
{
	size_t i;
	int k;

	for (k = 0; k < r->nr_cpus; k++)
		spi_ring_unmap(&r->rings[k]);
	for (i = 0; i < r->nevents; i++)
		(void)close(r->events[i].fd);
	r->nevents = 0;
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
	size_t i;
	int err = 0;

	for (i = 0; i < r->nevents; i++)
		(void)ioctl(r->events[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	err = drain(r, 1);
	close_events(r);
	/* Threads still off CPU: until now. */
	if (err == 0 && r->o.off_cpu)
		err = spi_rec_off_cpu_end(r, mono_now());
	if (r->ctx.bundle != NULL) {
		spi_imap_each(&r->procs, bundle_maps, r);
		/* Real kernel addresses reveal the KASLR layout: kept only
		 * when kernel frames were asked for. */
		if (r->o.kernel && sp_bundle_kallsyms(r->ctx.bundle) < 0)
			spi_rec_log(&r->ctx, "bundle: /proc/kallsyms not kept (addresses "
			    "hidden or unreadable)");
	}
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
	if (r->rings != NULL)
		close_events(r);
	if (r->epfd >= 0)
		(void)close(r->epfd);
	spi_imap_each(&r->procs, free_proc, &r->ctx);
	spi_imap_each(&r->threads, free_val, NULL);
	spi_imap_fini(&r->procs);
	spi_imap_fini(&r->threads);
	spi_imap_fini(&r->covered);
	spi_imap_fini(&r->switch_ids);
	spi_buf_fini(&r->drain);
	free(r->exited);
	if (r->cgroup_fd >= 0)
		(void)close(r->cgroup_fd);
	free(r->items);
	free(r->sorted);
	free(r->events);
	free(r->rings);
	free(r->cpus);
	free(r->targets);
	sp_unwind_cache_free(r->ctx.cache); /* before the tables it points into */
	sp_cfi_table_free(r->ctx.vdso);
	while (r->ctx.files != NULL) {
		struct rec_file *f = r->ctx.files;

		r->ctx.files = f->next;
		sp_cfi_table_free(f->cfi);
		sp_elf_file_free(f->elf);
		free(f->path);
		free(f);
	}
	free(r->ips);
	free(r->frames);
	free(r->fmemo);
	free(r);
}
