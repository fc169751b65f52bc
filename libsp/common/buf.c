/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "varint_int.h"

int
spi_grow_zeroed(void *arrp, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	uint8_t *p, *old;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	/* The pointer is read and written as bytes: arrp is a T **. */
	memcpy(&old, arrp, sizeof(old));
	p = realloc(old, n * size);
	if (p == NULL)
		return -ENOMEM;
	memset(p + *cap * size, 0, (n - *cap) * size);
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	return 0;
}

int
spi_buf_grow(struct sp_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (n <= b->cap - b->len)
		return 0;
	if (n > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void
spi_buf_str(struct sp_buf *b, const void *p, size_t n)
{
	spi_buf_varint(b, n);
	spi_buf_put(b, p, n);
}

void
spi_buf_fini(struct sp_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}
