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
int sp_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu,
    int group_fd, unsigned long flags);

struct sp_ring {
	int fd;
	uint8_t *base;   /* the metadata page, then data_size bytes */
	size_t data_size;
	size_t map_len;
};

/*
 * Maps a ring of data_size bytes (a power-of-two number of pages) for
 * event fd.  Returns 0 or -errno (EPERM/ENOMEM when over the mlock limit).
 */
int sp_ring_map(struct sp_ring *r, int fd, size_t data_size, size_t page);
void sp_ring_unmap(struct sp_ring *r);

/*
 * Appends the complete records now in the ring to out, each contiguous
 * (wrapped records are reassembled), and frees their space in the ring;
 * it stops before the first record timed after until (UINT64_MAX: takes
 * them all), which stays for the next call.  Returns the number of
 * records, or -ENOMEM / -SP_EFORMAT for a record header that makes no
 * sense (the ring is then reset to its head).
 */
int sp_ring_drain(struct sp_ring *r, struct sp_buf *out, uint64_t until);

/* A perf record's time (samples: after pid/tid; others: the sample_id
 * trailer), 0 when it has none. */
uint64_t sp_perf_record_time(const uint8_t *rec, size_t len);

#endif
