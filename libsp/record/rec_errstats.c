/* SPDX-License-Identifier: MIT */
/* Error statistics over a counter array: the unwind_* counters by kind
 * (sp/record/recorder.h). */
#include <limits.h>
#include <string.h>

#include "sp/record/recorder.h"
#include "unwind/unwind_int.h"

/* The public kinds are the unwinder's errors without SP_UNW_OK, in its
 * order: one list of names (spi_unwind_error_name) serves the recorder's
 * counters and these. */
#define SAME(pub, unw) _Static_assert((int)(pub) == (int)(unw) - 1, #pub)
SAME(SP_SAMPLE_ERR_STACK_BOUNDS, SP_UNW_STACK_BOUNDS);
SAME(SP_SAMPLE_ERR_NO_PROGRESS, SP_UNW_NO_PROGRESS);
SAME(SP_SAMPLE_ERR_BAD_FP, SP_UNW_BAD_FP);
SAME(SP_SAMPLE_ERR_DEPTH, SP_UNW_DEPTH);
SAME(SP_SAMPLE_ERR_NO_REGS, SP_UNW_NO_REGS);
SAME(SP_SAMPLE_ERR_BAD_RA, SP_UNW_BAD_RA);
SAME(SP_SAMPLE_ERR_NO_STACK, SP_UNW_NO_STACK);
SAME(SP_SAMPLE_ERR_STACK_SWITCH, SP_UNW_SWITCH);
SAME(SP_SAMPLE_ERR_FP_END, SP_UNW_FP_END);
SAME(SP_SAMPLE_ERR_KINDS, SP_UNW_ERRORS_);
/* A kind past the room would write past an older caller's struct. */
_Static_assert(SP_SAMPLE_ERR_KINDS <= SP_SAMPLE_ERR_ROOM,
    "struct sp_error_stats has no room for every kind");

static int
is_kind(enum sp_sample_error k)
{
	return (unsigned)k < SP_SAMPLE_ERR_KINDS;
}

static unsigned long long
add_sat(unsigned long long a, unsigned long long b)
{
	return a > ULLONG_MAX - b ? ULLONG_MAX : a + b;
}

const char *
sp_sample_error_name(enum sp_sample_error k)
{
	return is_kind(k) ? spi_unwind_error_name((enum sp_unwind_error)(k +
	    1)) : NULL;
}

/* The kind whose counter is called name, or SP_SAMPLE_ERR_KINDS. */
static enum sp_sample_error
kind_of(const struct sp_str *name)
{
	const char *want;
	int k;

	for (k = 0; k < SP_SAMPLE_ERR_KINDS; k++) {
		want = sp_sample_error_name((enum sp_sample_error)k);
		if (want != NULL && strlen(want) == name->len &&
		    memcmp(want, name->s, name->len) == 0)
			return (enum sp_sample_error)k;
	}
	return SP_SAMPLE_ERR_KINDS;
}

void
sp_error_stats_from_counters(struct sp_error_stats *st,
    const struct sp_counter *c, size_t n)
{
	enum sp_sample_error k;
	size_t i;

	sp_error_stats_reset(st);
	for (i = 0; i < n; i++)
		if (c[i].name.s != NULL && is_kind(k = kind_of(&c[i].name)))
			st->count[k] = add_sat(st->count[k], c[i].value);
}

unsigned long long
sp_error_stats_count(const struct sp_error_stats *st, enum sp_sample_error k)
{
	return is_kind(k) ? st->count[k] : 0;
}

unsigned long long
sp_error_stats_total(const struct sp_error_stats *st)
{
	unsigned long long sum = 0;
	int k;

	for (k = 0; k < SP_SAMPLE_ERR_KINDS; k++)
		sum = add_sat(sum, st->count[k]);
	return sum;
}

size_t
sp_error_stats_nonzero(const struct sp_error_stats *st,
    enum sp_sample_error *out, size_t max)
{
	size_t n = 0;
	int k;

	for (k = 0; k < SP_SAMPLE_ERR_KINDS; k++) {
		if (st->count[k] == 0)
			continue;
		if (n < max)
			out[n] = (enum sp_sample_error)k;
		n++;
	}
	return n;
}

void
sp_error_stats_reset(struct sp_error_stats *st)
{
	/* Not sizeof(*st): the caller's struct is as its header had it. */
	memset(st->count, 0, SP_SAMPLE_ERR_KINDS * sizeof(st->count[0]));
}
