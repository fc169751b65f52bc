/* SPDX-License-Identifier: MIT */
/*
 * sp_top: samples counted per second of sample time by (thread, stack),
 * in a ring of SP_TOP_WINDOW_MAX + 1 seconds and in one table since the
 * start; a view sums a window's tables, resolves each distinct stack once
 * (cached until invalidated) into the functions it holds, and ranks them.
 * Functions are told apart by their names as the symbolizer gives them
 * (C++ and Rust ones mangled) and shown demangled (sp/report/demangle.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "sp/report/demangle.h"
#include "sp/report/top.h"

#define NSEC 1000000000ull
#define NBUCKETS (SP_TOP_WINDOW_MAX + 1)

/* Counts by a non-zero 64-bit key: open addressing, linear probing. */
struct cmap {
	uint64_t *k, *v;
	size_t cap, used;
};

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint64_t *
cmap_slot(const struct cmap *m, uint64_t key)
{
	size_t i = mix(key) & (m->cap - 1);

	while (m->k[i] != 0 && m->k[i] != key)
		i = (i + 1) & (m->cap - 1);
	return &m->k[i];
}

static int
cmap_grow(struct cmap *m)
{
	struct cmap n = { 0 };
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.k = calloc(n.cap, sizeof(*n.k));
	n.v = calloc(n.cap, sizeof(*n.v));
	if (n.k == NULL || n.v == NULL) {
		free(n.k);
		free(n.v);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++)
		if (m->k[i] != 0) {
			uint64_t *s = cmap_slot(&n, m->k[i]);

			*s = m->k[i];
			n.v[s - n.k] = m->v[i];
		}
	n.used = m->used;
	free(m->k);
	free(m->v);
	*m = n;
	return 0;
}

/* The count of key, made when absent. */
static int
cmap_at(struct cmap *m, uint64_t key, uint64_t **v)
{
	uint64_t *s;

	if ((m->used + 1) * 2 > m->cap && cmap_grow(m) < 0)
		return -ENOMEM;
	s = cmap_slot(m, key);
	if (*s == 0) {
		*s = key;
		m->v[s - m->k] = 0;
		m->used++;
	}
	*v = &m->v[s - m->k];
	return 0;
}

static void
cmap_clear(struct cmap *m)
{
	if (m->cap > 0)
		memset(m->k, 0, m->cap * sizeof(*m->k));
	m->used = 0;
}

static void
cmap_fini(struct cmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

struct bucket {
	uint64_t sec;           /* + 1; 0 unused */
	struct cmap m;          /* thread << 32 | stack -> samples */
};

/* A distinct stack, resolved: its functions (each once), the leaf's. */
struct sinfo {
	uint8_t state;          /* 0 not resolved, 1 resolved */
	uint8_t kind;           /* 0 complete, 1 empty, 2 truncated */
	uint32_t self;          /* function + 1, 0 none */
	uint32_t first, n;      /* its functions in fnpool */
};

struct fn {
	char *name, *module;
	char *shown;            /* name demangled; NULL: as it is */
	uint64_t self, total;
	uint32_t mark;
};

struct sp_top {
	const struct sp_defs *defs;
	struct sp_symbolizer *sym;
	struct sp_demangle *dm;
	struct bucket b[NBUCKETS];
	struct cmap all;
	uint64_t first_sec, last_sec;   /* + 1; 0 none yet */
	uint64_t first_ns;              /* the first sample's time */

	struct sinfo *st;               /* by stack id */
	size_t capst;
	uint32_t *fnpool;
	size_t nfnpool, capfnpool;
	struct fn *fns;
	size_t nfns, capfns;
	struct cmap fnidx;              /* hash -> function + 1 */
	uint32_t *idfn;                 /* resolved id -> function + 1 */
	size_t capidfn;
	uint32_t mark;

	struct sp_top_row *rows;
	size_t caprows;
	struct cmap threads, tfn;       /* views by thread */
};

int
sp_top_new(const struct sp_defs *defs, struct sp_symbolizer *sym,
    struct sp_top **out)
{
	struct sp_top *t;

	*out = NULL;
	if (defs == NULL || sym == NULL)
		return -SP_EUSAGE;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	if (sp_demangle_new(NULL, &t->dm) < 0) {
		free(t);
		return -ENOMEM;
	}
	t->defs = defs;
	t->sym = sym;
	*out = t;
	return 0;
}

int
sp_top_add(struct sp_top *t, const struct sp_sample *s, size_t n)
{
	size_t i;
	uint64_t *v;

	for (i = 0; i < n; i++) {
		/* A sample without a time counts in the latest second. */
		uint64_t sec = s[i].time != 0 ? s[i].time / NSEC + 1 :
		    t->last_sec != 0 ? t->last_sec : 1;
		uint64_t key = (uint64_t)s[i].thread << 32 | s[i].stack;
		struct bucket *b = &t->b[sec % NBUCKETS];

		/* The live view is of time on CPU. */
		if (key == 0 || s[i].kind != SP_SAMPLE_CPU)
			continue;

		if (t->first_sec == 0 || sec < t->first_sec)
			t->first_sec = sec;
		if (s[i].time != 0 && (t->first_ns == 0 ||
		    s[i].time < t->first_ns))
			t->first_ns = s[i].time;
		if (sec > t->last_sec)
			t->last_sec = sec;
		if (b->sec != sec) {
			cmap_clear(&b->m);
			b->sec = sec;
		}
		if (cmap_at(&b->m, key, &v) < 0)
			return -ENOMEM;
		(*v)++;
		if (cmap_at(&t->all, key, &v) < 0)
			return -ENOMEM;
		(*v)++;
	}
	return 0;
}

void
sp_top_invalidate(struct sp_top *t, const struct sp_invalidation *inv)
{
	/* Stacks are cached by id, not pid: any change drops them all. */
	if ((inv->all || inv->npids > 0) && t->capst > 0)
		memset(t->st, 0, t->capst * sizeof(*t->st));
}

static uint64_t
hash_str(uint64_t h, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h * 0x100000001b3ull;
}

void
sp_top_keep_mangled(struct sp_top *t)
{
	sp_demangle_free(t->dm);
	t->dm = NULL;
}

static int
same(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* fn's name as people read it: demangled, once, when it is made.  Only
 * memory can fail; a name that does not demangle is shown as it is. */
static int
demangle(struct sp_top *t, struct fn *fn)
{
	const char *s;
	size_t len = strlen(fn->name);

	if (t->dm == NULL || sp_demangle_add(t->dm, fn->name, len) <= 0)
		return 0;
	if (sp_demangle_run(t->dm, 0, NULL) < 0)
		return -ENOMEM;
	s = sp_demangle_get(t->dm, fn->name, len, &len);
	if (s != NULL && (fn->shown = strndup(s, len)) == NULL)
		return -ENOMEM;
	return 0;
}

/* The function of a resolved frame: by name and module. */
static int
fn_of(struct sp_top *t, const struct sp_resolved_frame *f, uint32_t *out)
{
	uint64_t h = hash_str(hash_str(0xcbf29ce484222325ull, f->name),
	    f->module), key, *v;
	struct fn *fn;

	if (f->id != 0 && f->id <= t->capidfn && t->idfn[f->id - 1] != 0) {
		*out = t->idfn[f->id - 1];
		return 0;
	}
	/* Probe past another function with the same hash. */
	for (key = h | 1;; key += 2) {
		if (cmap_at(&t->fnidx, key, &v) < 0)
			return -ENOMEM;
		if (*v == 0 || (same(t->fns[*v - 1].name, f->name) &&
		    same(t->fns[*v - 1].module, f->module)))
			break;
	}
	if (*v == 0) {
		if (spi_grow_zeroed(&t->fns, &t->capfns, t->nfns + 1,
		    sizeof(*t->fns)) < 0)
			return -ENOMEM;
		fn = &t->fns[t->nfns];
		fn->name = strdup(f->name);
		fn->module = f->module != NULL ? strdup(f->module) : NULL;
		if (fn->name == NULL || (f->module != NULL &&
		    fn->module == NULL) || demangle(t, fn) < 0) {
			free(fn->name);
			free(fn->module);
			memset(fn, 0, sizeof(*fn));
			return -ENOMEM;
		}
		*v = ++t->nfns;
	}
	*out = (uint32_t)*v;
	if (f->id != 0) {
		if (spi_grow_zeroed(&t->idfn, &t->capidfn, f->id,
		    sizeof(*t->idfn)) < 0)
			return -ENOMEM;
		t->idfn[f->id - 1] = *out;
	}
	return 0;
}

static int
resolve(struct sp_top *t, uint32_t stack, struct sinfo **out)
{
	struct sp_resolved_stack rs;
	struct sinfo *si;
	size_t i;
	uint32_t f;
	int err;

	if (spi_grow_zeroed(&t->st, &t->capst, (size_t)stack + 1,
	    sizeof(*t->st)) < 0)
		return -ENOMEM;
	si = &t->st[stack];
	*out = si;
	if (si->state)
		return 0;
	if ((err = sp_symbolizer_resolve(t->sym, stack, &rs)) < 0)
		return err;
	si->kind = rs.n == 0 ? 1 : 0;
	si->self = 0;
	si->first = (uint32_t)t->nfnpool;
	si->n = 0;
	t->mark++;
	for (i = 0; i < rs.n; i++) {
		const struct sp_resolved_frame *r = &rs.frames[i];

		if (r->flags & SP_SYM_TRUNCATED) {
			si->kind = 2;
			continue;
		}
		if (r->flags & SP_SYM_HIDDEN)
			continue;
		if ((err = fn_of(t, r, &f)) < 0)
			return err;
		if (si->self == 0)
			si->self = f;
		if (t->fns[f - 1].mark == t->mark)
			continue;
		t->fns[f - 1].mark = t->mark;
		if (spi_grow_zeroed(&t->fnpool, &t->capfnpool, t->nfnpool + 1,
		    sizeof(*t->fnpool)) < 0)
			return -ENOMEM;
		t->fnpool[t->nfnpool++] = f;
		si->n++;
	}
	/* Kept only when nothing in it may be named better later. */
	si->state = rs.provisional ? 0 : 1;
	return 0;
}

/* Adds count samples of (thread, stack) to the functions or threads. */
static int
count(struct sp_top *t, uint64_t key, uint64_t n, enum sp_top_order order,
    struct sp_top_view *view)
{
	struct sinfo *si;
	uint64_t *v;
	uint32_t i;
	int err;

	if ((err = resolve(t, (uint32_t)key, &si)) < 0)
		return err;
	view->samples += n;
	if (si->kind == 1)
		view->empty += n;
	else if (si->kind == 2)
		view->truncated += n;
	if (order == SP_TOP_THREADS) {
		if (cmap_at(&t->threads, key >> 32, &v) < 0)
			return -ENOMEM;
		*v += n;
		if (si->self != 0) {
			if (cmap_at(&t->tfn, (key >> 32) << 32 | si->self,
			    &v) < 0)
				return -ENOMEM;
			*v += n;
		}
		return 0;
	}
	if (si->self != 0)
		t->fns[si->self - 1].self += n;
	for (i = 0; i < si->n; i++)
		t->fns[t->fnpool[si->first + i] - 1].total += n;
	return 0;
}

static int
by_self(const void *a, const void *b)
{
	const struct sp_top_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int
by_total(const void *a, const void *b)
{
	const struct sp_top_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return by_self(a, b);
}

static const char *
shown(const struct fn *fn)
{
	return fn->shown != NULL ? fn->shown : fn->name;
}

static int
add_row(struct sp_top *t, size_t *n, struct sp_top_row **r)
{
	if (spi_grow_zeroed(&t->rows, &t->caprows, *n + 1, sizeof(*t->rows)) < 0)
		return -ENOMEM;
	*r = &t->rows[(*n)++];
	memset(*r, 0, sizeof(**r));
	return 0;
}

static int
thread_rows(struct sp_top *t, size_t *n)
{
	struct sp_top_row *r;
	size_t i, j;

	for (i = 0; i < t->threads.cap; i++) {
		uint32_t th = (uint32_t)t->threads.k[i];
		const struct sp_thread *d = sp_defs_thread(t->defs, th);
		const struct sp_str *comm;

		if (th == 0)
			continue;
		if (add_row(t, n, &r) < 0)
			return -ENOMEM;
		comm = d != NULL ? sp_defs_string(t->defs, d->comm) : NULL;
		r->name = comm != NULL ? comm->s : "?";
		r->pid = d != NULL ? d->pid : 0;
		r->tid = d != NULL ? d->tid : 0;
		r->total = t->threads.v[i];
		for (j = 0; j < t->tfn.cap; j++)
			if (t->tfn.k[j] >> 32 == th && t->tfn.v[j] > r->self) {
				r->self = t->tfn.v[j];
				r->module = shown(&t->fns[
				    (uint32_t)t->tfn.k[j] - 1]);
			}
	}
	return 0;
}

int
sp_top_view(struct sp_top *t, uint64_t now_ns, unsigned window_s,
    enum sp_top_order order, size_t max, struct sp_top_view *out)
{
	uint64_t now = now_ns / NSEC + 1, from;
	struct sp_top_row *r;
	size_t i, j, n = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (window_s > SP_TOP_WINDOW_MAX)
		window_s = SP_TOP_WINDOW_MAX;
	for (i = 0; i < t->nfns; i++)
		t->fns[i].self = t->fns[i].total = 0;
	cmap_clear(&t->threads);
	cmap_clear(&t->tfn);
	if (t->last_sec > now)
		now = t->last_sec;
	/* Whole seconds: the window's first one may be partly before it. */
	from = window_s == 0 || now <= window_s ? 1 : now - window_s;
	if (from < t->first_sec)
		from = t->first_sec;
	/* Seconds of sampling in the window, to give a rate. */
	if (t->first_ns != 0 && now_ns > t->first_ns) {
		uint64_t since = (from - 1) * NSEC;

		if (since < t->first_ns)
			since = t->first_ns;
		out->seconds = now_ns > since ? (double)(now_ns - since) / 1e9 :
		    0;
	}
	if (window_s == 0) {
		for (i = 0; i < t->all.cap && err == 0; i++)
			if (t->all.k[i] != 0)
				err = count(t, t->all.k[i], t->all.v[i], order,
				    out);
	} else {
		for (j = 0; j < NBUCKETS && err == 0; j++) {
			const struct bucket *b = &t->b[j];

			if (b->sec < from || b->sec > now)
				continue;
			for (i = 0; i < b->m.cap && err == 0; i++)
				if (b->m.k[i] != 0)
					err = count(t, b->m.k[i], b->m.v[i],
					    order, out);
		}
	}
	if (err < 0)
		return err;
	if (order == SP_TOP_THREADS) {
		if ((err = thread_rows(t, &n)) < 0)
			return err;
		if (n > 0) /* rows is NULL before the first */
			qsort(t->rows, n, sizeof(*t->rows), by_total);
	} else {
		for (i = 0; i < t->nfns; i++) {
			if (t->fns[i].total == 0 || (order == SP_TOP_SELF &&
			    t->fns[i].self == 0))
				continue;
			if ((err = add_row(t, &n, &r)) < 0)
				return err;
			r->name = shown(&t->fns[i]);
			r->module = t->fns[i].module;
			r->self = t->fns[i].self;
			r->total = t->fns[i].total;
		}
		if (n > 0)
			qsort(t->rows, n, sizeof(*t->rows), order ==
			    SP_TOP_TOTAL ? by_total : by_self);
	}
	out->rows = t->rows;
	out->nrows = n < max ? n : max;
	return 0;
}

void
sp_top_free(struct sp_top *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < NBUCKETS; i++)
		cmap_fini(&t->b[i].m);
	cmap_fini(&t->all);
	cmap_fini(&t->fnidx);
	cmap_fini(&t->threads);
	cmap_fini(&t->tfn);
	for (i = 0; i < t->nfns; i++) {
		free(t->fns[i].name);
		free(t->fns[i].module);
		free(t->fns[i].shown);
	}
	sp_demangle_free(t->dm);
	free(t->fns);
	free(t->st);
	free(t->fnpool);
	free(t->idfn);
	free(t->rows);
	free(t);
}
