/* SPDX-License-Identifier: MIT */
/* What the DWARF readers keep and may spend: the arena the units they
 * keep live in, the scratch arrays a load reuses, the work a reader is
 * charged (SP_DWARF_WORK_MAX), the sorted span indexes built in them.
 * A leaf: it calls nothing of the other dwarf files. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

/* A block of the arena; data follows, aligned as max_align_t. */
struct dw_chunk {
	struct dw_chunk *next;
	size_t cap, used;
	max_align_t data[];
};

#define ARENA_FIRST ((size_t)16 << 10)
#define ARENA_MAX ((size_t)4 << 20)	/* blocks stop doubling here */

void *
spi_dw_arena_alloc(struct dw_arena *a, size_t n)
{
	const size_t al = sizeof(max_align_t);
	struct dw_chunk *c = a->head;
	size_t cap;

	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + al - 1) / al * al;
	if (c == NULL || n > c->cap - c->used) {
		cap = a->next ? a->next : ARENA_FIRST;
		if (cap < n)
			cap = n;
		c = malloc(sizeof(*c) + cap);
		if (c == NULL)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		if (a->next < ARENA_MAX)
			a->next = a->next ? 2 * a->next : 2 * ARENA_FIRST;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

void *
spi_dw_arena_copy(struct dw_arena *a, const void *v, size_t n, size_t sz)
{
	void *p;

	if (n == 0)
		return NULL;
	if (n > SIZE_MAX / sz || (p = spi_dw_arena_alloc(a, n * sz)) == NULL)
		return NULL;
	return memcpy(p, v, n * sz);
}

void
spi_dw_arena_free(struct dw_arena *a)
{
	struct dw_chunk *c, *next;

	for (c = a->head; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->next = 0;
}

void
spi_dw_scratch_free(struct dw_scratch *s)
{
	free(s->rows);
	free(s->tmp);
	free(s->files);
	free(s->dirs);
	free(s->nodes);
	spi_dw_spans_fini(&s->spans);
	free(s->ab);
	free(s->specs);
	memset(s, 0, sizeof(*s));
}

int
spi_dw_charge(struct sp_dwarf *d, uint64_t bytes)
{
	if (bytes > d->work_max - d->work)
		return -SP_ELIMIT;
	d->work += bytes;
	return 0;
}

int
spi_dw_spans_add(struct dw_spans *s, uint64_t lo, uint64_t hi, uint32_t idx)
{
	/* Every range offered counts toward the limit, kept or not. */
	if (s->limit != 0 && ++s->offered > s->limit)
		return -SP_ELIMIT;
	if (hi <= lo)
		return 0;	/* empty or wrapped: nothing to find */
	if (spi_grow_zeroed(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) != 0)
		return -ENOMEM;
	s->v[s->n].lo = lo;
	s->v[s->n].hi = hi;
	s->v[s->n++].idx = idx;
	return 0;
}

/* Spans in (lo, idx) order, a total order where idx is unique per lo. */
static int
span_less(const struct dw_span *x, const struct dw_span *y)
{
	return x->lo != y->lo ? x->lo < y->lo : x->idx < y->idx;
}

static void
span_swap(struct dw_span *x, struct dw_span *y)
{
	struct dw_span t = *x;

	*x = *y;
	*y = t;
}

static void
span_insertion(struct dw_span *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct dw_span t = v[i];

		for (j = i; j > 0 && span_less(&t, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

static void
span_sift(struct dw_span *v, size_t i, size_t n)
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && span_less(&v[c], &v[c + 1]))
			c++;
		if (!span_less(&v[i], &v[c]))
			return;
		span_swap(&v[i], &v[c]);
		i = c;
	}
}

static void
span_heapsort(struct dw_span *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		span_sift(v, i, n);
	while (n-- > 1) {
		span_swap(&v[0], &v[n]);
		span_sift(v, 0, n);
	}
}

/*
 * An introsort of the spans: a typed quicksort (median of three, the
 * smaller side first, so the stack stays shallow), heapsort past a depth
 * of 2 log2 n (hostile DWARF cannot make it quadratic), insertion sort
 * for short runs.  The C library's qsort, through a comparison callback
 * and byte-wise swaps (musl's smoothsort copies with memcpy), took a
 * quarter of sp-sym's time on a C++ program's inline ranges.
 */
void
spi_dw_span_sort(struct dw_span *v, size_t n)
{
	unsigned depth = 0;
	size_t m;

	for (m = n; m > 1; m >>= 1)
		depth += 2;
	while (n > 16) {
		struct dw_span *a = &v[0], *b = &v[n / 2], *c = &v[n - 1];
		struct dw_span pivot;
		size_t i = 0, j = n - 1;

		if (depth-- == 0) {
			span_heapsort(v, n);
			return;
		}
		if (span_less(b, a))
			span_swap(a, b);
		if (span_less(c, b)) {
			span_swap(b, c);
			if (span_less(b, a))
				span_swap(a, b);
		}
		pivot = *b;
		/* Hoare's partition: v[0..i) <= pivot <= v(j..n). */
		for (;;) {
			while (span_less(&v[i], &pivot))
				i++;
			while (span_less(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			span_swap(&v[i++], &v[j--]);
		}
		/* v[0..j] and v[j+1..n): recurse into the smaller. */
		if (j + 1 < n - j - 1) {
			spi_dw_span_sort(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			spi_dw_span_sort(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	span_insertion(v, n);
}

int
spi_dw_spans_sort(struct dw_spans *s)
{
	size_t i;

	free(s->maxhi);
	s->maxhi = NULL;
	if (s->n == 0)
		return 0;
	spi_dw_span_sort(s->v, s->n);
	s->maxhi = malloc(s->n * sizeof(*s->maxhi));
	if (s->maxhi == NULL)
		return -ENOMEM;
	s->maxhi[0] = s->v[0].hi;
	for (i = 1; i < s->n; i++)
		s->maxhi[i] = s->v[i].hi > s->maxhi[i - 1] ? s->v[i].hi :
		    s->maxhi[i - 1];
	return 0;
}

int
spi_dw_spans_pack(struct dw_spans *s, struct dw_arena *a, struct dw_spans *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (s->n == 0)
		return 0;
	spi_dw_span_sort(s->v, s->n);
	out->v = spi_dw_arena_copy(a, s->v, s->n, sizeof(*s->v));
	out->maxhi = spi_dw_arena_alloc(a, s->n * sizeof(*out->maxhi));
	if (out->v == NULL || out->maxhi == NULL)
		return -ENOMEM;
	out->n = s->n;
	out->maxhi[0] = s->v[0].hi;
	for (i = 1; i < s->n; i++)
		out->maxhi[i] = s->v[i].hi > out->maxhi[i - 1] ?
		    s->v[i].hi : out->maxhi[i - 1];
	return 0;
}

size_t
spi_dw_spans_upper(const struct dw_spans *s, uint64_t addr)
{
	size_t lo = 0, hi = s->maxhi != NULL ? s->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
spi_dw_spans_fini(struct dw_spans *s)
{
	free(s->v);
	free(s->maxhi);
	s->v = NULL;
	s->maxhi = NULL;
	s->n = s->cap = s->offered = 0;
}
