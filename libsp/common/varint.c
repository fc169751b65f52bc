/* SPDX-License-Identifier: MIT */
#include "varint_int.h"

size_t
spi_varint_put(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

int
spi_varint_get_long(const uint8_t *p, size_t len, uint64_t *v)
{
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < len && i < SP_VARINT_MAX; i++) {
		uint8_t b = p[i];

		/* The 10th byte holds only bit 63. */
		if (i == SP_VARINT_MAX - 1 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return (int)i + 1;
		}
	}
	return i == SP_VARINT_MAX ? -1 : 0;
}
