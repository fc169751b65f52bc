/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "perf_int.h"
#include "sp/common/error.h"

int
spi_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
    unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, tid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int
spi_ring_map(struct sp_ring *r, int fd, size_t data_size, size_t page)
{
	void *p;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->map_len = page + data_size;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->base = p;
	r->data_size = data_size;
	return 0;
}

void
spi_ring_unmap(struct sp_ring *r)
{
	if (r->base != NULL)
		(void)munmap(r->base, r->map_len);
	r->base = NULL;
}

/* Copies n bytes at ring position pos, across the wrap. */
static void
ring_read(const struct sp_ring *r, uint64_t pos, void *dst, size_t n)
{
	const uint8_t *data = r->base + (r->map_len - r->data_size);
	size_t off = pos & (r->data_size - 1), first = r->data_size - off;

	if (first >= n) {
		memcpy(dst, data + off, n);
	} else {
		memcpy(dst, data + off, first);
		memcpy((uint8_t *)dst + first, data, n - first);
	}
}

/* Where a record's time is (a sample's after [identifier,] pid/tid;
 * another's in the sample_id trailer: pid/tid, time, cpu[, identifier]),
 * or 0 when it is too short. */
static size_t
time_offset(uint32_t type, size_t len, size_t id_len)
{
	if (type == PERF_RECORD_SAMPLE)
		return len >= 24 + id_len ? 16 + id_len : 0;
	return len >= 8 + 24 + id_len ? len - 16 - id_len : 0;
}

uint64_t
spi_perf_record_time(const uint8_t *rec, size_t len, size_t id_len)
{
	struct perf_event_header h;
	size_t off;

	memcpy(&h, rec, sizeof(h));
	off = time_offset(h.type, len, id_len);
	return off != 0 ? sp_le64(rec + off) : 0;
}

/* The record at pos's time, read in the ring. */
static uint64_t
ring_time(const struct sp_ring *r, uint64_t pos,
    const struct perf_event_header *h)
{
	size_t off = time_offset(h->type, h->size, r->id_len);
	uint8_t t[8];

	if (off == 0)
		return 0;
	ring_read(r, pos + off, t, 8);
	return sp_le64(t);
}

int
spi_ring_pending(const struct sp_ring *r)
{
	const struct perf_event_mmap_page *meta = (const void *)r->base;

	if (meta == NULL)
		return 0;
	return __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) !=
	    meta->data_tail;
}

int
spi_ring_read(struct sp_ring *r, uint64_t until, struct sp_buf *wrapped,
    int (*add)(void *ctx, const struct sp_ring_rec *rec), void *ctx)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	const uint8_t *data = r->base + (r->map_len - r->data_size);
	uint64_t head, tail;
	int n = 0, err;

	/* perf_event_open(2): read data_head, then a read barrier. */
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header hdr;
		struct sp_ring_rec rec;
		size_t off = tail & (r->data_size - 1);

		if (head - tail < sizeof(hdr))
			break;
		ring_read(r, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			tail = head; /* the kernel wrote nonsense: skip all */
			n = -SP_EFORMAT;
			break;
		}
		if (until != UINT64_MAX && ring_time(r, tail, &hdr) > until)
			break; /* stays in the ring for the next drain */
		rec.len = hdr.size;
		rec.off = 0;
		rec.p = NULL;
		if (off + hdr.size <= r->data_size) {
			rec.p = data + off;
		} else {
			/* Around the end: reassembled after the others. */
			if (spi_buf_reserve(wrapped, hdr.size) < 0)
				return -ENOMEM;
			ring_read(r, tail, wrapped->p + wrapped->len, hdr.size);
			rec.off = wrapped->len;
			wrapped->len += hdr.size;
		}
		if ((err = add(ctx, &rec)) != 0)
			return err;
		tail += hdr.size;
		n++;
	}
	r->next_tail = tail;
	return n;
}

void
spi_ring_release(struct sp_ring *r)
{
	struct perf_event_mmap_page *meta = (void *)r->base;

	/* Finish reading before the kernel may reuse the space. */
	__atomic_store_n(&meta->data_tail, r->next_tail, __ATOMIC_RELEASE);
}
