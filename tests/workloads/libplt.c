/* SPDX-License-Identifier: MIT */
/* The callee of the PLT workload: so small that a good share of the time
 * of a call to it is spent in the caller's PLT stub. */
unsigned long plt_tiny(unsigned long x);

unsigned long
plt_tiny(unsigned long x)
{
	return x + 1;
}
