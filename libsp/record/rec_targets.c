/* SPDX-License-Identifier: MIT */
/*
 * The recorder's targets: the processes it attaches to (running, stopped,
 * or at the exec of a command it launched), their children, the whole
 * system or a cgroup; their threads' events; the RECORDING record that
 * says what was asked; and the sweep of /proc after lost records.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/procfs_int.h"
#include "elf/elf_int.h"
#include "recorder_int.h"
#include "sp/common/process.h"
#include "spool/live_int.h"

/* linux/capability.h */
#define CAP_SYS_PTRACE_BIT 19
#define CAP_PERFMON_BIT 38

/*
 * A Go program's frames above a stack switch (systemstack and the like:
 * the runtime's work on g0's stack) are on the goroutine's stack, which a
 * sample does not copy: for one, the kernel's user callchain comes with
 * every sample (spi_unwind_splice).  Known by its file, before the first
 * event opens: the command's, or the first -p target's.
 */
static void
chains_for(struct sp_recorder *r, const char *path)
{
	struct sp_elf_file *f;

	if (path == NULL || r->ev.n > 0 || r->tg.system ||
	    spi_elf_file_open(path, &f, NULL) != 0)
		return;
	if ((spi_elf_file_has_section(f, ".note.go.buildid") ||
	    spi_elf_file_has_section(f, ".gopclntab")) &&
	    spi_events_user_chains(&r->ev))
		spi_rec_log(&r->ctx, "%s is a Go program: the kernel's user "
		    "callchains are recorded too, for its stack switches", path);
	spi_elf_file_free(f);
}

/* The file execvp runs for argv0 (in buf), or NULL. */
static const char *
command_file(const char *argv0, char *buf, size_t cap)
{
	const char *dirs = getenv("PATH"), *p, *e;

	if (strchr(argv0, '/') != NULL)
		return argv0;
	for (p = dirs != NULL ? dirs : "/usr/bin:/bin"; ; p = e + 1) {
		e = strchrnul(p, ':');
		if ((size_t)snprintf(buf, cap, "%.*s/%s", (int)(e - p), p,
		    argv0) < cap && e > p && access(buf, X_OK) == 0)
			return buf;
		if (*e == '\0')
			return NULL;
	}
}

static int
open_thread(struct sp_recorder *r, uint32_t tid)
{
	int err = spi_events_open(&r->ev, tid, spi_adapt_both(&r->adapt));

	return err ? err : spi_imap_put(&r->tg.covered, tid, &r->tg.covered);
}

static int
write_recording(struct sp_recorder *r)
{
	struct sp_record rec;
	const char *cmd = r->o.command != NULL ? r->o.command : "";
	int err;

	if (r->tg.wrote_recording)
		return 0;
	r->ctx.c[C_KERNEL_ENABLED] = !r->ev.attr.exclude_kernel;
	r->ctx.c[C_KERNEL_CALLCHAINS] = spi_events_kernel_chains(&r->ev);
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_RECORDING;
	rec.u.recording.event.s = r->ev.name;
	rec.u.recording.event.len = (uint32_t)strlen(r->ev.name);
	/* By a period, a clock's rate is its inverse; a count has none. */
	rec.u.recording.frequency = r->o.period == 0 ? r->o.frequency :
	    r->ev.sel.clock == 0 ? 0 : r->o.period >= 1000000000ull ? 1 :
	    (uint32_t)(1000000000ull / r->o.period);
	rec.u.recording.period = r->o.period;
	rec.u.recording.stack_bytes = r->o.fp_chains ? 0 : r->o.stack_bytes;
	rec.u.recording.flags = (spi_events_kernel_chains(&r->ev) ?
	    SP_RECORDING_KERNEL : 0) |
	    (r->o.children ? SP_RECORDING_CHILDREN : 0) |
	    (r->tg.system && r->ev.cgroup_fd < 0 ? SP_RECORDING_SYSTEM : 0) |
	    (r->ev.cgroup_fd >= 0 ? SP_RECORDING_CGROUP : 0) |
	    (r->o.off_cpu ? SP_RECORDING_OFF_CPU : 0) |
	    (r->ctx.c[C_OFF_CPU_APART] ? SP_RECORDING_PREEMPTED : 0) |
	    (r->ev.attr.exclude_kernel ? 0 : SP_RECORDING_KERNEL_TIME) |
	    (r->ev.sel.clock ? 0 : SP_RECORDING_COUNTS) |
	    (r->o.fp_chains ? SP_RECORDING_FP : 0);
	rec.u.recording.command.s = cmd;
	rec.u.recording.command.len = (uint32_t)strlen(cmd);
	/* Not out when the put failed: the next attach tries again. */
	err = sp_writer_put(r->ctx.w, &rec, NULL);
	if (err == 0)
		r->tg.wrote_recording = 1;
	return err;
}

static int
add_target(struct sp_recorder *r, uint32_t pid)
{
	struct rec_proc *p;

	if (spi_grow_zeroed(&r->tg.pids, &r->tg.cap, r->tg.n + 1,
	    sizeof(*r->tg.pids)) != 0)
		return -ENOMEM;
	r->tg.pids[r->tg.n++] = pid;
	p = spi_rec_proc_get(r, pid, 1);
	if (p == NULL)
		return -ENOMEM;
	p->tracked = 1;
	r->ctx.c[C_PROCESSES]++;
	/* A new attach: the children it follows are its own (drop_target). */
	if (++r->tg.attach == 0)
		r->tg.attach = 1;
	return 0;
}

/* Whether pid is a process the recording follows already (a child of a
 * target), which a failed attach of its own leaves followed. */
static int
followed(struct sp_recorder *r, pid_t pid)
{
	const struct rec_proc *p = spi_rec_proc_get(r, (uint32_t)pid, 0);

	return p != NULL && p->tracked;
}

struct unfollow {
	uint32_t attach;
	uint64_t *processes;  /* C_PROCESSES */
};

/* A child the failed attach began to follow is followed no more. */
static void
unfollow(void *val, void *ctx)
{
	struct rec_proc *p = val;
	struct unfollow *u = ctx;

	if (p->tracked && p->followed_by == u->attach) {
		p->tracked = 0;
		p->followed_by = 0;
		(*u->processes)--;
	}
}

/*
 * Undoes add_target after an attach that failed: pid is no target and,
 * unless it was followed before, no process alive of the recording
 * (sp_recorder_live), so that a caller's loop on it ends; nor are the
 * children that attach began to follow (follow_descendants), whose
 * events are closed with the target's, nor the threads counted.  The events
 * the attach opened (those from index first_event) are closed and their
 * threads uncovered: left open, they would sample a process no one
 * follows (untracked samples) and hold descriptors (often what it ran
 * out of), and a later attach of pid would skip its threads.
 */
static void
drop_target(struct sp_recorder *r, uint32_t pid, int was_followed,
    size_t first_event)
{
	struct rec_proc *p = spi_rec_proc_get(r, pid, 0);
	struct unfollow u = { r->tg.attach, &r->ctx.c[C_PROCESSES] };
	size_t i;

	spi_imap_each(&r->procs, unfollow, &u);
	/* A thread is counted as its events open: a CPU's each, the first
	 * uncovers it. */
	for (i = first_event; i < r->ev.n; i++)
		if (spi_imap_del(&r->tg.covered, r->ev.v[i].tid) != NULL &&
		    r->ctx.c[C_THREADS] > 0)
			r->ctx.c[C_THREADS]--;
	spi_events_close_from(&r->ev, first_event);

	for (i = 0; i < r->tg.n; i++)
		if (r->tg.pids[i] == pid) {
			r->tg.pids[i] = r->tg.pids[--r->tg.n];
			break;
		}
	if (p != NULL && p->tracked && !was_followed) {
		p->tracked = 0;
		r->ctx.c[C_PROCESSES]--;
	}
}

/* A pid argument that names no process: 0 and negative pids mean a
 * process group or every process to kill(2), never one process. */
static int
bad_pid(pid_t pid, struct sp_diag *d)
{
	return sp_diag_set(d, 0, -SP_EUSAGE, "pid %ld is not a process id "
	    "(a process id is 1 or more)", (long)pid);
}

/*
 * Whether err is the error that stopped r's writer (a full disk):
 * then an attach failed for the spool's sake, not the events', and says
 * so, naming what (what2 after it: "pid " 3152, "cgroup " /sys/...).
 */
static int
write_error(struct sp_recorder *r, int err, const char *what,
    const char *what2, struct sp_diag *d)
{
	if (err == 0 || err != spi_writer_failed(r->ctx.w))
		return 0;
	return sp_diag_set(d, 0, err, "%s%s: the spool could not be written "
	    "while attaching: %s", what, what2, sp_strerror(err));
}

static int
open_error(struct sp_recorder *r, int err, uint32_t pid, struct sp_diag *d)
{
	char num[16];
	long paranoid = 0;

	(void)snprintf(num, sizeof(num), "%u", pid);
	if (write_error(r, err, "pid ", num, d) != 0)
		return err;
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

/* Whether id is among v[0..n). */
static int
listed(const uint32_t *v, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == id)
			return 1;
	return 0;
}

/* Whether tid is one of the threads asked for (sp_recorder_opts.tids). */
static int
asked_tid(const struct sp_recorder *r, uint32_t tid)
{
	return listed(r->o.tids, r->o.ntids, tid);
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
		if (spi_imap_get(&r->tg.covered, (uint32_t)tids[i]) != NULL)
			continue;
		/* -t: a thread not asked for gets no events; one started by
		 * a thread asked for inherited them, and is covered. */
		if (r->o.tids != NULL && !asked_tid(r, (uint32_t)tids[i]) &&
		    !(late && inherited(p, (uint32_t)tids[i])))
			continue;
		if (late && inherited(p, (uint32_t)tids[i])) {
			err = spi_imap_put(&r->tg.covered, (uint32_t)tids[i],
			    &r->tg.covered);
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
	return listed(r->tg.pids, r->tg.n, pid);
}

/* A process's /proc entry or its last thread went away meanwhile. */
static int
went_away(int err)
{
	return err == -ESRCH || err == -ENOENT;
}

/*
 * With children followed, the processes pid forked before the start are
 * followed too (a server's workers, PostgreSQL's backends): each one's
 * threads get events and its mappings are read.  One that exits meanwhile
 * is skipped, one whose maps are refused sampled address-only.  Without,
 * they are counted.  0, or the error that fails the attach: a child
 * whose events could not all be opened (out of descriptors, say) would
 * be followed in part, unlike the target.
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
		p->followed_by = r->tg.attach;
		r->ctx.c[C_PROCESSES]++;
		err = open_threads(r, p->pid, 0, &opened);
		if (went_away(err)) {
			/* Exited meanwhile: no event will say so. */
			p->tracked = 0;
			p->followed_by = 0;
			r->ctx.c[C_PROCESSES]--;
			err = 0;
			continue;
		}
		p->listed_until = boot_ticks();
		p->last_rescan = r->ctx.now;
		if (err == 0)
			err = spi_rec_read_maps(&r->ctx, p, &buf, &len);
		if (err == 0)
			err = spi_rec_add_maps(&r->ctx, p, buf, len);
		else if (went_away(err) || err == -EACCES || err == -EPERM)
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
 * Sends pid SIGSTOP and waits until it has taken effect (its main thread
 * in state T), a second at most: a SIGCONT sent while the stop is still
 * pending cancels it, and the target would be listed running.  A loaded
 * machine can take that long to schedule it.  0, or -1 when the signal
 * could not be sent.
 */
static int
stop_target(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	if (kill(pid, SIGSTOP) != 0)
		return -1;
	for (i = 0; i < 1000 && !stopped_already(pid); i++)
		(void)nanosleep(&ms, NULL);
	return 0;
}

/*
 * Without -s a thread takes three events a CPU (rec_adapt_int.h), with
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

	if (r->adapt.mode != ADAPT_LEARN || r->ev.n != 0 ||
	    spi_proc_tasks(pid, &tids, &n) != 0)
		return;
	free(tids);
	/* --off-cpu: a context-switch event a CPU more. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (n + 16) * (size_t)r->ev.nr_cpus * (r->o.off_cpu ? 4 : 3) + 64 >
	    rl.rlim_cur)
		spi_adapt_init(&r->adapt, 0);
}

int
sp_recorder_attach(struct sp_recorder *r, pid_t pid, struct sp_diag *diag)
{
	struct rec_proc *p;
	char exe[32];
	int stopped = 0, opened = 0, maps_err = 0, was_followed, err;
	size_t first_event = r->ev.n;

	if (pid <= 0)
		return bad_pid(pid, diag);
	if (r->tg.system)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "pid %d: every process "
		    "is recorded already (system-wide)", (int)pid);
	if (is_target(r, (uint32_t)pid))
		return 0; /* -p 3152,3152: one target */
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return open_error(r, -ESRCH, (uint32_t)pid, diag);
	/* One that is stopped already (kill -STOP) stays so. */
	if (r->o.stop && !stopped_already(pid) && stop_target(pid) == 0)
		stopped = 1;
	(void)snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	chains_for(r, exe);
	was_followed = followed(r, pid);
	err = add_target(r, (uint32_t)pid);
	fit_descriptors(r, pid);
	if (err == 0)
		err = open_threads(r, (uint32_t)pid, 0, &opened);
	if (err == 0 && opened == 0)
		err = -ESRCH;
	r->ctx.now = spi_rec_mono_ns();
	/* The first rescan a second from now: a thread started in this
	 * listing's tick whose FORK record is not read yet would look
	 * uncovered and not inherited (see inherited()). */
	r->tg.last_scan = r->ctx.now;
	p = spi_rec_proc_get(r, (uint32_t)pid, 0);
	if (err == 0 && p != NULL) {
		p->listed_until = boot_ticks();
		p->attached = 1;
		p->last_rescan = r->ctx.now;
		err = spi_rec_scan_maps(&r->ctx, p);
		maps_err = err == -EACCES || err == -EPERM;
		/* Gone while its threads' events were opening: what they
		 * sampled stays, address-only (no maps), and its exit comes
		 * as the record of an exit. */
		if (went_away(err)) {
			spi_rec_log(&r->ctx, "pid %d exited while it was being "
			    "attached: the samples its %d threads gave are "
			    "kept, but its mappings were gone before they "
			    "could be read, so their frames stay addresses",
			    (int)pid, opened);
			err = 0;
		}
	}
	if (err == 0)
		err = follow_descendants(r, (uint32_t)pid);
	if (err == 0)
		err = write_recording(r);
	if (stopped)
		(void)kill(pid, SIGCONT);
	if (err)
		drop_target(r, (uint32_t)pid, was_followed, first_event);
	if (maps_err)
		return maps_error(err, (uint32_t)pid, diag);
	/* It was there a moment ago: a zombie, or it exited meanwhile. */
	if (err == -ESRCH || err == -ENOENT)
		return sp_diag_set(diag, 0, -ESRCH, "pid %d exited while it was "
		    "being attached (no thread left to sample)", (int)pid);
	if (err)
		return open_error(r, err, (uint32_t)pid, diag);
	return 0;
}

int
sp_recorder_attach_exec(struct sp_recorder *r, pid_t pid,
    struct sp_diag *diag)
{
	siginfo_t si;
	size_t first_event = r->ev.n;
	int was_followed, err;

	if (pid <= 0)
		return bad_pid(pid, diag);
	if (r->tg.system)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "pid %d: every process "
		    "is recorded already (system-wide)", (int)pid);
	if (is_target(r, (uint32_t)pid))
		return 0;
	/* Its events start at its exec: one that does not wait for it
	 * (this process, pid 1, another's child) would never be sampled.
	 * waitid says whether it is our child without /proc (a recorder
	 * in an empty chroot has none): ECHILD when it is not. */
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 &&
	    errno == ECHILD)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "pid %d is not a child "
		    "of this process: attaching at exec is for a child "
		    "launched suspended before its execve (sp_process_launch)",
		    (int)pid);
	r->ev.at_exec = 1;
	was_followed = followed(r, pid);
	err = add_target(r, (uint32_t)pid);
	if (err == 0) {
		spi_rec_proc_get(r, (uint32_t)pid, 0)->awaiting_exec = 1;
		err = open_thread(r, (uint32_t)pid);
	}
	if (err == 0) {
		r->ctx.c[C_THREADS]++;
		err = write_recording(r);
	}
	r->ev.at_exec = 0;
	if (err)
		drop_target(r, (uint32_t)pid, was_followed, first_event);
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

/* A process running at the start of a system-wide recording. */
struct early {
	struct rec_proc *p;
	char *maps;
	size_t len;
};

/*
 * The whole system, or the cgroup open on r->ev.cgroup_fd (named cgroup):
 * events per CPU, then the processes running, then sampling.
 */
static int
attach_all(struct sp_recorder *r, const char *cgroup, struct sp_diag *diag)
{
	struct early *e;
	pid_t *pids, *tids;
	size_t n, nt, i, k;
	int on = r->ev.enabled, err;

	r->tg.system = 1;
	r->o.children = 1;
	r->ctx.now = spi_rec_mono_ns();
	/*
	 * The events open off, with the side-band records on (a dummy event
	 * beside them: see rec_events_int.h), and sampling starts once
	 * every process running is known: a process that exits while the
	 * events open and /proc is read (hundreds of milliseconds on a busy
	 * machine) would have samples and no mappings.
	 */
	r->ev.enabled = 0;
	err = spi_events_open(&r->ev, UINT32_MAX, spi_adapt_both(&r->adapt));
	r->ev.enabled = on;
	/* The cgroup has no perf_event state: on a cgroup v2 hierarchy
	 * whose root never had a controller enabled (Debian's 5.10 to 6.12
	 * booted without systemd), the implicit perf_event controller
	 * gives its children none.  Enabling any controller there gives it
	 * to every cgroup, existing ones too. */
	if (err == -ENOENT && cgroup != NULL)
		return sp_diag_set(diag, 0, err, "cgroup %s: the kernel has "
		    "no perf_event state for it (perf_event_open: %s), as on a "
		    "cgroup v2 hierarchy whose root never had a controller "
		    "enabled; enable one there, e.g. echo +pids > "
		    "/sys/fs/cgroup/cgroup.subtree_control (systemd does so "
		    "at boot), and record again", cgroup, sp_strerror(err));
	if (err)
		return system_error(err, cgroup, diag);
	/*
	 * The processes running now, after the events opened (one started
	 * meanwhile has a FORK record too and is followed once).  Their
	 * maps are read first, all of them, and their files (build-ids,
	 * CFI) after.
	 */
	err = r->ev.cgroup_fd >= 0 ? spi_cgroup_pids(r->ev.cgroup_fd, &pids, &n) :
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
	if (write_error(r, err, cgroup != NULL ? "cgroup " : "every process",
	    cgroup != NULL ? cgroup : "", diag) != 0)
		return err;
	if (err == 0 && on)
		err = spi_events_switch(&r->ev);
	return err ? system_error(err, cgroup, diag) : 0;
}

/* Neither the whole system nor a cgroup with attached processes. */
static int
attached_already(const struct sp_recorder *r, struct sp_diag *diag)
{
	if (r->tg.system || r->tg.n > 0)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "%s", r->tg.system ?
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
	r->ev.cgroup_fd = fd;
	return attach_all(r, path, diag);
}

int
sp_recorder_spawn(struct sp_recorder *r, char *const argv[], pid_t *pid,
    struct sp_diag *diag)
{
	struct sp_launch l;
	char file[4096];
	int err;

	err = sp_process_launch(argv, &l, diag);
	if (err < 0)
		return err;
	*pid = l.pid;
	chains_for(r, command_file(argv[0], file, sizeof(file)));
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

/* Frees the threads of no process left.  0 or -ENOMEM. */
static int
free_orphans(struct sp_recorder *r)
{
	struct orphans o = { &r->procs, NULL, 0, r->threads.used };
	size_t i;

	if ((o.tids = malloc((o.cap + 1) * sizeof(*o.tids))) == NULL)
		return -ENOMEM;
	/* Walked first, freed after: freeing changes the map. */
	spi_imap_each(&r->threads, collect_orphan, &o);
	for (i = 0; i < o.n; i++)
		free(spi_imap_del(&r->threads, o.tids[i]));
	free(o.tids);
	return 0;
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
	uint32_t *pids;
	size_t i, n;
	int err = spi_rec_pids(&r->procs, gone, &pids, &n);

	for (i = 0; i < n; i++)
		spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pids[i]));
	free(pids);
	return err ? err : free_orphans(r);
}

/* Recovery after lost events: rescan each target's threads and maps. */
int
spi_rec_sweep(struct sp_recorder *r)
{
	size_t i;
	int opened, err;

	r->need_sweep = 0;
	r->ctx.c[C_LIFECYCLE_GAPS]++;
	err = spi_rec_sweep_reused(&r->ctx, &r->procs);
	if (err == 0 && r->tg.system)
		err = drop_gone(r);
	for (i = 0; i < r->tg.n && err == 0; i++) {
		struct rec_proc *p = spi_rec_proc_get(r, r->tg.pids[i], 0);

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

/*
 * Whether process pid has ended: no /proc entry left, or threads that are
 * all zombies (its parent has not reaped it yet).  Each thread is asked:
 * a leader that exited while its threads run is a zombie too.
 */
static int
ended(uint32_t pid)
{
	pid_t *tids, ppid;
	size_t n, i;
	char state;
	int live = 0, err = spi_proc_tasks((pid_t)pid, &tids, &n);

	if (err)
		return err == -ESRCH || err == -ENOENT;
	for (i = 0; i < n && !live; i++)
		live = spi_proc_stat(tids[i], &state, &ppid) == 0 &&
		    state != 'Z' && state != 'X';
	free(tids);
	return !live;
}

/* A process followed whose exit was not read, and whose /proc says it
 * ended. */
static int
ended_unseen(const struct rec_proc *p)
{
	return p->tracked && p->exited == 0 && ended(p->pid);
}

/*
 * The processes followed (targets and their children) whose /proc says
 * they ended, their EXIT records unseen: lost with a full ring, or sent
 * before their events could deliver them (an exit while being attached).
 * Without this, their recording would never end (sp_recorder_live).  Not
 * for the whole system, whose table drop_gone keeps after a loss.
 */
static int
end_unseen_exits(struct sp_recorder *r)
{
	uint32_t *pids;
	size_t i, n;
	int err;

	if (r->tg.system)
		return 0;
	if ((err = spi_rec_pids(&r->procs, ended_unseen, &pids, &n)) != 0)
		return err;
	for (i = 0; i < n && err == 0; i++)
		err = spi_rec_exit_unseen(r, pids[i]);
	free(pids);
	/* Their threads' EXIT records were lost with the leader's. */
	return err == 0 && n > 0 ? free_orphans(r) : err;
}

/*
 * Threads that inheritance cannot cover: those created between listing
 * /proc/PID/task and opening their events when attaching without
 * stopping (asked: with stopping too).  Look for them once a second, and
 * for the processes that ended unseen.
 */
int
spi_rec_rescan_threads(struct sp_recorder *r, int asked)
{
	uint64_t now = spi_rec_mono_ns();
	size_t i;
	int opened, err = 0;

	if (now - r->tg.last_scan < 1000000000ull)
		return 0;
	r->tg.last_scan = now;
	/* Attached under SIGSTOP, every thread was there to be found,
	 * unless the caller asks (sp_recorder_refresh). */
	for (i = 0; (asked || !r->o.stop) && i < r->tg.n && err == 0; i++) {
		if (spi_rec_proc_get(r, r->tg.pids[i], 0) == NULL)
			continue; /* exited */
		err = open_threads(r, r->tg.pids[i], 1, &opened);
		if (err == -ESRCH || err == -ENOENT)
			err = 0;
	}
	return err == 0 ? end_unseen_exits(r) : err;
}

/*
 * The one meaning of alive that sp_recorder_live, sp_recorder_other_alive
 * and sp_recorder_process_alive share: followed, and not seen exiting
 * (recording the whole system, an exited process is kept a while, struct
 * rec_exited; otherwise it is out of the table, rec_threads.c).
 */
static int
alive(const struct rec_proc *p)
{
	return p != NULL && p->tracked && p->exited == 0;
}

struct live_other {
	uint32_t pid;         /* not counted; UINT32_MAX: no pid is that */
	size_t n;
};

static void
count_other(void *val, void *ctx)
{
	const struct rec_proc *p = val;
	struct live_other *lo = ctx;

	if (alive(p) && p->pid != lo->pid)
		lo->n++;
}

size_t
sp_recorder_live(const struct sp_recorder *r)
{
	struct live_other lo = { UINT32_MAX, 0 };

	spi_imap_each(&r->procs, count_other, &lo);
	return lo.n;
}

int
sp_recorder_other_alive(const struct sp_recorder *r, pid_t pid)
{
	struct live_other lo = { (uint32_t)pid, 0 };

	spi_imap_each(&r->procs, count_other, &lo);
	return lo.n > 0;
}

int
sp_recorder_process_alive(const struct sp_recorder *r, pid_t pid)
{
	const struct rec_proc *p;
	uint64_t start;
	pid_t ppid;
	char state;
	int err;

	if (pid <= 0)
		return -SP_EUSAGE;
	p = spi_imap_get(&r->procs, (uint32_t)pid);
	if (!alive(p))
		return 0;
	/* Its exit may not be drained yet, or was lost: /proc says whether
	 * it runs still (a zombie runs no more), and whether it is the same
	 * process (another may have its pid since). */
	err = spi_proc_stat(pid, &state, &ppid);
	if (err == -ENOENT || err == -ESRCH)
		return 0;
	if (err < 0)
		return err;
	/* Its leader a zombie: ended, unless threads of it run still. */
	if ((state == 'Z' || state == 'X') && ended((uint32_t)pid))
		return 0;
	if (p->start_time != 0 && spi_rec_start_time((uint32_t)pid, 0,
	    &start) == 0 && start != p->start_time)
		return 0;
	return 1;
}

int
sp_recorder_refresh(struct sp_recorder *r)
{
	r->tg.last_scan = 0;
	return spi_rec_rescan_threads(r, 1);
}

