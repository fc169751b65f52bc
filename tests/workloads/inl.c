/* SPDX-License-Identifier: MIT */
/*
 * Inlined call chains for the DWARF reader's tests: always_inline
 * functions nested three deep (one of them from inl.h), called from
 * several out-of-line functions, so -O2 builds have inlined_subroutine
 * trees with call_file/call_line, and some with DW_AT_ranges.
 * usage: inl [N] (prints a checksum)
 */
#include <stdio.h>
#include <stdlib.h>

#include "inl.h"

static inline __attribute__((always_inline)) unsigned long
leaf(unsigned long x, int k)
{
	unsigned long r = mix(x + (unsigned long)k);

	if (r & 1)
		r = mix(r);
	return r;
}

static inline __attribute__((always_inline)) unsigned long
middle(unsigned long x, int n)
{
	unsigned long s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(x + (unsigned long)i, i);
	return s;
}

static inline __attribute__((always_inline)) unsigned long
outer(unsigned long x, int n)
{
	unsigned long s = middle(x, n);

	if (s % 3 == 0)
		s += middle(s, n / 2);
	return s;
}

__attribute__((noinline)) unsigned long first(unsigned long x, int n);
__attribute__((noinline)) unsigned long second(unsigned long x, int n);
__attribute__((noinline)) unsigned long third(int n);

unsigned long
first(unsigned long x, int n)
{
	return outer(x, n) + leaf(x, n);
}

unsigned long
second(unsigned long x, int n)
{
	unsigned long s = 0;

	while (n-- > 0)
		s ^= middle(s + x, 3);
	return s;
}

unsigned long
third(int n)
{
	unsigned long s = mix((unsigned long)n);

	for (int i = 0; i < n; i++)
		s += i & 1 ? first(s, i & 7) : second(s, i & 3);
	return s;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;

	printf("%lu\n", third(n) + outer((unsigned long)n, n & 15));
	return 0;
}
