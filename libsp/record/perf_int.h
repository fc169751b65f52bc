/* SPDX-License-Identifier: MIT */
#ifndef SP_PERF_INT_H
#define SP_PERF_INT_H

/*
 * perf_event_open(2) and its mmap'd ring buffer: opening events, mapping
 * a ring, and copying out whole records, including those that wrap
 * around the ring's end.
 */

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf_int.h"

/* Returns the new event's fd, or -errno. */
int spi_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu,
    int group_fd, unsigned long flags);

struct sp_ring {
	int fd;
	uint8_t *base;   /* the metadata page, then data_size bytes */
	size_t data_size;
	size_t map_len;
	uint64_t next_tail; /* where spi_ring_read stopped */
	size_t id_len;   /* 8 when PERF_SAMPLE_IDENTIFIER leads every sample
	                  * and ends every sample_id trailer, else 0 */
};

/* A record of a ring where it can be read: in place, or, when it wraps
 * around the ring's end, reassembled in a buffer. */
struct sp_ring_rec {
	const uint8_t *p;  /* in the ring; NULL: at off in the buffer */
	size_t off;
	size_t len;
};

/*
 * Maps a ring of data_size bytes (a power-of-two number of pages) for
 * event fd.  Returns 0 or -errno (EPERM/ENOMEM when over the mlock limit).
 */
int spi_ring_map(struct sp_ring *r, int fd, size_t data_size, size_t page);
void spi_ring_unmap(struct sp_ring *r);

/*
 * Gives add each complete record now in the ring, in ring order, where
 * it lies (no copy), or reassembled at the end of wrapped when it wraps
 * around the ring's end; stops before the first record timed after until
 * (UINT64_MAX: takes them all).  The records stay in the ring, and the
 * kernel writes around them, until spi_ring_release.  Returns the number
 * of records, add's error, -ENOMEM, or -SP_EFORMAT for a record header
 * that makes no sense (the release then skips to the head).
 */
int spi_ring_read(struct sp_ring *r, uint64_t until, struct sp_buf *wrapped,
    int (*add)(void *ctx, const struct sp_ring_rec *rec), void *ctx);

/* Whether the ring holds records not read yet. */
int spi_ring_pending(const struct sp_ring *r);

/* Frees the space of the records the last spi_ring_read gave. */
void spi_ring_release(struct sp_ring *r);

/* A perf record's time (samples: after pid/tid; others: the sample_id
 * trailer), 0 when it has none; id_len as in struct sp_ring. */
uint64_t spi_perf_record_time(const uint8_t *rec, size_t len, size_t id_len);

#endif
