/* SPDX-License-Identifier: MIT */
/* Inline helpers in a header, so inlined frames name a second file. */
#ifndef INL_H
#define INL_H

static volatile unsigned long inl_sink;

static inline __attribute__((always_inline)) unsigned long
mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15ul;
	inl_sink += x;
	return x ^ (x >> 7);
}

#endif
