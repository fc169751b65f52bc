/* SPDX-License-Identifier: MIT */
/*
 * Timelines: the fold's ordered samples as speedscope JSON
 * (sp_speedscope_write) or Chrome trace events (sp_chrome_trace_write).
 * Each distinct stack's folded text (fold_text.c) is split at its ';' (no
 * name holds one: sp/report/fold.h) into frame names, interned once; the stacks
 * become index lists, cached by stack id; then each thread's samples, in
 * the order threads first sampled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/json_int.h"
#include "common/intern_int.h"
#include "fold_int.h"
#include "sp/report/speedscope.h"
#include "sp/tool/version.h"

/* Appends a string literal. */
#define PUT(b, lit) spi_buf_put((b), (lit), sizeof(lit) - 1)

struct scope {
	struct sp_fold *f;
	const struct sp_defs *d;
	struct spi_fold_text *text;
	struct sp_intern names;        /* frame name -> index + 1 */
	struct sp_buf frames;          /* the "frames" array's JSON */
	uint32_t nframes;
	uint32_t *stack_at;            /* stack id -> offset + 1 in pool */
	size_t capstack_at;
	uint32_t *pool;                /* per stack: count, then indices */
	size_t npool, cappool;
	uint32_t *thread_first;        /* thread id * 3 + kind -> seen */
	size_t capthread_first;
	uint32_t *name_off;            /* frame index -> its name's JSON in */
	size_t capname_off;            /* frames: offset, then length */
};

/* s as a JSON string's contents. */
static void
put_json(struct sp_buf *b, const char *s, size_t len)
{
	spi_json_put(b, s, len);
}

/* The index of frame name s[0..len), added when new. */
static int
frame_index(struct scope *sc, const char *s, size_t len, uint32_t *idx)
{
	uint64_t h;
	uint32_t id = spi_intern_find(&sc->names, 0, (const uint8_t *)s, len,
	    &h);
	size_t at;
	int err;

	if (id == 0) {
		id = sc->nframes + 1;
		err = spi_intern_add(&sc->names, 0, (const uint8_t *)s, len, h,
		    id);
		if (err < 0)
			return err;
		if (spi_grow_zeroed(&sc->name_off, &sc->capname_off,
		    2 * (size_t)id, sizeof(*sc->name_off)) < 0)
			return -ENOMEM;
		if (sc->nframes++ > 0)
			spi_buf_u8(&sc->frames, ',');
		PUT(&sc->frames, "{\"name\":\"");
		at = 2 * ((size_t)id - 1);
		sc->name_off[at] = (uint32_t)sc->frames.len;
		put_json(&sc->frames, s, len);
		sc->name_off[at + 1] = (uint32_t)sc->frames.len -
		    sc->name_off[at];
		PUT(&sc->frames, "\"}");
		if (sc->frames.err)
			return sc->frames.err;
		if (sc->frames.len > UINT32_MAX)
			return -SP_ELIMIT;
	}
	*idx = id - 1;
	return 0;
}

/* The pool offset of stack's entry (count, then indices, root first). */
static int
stack_entry(struct scope *sc, uint32_t stack, size_t *at)
{
	const char *text, *p, *end, *semi;
	size_t len, start;
	uint32_t idx = 0;
	int err;

	if (spi_grow_zeroed(&sc->stack_at, &sc->capstack_at, (size_t)stack + 1,
	    sizeof(*sc->stack_at)) < 0)
		return -ENOMEM;
	if (sc->stack_at[stack] != 0) {
		*at = sc->stack_at[stack] - 1;
		return 0;
	}
	if ((err = spi_fold_text_stack(sc->text, stack, &text, &len)) < 0)
		return err;
	start = sc->npool;
	if (spi_grow_zeroed(&sc->pool, &sc->cappool, start + 1,
	    sizeof(*sc->pool)) < 0)
		return -ENOMEM;
	sc->pool[sc->npool++] = 0;
	for (p = text, end = len > 0 ? text + len : text; len > 0 && p <= end;
	    p = semi + 1) {
		semi = memchr(p, ';', (size_t)(end - p));
		if (semi == NULL)
			semi = end;
		if ((err = frame_index(sc, p, (size_t)(semi - p), &idx)) < 0)
			return err;
		if (spi_grow_zeroed(&sc->pool, &sc->cappool, sc->npool + 1,
		    sizeof(*sc->pool)) < 0)
			return -ENOMEM;
		sc->pool[sc->npool++] = idx;
		sc->pool[start]++;
	}
	if (sc->npool > UINT32_MAX - 1)
		return -SP_ELIMIT;
	sc->stack_at[stack] = (uint32_t)start + 1;
	*at = start;
	return 0;
}

static void
put_num(struct sp_buf *b, uint64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%" PRIu64, v);

	spi_buf_put(b, num, (size_t)n);
}

/* The profile name of thread id: "comm (pid P, tid T)". */
static void
put_thread_name(struct sp_buf *b, const struct sp_defs *d, uint32_t id)
{
	const struct sp_thread *t = sp_defs_thread(d, id);
	const struct sp_str *comm = t != NULL ? sp_defs_string(d, t->comm) :
	    NULL;
	char num[64];
	int n;

	if (comm != NULL && comm->len > 0)
		put_json(b, comm->s, comm->len);
	else
		spi_buf_u8(b, '?');
	n = snprintf(num, sizeof(num), " (pid %" PRIu32 ", tid %" PRIu32 ")",
	    t != NULL ? t->pid : 0, t != NULL ? t->tid : 0);
	spi_buf_put(b, num, (size_t)n);
}

/* Whether o is of the profile of thread and kind. */
static int
of(const struct sp_fold_sampled *o, uint32_t thread, uint32_t kind)
{
	return o->thread == thread && o->kind == kind;
}

/*
 * One thread's profile of one kind (its CPU samples, its time off CPU
 * blocked, or preempted): its samples from index first on.  A CPU sample
 * weighs the period, the others their nanoseconds.
 */
static int
put_profile(struct scope *sc, struct sp_buf *b, const struct sp_fold_sampled *o,
    size_t n, size_t first, uint64_t t0, uint64_t period)
{
	uint32_t thread = o[first].thread, kind = o[first].kind, k;
	uint64_t start = 0, end = 0;
	size_t i, at, count = 0;
	int err;

	if (kind != SP_SAMPLE_CPU)
		period = 1;
	for (i = first; i < n; i++)
		if (of(&o[i], thread, kind)) {
			if (count++ == 0)
				start = o[i].time >= t0 ? o[i].time - t0 : 0;
			end = (o[i].time >= t0 ? o[i].time - t0 : 0) +
			    period * o[i].weight;
		}
	/* Not of time: the weights' sum (samples, or an event's count). */
	if (period == 0) {
		start = 0;
		for (i = first, end = 0; i < n; i++)
			end += of(&o[i], thread, kind) ? o[i].weight : 0;
	}
	PUT(b, "{\"type\":\"sampled\",\"name\":\"");
	put_thread_name(b, sc->d, thread);
	if (kind == SP_SAMPLE_OFF_CPU)
		PUT(b, " off-CPU");
	else if (kind == SP_SAMPLE_PREEMPTED)
		PUT(b, " preempted");
	PUT(b, "\",\"unit\":\"");
	spi_buf_put(b, period ? "nanoseconds" : "none", period ? 11 : 4);
	PUT(b, "\",\"startValue\":");
	put_num(b, start);
	PUT(b, ",\"endValue\":");
	put_num(b, end < start ? start : end);
	PUT(b, ",\"samples\":[");
	for (i = first, count = 0; i < n; i++) {
		if (!of(&o[i], thread, kind))
			continue;
		if ((err = stack_entry(sc, o[i].stack, &at)) < 0)
			return err;
		if (count++ > 0)
			spi_buf_u8(b, ',');
		spi_buf_u8(b, '[');
		for (k = 0; k < sc->pool[at]; k++) {
			if (k > 0)
				spi_buf_u8(b, ',');
			put_num(b, sc->pool[at + 1 + k]);
		}
		spi_buf_u8(b, ']');
	}
	PUT(b, "],\"weights\":[");
	for (i = first, count = 0; i < n; i++) {
		if (!of(&o[i], thread, kind))
			continue;
		if (count++ > 0)
			spi_buf_u8(b, ',');
		put_num(b, (period ? period : 1) * o[i].weight);
	}
	PUT(b, "]}");
	return b->err;
}

/* b's bytes to out (none: nothing, b->p may be NULL).  0 or -EIO. */
static int
write_buf(const struct sp_buf *b, FILE *out)
{
	return b->len == 0 || fwrite(b->p, 1, b->len, out) == b->len ? 0 :
	    -EIO;
}

static void
scope_fini(struct scope *sc)
{
	spi_fold_text_free(sc->text);
	spi_intern_fini(&sc->names);
	spi_buf_fini(&sc->frames);
	free(sc->stack_at);
	free(sc->pool);
	free(sc->thread_first);
	free(sc->name_off);
}

int
sp_speedscope_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, const char *name, FILE *out)
{
	const struct sp_fold_sampled *o;
	struct scope sc;
	struct sp_buf profiles = { 0 }, head = { 0 };
	uint64_t t0 = UINT64_MAX, period = spi_fold_period_ns(d, h);
	size_t n, i, nprofiles = 0;
	int err;

	if (!(sp_fold_options(f)->flags & SP_FOLD_ORDER))
		return -SP_EUSAGE;
	memset(&sc, 0, sizeof(sc));
	sc.f = f;
	sc.d = d;
	if ((err = spi_fold_text_new(f, d, &sc.text)) < 0)
		return err;
	sp_fold_order(f, &o, &n);
	for (i = 0; i < n; i++)
		if (o[i].time != 0 && o[i].time < t0)
			t0 = o[i].time;
	/* Threads in the order they were first sampled; a thread's time
	 * off CPU, and its time preempted, are profiles of their own. */
	for (i = 0; i < n && err == 0; i++) {
		size_t th = (size_t)o[i].thread * 3 + o[i].kind;

		if (spi_grow_zeroed(&sc.thread_first, &sc.capthread_first,
		    th + 1, sizeof(*sc.thread_first)) < 0) {
			err = -ENOMEM;
			break;
		}
		if (sc.thread_first[th] != 0)
			continue;
		sc.thread_first[th] = 1;
		if (nprofiles++ > 0)
			spi_buf_u8(&profiles, ',');
		err = put_profile(&sc, &profiles, o, n, i, t0, period);
	}
	if (err == 0) {
		PUT(&head, "{\"$schema\":\"https://www.speedscope.app/"
		    "file-format-schema.json\",\"exporter\":\"stackpulse ");
		spi_buf_put(&head, SP_PROJECT_VERSION,
		    strlen(SP_PROJECT_VERSION));
		PUT(&head, "\",\"name\":\"");
		put_json(&head, name != NULL ? name : "stackpulse",
		    strlen(name != NULL ? name : "stackpulse"));
		PUT(&head, "\",\"activeProfileIndex\":0,\"shared\":"
		    "{\"frames\":[");
		err = head.err ? head.err : profiles.err ? profiles.err :
		    sc.frames.err;
	}
	if (err == 0 && (write_buf(&head, out) < 0 ||
	    write_buf(&sc.frames, out) < 0 ||
	    fputs("]},\"profiles\":[", out) == EOF ||
	    write_buf(&profiles, out) < 0 ||
	    fputs("]}\n", out) == EOF || ferror(out)))
		err = -EIO;
	spi_buf_fini(&head);
	spi_buf_fini(&profiles);
	scope_fini(&sc);
	return err;
}


/* A frame on a thread's track: its index (OFF_CPU_MARK for the leaf
 * of time off CPU, PREEMPTED_MARK for time waiting for a CPU), its
 * depth, since when and (closed) until when, in whole microseconds (the
 * format's unit: a viewer adding ts and dur in floating point would see
 * a span end after the next one's start). */
#define OFF_CPU_MARK UINT32_MAX
#define PREEMPTED_MARK (UINT32_MAX - 1)
struct span {
	uint32_t idx, depth;
	uint64_t start, end;
};

struct track {
	struct scope *sc;
	struct sp_buf *b;
	uint32_t host, pid, tid;
	uint32_t last_thread;  /* its last THREAD id (comm) */
	struct span *open;     /* by depth */
	size_t nopen, capopen;
	struct span *done;     /* closed, to write in order */
	size_t ndone, capdone;
	size_t nevents;
};

/* Closes the open frames from depth k on at end (ns). */
static int
close_spans(struct track *tr, size_t k, uint64_t end)
{
	struct span *s;

	for (; tr->nopen > k; tr->nopen--) {
		s = &tr->open[tr->nopen - 1];
		if (end / 1000 == s->start)
			continue;	/* under a microsecond: left out */
		if (spi_grow_zeroed(&tr->done, &tr->capdone, tr->ndone + 1,
		    sizeof(*tr->done)) < 0)
			return -ENOMEM;
		tr->done[tr->ndone] = *s;
		tr->done[tr->ndone++].end = end / 1000;
	}
	return 0;
}

/* Viewers nest spans as they come: a parent before its children. */
static int
cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The track's closed spans as complete events ("X"). */
static void
put_spans(struct track *tr)
{
	const struct span *s;
	char ids[48];
	int n = snprintf(ids, sizeof(ids), ",\"pid\":%" PRIu32 ",\"tid\":%"
	    PRIu32 ",\"ts\":", tr->pid, tr->tid);
	size_t i;

	if (tr->ndone > 1)
		qsort(tr->done, tr->ndone, sizeof(*tr->done), cmp_span);
	for (i = 0; i < tr->ndone; i++) {
		s = &tr->done[i];
		if (tr->nevents++ > 0)
			spi_buf_u8(tr->b, ',');
		PUT(tr->b, "{\"ph\":\"X\",\"name\":\"");
		if (s->idx == OFF_CPU_MARK)
			PUT(tr->b, "[off-cpu]\",\"cat\":\"off-cpu\"");
		else if (s->idx == PREEMPTED_MARK)
			PUT(tr->b, "[preempted]\",\"cat\":\"preempted\"");
		else {
			spi_buf_put(tr->b, tr->sc->frames.p +
			    tr->sc->name_off[2 * (size_t)s->idx],
			    tr->sc->name_off[2 * (size_t)s->idx + 1]);
			PUT(tr->b, "\",\"cat\":\"cpu\"");
		}
		spi_buf_put(tr->b, ids, (size_t)n);
		put_num(tr->b, s->start);
		PUT(tr->b, ",\"dur\":");
		put_num(tr->b, s->end - s->start);
		spi_buf_u8(tr->b, '}');
	}
	tr->ndone = 0;
}

/* Whether THREAD id is the task of tr: a thread renamed (exec, prctl)
 * has a THREAD of each name, one track.  Marks it seen. */
static int
on_track(struct track *tr, uint32_t id)
{
	const struct sp_thread *t = sp_defs_thread(tr->sc->d, id);

	if (t == NULL || t->host != tr->host || t->pid != tr->pid ||
	    t->tid != tr->tid)
		return 0;
	tr->sc->thread_first[id] = 1;
	tr->last_thread = id;
	return 1;
}

/*
 * One thread's track from its samples (index first on): a CPU sample
 * covers the period before its time, an off-CPU one its nanoseconds
 * after (its leaf the frame [off-cpu], or [preempted] for time waiting
 * for a CPU); frames a sample shares with the one before stay open,
 * others close where it starts; a gap of more than a period between
 * samples closes all.  The leaf closes where the time off the CPU ends:
 * the thread ran after it, so the gap to the next sample is not off-CPU
 * time.  Times from t0.
 */
static int
put_track(struct track *tr, const struct sp_fold_sampled *o, size_t n,
    size_t first, uint64_t t0, uint64_t period)
{
	uint32_t k, cnt, idx;
	uint64_t start, end, last = 0;
	size_t i, at, d;
	int err, off;

	for (i = first; i < n; i++) {
		if (o[i].thread >= tr->sc->capthread_first ||
		    !on_track(tr, o[i].thread))
			continue;
		off = o[i].kind != SP_SAMPLE_CPU;
		if (o[i].time < t0 + (off ? 0 : period))
			continue;	/* no time */
		start = o[i].time - t0 - (off ? 0 : period);
		end = off ? start + o[i].weight : start + period;
		if (start < last)
			start = last;
		if (end <= start)
			continue;
		if (start > last + period && (err = close_spans(tr, 0, last)) < 0)
			return err;
		if ((err = stack_entry(tr->sc, o[i].stack, &at)) < 0)
			return err;
		/* Its frames, and an off-CPU sample's leaf [off-cpu] or
		 * [preempted]. */
		cnt = tr->sc->pool[at];
		k = cnt + (off ? 1 : 0);
		for (d = 0; d < k; d++) {
			idx = d < cnt ? tr->sc->pool[at + 1 + d] :
			    o[i].kind == SP_SAMPLE_PREEMPTED ? PREEMPTED_MARK :
			    OFF_CPU_MARK;
			if (d < tr->nopen && tr->open[d].idx == idx)
				continue;
			if ((err = close_spans(tr, d, start)) < 0)
				return err;
			if (spi_grow_zeroed(&tr->open, &tr->capopen, d + 1,
			    sizeof(*tr->open)) < 0)
				return -ENOMEM;
			tr->open[d].idx = idx;
			tr->open[d].depth = (uint32_t)d;
			tr->open[d].start = start / 1000;
			tr->nopen = d + 1;
		}
		if ((err = close_spans(tr, k, start)) < 0 ||
		    (off && (err = close_spans(tr, cnt, end)) < 0))
			return err;
		last = end;
	}
	if ((err = close_spans(tr, 0, last)) < 0)
		return err;
	put_spans(tr);
	return tr->b->err;
}

int
sp_chrome_trace_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, FILE *out)
{
	const struct sp_fold_sampled *o;
	const struct sp_thread *t;
	const struct sp_str *comm;
	struct scope sc;
	struct track tr;
	struct sp_buf b = { 0 };
	uint64_t t0 = UINT64_MAX, period = spi_fold_period_ns(d, h);
	size_t n, i;
	int err;

	if (!(sp_fold_options(f)->flags & SP_FOLD_ORDER))
		return -SP_EUSAGE;
	memset(&sc, 0, sizeof(sc));
	memset(&tr, 0, sizeof(tr));
	sc.f = f;
	sc.d = d;
	tr.sc = &sc;
	tr.b = &b;
	if (period == 0)
		period = 1000000;
	if ((err = spi_fold_text_new(f, d, &sc.text)) < 0)
		return err;
	sp_fold_order(f, &o, &n);
	/* A CPU sample's span ends at its time: t0 leaves room for one. */
	for (i = 0; i < n; i++)
		if (o[i].time >= period && o[i].time - period < t0)
			t0 = o[i].time - period;
	/* The fold checked every sample's THREAD id against d. */
	if (spi_grow_zeroed(&sc.thread_first, &sc.capthread_first,
	    (size_t)sp_defs_count(d, SP_REC_THREAD) + 1,
	    sizeof(*sc.thread_first)) < 0)
		err = -ENOMEM;
	PUT(&b, "{\"traceEvents\":[");
	for (i = 0; i < n && err == 0; i++) {
		if (o[i].time < t0 || o[i].time == 0 ||
		    o[i].thread >= sc.capthread_first)
			continue;
		if (sc.thread_first[o[i].thread] != 0 ||
		    (t = sp_defs_thread(d, o[i].thread)) == NULL)
			continue;
		tr.host = t->host;
		tr.pid = t->pid;
		tr.tid = t->tid;
		if ((err = put_track(&tr, o, n, i, t0, period)) < 0)
			break;
		/* Its name: the comm it had last. */
		t = sp_defs_thread(d, tr.last_thread);
		comm = t != NULL ? sp_defs_string(d, t->comm) : NULL;
		if (tr.nevents++ > 0)
			spi_buf_u8(&b, ',');
		PUT(&b, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
		put_num(&b, tr.pid);
		PUT(&b, ",\"tid\":");
		put_num(&b, tr.tid);
		PUT(&b, ",\"args\":{\"name\":\"");
		if (comm != NULL && comm->len > 0)
			put_json(&b, comm->s, comm->len);
		else
			spi_buf_u8(&b, '?');
		PUT(&b, "\"}}");
	}
	PUT(&b, "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":"
	    "\"stackpulse ");
	spi_buf_put(&b, SP_PROJECT_VERSION, strlen(SP_PROJECT_VERSION));
	PUT(&b, "\"}}\n");
	if (err == 0 && b.err)
		err = b.err;
	if (err == 0 && (write_buf(&b, out) < 0 || ferror(out)))
		err = -EIO;
	spi_buf_fini(&b);
	free(tr.open);
	free(tr.done);
	scope_fini(&sc);
	return err;
}
