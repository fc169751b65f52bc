/* SPDX-License-Identifier: MIT */
/* Draining the rings: their records merged by time. */
#include <errno.h>
#include <stdlib.h>

#include "rec_drain_int.h"

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
sort_items(struct rec_drain *d)
{
	struct rec_item *a = d->items, *b, *t;
	size_t n = d->n, runs, cap;

	if (run_end(a, 0, n) == n)
		return 0;
	if (spi_grow_zeroed(&d->sorted, &d->capsorted, n,
	    sizeof(*d->sorted)) != 0)
		return -ENOMEM;
	b = d->sorted;
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
	if (a != d->items) {
		d->sorted = d->items;
		d->items = a;
		cap = d->capsorted;
		d->capsorted = d->cap;
		d->cap = cap;
	}
	return 0;
}

/* spi_ring_read's add: one more item to sort. */
static int
add_item(void *ctx, const struct sp_ring_rec *rec)
{
	struct rec_drain *d = ctx;
	struct rec_item *it;

	if (spi_grow_zeroed(&d->items, &d->cap, d->n + 1,
	    sizeof(*d->items)) != 0)
		return -ENOMEM;
	it = &d->items[d->n];
	it->rec = rec->p;
	it->off = rec->off;
	it->len = (uint32_t)rec->len;
	it->seq = (uint32_t)d->n++;
	it->time = rec->p != NULL ? spi_perf_record_time(rec->p, rec->len,
	    d->id_len) : 0;
	return 0;
}

int
spi_drain_read(struct rec_drain *d, struct sp_ring *rings, int nrings,
    uint64_t until)
{
	size_t i;
	int k;

	d->buf.len = 0;
	d->n = 0;
	for (k = 0; k < nrings; k++)
		if (rings[k].base != NULL &&
		    spi_ring_read(&rings[k], until, &d->buf, add_item, d) ==
		    -ENOMEM)
			return -ENOMEM;
	/* The wrapped ones, now that the buffer moves no more. */
	for (i = 0; i < d->n; i++)
		if (d->items[i].rec == NULL) {
			d->items[i].rec = spi_buf_at(&d->buf, d->items[i].off);
			d->items[i].time = spi_perf_record_time(d->items[i].rec,
			    d->items[i].len, d->id_len);
		}
	if (d->n > 1 && sort_items(d) != 0)
		return -ENOMEM;
	return 0;
}

void
spi_drain_fini(struct rec_drain *d)
{
	spi_buf_fini(&d->buf);
	free(d->items);
	free(d->sorted);
	d->items = d->sorted = NULL;
	d->n = d->cap = d->capsorted = 0;
}
