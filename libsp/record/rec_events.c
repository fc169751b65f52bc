/* SPDX-License-Identifier: MIT */
/* The recorder's perf events and rings: open, map, switch, close. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "common/procfs_int.h"
#include "rec_events_int.h"
#include "unwind/arch_int.h"

/* Whether cpu is among want[0..n) (want NULL: every CPU). */
static int
wanted(const int *want, size_t n, long cpu)
{
	size_t i;

	if (want == NULL)
		return 1;
	for (i = 0; i < n; i++)
		if (want[i] == cpu)
			return 1;
	return 0;
}

/* The online CPUs, of want[0..nwant) when it is not NULL: -ENODEV with
 * e->bad_cpu when one of those is not online. */
static int
online_cpus(struct rec_events *e, const int *want, size_t nwant)
{
	long n = sysconf(_SC_NPROCESSORS_CONF), i, k = 0;
	size_t w;
	char path[64];

	if (n <= 0 || n > 4096)
		n = 1;
	e->cpus = calloc((size_t)n, sizeof(*e->cpus));
	e->rings = calloc((size_t)n, sizeof(*e->rings));
	if (e->cpus == NULL || e->rings == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		long on = 1;

		(void)snprintf(path, sizeof(path),
		    "/sys/devices/system/cpu/cpu%ld/online", i);
		if (spi_read_long(path, &on) == 0 && on == 0)
			continue; /* cpu0 has no such file: online */
		if (!wanted(want, nwant, i))
			continue;
		e->rings[k].fd = -1;
		e->cpus[k++] = (int)i;
	}
	e->nr_cpus = (int)k;
	for (w = 0; want != NULL && w < nwant; w++) {
		for (i = 0; i < k && e->cpus[i] != want[w]; i++)
			;
		if (i == k) {
			e->bad_cpu = want[w];
			return -ENODEV;
		}
	}
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

/*
 * Jittered (rec_jitter_int.h), the events count time, cpu-clock (or
 * task-clock, asked for), and each opens with an interval of its own
 * (open_sampler) that it keeps; otherwise the event asked for, by default
 * cycles where there is a PMU, as perf's, at a frequency or a period.
 */
static void
init_attr(struct rec_events *e, const struct sp_recorder_opts *o)
{
	struct perf_event_attr *a = &e->attr;
	/* perf's default at fixed intervals; with a period given, it is of
	 * time (-c in ns, cpu-clock). */
	int cycles = e->sel.deflt && e->jitter == NULL && o->period == 0;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = cycles ? PERF_TYPE_HARDWARE : e->sel.type;
	a->config = cycles ? PERF_COUNT_HW_CPU_CYCLES : e->sel.config;
	e->name = cycles ? "cycles" : e->sel.name;
	a->freq = e->jitter == NULL && o->period == 0;
	if (e->jitter != NULL)
		a->sample_period = e->jitter->mean_ns;
	else if (o->period != 0)
		a->sample_period = o->period;
	else
		a->sample_freq = o->frequency;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (!e->fp)
		a->sample_type |= PERF_SAMPLE_REGS_USER |
		    PERF_SAMPLE_STACK_USER;
	/* By frequency, the kernel's period moves: each sample says its
	 * own.  Not with a period given, where it is known: a software
	 * event asked for PERIOD at a fixed period samples every event
	 * (perf_swevent_event), whatever the period. */
	if (!e->sel.clock && o->period == 0)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (e->kernel || e->fp)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	/* Off-CPU samples share the rings: the event's id tells them; and
	 * jittered, a sample's interval is its event's. */
	if (e->off_cpu || e->jitter != NULL)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (!e->fp) {
		a->sample_regs_user = SPI_ARCH_PERF_REGS;
		a->sample_stack_user = e->stack_bytes;
	}
	/* By frame pointers (--call-graph fp), the kernel's user chain is
	 * the stack: spi_events_user_chains's, from the start. */
	a->exclude_callchain_user = !e->fp;
	a->exclude_callchain_kernel = e->fp && !e->kernel;
	e->user_chains = e->fp;
	/* Time in the kernel is sampled whenever the kernel allows it (a
	 * profile without it answers another question than perf's); its
	 * callchains only with --kernel.  An event:u, never. */
	a->exclude_kernel = e->sel.user_only;
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
	a->wakeup_watermark = (uint32_t)(e->ring_size / 4);
}

int
spi_events_user_chains(struct rec_events *e)
{
	if (e->n == 0 && !e->user_chains) {
		e->user_chains = 1;
		e->attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		e->attr.exclude_callchain_user = 0;
		e->attr.exclude_callchain_kernel = !e->kernel ||
		    e->attr.exclude_kernel;
	}
	return e->user_chains;
}

int
spi_events_kernel_chains(const struct rec_events *e)
{
	return (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0 &&
	    !e->attr.exclude_callchain_kernel;
}

int
spi_events_init(struct rec_events *e, struct rec_ctx *ctx,
    struct sp_recorder_opts *o, const struct rec_evsel *sel,
    struct rec_jitter *jitter)
{
	int err;
	size_t stack;

	memset(e, 0, sizeof(*e));
	e->ctx = ctx;
	e->stack_bytes = o->stack_bytes;
	e->kernel = o->kernel;
	e->off_cpu = o->off_cpu;
	e->jitter = jitter;
	e->fp = o->fp_chains;
	e->enabled = 1;
	e->sel = *sel;
	e->cgroup_fd = -1;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0)
		return -ENOMEM;
	if ((err = online_cpus(e, o->cpus, o->ncpus)) < 0)
		return err;
	stack = o->stack_bytes > 4096 ? o->stack_bytes : 4096;
	if (o->ring_stacks == 0) {
		size_t n = SP_RING_AUTO_BYTES / stack /
		    (e->nr_cpus > 0 ? (size_t)e->nr_cpus : 1);

		o->ring_stacks = n < SP_RING_STACKS_DEFAULT ?
		    SP_RING_STACKS_DEFAULT : n > SP_RING_STACKS_AUTO_MAX ?
		    SP_RING_STACKS_AUTO_MAX : (unsigned)n;
	}
	e->ring_size = (size_t)1 << pow2_at_least((size_t)o->ring_stacks *
	    stack);
	/* A sample is its stack and a header, registers and sizes: a ring
	 * of one stack held none (ring_stacks 1 lost every sample). */
	if (e->ring_size < (size_t)2 << pow2_at_least(o->stack_bytes + 1024))
		e->ring_size = (size_t)2 << pow2_at_least(o->stack_bytes +
		    1024);
	if (e->ring_size > SP_RING_MAX)
		e->ring_size = SP_RING_MAX;
	while ((size_t)e->nr_cpus * e->ring_size > SP_RING_TOTAL_MAX)
		e->ring_size /= 2;
	e->ring_size_asked = e->ring_size;
	init_attr(e, o);
	return 0;
}

/* perf_event_open(2) with attr a on tid's events of cpu: tid
 * (uint32_t)-1 is every task's, or the cgroup's when there is one. */
static int
perf_open(const struct rec_events *e, struct perf_event_attr *a,
    uint32_t tid, int cpu)
{
	if (tid == UINT32_MAX && e->cgroup_fd >= 0)
		return spi_perf_open(a, e->cgroup_fd, cpu, -1,
		    PERF_FLAG_FD_CLOEXEC | PERF_FLAG_PID_CGROUP);
	return spi_perf_open(a, (pid_t)tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* perf_event_open(2) on (tid, cpu), falling back from cycles to
 * cpu-clock, and from kernel to user-only sampling when that is denied. */
static int
open_event(struct rec_events *e, uint32_t tid, int cpu)
{
	int fd = perf_open(e, &e->attr, tid, cpu);

	if (fd >= 0)
		return fd;
	if (e->attr.type == PERF_TYPE_HARDWARE && e->sel.deflt &&
	    (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV ||
	    fd == -EINVAL)) {
		e->attr.type = PERF_TYPE_SOFTWARE;
		e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
		e->name = "cpu-clock";
		return open_event(e, tid, cpu);
	}
	if (!e->attr.exclude_kernel && (fd == -EACCES || fd == -EPERM)) {
		e->attr.exclude_kernel = 1;
		e->attr.exclude_callchain_kernel = 1;
		if (!e->user_chains)
			e->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		/* Asked for: said now.  By default the summary says it. */
		if (e->kernel)
			spi_rec_log(e->ctx, "kernel sampling is denied "
			    "(perf_event_paranoid or missing CAP_PERFMON): "
			    "recording user frames only");
		return open_event(e, tid, cpu);
	}
	return fd;
}

/* The size of the rings mapped from now on, and the watermark of the
 * events that map one (init_attr says why a quarter). */
static void
set_ring_size(struct rec_events *e, size_t size)
{
	e->ring_size = size;
	e->attr.wakeup_watermark = (uint32_t)(size / 4);
}

/* Maps the ring of CPU index i on fd, halving on mlock limits. */
static int
map_ring(struct rec_events *e, int i, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = e->ring_size;
	/* A ring must hold at least one sample with its stack copy. */
	size_t min = (size_t)1 << pow2_at_least(e->stack_bytes + 1024);
	uint64_t *c = e->ctx->c;
	struct epoll_event ev;
	int err;

	for (;;) {
		err = spi_ring_map(&e->rings[i], fd, size, page);
		if (err != -EPERM && err != -ENOMEM)
			break;
		if (size / 2 < min || size / 2 < page)
			break;
		size /= 2;
	}
	if (err)
		return err;
	e->rings[i].id_len = spi_events_id_len(e);
	if (size < e->ring_size)
		set_ring_size(e, size);
	if (c[C_RING_BYTES_MIN] == 0 || size < c[C_RING_BYTES_MIN])
		c[C_RING_BYTES_MIN] = size;
	if (size > c[C_RING_BYTES_MAX])
		c[C_RING_BYTES_MAX] = size;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = (uint32_t)i;
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

/* e->first's value for the index i of a tid's first event: i + 1 (the
 * map's NULL is none), a number never dereferenced. */
static void *
index_value(size_t i)
{
	/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
	return (void *)(uintptr_t)(i + 1);
}

static int
keep_event(struct rec_events *e, int fd, uint32_t tid, int cpu,
    int sideband, int small)
{
	if (spi_grow_zeroed(&e->v, &e->cap, e->n + 1, sizeof(*e->v)) != 0 ||
	    (spi_imap_get(&e->first, tid) == NULL &&
	    spi_imap_put(&e->first, tid, index_value(e->n)) != 0))
		return -ENOMEM;
	e->v[e->n].fd = fd;
	e->v[e->n].tid = tid;
	e->v[e->n].sideband = sideband;
	e->v[e->n].small = small;
	e->v[e->n++].cpu = cpu;
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
split_sideband(struct rec_events *e)
{
	e->sideband = 1;
	e->attr.mmap = 0;
	e->attr.mmap2 = 0;
	e->attr.comm = 0;
	e->attr.comm_exec = 0;
	e->attr.task = 0;
}

/*
 * Opens event a of (tid, CPU index i) into ring i, a side-band event (the
 * dummy) or with id not NULL a context-switch event whose id it stores
 * there, and keeps it.  Returns 0 or -errno.
 */
static int
open_into_ring(struct rec_events *e, struct perf_event_attr *a,
    uint32_t tid, int i, uint64_t *id)
{
	int fd = perf_open(e, a, tid, e->cpus[i]), err = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, e->rings[i].fd) < 0 ||
	    (id != NULL && ioctl(fd, PERF_EVENT_IOC_ID, id) < 0))
		err = -errno;
	if (err == 0 && (err = keep_event(e, fd, tid, e->cpus[i], id == NULL,
	    0)) == 0)
		e->v[e->n - 1].off_cpu = id != NULL;
	if (err)
		(void)close(fd);
	return err;
}

/* The dummy event of (tid, CPU index i) into ring i: from the exec of a
 * spawned command, as its samples would have been, else at once. */
static int
open_sideband(struct rec_events *e, uint32_t tid, int i)
{
	struct perf_event_attr a = e->attr;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.disabled = e->at_exec;
	a.enable_on_exec = e->at_exec;
	return open_into_ring(e, &a, tid, i, NULL);
}

/*
 * Maps ring i on *fd, the first event of CPU index i.  A ring the mlock
 * limits made smaller than asked for would never wake the drain: the
 * event was opened waking at a quarter of the size asked for (an
 * unprivileged user's 512 KiB against 2 MiB lost 56 % at 1 kHz).  Then
 * the event is opened again, with the watermark of the ring it has.
 */
static int
map_ring_event(struct rec_events *e, int i, int *fd, uint32_t tid)
{
	size_t asked = e->ring_size;
	int err = map_ring(e, i, *fd);

	if (err || e->ring_size == asked)
		return err;
	spi_ring_unmap(&e->rings[i]);
	(void)close(*fd);
	*fd = open_event(e, tid, e->cpus[i]);
	if (*fd < 0)
		return *fd;
	return map_ring(e, i, *fd);
}

/*
 * The sampling event of (tid, CPU index i) into ring i, with the small
 * stack copy or the default one, on while sampling is and its size is the
 * one in use: a spawned command's from its exec on, others at once.
 */
static int
open_sampler(struct rec_events *e, uint32_t tid, int i, int small)
{
	int on = e->enabled && small == e->small_on;
	uint64_t ns = 0, id = 0;
	int fd, err;

	if (e->jitter != NULL)
		e->attr.sample_period = ns = spi_jitter_draw(e->jitter);
	e->attr.sample_stack_user = small ? SP_STACK_BYTES_SMALL :
	    e->stack_bytes;
	e->attr.disabled = e->at_exec || !on;
	e->attr.enable_on_exec = e->at_exec && on;
	fd = open_event(e, tid, e->cpus[i]);
	if (fd < 0)
		err = fd;
	else if (e->rings[i].base == NULL)
		err = map_ring_event(e, i, &fd, tid);
	else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, e->rings[i].fd) < 0)
		err = -errno;
	else
		err = 0;
	/* Ids count events opened since boot: 2^32 is far. */
	if (err == 0 && e->jitter != NULL && (ioctl(fd, PERF_EVENT_IOC_ID,
	    &id) < 0 || id > UINT32_MAX))
		err = id > UINT32_MAX ? -EOVERFLOW : -errno;
	if (err == 0)
		err = keep_event(e, fd, tid, e->cpus[i], 0, small);
	if (err == 0) {
		e->v[e->n - 1].id = (uint32_t)id;
		e->v[e->n - 1].ns = ns;
		if (e->jitter != NULL && (err = spi_imap_put(&e->sampler_ids,
		    (uint32_t)id, index_value(e->n - 1))) != 0)
			e->n--;
	}
	if (err && fd >= 0)
		(void)close(fd);
	e->attr.sample_stack_user = e->stack_bytes;
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
open_switches(struct rec_events *e, uint32_t tid, int i)
{
	struct perf_event_attr a = e->attr;
	uint64_t id = 0;
	int err;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.freq = 0;
	a.sample_period = 1;
	a.exclude_kernel = 0;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 0;
	a.context_switch = 1;
	a.sample_stack_user = e->stack_bytes;
	a.disabled = e->at_exec || !e->enabled;
	a.enable_on_exec = e->at_exec && e->enabled;
	if ((err = open_into_ring(e, &a, tid, i, &id)) != 0)
		return err;
	/* Ids count events opened since boot: 2^32 is far. */
	if (id > UINT32_MAX)
		return -EOVERFLOW;
	e->v[e->n - 1].id = (uint32_t)id;
	return spi_imap_put(&e->switch_ids, (uint32_t)id, &e->switch_ids);
}

/* One thread's events: all of them, or (closed again) none. */
int
spi_events_open(struct rec_events *e, uint32_t tid, int both)
{
	size_t from = e->n;
	int i, err = 0;

	if (e->n == 0 && (!e->enabled || both))
		split_sideband(e);
	for (i = 0; i < e->nr_cpus && err == 0; i++) {
		err = open_sampler(e, tid, i, 0);
		if (err == 0 && both)
			err = open_sampler(e, tid, i, 1);
		if (err == 0 && e->sideband)
			err = open_sideband(e, tid, i);
		if (err == 0 && e->off_cpu)
			err = open_switches(e, tid, i);
	}
	if (err)
		spi_events_close_from(e, from);
	return err;
}

/*
 * On: the sampling events of the stack copy's size in use; off: all.
 * Each event's inherited copies (new threads, forked processes) follow
 * it: the kernel switches them with it.  The side-band events stay on.
 * Those to turn off go first: no thread is sampled twice meanwhile.
 */
int
spi_events_switch(struct rec_events *e)
{
	int pass, err = 0;
	size_t i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < e->n; i++) {
			const struct rec_event *v = &e->v[i];
			int on = e->enabled && (v->small == e->small_on ||
			    v->off_cpu);

			if (v->sideband || on != pass)
				continue;
			if (ioctl(v->fd, on ? PERF_EVENT_IOC_ENABLE :
			    PERF_EVENT_IOC_DISABLE, 0) < 0 && errno != ESRCH &&
			    err == 0)
				err = -errno;
		}
	return err;
}

/*
 * Closes the events drop says to (by index), then indexes the others
 * again: each tid's first event, the sampling and context-switch ids.
 * The maps had room for as many keys, so putting them back cannot fail.
 */
static void
retain(struct rec_events *e, int (*drop)(const struct rec_events *, size_t,
    size_t), size_t arg)
{
	size_t i, n = 0;

	for (i = 0; i < e->n; i++)
		if (drop(e, i, arg))
			(void)close(e->v[i].fd);
		else
			e->v[n++] = e->v[i];
	e->n = n;
	spi_imap_fini(&e->first);
	for (i = n; i-- > 0;)
		(void)spi_imap_put(&e->first, e->v[i].tid, index_value(i));
	if (e->jitter != NULL) {
		spi_imap_fini(&e->sampler_ids);
		for (i = 0; i < n; i++)
			if (!e->v[i].sideband && !e->v[i].off_cpu)
				(void)spi_imap_put(&e->sampler_ids,
				    e->v[i].id, index_value(i));
	}
	if (e->off_cpu) {
		spi_imap_fini(&e->switch_ids);
		for (i = 0; i < n; i++)
			if (e->v[i].off_cpu)
				(void)spi_imap_put(&e->switch_ids, e->v[i].id,
				    &e->switch_ids);
	}
}

static int
is_small(const struct rec_events *e, size_t i, size_t unused)
{
	(void)unused;
	return e->v[i].small;
}

void
spi_events_drop_small(struct rec_events *e)
{
	retain(e, is_small, 0);
}

static int
from_index(const struct rec_events *e, size_t i, size_t from)
{
	(void)e;
	return i >= from;
}

/*
 * A ring lives on the descriptor of the first event of its CPU: one of
 * the events closed here takes its ring with it (unmapped, out of the
 * epoll set), and the next event opened on that CPU maps a new one.
 * Records still in it are of the events closed: a failed attach's.
 * With no ring left, the locked memory is all given back: the size a
 * ring the limits halved (map_ring) is forgotten, and the next attach
 * starts as the first did.  With rings left the halved size stands:
 * they hold what the limits were reached with.
 */
void
spi_events_close_from(struct rec_events *e, size_t from)
{
	size_t i;
	int k, left = 0;

	for (k = 0; k < e->nr_cpus; k++) {
		for (i = from; i < e->n && e->rings[k].base != NULL; i++)
			if (e->v[i].fd == e->rings[k].fd) {
				(void)epoll_ctl(e->epfd, EPOLL_CTL_DEL,
				    e->rings[k].fd, NULL);
				spi_ring_unmap(&e->rings[k]);
				e->rings[k].fd = -1;
			}
		left += e->rings[k].base != NULL;
	}
	if (left == 0)
		set_ring_size(e, e->ring_size_asked);
	retain(e, from_index, from);
}

void
spi_events_stop(struct rec_events *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		(void)ioctl(e->v[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

void
spi_events_close(struct rec_events *e)
{
	size_t i;
	int k;

	for (k = 0; k < e->nr_cpus; k++)
		spi_ring_unmap(&e->rings[k]);
	for (i = 0; i < e->n; i++)
		(void)close(e->v[i].fd);
	e->n = 0;
}

void
spi_events_fini(struct rec_events *e)
{
	if (e->rings != NULL)
		spi_events_close(e);
	if (e->epfd >= 0)
		(void)close(e->epfd);
	if (e->cgroup_fd >= 0)
		(void)close(e->cgroup_fd);
	spi_imap_fini(&e->switch_ids);
	spi_imap_fini(&e->sampler_ids);
	spi_imap_fini(&e->first);
	free(e->v);
	free(e->rings);
	free(e->cpus);
	e->v = NULL;
	e->rings = NULL;
	e->cpus = NULL;
	e->epfd = e->cgroup_fd = -1;
}

int
spi_events_keep(struct rec_events *e, uint64_t id)
{
	void *at;

	if (e->jitter == NULL || id > UINT32_MAX ||
	    (at = spi_imap_get(&e->sampler_ids, (uint32_t)id)) == NULL)
		return 1;
	return spi_jitter_keep(e->jitter, e->v[(uintptr_t)at - 1].ns);
}

int
spi_kernel_at_least(const char *release, unsigned long major,
    unsigned long minor)
{
	unsigned long ma, mi;
	char *end;

	if (release[0] < '0' || release[0] > '9')
		return -1;
	ma = strtoul(release, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	mi = strtoul(end + 1, NULL, 10);
	return ma > major || (ma == major && mi >= minor);
}

int
spi_kernel_supported(const char *release)
{
	return spi_kernel_at_least(release, SPI_KERNEL_MIN_MAJOR,
	    SPI_KERNEL_MIN_MINOR);
}

int
spi_events_probe(struct rec_events *e, struct sp_diag *diag)
{
	struct perf_event_attr a = e->attr;
	int fd;

	if (e->sel.deflt)
		return 0;
	a.disabled = 1;
	a.inherit = 0;
	a.exclude_kernel = 1; /* what paranoid allows: the event is asked */
	fd = spi_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		(void)close(fd);
		return 0;
	}
	if (fd != -ENOENT && fd != -EOPNOTSUPP && fd != -ENODEV &&
	    fd != -EINVAL)
		return 0;
	return sp_diag_set(diag, 0, -ENOENT, "event %s: the kernel has no such "
	    "event here (perf_event_open: %s)%s", e->name, sp_strerror(fd),
	    a.type == PERF_TYPE_HARDWARE ? "; it is counted by the CPU's "
	    "performance monitoring unit, which this machine does not give "
	    "(a VM without a virtual PMU, or a CPU perf does not know); "
	    "sample time with -e cpu-clock, or count it where there is one" :
	    "");
}
