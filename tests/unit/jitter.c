/* SPDX-License-Identifier: MIT */
/*
 * The sampling intervals' jitter (rec_jitter_int.h), against a model of
 * what a sampler sees of a periodic program: a loop of period L spends
 * [0, L/2) in a, [L/2, 8L/10) in b and the rest in c (as
 * tests/workloads/periodic.c does, recorded by cli/record/jitter), and
 * an event of interval p that starts at phase x samples it at x + k p
 * mod L.  The split of n such samples is the program's, 50 / 30 / 20,
 * when the phases spread over the loop.  White-box: the draw is private.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "record/rec_jitter_int.h"

/* The largest miss, in points of a share, of n samples p apart from
 * phase x of a loop of period l, over the a / b / c split. */
static double
miss(uint64_t p, uint64_t l, uint64_t x, unsigned n)
{
	unsigned k, in[3] = { 0, 0, 0 };
	static const double truth[3] = { 50, 30, 20 };
	double worst = 0, d;
	uint64_t at = x % l;
	int i;

	for (k = 0; k < n; k++) {
		in[at * 10 < l * 5 ? 0 : at * 10 < l * 8 ? 1 : 2]++;
		at = (at + p) % l;
	}
	for (i = 0; i < 3; i++) {
		d = 100.0 * in[i] / n - truth[i];
		if (d < 0)
			d = -d;
		if (d > worst)
			worst = d;
	}
	return worst;
}

/* The largest miss of interval p over a few starting phases. */
static double
worst_miss(uint64_t p, uint64_t l, unsigned n)
{
	double w = 0, m;
	unsigned i;

	for (i = 0; i < 4; i++)
		if ((m = miss(p, l, l * i / 4 + 13, n)) > w)
			w = m;
	return w;
}

Test(jitter, intervals_drawn_are_within_the_range_and_off_simple_fractions)
{
	struct rec_jitter j;
	unsigned i, near = 0;
	uint64_t ns;

	spi_jitter_init(&j, 1, 1000, 100000);
	cr_assert_eq(j.percent, SPI_JITTER_PERCENT);
	cr_assert_eq(j.mean_ns, 1000000u);
	for (i = 0; i < 2000; i++) {
		ns = spi_jitter_draw(&j);
		cr_assert(ns >= j.low_ns && ns <= j.mean_ns, "%lu",
		    (unsigned long)ns);
		near += spi_jitter_near_fraction(ns, j.mean_ns);
	}
	cr_assert_eq(near, 0, "%u of 2000 intervals near a / q of T", near);
}

/*
 * What the draw avoids, on a grid of the whole range: some intervals
 * miss the loop of period T by more than 3 points in 5,000 samples (this
 * is what failed the recording test, and what this test finds if the
 * draw is uniform), and every one of them is near a simple fraction.
 */
Test(jitter, every_interval_that_aliases_is_one_the_draw_avoids)
{
	const uint64_t t = 1000000, low = 800000;
	unsigned i, bad = 0, missed = 0;
	uint64_t p;

	for (i = 0; i <= 4000; i++) {
		p = low + (t - low) * i / 4000;
		if (miss(p, t, 13, 5000) <= 3)
			continue;
		bad++;
		if (!spi_jitter_near_fraction(p, t)) {
			missed++;
			cr_log_error("interval %lu aliases, not avoided",
			    (unsigned long)p);
		}
	}
	cr_assert_gt(bad, 0, "the model found no interval that aliases");
	cr_assert_eq(missed, 0, "%u of %u aliasing intervals drawn", missed,
	    bad);
}

/* Intervals the draw gives, over loops of period T (1000 Hz: 5,000
 * samples), T / 2 (500 Hz of a 1 ms loop: 2,500) and 10 T: within 2
 * points of the split. */
Test(jitter, drawn_intervals_sample_loops_of_related_periods_evenly)
{
	struct rec_jitter j;
	double w;
	unsigned i;
	uint64_t ns;

	spi_jitter_init(&j, 1, 1000, 100000);
	j.seed = 0x5eed;
	for (i = 0; i < 300; i++) {
		ns = spi_jitter_draw(&j);
		w = worst_miss(ns, j.mean_ns, 5000);
		cr_assert_leq(w, 2, "interval %lu, loop T: %.2f points",
		    (unsigned long)ns, w);
		w = worst_miss(ns, j.mean_ns / 2, 2500);
		cr_assert_leq(w, 2, "interval %lu, loop T / 2: %.2f points",
		    (unsigned long)ns, w);
		w = worst_miss(ns, j.mean_ns * 10, 5000);
		cr_assert_leq(w, 2, "interval %lu, loop 10 T: %.2f points",
		    (unsigned long)ns, w);
	}
}

/* A range too narrow to leave one (a rate at the kernel's bound) still
 * gives intervals within it; a fixed recording, T. */
Test(jitter, narrow_ranges_and_fixed_intervals)
{
	struct rec_jitter j;
	unsigned i;
	uint64_t ns;

	spi_jitter_init(&j, 1, 1000, 1020);
	cr_assert_gt(j.percent, 0);
	for (i = 0; i < 100; i++) {
		ns = spi_jitter_draw(&j);
		cr_assert(ns >= j.low_ns && ns <= j.mean_ns);
	}
	spi_jitter_init(&j, 0, 1000, 100000);
	cr_assert_eq(spi_jitter_draw(&j), 1000000u);
	cr_assert(spi_jitter_keep(&j, 1000000u));
}
