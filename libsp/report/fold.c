/* SPDX-License-Identifier: MIT */
/*
 * Folding, the counting half: one pass over the samples keeps a count per
 * (stack id, root group) in an open-addressing hash map; stacks are
 * interned by the spool, so equal stacks of one process share an id and
 * no stack is expanded while counting.  Filters by thread are decided
 * once per THREAD definition, not per sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/opts_int.h"
#include "fold_int.h"

/* An empty slot has count 0: a key is inserted with its first sample. */
static uint64_t
mix(uint64_t k)
{
	/* The finaliser of MurmurHash3 (public domain): spreads the bits of
	 * small sequential ids over the table. */
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

static int
map_grow(struct fold_map *m)
{
	struct fold_slot *old = m->slots, *s;
	size_t oldcap = m->cap, cap = m->cap ? m->cap * 2 : 1024, i, j;

	if (cap > SIZE_MAX / sizeof(*s))
		return -ENOMEM;
	s = calloc(cap, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	for (i = 0; i < oldcap; i++) {
		if (old[i].val == 0)
			continue;
		for (j = mix(old[i].key) & (cap - 1); s[j].val != 0;
		    j = (j + 1) & (cap - 1))
			;
		s[j] = old[i];
	}
	free(old);
	m->slots = s;
	m->cap = cap;
	return 0;
}

/* The slot of key, inserted with val 0 if absent; NULL for -ENOMEM. */
static struct fold_slot *
map_slot(struct fold_map *m, uint64_t key)
{
	size_t i;

	/* Load factor at most 1/2, so probes stay short. */
	if (m->used >= m->cap / 2 && map_grow(m) != 0)
		return NULL;
	for (i = mix(key) & (m->cap - 1); m->slots[i].val != 0;
	    i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			return &m->slots[i];
	m->slots[i].key = key;
	m->used++;
	return &m->slots[i];
}

/* sz 0: the struct of 0.5.0, whose last field is demangle (frozen: a
 * field added later lies past it). */
#define FOLD_OPTS_SZ0 SPI_OPTS_END(struct sp_fold_options, demangle)

int
sp_fold_new(const struct sp_fold_options *given, const struct sp_header *h,
    struct sp_fold **out)
{
	struct sp_fold_options o;
	struct sp_fold *f;

	*out = NULL;
	if (spi_opts_copy(&o, sizeof(o), given, FOLD_OPTS_SZ0, "sp_fold_options",
	    NULL) < 0)
		return -SP_EUSAGE;
	if ((o.flags & SP_FOLD_USER_ONLY) && (o.flags & SP_FOLD_KERNEL_ONLY))
		return -SP_EUSAGE;
	if (o.root > SP_FOLD_ROOT_THREAD || o.time > SP_FOLD_TIME_PREEMPTED)
		return -SP_EUSAGE;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->o = o;
	f->start_ns = h->start_mono_ns;
	f->interval_ns = (uint64_t)h->sample_interval_us * 1000;
	*out = f;
	return 0;
}

static int
str_eq(const struct sp_str *s, const char *c)
{
	size_t n = strlen(c);

	return s != NULL && s->len == n && memcmp(s->s, c, n) == 0;
}

/* The group of thread t for the root option: 0 when there is no root. */
static int
thread_group(struct sp_fold *f, const struct sp_thread *t, uint32_t *group)
{
	struct fold_slot *slot;
	struct sp_fold_group *g;

	*group = 0;
	if (f->o.root == SP_FOLD_ROOT_NONE)
		return 0;
	slot = NULL;
	if (f->o.root == SP_FOLD_ROOT_PROCESS) {
		slot = map_slot(&f->procs, (uint64_t)t->host << 32 | t->pid);
		if (slot == NULL)
			return -ENOMEM;
		if (slot->val != 0) {
			*group = (uint32_t)slot->val;
			/* The process is named after its main thread. */
			if (t->tid == t->pid)
				f->groups[*group - 1].comm = t->comm;
			return 0;
		}
	}
	/* The count's key holds a group in 30 bits (fold_int.h). */
	if (f->ngroups >= FOLD_GROUPS_MAX)
		return -SP_ELIMIT;
	if (spi_grow_zeroed(&f->groups, &f->capgroups, f->ngroups + 1,
	    sizeof(*f->groups)) != 0)
		return -ENOMEM;
	g = &f->groups[f->ngroups++];
	g->host = t->host;
	g->pid = t->pid;
	g->tid = f->o.root == SP_FOLD_ROOT_THREAD ? t->tid : 0;
	g->comm = t->comm;
	*group = (uint32_t)f->ngroups;
	if (slot != NULL)
		slot->val = *group;
	return 0;
}

/* Decides the filters and the group of threads defined since last time. */
static int
learn_threads(struct sp_fold *f, const struct sp_defs *d, uint32_t upto)
{
	struct fold_thread *ts;
	const struct sp_thread *t;
	int err;

	if (spi_grow_zeroed(&f->threads, &f->capthreads, upto,
	    sizeof(*f->threads)) != 0)
		return -ENOMEM;
	while (f->nthreads < upto) {
		t = sp_defs_thread(d, (uint32_t)f->nthreads + 1);
		if (t == NULL)
			return -SP_EREF;
		ts = &f->threads[f->nthreads];
		ts->pass = !((f->o.flags & SP_FOLD_PID) && t->pid != f->o.pid) &&
		    !((f->o.flags & SP_FOLD_TID) && t->tid != f->o.tid) &&
		    !(f->o.comm != NULL &&
		    !str_eq(sp_defs_string(d, t->comm), f->o.comm));
		ts->group = 0;
		if (ts->pass && (err = thread_group(f, t, &ts->group)) < 0)
			return err;
		f->nthreads++;
	}
	return 0;
}

/* Nanoseconds since the start, as --from and --to count them. */
static uint64_t
since_start(const struct sp_fold *f, uint64_t time)
{
	return time > f->start_ns ? time - f->start_ns : 0;
}

static int
in_window(const struct sp_fold *f, uint64_t time)
{
	uint64_t rel = since_start(f, time);

	if ((f->o.flags & SP_FOLD_FROM) && rel < f->o.from_ns)
		return 0;
	if ((f->o.flags & SP_FOLD_TO) && rel >= f->o.to_ns)
		return 0;
	return 1;
}

static int
keep_order(struct sp_fold *f, const struct sp_sample *s)
{
	struct sp_fold_sampled *o;

	if (spi_grow_zeroed(&f->order, &f->caporder, f->norder + 1,
	    sizeof(*f->order)) < 0)
		return -ENOMEM;
	o = &f->order[f->norder++];
	o->time = s->time;
	o->thread = s->thread;
	o->stack = s->stack;
	o->kind = s->kind;
	o->weight = s->weight ? s->weight : 1;
	return 0;
}

void
sp_fold_order(const struct sp_fold *f, const struct sp_fold_sampled **out,
    size_t *n)
{
	*out = f->order;
	*n = f->norder;
}

/* Whether the fold's time counts samples of kind. */
static int
counts_kind(const struct sp_fold *f, uint32_t kind)
{
	switch (f->o.time) {
	case SP_FOLD_TIME_ON_CPU:
		return kind == SP_SAMPLE_CPU;
	case SP_FOLD_TIME_OFF_CPU:
		return kind == SP_SAMPLE_OFF_CPU;
	case SP_FOLD_TIME_PREEMPTED:
		return kind == SP_SAMPLE_PREEMPTED;
	default:
		return 1;
	}
}

int
sp_fold_sample(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_sample *s)
{
	struct fold_slot *slot;
	const struct fold_thread *t;
	int err;

	if (s->kind == SP_SAMPLE_OFF_CPU) {
		f->st.off_cpu++;
		f->st.off_cpu_ns += s->weight;
	} else if (s->kind == SP_SAMPLE_PREEMPTED) {
		f->st.preempted++;
		f->st.preempted_ns += s->weight;
	}
	if (f->st.samples++ == 0 || since_start(f, s->time) <
	    f->st.span_first_ns)
		f->st.span_first_ns = since_start(f, s->time);
	if (since_start(f, s->time) > f->st.span_last_ns)
		f->st.span_last_ns = since_start(f, s->time);
	if (s->thread == 0 || s->stack > sp_defs_count(d, SP_REC_NODE))
		return -SP_EREF;
	if (s->thread > f->nthreads &&
	    (err = learn_threads(f, d, s->thread)) < 0)
		return err;
	t = &f->threads[s->thread - 1];
	if (!t->pass || !in_window(f, s->time) || s->kind > SP_SAMPLE_PREEMPTED ||
	    !counts_kind(f, s->kind) ||
	    ((f->o.flags & SP_FOLD_CPU) && s->cpu != f->o.cpu)) {
		f->st.filtered++;
		return 0;
	}
	slot = map_slot(&f->counts, (uint64_t)s->kind << 62 |
	    (uint64_t)t->group << 32 | s->stack);
	if (slot == NULL)
		return -ENOMEM;
	slot->val += s->weight ? s->weight : 1;
	if ((f->o.flags & SP_FOLD_ORDER) && (err = keep_order(f, s)) < 0)
		return err;
	if (f->st.counted++ == 0 || s->time < f->st.first_ns)
		f->st.first_ns = s->time;
	if (s->time > f->st.last_ns)
		f->st.last_ns = s->time;
	return 0;
}

int
sp_fold_replay(struct sp_fold *f, struct sp_replay *r)
{
	struct sp_record rec;
	int err;

	while ((err = sp_replay_next(r, &rec)) > 0)
		if (rec.kind == SP_REC_SAMPLE && (err = sp_fold_sample(f,
		    sp_replay_defs(r), &rec.u.sample)) < 0)
			return err;
	return err;
}

int
sp_fold_snapshot(struct sp_fold *f, const struct sp_snapshot *s)
{
	const struct sp_sample *smp = sp_snapshot_samples(s);
	size_t i, n = sp_snapshot_nsamples(s);
	int err;

	for (i = 0; i < n; i++)
		if ((err = sp_fold_sample(f, sp_snapshot_defs(s), &smp[i])) < 0)
			return err;
	return 0;
}

/* Gathers the counted pairs into f->entries (after the last sample).
 * Returns 0 or -ENOMEM. */
static int
collect(struct sp_fold *f, const struct sp_defs *d)
{
	struct sp_fold_entry *e;
	size_t i, n = 0;
	uint64_t period;
	int both = sp_fold_unit(f, d, &period) == SP_FOLD_TIME_BOTH;

	free(f->entries);
	f->entries = NULL;
	f->nentries = 0;
	if (f->counts.used == 0)
		return 0;
	e = calloc(f->counts.used, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	for (i = 0; i < f->counts.cap; i++) {
		if (f->counts.slots[i].val == 0)
			continue;
		e[n].stack = (uint32_t)f->counts.slots[i].key;
		e[n].group = (uint32_t)(f->counts.slots[i].key >> 32) &
		    (FOLD_GROUPS_MAX - 1);
		e[n].kind = (uint32_t)(f->counts.slots[i].key >> 62);
		e[n].count = f->counts.slots[i].val;
		if (both && e[n].kind == SP_SAMPLE_CPU)
			e[n].count = e[n].count > UINT64_MAX / period ?
			    UINT64_MAX : e[n].count * period;
		n++;
	}
	f->entries = e;
	f->nentries = n;
	f->st.stacks = n;
	return 0;
}

int
sp_fold_entries(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_fold_entry **out, size_t *n)
{
	uint32_t nthreads = sp_defs_count(d, SP_REC_THREAD);
	int err;

	*out = NULL;
	*n = 0;
	/* Threads never sampled can still name their process. */
	if (nthreads > f->nthreads &&
	    (err = learn_threads(f, d, nthreads)) < 0)
		return err;
	if ((err = collect(f, d)) < 0)
		return err;
	*out = f->entries;
	*n = f->nentries;
	return 0;
}

const struct sp_fold_group *
sp_fold_group(const struct sp_fold *f, uint32_t group)
{
	return group == 0 || group > f->ngroups ? NULL : &f->groups[group - 1];
}

const struct sp_fold_options *
sp_fold_options(const struct sp_fold *f)
{
	return &f->o;
}

void
sp_fold_get_stats(const struct sp_fold *f, struct sp_fold_stats *st)
{
	*st = f->st;
	st->stacks = f->counts.used;
}

/* Does the options' mode filter keep frame id?  hide: the stack's hidden
 * frames may go. */
static int
keep_frame(const struct sp_fold *f, const struct sp_defs *d, uint32_t id,
    int hide)
{
	const struct sp_frame *fr = sp_defs_frame(d, id);
	const struct sp_module *m;
	const struct sp_symbol *sym;
	int kernel;

	if (fr == NULL)
		return 0;
	if (fr->mode == SP_FRAME_TRUNCATED)
		return !(f->o.flags & SP_FOLD_KERNEL_ONLY);
	m = sp_defs_module(d, fr->module);
	kernel = fr->mode == SP_FRAME_KERNEL ||
	    (m != NULL && (m->flags & SP_MOD_KERNEL));
	if ((f->o.flags & SP_FOLD_USER_ONLY) && kernel)
		return 0;
	if ((f->o.flags & SP_FOLD_KERNEL_ONLY) && !kernel)
		return 0;
	sym = sp_defs_symbol(d, id);
	return sym == NULL || !(sym->flags & SP_SYM_HIDDEN) || !hide ||
	    (f->o.flags & SP_FOLD_SHOW_HIDDEN);
}

/*
 * Whether frame id is CPython 3.12's perf trampoline evaluator
 * (Python/perf_trampoline.c): glue that calls each Python function's
 * trampoline, so its time as a leaf is the call's, which the Python frame
 * under it stands for.  Unlike the eval loop it does no work of its own.
 */
static int
trampoline_glue(const struct sp_defs *d, uint32_t id)
{
	static const char name[] = "py_trampoline_evaluator";
	const struct sp_symbol *sym = sp_defs_symbol(d, id);
	const struct sp_str *fn;

	if (sym == NULL || !(sym->flags & SP_SYM_HIDDEN))
		return 0;
	fn = sp_defs_string(d, sym->lines[sym->count - 1].function);
	return fn != NULL && fn->len >= sizeof(name) - 1 &&
	    memcmp(fn->s, name, sizeof(name) - 1) == 0 &&
	    (fn->len == sizeof(name) - 1 || fn->s[sizeof(name) - 1] == '.');
}

/* Whether one of the n frames (leaf first) is a Python function's. */
static int
has_python_frame(const struct sp_defs *d, const uint32_t *frames, size_t n)
{
	const struct sp_symbol *sym;
	size_t i;

	for (i = 0; i < n; i++)
		if ((sym = sp_defs_symbol(d, frames[i])) != NULL &&
		    (sym->flags & SP_SYM_PYTHON_FRAME))
			return 1;
	return 0;
}

int
sp_fold_frames(const struct sp_fold *f, const struct sp_defs *d,
    uint32_t stack, uint32_t max_locations, uint32_t **frames, size_t *cap,
    size_t *n)
{
	const struct sp_node *node = sp_defs_node(d, stack);
	size_t depth, i, k, j;
	uint32_t tmp;
	int err, py;

	*n = 0;
	if (stack == 0) {
		if ((err = spi_grow_zeroed(frames, cap, 1, sizeof(**frames))) < 0)
			return err;
		(*frames)[(*n)++] = SP_FOLD_UNKNOWN;
		return 0;
	}
	if (node == NULL)
		return -SP_EREF;
	/* One spare slot for the "[deeper]" marker. */
	if ((err = spi_grow_zeroed(frames, cap,
	    (size_t)node->depth + 1, sizeof(**frames))) < 0)
		return err;
	err = sp_defs_stack(d, stack, *frames, *cap, &depth);
	if (err < 0)
		return err;
	/* Keep in place, then reverse into root-first order.  Interpreter
	 * machinery goes only where Python frames stand in its place, and
	 * never the leaf: its time is its own (Python 3.11 without a perf
	 * map: the eval loop's self time, a quarter of the profile); but the
	 * perf trampoline's glue, whose time is the call's. */
	py = has_python_frame(d, *frames, depth);
	for (i = 0, k = 0; i < depth; i++)
		if (keep_frame(f, d, (*frames)[i], py && (i > 0 ||
		    trampoline_glue(d, (*frames)[i]))))
			(*frames)[k++] = (*frames)[i];
	for (i = 0, j = k; i < j / 2; i++) {
		tmp = (*frames)[i];
		(*frames)[i] = (*frames)[j - 1 - i];
		(*frames)[j - 1 - i] = tmp;
	}
	if (max_locations != 0 && k > max_locations) {
		k = max_locations;
		(*frames)[k++] = SP_FOLD_DEEPER;
	}
	*n = k;
	return 0;
}

/* The RECORDING's period of time: its period (-c of a clock), else its
 * frequency's, else interval_ns (the header's); 0 for an event that
 * counts, whose samples weigh events, not time. */
static uint64_t
period_ns(const struct sp_defs *d, uint64_t interval_ns)
{
	const struct sp_recording *r = sp_defs_recording(d);

	if (r != NULL && (r->flags & SP_RECORDING_COUNTS))
		return 0;
	if (r != NULL && r->period != 0)
		return r->period;
	if (r != NULL && r->frequency != 0)
		return 1000000000ull / r->frequency;
	return interval_ns;
}

int
sp_fold_counts_events(const struct sp_defs *d, struct sp_str *event)
{
	const struct sp_recording *r = sp_defs_recording(d);

	event->s = "";
	event->len = 0;
	if (r == NULL)
		return 0;
	*event = r->event;
	return (r->flags & SP_RECORDING_COUNTS) != 0;
}

uint64_t
spi_fold_period_ns(const struct sp_defs *d, const struct sp_header *h)
{
	return period_ns(d, (uint64_t)h->sample_interval_us * 1000);
}

enum sp_fold_time
sp_fold_unit(const struct sp_fold *f, const struct sp_defs *d,
    uint64_t *period)
{
	uint64_t p = period_ns(d, f->interval_ns);

	/* A spool with off-CPU samples was written by a recorder that says
	 * its rate; else its default. */
	if (period != NULL)
		*period = p != 0 ? p : 1000000;
	if (f->o.time != SP_FOLD_TIME_AUTO)
		return f->o.time;
	return f->st.off_cpu + f->st.preempted > 0 ? SP_FOLD_TIME_BOTH :
	    SP_FOLD_TIME_ON_CPU;
}

unsigned
spi_fold_kinds(const struct sp_fold *f, const struct sp_defs *d)
{
	const struct sp_recording *r = sp_defs_recording(d);

	switch (sp_fold_unit(f, d, NULL)) {
	case SP_FOLD_TIME_OFF_CPU:
		return 1u << SP_SAMPLE_OFF_CPU;
	case SP_FOLD_TIME_PREEMPTED:
		return 1u << SP_SAMPLE_PREEMPTED;
	case SP_FOLD_TIME_BOTH:
		/* Preemption apart only where the recording kept it apart. */
		return 1u << SP_SAMPLE_CPU | 1u << SP_SAMPLE_OFF_CPU |
		    ((r != NULL && (r->flags & SP_RECORDING_PREEMPTED)) ||
		    f->st.preempted > 0 ? 1u << SP_SAMPLE_PREEMPTED : 0);
	default:
		return 1u << SP_SAMPLE_CPU;
	}
}

void
sp_fold_free(struct sp_fold *f)
{
	if (f == NULL)
		return;
	free(f->counts.slots);
	free(f->procs.slots);
	free(f->threads);
	free(f->groups);
	free(f->entries);
	free(f->order);
	free(f);
}
