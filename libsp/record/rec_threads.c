/* SPDX-License-Identifier: MIT */
/*
 * The followed processes and their threads: made when first seen or
 * adopted from /proc, named by COMM records, born by FORK and ended by
 * EXIT records (the whole system's freed a grace period later), and
 * their executable mappings by MMAP2 records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common/procfs_int.h"
#include "rec_decode_int.h"
#include "recorder_int.h"

static uid_t
proc_uid(uint32_t pid)
{
	char path[32];
	struct stat st;

	(void)snprintf(path, sizeof(path), "/proc/%u", pid);
	return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

struct rec_proc *
spi_rec_proc_get(struct sp_recorder *r, uint32_t pid, int make)
{
	struct rec_proc *p = spi_imap_get(&r->procs, pid);

	if (p != NULL || !make)
		return p;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pid = pid;
	p->uid = proc_uid(pid);
	p->code_epoch = ++r->ctx.epochs;
	p->pmap_size = -1;
	if (spi_rec_start_time(pid, 0, &p->start_time) < 0)
		p->start_time = 0;
	if (spi_imap_put(&r->procs, pid, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

int
spi_rec_adopt_read(struct sp_recorder *r, uint32_t pid, struct rec_proc **out,
    char **buf, size_t *len)
{
	struct rec_proc *p = spi_rec_proc_get(r, pid, 1);
	int err;

	*out = NULL;
	*buf = NULL;
	if (p == NULL)
		return -ENOMEM;
	err = spi_rec_read_maps(&r->ctx, p, buf, len);
	if (err == -ENOMEM)
		return err;
	if (err == -ENOENT || err == -ESRCH) {
		/* Gone before it could be read: nothing to unwind with.  Kept
		 * untracked until its exit, so that its other samples are
		 * counted without asking /proc again. */
		p->tracked = 0;
		p->start_time = 0;
		return 0;
	}
	if (!p->tracked) {
		p->tracked = 1;
		r->ctx.c[C_PROCESSES]++;
	}
	p->last_rescan = r->ctx.now;
	*out = p; /* maps refused (*buf NULL): its samples are address-only */
	return 0;
}

int
spi_rec_adopt(struct sp_recorder *r, uint32_t pid, struct rec_proc **out)
{
	char *buf;
	size_t len;
	int err = spi_rec_adopt_read(r, pid, out, &buf, &len);

	/* Its mappings' errors are the writer's, or -ENOMEM. */
	if (err == 0 && buf != NULL)
		err = spi_rec_add_maps(&r->ctx, *out, buf, len);
	return err;
}

/* A thread not known yet, unnamed; NULL when out of memory. */
static struct rec_thread *
new_thread(struct sp_recorder *r, uint32_t pid, uint32_t tid)
{
	struct rec_thread *t = calloc(1, sizeof(*t));

	if (t == NULL || spi_imap_put(&r->threads, tid, t) < 0) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->pid = pid;
	return t;
}

/* Thread tid as a new thread of pid (t, its entry so far, may be NULL),
 * unnamed; NULL when out of memory. */
static struct rec_thread *
renew_thread(struct sp_recorder *r, struct rec_thread *t, uint32_t pid,
    uint32_t tid)
{
	if (t == NULL && (t = new_thread(r, pid, tid)) == NULL)
		return NULL;
	t->pid = pid;
	t->id = 0;
	t->exited = 0;
	t->comm[0] = '\0';
	t->off.time = 0;
	return t;
}

int
spi_rec_name_thread(struct sp_recorder *r, uint32_t pid, uint32_t tid)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);

	if (t != NULL && t->pid == pid)
		return 0;
	if ((t = renew_thread(r, t, pid, tid)) == NULL)
		return -ENOMEM;
	(void)spi_proc_comm((pid_t)pid, (pid_t)tid, t->comm, sizeof(t->comm));
	return 0;
}

/* The THREAD id of (pid, tid), written on first use and after renames. */
int
spi_rec_thread_id(struct sp_recorder *r, uint32_t pid, uint32_t tid, uint32_t *id)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);
	struct sp_record rec;
	int err;

	if (t == NULL || t->pid != pid) {
		if ((t = renew_thread(r, t, pid, tid)) == NULL)
			return -ENOMEM;
		(void)spi_proc_comm((pid_t)pid, (pid_t)tid, t->comm,
		    sizeof(t->comm));
	}
	if (t->id == 0) {
		memset(&rec, 0, sizeof(rec));
		rec.kind = SP_REC_THREAD;
		rec.u.thread.pid = pid;
		rec.u.thread.tid = tid;
		err = sp_writer_string(r->ctx.w, t->comm, strlen(t->comm),
		    &rec.u.thread.comm);
		if (err == 0)
			err = sp_writer_put(r->ctx.w, &rec, &t->id);
		if (err)
			return err;
	}
	*id = t->id;
	return 0;
}

/* The leader of p exited. */
static void
exited(struct sp_recorder *r, const struct rec_proc *p)
{
	if (p->attached)
		spi_rec_log(&r->ctx, "pid %u exited; its recording ends there",
		    p->pid);
	/* The runtime's perf map is complete now; PID reuse can't mix in
	 * another process's map later. */
	if (r->ctx.bundle != NULL)
		(void)sp_bundle_perf_map(r->ctx.bundle, (pid_t)p->pid, p->uid);
}

/*
 * An EXIT record of the whole system: the thread, and with the leader
 * its process, are marked and queued, and freed EXIT_GRACE_NS later
 * (reap), when the samples of their end in the kernel have been read.
 */
static int
on_exit_system(struct sp_recorder *r, uint32_t pid, uint32_t tid,
    uint32_t ppid, uint32_t ptid)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);
	struct rec_proc *p = spi_rec_proc_get(r, pid, 0);
	struct rec_exited *e;

	/* Sent twice (seen once in 10,000 exits). */
	if ((t != NULL && t->exited) || (pid == tid && p != NULL && p->exited))
		return 0;
	if (spi_grow_zeroed(&r->exited, &r->capexited, r->nexited + 1,
	    sizeof(*r->exited)) != 0)
		return -ENOMEM;
	e = &r->exited[r->nexited++];
	e->tid = tid;
	e->pid = pid;
	e->time = r->ctx.now;
	if (t != NULL)
		t->exited = e->time;
	if (p == NULL)
		return 0;
	if (pid == tid)
		p->exited = e->time;
	if (!p->tracked)
		return 0;
	if (pid == tid)
		exited(r, p);
	return spi_rec_write_proc(&r->ctx, SP_PROC_EXIT, pid, tid, ppid, ptid,
	    NULL);
}

/* Frees what exited before now - EXIT_GRACE_NS (on_exit_system). */
void
spi_rec_reap(struct sp_recorder *r, uint64_t now)
{
	const struct rec_exited *e;
	struct rec_thread *t;
	struct rec_proc *p;

	for (; r->exited_head < r->nexited; r->exited_head++) {
		e = &r->exited[r->exited_head];
		if (e->time + EXIT_GRACE_NS > now)
			break;
		t = spi_imap_get(&r->threads, e->tid);
		if (t != NULL && t->exited == e->time)
			free(spi_imap_del(&r->threads, e->tid));
		p = spi_rec_proc_get(r, e->pid, 0);
		if (e->tid == e->pid && p != NULL && p->exited == e->time)
			spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs,
			    e->pid));
	}
	if (r->exited_head == r->nexited) {
		r->exited_head = 0;
		r->nexited = 0;
	} else if (r->exited_head > r->nexited / 2) {
		memmove(r->exited, r->exited + r->exited_head,
		    (r->nexited - r->exited_head) * sizeof(*r->exited));
		r->nexited -= r->exited_head;
		r->exited_head = 0;
	}
}

/* PERF_RECORD_MMAP2: an executable mapping of a followed process. */
int
spi_rec_on_mmap2(struct sp_recorder *r, const struct rec_decoded *d)
{
	const struct sp_map *m = &d->u.mmap.m;
	struct rec_proc *p;

	if (!(d->u.mmap.prot & PROT_EXEC) || m->end <= m->start)
		return 0;
	p = spi_rec_proc_get(r, d->u.mmap.pid, 0);
	if (p == NULL || !p->tracked)
		return 0;
	return spi_rec_add_mapping(&r->ctx, p, m);
}

/* PERF_RECORD_COMM: a thread's new name, by exec or prctl. */
int
spi_rec_on_comm(struct sp_recorder *r, const struct rec_decoded *d)
{
	uint32_t pid = d->u.comm.pid, tid = d->u.comm.tid;
	const char *comm = d->u.comm.comm;
	int exec = d->u.comm.exec;
	struct rec_proc *p;
	struct rec_thread *t;
	int err;

	p = spi_rec_proc_get(r, pid, 0);
	t = spi_imap_get(&r->threads, tid);
	/* Named now: a short-lived process's samples may be read after it
	 * exited, when /proc has no name left for them. */
	if (t == NULL && p != NULL && p->tracked &&
	    (t = new_thread(r, pid, tid)) == NULL)
		return -ENOMEM;
	if (t != NULL) {
		memcpy(t->comm, comm, sizeof(t->comm));
		t->id = 0; /* a new THREAD identity at its next sample */
	}
	if (p == NULL || !p->tracked)
		return 0;
	if (exec) {
		spi_rec_drop_maps(&r->ctx, p); /* the old image's mappings are gone */
		p->exec_time = r->ctx.now;
		p->awaiting_exec = 0;
		err = spi_rec_write_python(&r->ctx, p, 0, r->ctx.now);
		if (err)
			return err;
	}
	return spi_rec_write_proc(&r->ctx, exec ? SP_PROC_EXEC : SP_PROC_COMM,
	    pid, tid, 0, 0, comm);
}

/*
 * A new thread tid of pid, forked by ptid, has ptid's name until it
 * execs (its COMM record renames it): kept now, for samples read after
 * it exited, when /proc has no name left.
 */
static int
name_child(struct sp_recorder *r, uint32_t pid, uint32_t tid, uint32_t ptid)
{
	const struct rec_thread *pt = spi_imap_get(&r->threads, ptid);
	struct rec_thread *t = spi_imap_get(&r->threads, tid);

	/* Records come in time order: a switch off CPU held for tid is an
	 * earlier thread's, whose exit was lost. */
	if (t != NULL && t->pid == pid && !t->exited) {
		t->off.time = 0;
		return 0;
	}
	if ((t = renew_thread(r, t, pid, tid)) == NULL)
		return -ENOMEM;
	if (pt != NULL)
		memcpy(t->comm, pt->comm, sizeof(t->comm));
	else
		(void)spi_proc_comm((pid_t)pid, (pid_t)tid, t->comm,
		    sizeof(t->comm));
	return 0;
}

int
spi_rec_exit_unseen(struct sp_recorder *r, uint32_t pid)
{
	struct rec_proc *p = spi_rec_proc_get(r, pid, 0);
	int err;

	if (p == NULL || !p->tracked)
		return 0;
	err = spi_rec_write_proc(&r->ctx, SP_PROC_EXIT, pid, pid, 0, 0, NULL);
	exited(r, p);
	spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
	return err;
}

/* PERF_RECORD_FORK / EXIT: a thread or process begins or ends. */
int
spi_rec_on_task(struct sp_recorder *r, const struct rec_decoded *d, int fork)
{
	uint32_t pid = d->u.task.pid, ppid = d->u.task.ppid;
	uint32_t tid = d->u.task.tid, ptid = d->u.task.ptid;
	struct rec_proc *p, *parent;
	struct rec_thread *t;
	int reused, covered, err;

	if (fork) {
		/* Covered already: a sweep found it first (and counted it). */
		covered = spi_imap_get(&r->tg.covered, tid) != NULL;
		(void)spi_imap_put(&r->tg.covered, tid, &r->tg.covered);
		parent = spi_rec_proc_get(r, ppid, 0);
		/* Its exit read a moment ago: the pid is another process's. */
		p = spi_rec_proc_get(r, pid, 0);
		if (p != NULL && p->exited && pid != ppid)
			spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
		p = spi_rec_proc_get(r, pid, pid != ppid && (r->tg.system ||
		    (parent != NULL && parent->tracked && r->o.children)));
		/* A known pid forked anew: its old exit was lost. */
		reused = 0;
		if (p != NULL && pid != ppid && p->tracked && parent != NULL &&
		    (err = spi_rec_check_reuse(&r->ctx, p, &reused)) != 0)
			return err;
		if (reused)
			p->tracked = 0;
		if (p != NULL && pid != ppid && parent == NULL && r->tg.system &&
		    p->nmaps == 0 && !p->tracked) {
			/* Its parent's start was not seen: /proc says. */
			if ((err = spi_rec_adopt(r, pid, &p)) != 0)
				return err;
		} else if (p != NULL && pid != ppid && parent != NULL &&
		    p->nmaps == 0 && !p->tracked) {
			p->tracked = 1;
			r->ctx.c[C_PROCESSES]++;
			p->last_rescan = r->ctx.now;
			if ((err = spi_rec_clone_maps(&r->ctx, p, parent)) != 0 ||
			    (err = spi_rec_write_python(&r->ctx, p, parent->python,
			    r->ctx.now)) != 0)
				return err;
		}
		if (p == NULL || !p->tracked)
			return 0;
		if ((err = name_child(r, pid, tid, ptid)) != 0)
			return err;
		r->ctx.c[C_THREADS] += !covered;
		return spi_rec_write_proc(&r->ctx, SP_PROC_FORK, pid, tid, ppid, ptid, NULL);
	}
	covered = spi_imap_del(&r->tg.covered, tid) != NULL;
	if (r->tg.system)
		return on_exit_system(r, pid, tid, ppid, ptid);
	t = spi_imap_del(&r->threads, tid);
	/* An exit of a thread neither covered nor seen: the kernel sent it
	 * twice (seen once in 10,000 exits), or its start was lost. */
	if (!covered && t == NULL)
		return 0;
	free(t);
	p = spi_rec_proc_get(r, pid, 0);
	if (p != NULL && !p->tracked && pid == tid)
		spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
	if (p == NULL || !p->tracked)
		return 0;
	err = spi_rec_write_proc(&r->ctx, SP_PROC_EXIT, pid, tid, ppid, ptid, NULL);
	if (pid == tid) {
		exited(r, p);
		spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
	}
	return err;
}
