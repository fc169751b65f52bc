/* SPDX-License-Identifier: MIT */
/* The sampling intervals' jitter: what to draw (rec_jitter_int.h). */
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
	uint64_t spread, shortest;

	j->percent = 0;
	j->spread_ns = 0;
	j->mean_ns = frequency > 0 ? 1000000000u / frequency : 1000000u;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	j->seed = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
	    ((uint64_t)getpid() << 16));
	if (!on || frequency == 0)
		return;
	spread = j->mean_ns * SPI_JITTER_PERCENT / 100;
	/* The shortest interval stays within the kernel's rate: the
	 * frequency mode refuses more (EINVAL), and it throttles above. */
	shortest = max_rate > 0 ? (1000000000u + max_rate - 1) / max_rate : 0;
	if (j->mean_ns <= shortest)
		return;
	if (j->mean_ns - spread < shortest)
		spread = j->mean_ns - shortest;
	j->percent = (unsigned)((spread * 100 + j->mean_ns / 2) / j->mean_ns);
	if (j->percent > 0)
		j->spread_ns = spread;
}

uint64_t
spi_jitter_next(const struct rec_jitter *j, struct rec_jitter_ev *v,
    uint32_t key, uint64_t counted_ns, int freq_mode)
{
	int64_t mean = (int64_t)j->mean_ns, spread = (int64_t)j->spread_ns;
	int64_t ns, deficit_ns;
	uint64_t hz, n = v->taken > SPI_JITTER_SAMPLES ? v->taken :
	    SPI_JITTER_SAMPLES;

	v->samples += v->taken;
	v->sum_ns += v->taken * (v->ns ? v->ns : j->mean_ns);
	if (counted_ns == UINT64_MAX)
		counted_ns = v->sum_ns;
	/* > 0: fewer samples than the rate asks for, the next ones
	 * sooner.  Both are below 2^63 for centuries. */
	deficit_ns = (int64_t)counted_ns - (int64_t)(v->samples * j->mean_ns);
	ns = mean - spread - deficit_ns / (int64_t)n + (int64_t)(mix(j->seed ^
	    ((uint64_t)key << 32 | v->draws)) % (uint64_t)(2 * spread + 1));
	if (ns < mean - spread)
		ns = mean - spread;
	if (ns > mean + spread)
		ns = mean + spread;
	if (ns < 1)
		ns = 1;
	v->ns = (uint64_t)ns;
	v->taken = 0;
	v->draws++;
	if (!freq_mode)
		return v->ns;
	hz = (1000000000u + v->ns / 2) / v->ns;
	return hz > 0 ? hz : 1;
}
