/* SPDX-License-Identifier: MIT */
#ifndef SP_VARINT_INT_H
#define SP_VARINT_INT_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes one LEB128 varint of a 64-bit value takes. */
#define SP_VARINT_MAX 10

/*
 * Writes v as unsigned LEB128 into out, which must hold SP_VARINT_MAX
 * bytes.  Returns the number of bytes written (1..10).
 */
size_t spi_varint_put(uint8_t *out, uint64_t v);

/*
 * Decodes an unsigned LEB128 varint from p[0..len).  Returns the number of
 * bytes it took (1..10) and stores the value, 0 when the bytes run out
 * before the last byte of the varint, or -1 when the value needs more than
 * 64 bits.
 */
int spi_varint_get_long(const uint8_t *p, size_t len, uint64_t *v);

/* Most varints of a spool or of DWARF are one byte: that case inline. */
static inline int
spi_varint_get(const uint8_t *p, size_t len, uint64_t *v)
{
	if (len > 0 && p[0] < 0x80) {
		*v = p[0];
		return 1;
	}
	return spi_varint_get_long(p, len, v);
}

/* Zigzag mapping of signed values, so small magnitudes stay short. */
static inline uint64_t
sp_zigzag(int64_t v)
{
	/* The sign bit, spread over all bits, without a signed shift. */
	return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

static inline int64_t
sp_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif
