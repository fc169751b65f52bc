/* SPDX-License-Identifier: MIT */
/* The stack copy's size without -s: observe the walks, then decide. */
#include "rec_adapt_int.h"
#include "sp/record/recorder.h"

void
spi_adapt_init(struct rec_adapt *a, int on)
{
	a->mode = on ? ADAPT_LEARN : ADAPT_OFF;
	a->fit = a->unfit = a->walks = a->cut = 0;
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
		if (res->error == SP_UNW_STACK_BOUNDS && !stk->whole &&
		    stk->len == SP_STACK_BYTES_SMALL)
			a->cut++;
	}
}

/*
 * The small copy after SP_STACK_LEARN_WALKS walks in a row fit in it,
 * the default one for good after a tenth as many that would not, or when
 * the small one cut more than 1 walk in 1000 (and more than 2).
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
	} else if (a->mode == ADAPT_SMALL && a->cut > 2 &&
	    a->cut * 1000 > a->walks) {
		a->mode = ADAPT_BIG;
		return ADAPT_TO_BIG;
	}
	return ADAPT_STAY;
}
