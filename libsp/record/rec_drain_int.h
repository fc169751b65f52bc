/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_DRAIN_INT_H
#define SP_REC_DRAIN_INT_H

/*
 * A drain: the records of every ring up to a time, merged by time.  They
 * stay where they lie in the rings (only those that wrap around a ring's
 * end are copied, into buf), so a drain's items are valid until the rings
 * are released.  rec_drain.c owns the items and the copies; the rings are
 * the events' (rec_events_int.h).
 */

#include <stddef.h>
#include <stdint.h>

#include "common/buf_int.h"
#include "perf_int.h"

/* One perf record of a ring, for the merge by time. */
struct rec_item {
	uint64_t time;
	const uint8_t *rec;   /* in its ring, or NULL: at off in buf */
	size_t off;
	uint32_t len;
	uint32_t seq;         /* keeps equal times in ring order */
};

struct rec_drain {
	size_t id_len;            /* PERF_SAMPLE_IDENTIFIER's bytes */
	struct sp_buf buf;        /* records that wrapped a ring's end */
	struct rec_item *items;   /* n of them, by time after a read */
	size_t n, cap;
	struct rec_item *sorted;  /* the merge's other half */
	size_t capsorted;
};

/*
 * How long a record may take from its timestamp to its ring's head: the
 * kernel takes the time, then copies the stack.  A drain takes records
 * up to its own start less this, so that none written later on another
 * CPU comes out of order (a sample of a library processed after the
 * mmap that replaced it would be named through the new one).
 */
#define REC_DRAIN_WRITE_NS 250000ull

/*
 * Reads the nrings rings (those mapped) up to time until (UINT64_MAX: to
 * their heads) into d->items, sorted by time.  0 or -ENOMEM.
 */
int spi_drain_read(struct rec_drain *d, struct sp_ring *rings, int nrings,
    uint64_t until);
void spi_drain_fini(struct rec_drain *d);

#endif
