/* SPDX-License-Identifier: MIT */
/* The stack copy's size policy (rec_adapt.c) on walks made up here: it
 * goes back to the default copy as soon after a long shallow phase as
 * after a short one, and drains often only while the small copy is in
 * use and walks come in (issue 28.6). */
#include <criterion/criterion.h>

#include "record/rec_adapt_int.h"
#include "sp/record/recorder.h"

/* n walks: complete and shallow, or cut at the small copy's end. */
static void
walks(struct rec_adapt *a, unsigned n, int cut)
{
	struct sp_unwind_result res = { 0 };
	struct sp_ustack stk = { NULL, SP_STACK_BYTES_SMALL, 0 };
	unsigned i;

	res.complete = !cut;
	res.error = cut ? SP_UNW_STACK_BOUNDS : SP_UNW_OK;
	res.stack_used = cut ? SP_STACK_BYTES_SMALL : 1024;
	for (i = 0; i < n; i++)
		spi_adapt_observe(a, &res, &stk);
}

/* A policy on the small copy after drains of `batches` x 1000 shallow
 * walks. */
static void
small_after(struct rec_adapt *a, unsigned batches)
{
	unsigned i;

	spi_adapt_init(a, 1);
	walks(a, SP_STACK_LEARN_WALKS, 0);
	cr_assert_eq(spi_adapt_decide(a), ADAPT_TO_SMALL);
	for (i = 0; i < batches; i++) {
		walks(a, 1000, 0);
		cr_assert_eq(spi_adapt_decide(a), ADAPT_STAY);
	}
}

Test(adapt, a_deepening_after_a_long_shallow_phase_goes_back_at_once)
{
	struct rec_adapt a;
	unsigned batches[] = { 1, 10, 1000 }, i;

	for (i = 0; i < 3; i++) {
		small_after(&a, batches[i]);
		walks(&a, 100, 0);
		walks(&a, 3, 1);
		cr_assert_eq(spi_adapt_decide(&a), ADAPT_TO_BIG,
		    "after %u000 shallow walks", batches[i]);
		cr_assert(!spi_adapt_small(&a));
	}
}

Test(adapt, one_walk_cut_in_a_thousand_stays_small)
{
	struct rec_adapt a;
	unsigned i;

	small_after(&a, 1);
	for (i = 0; i < 100; i++) {
		walks(&a, 999, 0);
		walks(&a, 1, 1);
		cr_assert_eq(spi_adapt_decide(&a), ADAPT_STAY, "batch %u", i);
	}
}

Test(adapt, drains_often_only_on_the_small_copy_with_walks_coming)
{
	struct rec_adapt a;
	unsigned i;

	spi_adapt_init(&a, 1);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 100), 100);
	small_after(&a, 1);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 100), 8);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, -1), 8);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 3), 3);
	cr_assert_eq(spi_adapt_wait_ms(&a, 10000, 100), 2);
	cr_assert_eq(spi_adapt_wait_ms(&a, 99, 100), 81);
	cr_assert_eq(spi_adapt_wait_ms(&a, 10, 100), 100);
	/* Drains that saw no walk: a target kept off the CPU a while keeps
	 * the pace; an idle one, 16 drains later, costs no wakeups. */
	for (i = 0; i < 15; i++) {
		cr_assert_eq(spi_adapt_decide(&a), ADAPT_STAY);
		cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 100), 8, "%u", i);
	}
	cr_assert_eq(spi_adapt_decide(&a), ADAPT_STAY);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 100), 100);
	walks(&a, 1, 0);
	cr_assert_eq(spi_adapt_decide(&a), ADAPT_STAY);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 100), 8);
	spi_adapt_init(&a, 0);
	cr_assert_eq(spi_adapt_wait_ms(&a, 1000, 100), 100);
}
