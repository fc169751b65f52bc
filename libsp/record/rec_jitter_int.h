/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_JITTER_INT_H
#define SP_REC_JITTER_INT_H

/*
 * The sampling intervals' jitter: a policy that draws intervals and owns
 * nothing else (rec_events.c sets them).  A sampler whose period divides
 * a loop's sees the same phase of it every time, and nothing in the data
 * says so (a 1 ms loop at 1000 Hz: 58.5 / 22.6 / 18.9 for a 50 / 30 / 20
 * split).  So each sampling event's interval is drawn again, uniformly
 * within SPI_JITTER_PERCENT of the mean, after every SPI_JITTER_SAMPLES
 * of its samples (PERF_EVENT_IOC_PERIOD): the phase drifts by up to half
 * a period a sample, and its start is new with every draw.
 *
 * An event is due after its samples, not after some time: the kernel
 * restarts the interval at the ioctl from zero, and the part already run
 * is lost; by time, a thread that runs briefly between two draws would
 * never reach a sample.
 *
 * The mean rate is kept, per event, by feedback: each draw is the mean
 * interval, plus a uniform draw within the spread, less what pays back
 * the event's deficit over about as many samples as its last interval
 * took, within the spread.  The deficit is the samples the rate asked for
 * in the time the event counted (cpu-clock's count is its nanoseconds on
 * the CPU, read(2) before each draw) less those it took.  Without it the
 * rate was off twice: by the intervals lost at each ioctl (half a one on
 * average), and because a short interval takes more samples than a long
 * one in the time between two drains (independent draws of +-50 % gave
 * 5 % too many: the mean of 1 / interval, not 1 / the mean).  An event
 * in frequency mode counts no time: its time is the sum of its samples'
 * intervals, which corrects the second only.
 */

#include <stdint.h>

#define SPI_JITTER_PERCENT 25u   /* each interval: the mean +- 25 % */
#define SPI_JITTER_SAMPLES 32u   /* an event's samples between two draws */
/* The longest wait for the rings while jittering (sp_recorder_poll): the
 * draws are made after a drain, and an interval that runs past its 32
 * samples leaves more of its deviation unpaid at the end (the rate of a
 * 0.6 s run was 3 % off with drains every 100 ms and +-50 %). */
#define SPI_JITTER_POLL_MS 10

struct rec_jitter {
	uint64_t seed;            /* this recording's */
	uint64_t mean_ns;         /* the mean interval: the rate asked for */
	uint64_t spread_ns;       /* +- this much around it */
	unsigned percent;         /* spread_ns in % of mean_ns; 0: off */
};

/* An event's part: in its struct rec_event, zeroed when it opens. */
struct rec_jitter_ev {
	uint64_t samples;         /* all it took */
	uint64_t sum_ns;          /* the sum of their intervals */
	uint64_t ns;              /* its interval now, 0: the mean */
	uint32_t taken;           /* its samples at that interval */
	uint32_t draws;
};

/* A sample of v. */
static inline void
spi_jitter_taken(struct rec_jitter_ev *v)
{
	v->taken++;
}

/*
 * on: jitter the intervals of rate frequency (Hz, > 0) by
 * SPI_JITTER_PERCENT, less where the shortest interval would be above
 * max_rate (perf_event_max_sample_rate; 0: unknown, no bound), none at
 * it.  Seeded from the clock and the pid.
 */
void spi_jitter_init(struct rec_jitter *j, int on, unsigned frequency,
    unsigned long max_rate);

/* Whether event v is due for a draw: never drawn, or taken its samples
 * (never when off). */
static inline int
spi_jitter_due(const struct rec_jitter *j, const struct rec_jitter_ev *v)
{
	return j->percent > 0 && (v->draws == 0 ||
	    v->taken >= SPI_JITTER_SAMPLES);
}

/*
 * Event v's next interval (key: its descriptor, for its own sequence;
 * counted_ns: the time it counted, UINT64_MAX unknown: its samples'), as
 * PERF_EVENT_IOC_PERIOD takes it: in nanoseconds for an event counting
 * time in periods (cpu-clock: the kernel turns its frequency into a
 * period once, perf_swevent_init_hrtimer), in Hz for one in frequency
 * mode (cycles, whose period the kernel adapts at every tick to the rate
 * asked for: that rate is drawn).  v is updated as if it were set.
 */
uint64_t spi_jitter_next(const struct rec_jitter *j, struct rec_jitter_ev *v,
    uint32_t key, uint64_t counted_ns, int freq_mode);

#endif
