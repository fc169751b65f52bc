/* SPDX-License-Identifier: MIT */
/* The stack copy's size without -s: observe the walks, then decide. */
#include "rec_adapt_int.h"
#include "sp/record/recorder.h"

/* Drains in a row without a walk after which the small copy's pace of
 * drains (spi_adapt_wait_ms) stops. */
#define ADAPT_QUIET_DRAINS 16u

void
spi_adapt_init(struct rec_adapt *a, int on)
{
	a->mode = on ? ADAPT_LEARN : ADAPT_OFF;
	a->fit = a->unfit = a->walks = a->cut = a->batch = 0;
	a->quiet = ADAPT_QUIET_DRAINS;
}

/*
 * Learning: whether the small copy would have held the walk with 256
 * bytes to spare (the last walks in a row that do: a start in ld.so
 * takes up to 5.6 KiB, a loop after it 1).  On the small copy: whether
 * the walk ran off its end.
 */
void
spi_adapt_observe(struct rec_adapt *a, const struct sp_unwind_result *res,
    const struct sp_ustack *stk)
{
	if (a->mode == ADAPT_LEARN) {
		if (res->error == SP_UNW_STACK_BOUNDS ||
		    res->stack_used > SP_STACK_BYTES_SMALL - 256) {
			a->fit = 0;
			a->unfit++;
		} else if (res->complete)
			a->fit++;
	} else if (a->mode == ADAPT_SMALL) {
		a->walks++;
		a->batch++;
		if (res->error == SP_UNW_STACK_BOUNDS && !stk->whole &&
		    stk->len == SP_STACK_BYTES_SMALL)
			a->cut++;
	}
}

/*
 * The small copy after SP_STACK_LEARN_WALKS walks in a row fit in it,
 * the default one for good after a tenth as many that would not, or when
 * the small one cut more than 1 walk in 1000 (and more than 2) of the
 * last 1000 to 2000: halving the counts keeps the rate recent, so that a
 * long shallow phase does not raise the bar a deepening must clear.
 */
enum rec_adapt_move
spi_adapt_decide(struct rec_adapt *a)
{
	if (a->mode == ADAPT_LEARN) {
		if (a->fit >= SP_STACK_LEARN_WALKS) {
			a->mode = ADAPT_SMALL;
			return ADAPT_TO_SMALL;
		}
		if (a->unfit >= SP_STACK_LEARN_WALKS / 10) {
			a->mode = ADAPT_BIG;
			return ADAPT_DROP_SMALL;
		}
	} else if (a->mode == ADAPT_SMALL) {
		a->quiet = a->batch > 0 ? 0 : a->quiet + 1;
		a->batch = 0;
		if (a->cut > 2 && a->cut * 1000 > a->walks) {
			a->mode = ADAPT_BIG;
			return ADAPT_TO_BIG;
		}
		if (a->walks >= (uint64_t)2 * SP_STACK_LEARN_WALKS) {
			a->walks /= 2;
			a->cut /= 2;
		}
	}
	return ADAPT_STAY;
}

/*
 * Every sample the small copy takes after a program's stacks deepen is
 * cut until a drain sees it: the drain's watermark is a quarter ring
 * (~480 samples of 4 KiB), the tools' wait 100 ms, 2 % of a 1 kHz
 * recording's samples (issue 28.6).  While walks come in on the small
 * copy, a drain every ADAPT_DRAIN_PERIODS sampling periods bounds that
 * to a few samples a thread, for a wakeup every 8 ms at 1 kHz; every
 * ADAPT_DRAIN_MIN_MS at most, which at 10 kHz costs the recorder about
 * 1 us a sample more (1 ms cost it 2).  A target that another load
 * keeps off the CPU leaves some drains empty: the pace holds until
 * ADAPT_QUIET_DRAINS in a row found no walk (an idle target, which then
 * costs no wakeups).
 */
#define ADAPT_DRAIN_PERIODS 8u
#define ADAPT_DRAIN_MIN_MS 2u

int
spi_adapt_wait_ms(const struct rec_adapt *a, unsigned hz, int timeout_ms)
{
	unsigned ms;

	if (a->mode != ADAPT_SMALL || a->quiet >= ADAPT_QUIET_DRAINS || hz == 0)
		return timeout_ms;
	ms = hz >= ADAPT_DRAIN_PERIODS * 1000u / ADAPT_DRAIN_MIN_MS ?
	    ADAPT_DRAIN_MIN_MS : (ADAPT_DRAIN_PERIODS * 1000u + hz - 1) / hz;
	return timeout_ms >= 0 && (unsigned)timeout_ms < ms ? timeout_ms :
	    (int)ms;
}
