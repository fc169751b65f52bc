/* SPDX-License-Identifier: MIT */
#ifndef SP_HEX_INT_H
#define SP_HEX_INT_H

#include <stddef.h>
#include <stdint.h>

/* p[0..n) as 2n lowercase hex digits and a NUL in out (2n + 1 bytes). */
static inline void
sp_hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

#endif
