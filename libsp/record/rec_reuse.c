/* SPDX-License-Identifier: MIT */
/*
 * PID reuse: a process whose exit record was lost (ring overflow) leaves
 * its state under its pid; when another process takes the pid, its
 * start time (proc(5): /proc/PID/stat field 22) tells them apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/procfs_int.h"
#include "rec_ctx_int.h"
#include "sp/common/error.h"
#include "sp/spool/spool.h"

int
spi_rec_start_time(uint32_t pid, uint32_t tid, uint64_t *t)
{
	char path[48], *buf, *p, *end;
	size_t len;
	int i, err;

	*t = 0;
	if (tid != 0)
		(void)snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid,
		    tid);
	else
		(void)snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	err = spi_read_file(path, 4096, &buf, &len);
	if (err)
		return err;
	/* proc(5): "pid (comm) state ..."; comm may hold spaces and ')',
	 * so fields are counted from the last ')'.  It is followed by
	 * fields 3 (state) to 21, then 22, starttime. */
	p = len > 0 ? memrchr(buf, ')', len) : NULL;
	err = -SP_EFORMAT;
	if (p != NULL) {
		for (i = 0; i < 20 && p != NULL; i++)
			p = memchr(p + 1, ' ', (size_t)(buf + len - p - 1));
		if (p != NULL && p[1] >= '0' && p[1] <= '9') {
			errno = 0;
			*t = strtoull(p + 1, &end, 10);
			if (errno == 0 && end != p + 1)
				err = 0;
		}
	}
	free(buf);
	return err;
}

int
spi_rec_check_reuse(struct rec_ctx *r, struct rec_proc *p, int *reused)
{
	char comm[16];
	uint64_t t = 0;
	int err;

	*reused = 0;
	if (spi_rec_start_time(p->pid, 0, &t) != 0)
		return 0; /* gone, or unreadable: nothing to compare */
	if (p->start_time == 0 || t == p->start_time) {
		p->start_time = t;
		return 0;
	}
	/* The exit (and fork) records of the pid were lost with a ring
	 * overflow and another process took it: what is known of the old
	 * one must not name the new one's frames.  Like an exec. */
	*reused = 1;
	p->start_time = t;
	r->c[C_PID_REUSES]++;
	spi_rec_drop_maps(r, p);
	spi_rec_log(r, "pid %u is another process now (its exit was lost); "
	    "its old mappings are dropped", p->pid);
	if (spi_proc_comm((pid_t)p->pid, (pid_t)p->pid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	err = spi_rec_write_python(r, p, 0, r->now);
	if (err == 0 && p->tracked)
		err = spi_rec_write_proc(r, SP_PROC_EXEC, p->pid, p->pid, 0, 0, comm);
	return err;
}

struct pid_list {
	uint32_t *v;
	size_t n, cap;
	int (*keep)(const struct rec_proc *p);
};

static void
collect(void *val, void *ctx)
{
	const struct rec_proc *p = val;
	struct pid_list *l = ctx;

	if (l->keep(p) && l->n < l->cap)
		l->v[l->n++] = p->pid;
}

int
spi_rec_pids(const struct sp_imap *procs, int (*keep)(const struct rec_proc *),
    uint32_t **out, size_t *n)
{
	struct pid_list l;

	l.n = 0;
	l.cap = procs->used;	/* at least those kept */
	l.keep = keep;
	l.v = malloc((l.cap + 1) * sizeof(*l.v));
	*out = l.v;
	*n = 0;
	if (l.v == NULL)
		return -ENOMEM;
	/* Walked first, acted on after: acting may change the map. */
	spi_imap_each(procs, collect, &l);
	*n = l.n;
	return 0;
}

static int
tracked(const struct rec_proc *p)
{
	return p->tracked;
}

/*
 * Each followed process whose pid now names another process (its exit
 * and the new one's fork were among the lost records) starts anew.
 */
int
spi_rec_sweep_reused(struct rec_ctx *r, const struct sp_imap *procs)
{
	uint32_t *pids;
	size_t i, n;
	int reused, err = spi_rec_pids(procs, tracked, &pids, &n);

	for (i = 0; i < n && err == 0; i++) {
		struct rec_proc *p = spi_imap_get(procs, pids[i]);

		if (p != NULL)
			err = spi_rec_check_reuse(r, p, &reused);
	}
	free(pids);
	return err;
}

