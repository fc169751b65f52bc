/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_ADAPT_INT_H
#define SP_REC_ADAPT_INT_H

/*
 * The stack copy's size without -s (SP_STACK_BYTES_SMALL or the default
 * one): a policy that observes the walks and decides, and owns nothing
 * else.  The events that carry out a decision are recorder.c's: every
 * thread and CPU has a sampling event of either size while both are in
 * question, one size on at a time, switched by ioctl with their inherited
 * copies, so no event is opened or closed on the way and no thread goes
 * without or gets two.
 */

#include <stdint.h>

#include "unwind/unwind_int.h"

enum rec_adapt_mode {
	ADAPT_OFF,    /* -s given (or too many threads): one size */
	ADAPT_LEARN,  /* the default copy on, walks counted */
	ADAPT_SMALL,  /* the small copy on, walks it cut counted */
	ADAPT_BIG     /* the default copy on for good */
};

/* What a decision asks of the events. */
enum rec_adapt_move {
	ADAPT_STAY,        /* nothing */
	ADAPT_TO_SMALL,    /* turn the small copy on, the default one off */
	ADAPT_TO_BIG,      /* the default copy on again, the small ones
	                    * closed: a switch back */
	ADAPT_DROP_SMALL   /* close the small copy's events, never used */
};

struct rec_adapt {
	enum rec_adapt_mode mode;
	uint64_t fit, unfit;  /* ADAPT_LEARN: walks the small copy holds
	                       * (in a row), walks it would not */
	uint64_t walks, cut;  /* ADAPT_SMALL: walks, and those it cut
	                       * (recent: halved as they grow) */
	uint64_t batch;       /* ADAPT_SMALL: walks since the last decision */
	unsigned quiet;       /* decisions in a row that followed no walk */
};

/* on: no -s (and whole copies not asked for): learn; else off. */
void spi_adapt_init(struct rec_adapt *a, int on);
/* One walk of a CPU sample, res from the stack stk. */
void spi_adapt_observe(struct rec_adapt *a, const struct sp_unwind_result *res,
    const struct sp_ustack *stk);
/* After a drain (the records still in the rings were taken with the size
 * before): the move to make, the mode already changed. */
enum rec_adapt_move spi_adapt_decide(struct rec_adapt *a);
/* How long the next wait for samples may be, in ms: timeout_ms (-1 for
 * no end), shortened to a few sampling periods at hz while the small
 * copy is in use and walks come in, so that stacks that deepen are seen
 * soon. */
int spi_adapt_wait_ms(const struct rec_adapt *a, unsigned hz, int timeout_ms);

/* Whether the small copy is the one in use. */
static inline int
spi_adapt_small(const struct rec_adapt *a)
{
	return a->mode == ADAPT_SMALL;
}

/* Whether threads get events of both sizes. */
static inline int
spi_adapt_both(const struct rec_adapt *a)
{
	return a->mode == ADAPT_LEARN || a->mode == ADAPT_SMALL;
}

#endif
