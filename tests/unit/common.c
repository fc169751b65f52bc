/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct sp_writer *
mem_writer(int *fd)
{
	struct sp_header h;
	struct sp_writer *w = NULL;

	ref_header(&h);
	*fd = memfd_create("spool", MFD_CLOEXEC);
	cr_assert(*fd >= 0);
	cr_assert_eq(sp_writer_new(*fd, &h, &w), 0);
	return w;
}

struct mem
mem_collect(int fd)
{
	struct mem m = { NULL, 0 };
	off_t end = lseek(fd, 0, SEEK_END);

	cr_assert(end >= 0);
	m.len = (size_t)end;
	m.p = malloc(m.len ? m.len : 1);
	cr_assert_not_null(m.p);
	cr_assert_eq(pread(fd, m.p, m.len, 0), (ssize_t)m.len);
	close(fd);
	return m;
}

void
mem_free(struct mem *m)
{
	free(m->p);
	m->p = NULL;
	m->len = 0;
}

struct mem
make_reference(size_t nsamples, int finish)
{
	int fd;
	struct sp_writer *w = mem_writer(&fd);

	ref_write(w, nsamples, finish);
	sp_writer_free(w);
	return mem_collect(fd);
}

double
now_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
