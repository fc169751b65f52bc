/* SPDX-License-Identifier: MIT */
/* The sampling intervals' jitter: what to draw, what to keep
 * (rec_jitter_int.h). */
#include <time.h>
#include <unistd.h>

#include "rec_jitter_int.h"

/* splitmix64's finalizer (Steele, Lea, Flood 2014) of x: statistics,
 * not secrecy. */
static uint64_t
mix(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void
spi_jitter_init(struct rec_jitter *j, int on, unsigned frequency,
    unsigned long max_rate)
{
	struct timespec ts;
	uint64_t low, shortest;

	j->percent = 0;
	j->draws = j->coins = 0;
	j->mean_ns = frequency > 0 ? 1000000000u / frequency : 1000000u;
	j->low_ns = j->mean_ns;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	j->seed = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
	    ((uint64_t)getpid() << 16));
	if (!on || frequency == 0)
		return;
	low = j->mean_ns - j->mean_ns * SPI_JITTER_PERCENT / 100;
	/* The shortest interval stays within the kernel's rate: it
	 * throttles above. */
	shortest = max_rate > 0 ? (1000000000u + max_rate - 1) / max_rate : 0;
	if (low < shortest)
		low = shortest;
	if (low >= j->mean_ns)
		return;
	j->low_ns = low;
	j->percent = (unsigned)(((j->mean_ns - low) * 100 + j->mean_ns / 2) /
	    j->mean_ns);
}

int
spi_jitter_near_fraction(uint64_t ns, uint64_t mean_ns)
{
	uint64_t q, a, d;

	if (mean_ns == 0 || ns > UINT64_MAX / SPI_JITTER_DENOM_MAX)
		return 0;
	/* |ns / T - a / q| < c / q^2 is |ns q - a T| q < c T, a the
	 * nearest: ns q rounded to whole T. */
	for (q = 1; q <= SPI_JITTER_DENOM_MAX; q++) {
		a = (ns * q + mean_ns / 2) / mean_ns;
		d = ns * q > a * mean_ns ? ns * q - a * mean_ns :
		    a * mean_ns - ns * q;
		if (d * q * SPI_JITTER_NEAR_INV < mean_ns)
			return 1;
	}
	return 0;
}

uint64_t
spi_jitter_draw(struct rec_jitter *j)
{
	uint64_t ns = j->mean_ns;
	unsigned i;

	if (j->percent == 0)
		return ns;
	/* About a third of the range is near a fraction: 64 draws all
	 * there is a narrow range (a rate near the kernel's bound), where
	 * the last is as good as any. */
	for (i = 0; i < 64; i++) {
		ns = j->low_ns + mix(j->seed ^ j->draws++) % (j->mean_ns -
		    j->low_ns + 1);
		if (!spi_jitter_near_fraction(ns, j->mean_ns))
			break;
	}
	return ns;
}

int
spi_jitter_keep(struct rec_jitter *j, uint64_t ns)
{
	if (j->percent == 0 || ns >= j->mean_ns)
		return 1;
	return mix(j->seed ^ ~j->coins++) % j->mean_ns < ns;
}
