/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_JITTER_INT_H
#define SP_REC_JITTER_INT_H

/*
 * The sampling intervals' jitter: a policy that draws intervals and says
 * which samples to keep, and owns nothing else (rec_events.c opens the
 * events with them, rec_process.c drops what it is told).
 *
 * A sampler whose period divides a loop's sees the same phase of it every
 * time, and nothing in the data says so (a 1 ms loop at 1000 Hz: 58.5 /
 * 22.6 / 18.9 for a 50 / 30 / 20 split).  So each sampling event opens
 * with an interval p of its own, drawn uniformly from SPI_JITTER_PERCENT
 * below T (1 / the rate asked for) up to T, and keeps it for its life:
 * against a loop of period T the phase then moves by T - p a sample, and
 * the samples spread evenly over the loop (the 1 ms loop came out
 * 49.9-50.4 / 29.7-30.2 / 19.9).  Each sample is kept with the chance
 * p / T, so the samples kept are T apart on average: the rate is the one
 * asked for.
 *
 * The interval is never changed once the event is open: the kernel does
 * not pass PERF_EVENT_IOC_PERIOD on to the copies of an event that
 * threads started later inherit (each keeps the interval the event had
 * when it was made), and it hands events and copies between a process's
 * threads as they switch (equal contexts are swapped).  Redrawn, which
 * interval a sample closed could not be known: with redraws of +-25 %
 * four threads of 1.5 s of CPU got 1750, 1607, 1454 and 1451 samples.
 * Fixed, an event's copies have its interval, and a sample's event is
 * its id (PERF_SAMPLE_IDENTIFIER: a copy reports its original's).
 *
 * An interval near a simple fraction a / q of T samples a loop of period
 * T at q phases only, over and over, or, a little off it, at phases that
 * creep: near T itself (q = 1) they had not gone round the loop once in
 * 5,000 samples, and a 50 / 30 / 20 loop came out 69.5 / 18.1 / 12.4.
 * Drawn uniformly, one interval in 150 missed that loop's split by more
 * than 3 points (a model of the phases, tests/unit/jitter.c).  So an
 * interval within c / q^2 of T's a / q, for every q up to
 * SPI_JITTER_DENOM_MAX (c = 1 / SPI_JITTER_NEAR_INV), is drawn again:
 * a third of the range goes, and no interval left misses by 2 points a
 * loop of period T, T / 2 or 10 T.  The loops most likely to beat with
 * a sampler are those of its own period: a 1 kHz timer's at 1000 Hz, a
 * frame's at 60 Hz.  The events of other CPUs, with intervals of their
 * own, mix in too.  Intervals are time: the events count cpu-clock (a
 * hardware event in frequency mode adapts its own period; recorded with
 * --no-jitter).
 */

#include <stdint.h>

#define SPI_JITTER_PERCENT 20u   /* intervals from T less 20 % up to T */
#define SPI_JITTER_DENOM_MAX 80u /* not near a / q of T for q up to this */
#define SPI_JITTER_NEAR_INV 25u  /* within 1 / (25 q^2) of it */

struct rec_jitter {
	uint64_t seed;            /* this recording's */
	uint64_t mean_ns;         /* T: the interval asked for, 1 / rate */
	uint64_t low_ns;          /* the shortest drawn */
	uint64_t draws, coins;    /* the sequences' positions */
	unsigned percent;         /* (T - low_ns) in % of T; 0: off */
};

/*
 * on: jitter the intervals of rate frequency (Hz, > 0) by
 * SPI_JITTER_PERCENT, less where the shortest interval would be above
 * max_rate (perf_event_max_sample_rate; 0: unknown, no bound), none at
 * it.  Seeded from the clock and the pid.
 */
void spi_jitter_init(struct rec_jitter *j, int on, unsigned frequency,
    unsigned long max_rate);

/* An event's interval, in nanoseconds (cpu-clock's sample_period): not
 * near a simple fraction of T (spi_jitter_near_fraction) where the range
 * has room. */
uint64_t spi_jitter_draw(struct rec_jitter *j);

/* Whether ns is within 1 / (SPI_JITTER_NEAR_INV q^2) of a / q of mean_ns
 * for some q up to SPI_JITTER_DENOM_MAX, in units of mean_ns. */
int spi_jitter_near_fraction(uint64_t ns, uint64_t mean_ns);

/* Whether to keep a sample of an event of interval ns: with the chance
 * ns / T (always when off). */
int spi_jitter_keep(struct rec_jitter *j, uint64_t ns);

#endif
