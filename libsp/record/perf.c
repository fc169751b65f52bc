/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_int.h"
#include "sp/error.h"

int
sp_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
    unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, tid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int
sp_ring_map(struct sp_ring *r, int fd, size_t data_size, size_t page)
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
sp_ring_unmap(struct sp_ring *r)
{
	if (r->base != NULL)
		(void)munmap(r->base, r->map_len);
	r->base = NULL;
}

int
sp_ring_drain(struct sp_ring *r, struct sp_buf *out)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	const uint8_t *data = r->base + (r->map_len - r->data_size);
	uint64_t head, tail, mask = r->data_size - 1;
	int n = 0;

	/* perf_event_open(2): read data_head, then a read barrier. */
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header hdr;
		size_t off = tail & mask, first;

		if (head - tail < sizeof(hdr))
			break;
		first = r->data_size - off;
		if (first >= sizeof(hdr)) {
			memcpy(&hdr, data + off, sizeof(hdr));
		} else {
			memcpy(&hdr, data + off, first);
			memcpy((uint8_t *)&hdr + first, data, sizeof(hdr) - first);
		}
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			tail = head; /* the kernel wrote nonsense: skip all */
			n = -SP_EFORMAT;
			break;
		}
		if (sp_buf_reserve(out, hdr.size) < 0) {
			n = -ENOMEM;
			break;
		}
		if (first >= hdr.size) {
			memcpy(out->p + out->len, data + off, hdr.size);
		} else {
			memcpy(out->p + out->len, data + off, first);
			memcpy(out->p + out->len + first, data, hdr.size - first);
		}
		out->len += hdr.size;
		tail += hdr.size;
		n++;
	}
	/* Finish reading before the kernel may reuse the space. */
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
