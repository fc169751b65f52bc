/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU samples (--off-cpu): a switch off CPU waits in its thread
 * until the thread's switch in, whose time gives its weight.  The switch
 * out's record after it says whether the thread blocked or was preempted
 * (still runnable, waiting for a CPU): two kinds of sample, blocked time
 * and CPU contention, which answer different questions.
 */
#include <string.h>

#include "rec_decode_int.h"
#include "recorder_int.h"

/*
 * An off-CPU sample waits in its thread for the switch in that gives its
 * weight (on_switch).  One still waiting there lost its switch in.
 */
int
spi_rec_hold_off_cpu(struct sp_recorder *r, uint32_t tid, const struct sp_sample *s)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);

	if (t == NULL)
		return 0;
	if (t->off.time != 0)
		r->ctx.c[C_OFF_CPU_UNMATCHED]++;
	t->off = *s;
	t->off.kind = SP_SAMPLE_OFF_CPU;
	return 0;
}

static int
write_off_cpu(struct sp_recorder *r, struct rec_thread *t, uint64_t in)
{
	struct sp_record rec;
	int err;

	/* Sampling was turned off meanwhile (its switch events too): the
	 * switch in that ended this wait may have gone unseen. */
	if (t->off.time < r->paused_at && in > r->paused_at) {
		t->off.time = 0;
		r->ctx.c[C_OFF_CPU_UNMATCHED]++;
		return 0;
	}
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_SAMPLE;
	rec.u.sample = t->off;
	rec.u.sample.weight = in - t->off.time;
	t->off.time = 0;
	if ((err = sp_writer_put(r->ctx.w, &rec, NULL)) != 0)
		return err;
	r->ctx.c[C_OFF_CPU]++;
	r->ctx.c[C_OFF_CPU_NS] += rec.u.sample.weight;
	if (rec.u.sample.kind == SP_SAMPLE_PREEMPTED) {
		r->ctx.c[C_OFF_CPU_PREEMPTED]++;
		r->ctx.c[C_OFF_CPU_PREEMPTED_NS] += rec.u.sample.weight;
	}
	return 0;
}

/*
 * PERF_RECORD_SWITCH(_CPU_WIDE): a switch in of id->tid ends the time off
 * CPU of its waiting sample; a switch out only says whether the thread
 * was preempted (still runnable: PERF_RECORD_MISC_SWITCH_OUT_PREEMPT,
 * Linux 4.17) or blocked, which makes the waiting sample's kind.
 */
int
spi_rec_on_switch(struct sp_recorder *r, const struct rec_decoded *id, uint16_t misc)
{
	struct rec_thread *t;

	t = spi_imap_get(&r->threads, id->tid);
	/* Its switch's sample came first (the kernel writes it first):
	 * only the switches of threads recorded count (not the idle task
	 * or processes gone, with -a). */
	if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if ((misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) && t != NULL &&
		    t->off.time != 0 && id->time >= t->off.time)
			t->off.kind = SP_SAMPLE_PREEMPTED;
		return 0;
	}
	if (t == NULL || t->off.time == 0 || id->time <= t->off.time)
		return 0;
	return write_off_cpu(r, t, id->time);
}

struct off_cpu_end {
	struct sp_recorder *r;
	uint64_t end;
	int err;
};

static void
end_off_cpu(void *val, void *ctx)
{
	struct rec_thread *t = val;
	struct off_cpu_end *e = ctx;
	const struct rec_proc *p;
	int err;

	if (t->off.time == 0 || t->exited || e->end <= t->off.time)
		return;
	/* Its process is gone, its exit among lost records (a sweep freed
	 * it): the thread never came back. */
	p = spi_rec_proc_get(e->r, t->pid, 0);
	if (p == NULL || !p->tracked) {
		e->r->ctx.c[C_OFF_CPU_UNMATCHED]++;
		return;
	}
	if ((err = write_off_cpu(e->r, t, e->end)) != 0 && e->err == 0)
		e->err = err;
}

int
spi_rec_off_cpu_end(struct sp_recorder *r, uint64_t end)
{
	struct off_cpu_end e = { r, end, 0 };

	spi_imap_each(&r->threads, end_off_cpu, &e);
	return e.err;
}

struct off_cpu_forget {
	struct sp_recorder *r;
	uint64_t before;
};

static void
forget(void *val, void *ctx)
{
	struct rec_thread *t = val;
	struct off_cpu_forget *f = ctx;

	if (t->off.time != 0 && t->off.time < f->before) {
		t->off.time = 0;
		f->r->ctx.c[C_OFF_CPU_UNMATCHED]++;
	}
}

void
spi_rec_off_cpu_forget(struct sp_recorder *r, uint64_t before)
{
	struct off_cpu_forget f = { r, before };

	spi_imap_each(&r->threads, forget, &f);
}
