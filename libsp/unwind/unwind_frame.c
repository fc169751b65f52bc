/* SPDX-License-Identifier: MIT */
/*
 * The steps every architecture here takes alike, from stack words alone:
 * the frame record ({the caller's frame pointer, the return address} at
 * the frame pointer, on x86-64 and AArch64 both), the stack a new
 * process starts on, and the scan for a return address in JIT code.
 * What differs is arch_int.h's: which instruction a call is, and whether
 * a frame record lies right below the caller's stack pointer.
 */
#include <string.h>

#include "arch_int.h"
#include "unwind/cfi_table_int.h"
#include "unwind/walk_int.h"

int
spi_unwind_fp_step(const struct spi_walk *w, const struct spi_frame *cur,
    struct spi_frame *next)
{
	uint64_t fp = cur->r[SPI_DW_FP], nfp, ra;

	/* Misaligned, or below the frame it would be the caller's of: not
	 * a frame pointer (code that keeps none uses it for data). */
	if (!(cur->valid & SPI_BIT(SPI_DW_FP)) || (fp & 7) ||
	    ((cur->valid & SPI_BIT(SPI_DW_SP)) && fp < cur->r[SPI_DW_SP]))
		return -SP_EFORMAT;
	if (spi_unwind_load(w, fp, &nfp) < 0 || spi_unwind_load(w, fp + 8, &ra) < 0)
		return -SP_ETRUNC; /* beyond the copy: above, as fp >= sp */
	memset(next, 0, sizeof(*next));
	next->r[SPI_DW_FP] = nfp;
	next->r[SPI_DW_SP] = fp + 16;
	next->r[SPI_DW_RA] = ra;
	next->valid = SPI_BIT(SPI_DW_FP) | SPI_BIT(SPI_DW_SP) | SPI_BIT(SPI_DW_RA);
	next->sp_guess = !SPI_ARCH_RECORD_AT_SP;
	return 0;
}

/*
 * Whether sp is the stack the kernel gives a new process (the System V
 * ABI's, on every Linux ELF architecture): argc, argc pointers into the
 * stack above, a NULL.
 */
int
spi_unwind_entry_stack(const struct spi_walk *w, uint64_t sp)
{
	uint64_t argc, v, i;

	if (spi_unwind_load(w, sp, &argc) < 0 || argc == 0 || argc > 65536 ||
	    spi_unwind_load(w, sp + 8 * (argc + 1), &v) < 0 || v != 0)
		return 0;
	for (i = 1; i <= argc; i++)
		if (spi_unwind_load(w, sp + 8 * i, &v) < 0 || v <= sp ||
		    v - w->sp0 >= w->stk->len)
			return 0;
	return 1;
}

/* Whether ra is in known code right after a call: a return address, not
 * data that looks like one.  0 when the code cannot be read. */
int
spi_unwind_code_ra(const struct sp_unwind_lookup *lk, uint64_t ra)
{
	const struct sp_cfi_table *t;
	uint64_t bias;

	return ra >= 4096 && lk->read_code != NULL &&
	    lk->find(lk->ctx, ra - 1, &t, &bias) == 0 &&
	    spi_arch_after_call(lk, ra);
}

/* Stack words a scan looks through for a return address. */
#define SCAN_WORDS 64

/* Whether the word below slot is a frame pointer saved beside a return
 * address (a frame record: pointing up the stack, within the copy). */
static int
fp_below(const struct spi_walk *w, uint64_t slot, uint64_t *fp)
{
	return spi_unwind_load(w, slot - 8, fp) == 0 && (*fp & 7) == 0 &&
	    *fp > slot && *fp - w->sp0 < w->stk->len;
}

/*
 * JIT code whose frame neither the analysis nor the frame pointer unwinds
 * (a compiled method that keeps no frame pointer, its OSR frame): a word
 * above sp that points into known code right after a call is the return
 * address, as crash reporters scan.  Of those in SCAN_WORDS, the first
 * with its caller's frame pointer saved just below it is taken, else the
 * first: a stale return address left in a frame has seldom one.  0, or
 * -SP_ENOTFOUND.
 */
int
spi_unwind_scan_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, struct spi_frame *next)
{
	uint64_t sp = cur->r[SPI_DW_SP], v, fp, first = 0, found = 0;
	int i;

	if (lk->read_code == NULL || lk->jit == NULL ||
	    !(cur->valid & SPI_BIT(SPI_DW_SP)) || !lk->jit(lk->ctx, cur->pc))
		return -SP_ENOTFOUND;
	for (i = 0; i < SCAN_WORDS && found == 0; i++) {
		uint64_t slot = sp + 8 * (uint64_t)i;

		if (spi_unwind_load(w, slot, &v) < 0)
			break;
		if (!spi_unwind_code_ra(lk, spi_arch_code_addr(v)))
			continue;
		if (first == 0)
			first = slot;
		if (i > 0 && fp_below(w, slot, &fp))
			found = slot;
	}
	if (found == 0)
		found = first;
	if (found == 0 || spi_unwind_load(w, found, &v) < 0)
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	next->r[SPI_DW_RA] = v;
	next->r[SPI_DW_SP] = found + 8;
	next->valid = SPI_BIT(SPI_DW_RA) | SPI_BIT(SPI_DW_SP);
	next->sp_guess = !SPI_ARCH_RECORD_AT_SP;
	if (found > sp && fp_below(w, found, &fp)) {
		next->r[SPI_DW_FP] = fp;
		next->valid |= SPI_BIT(SPI_DW_FP);
	} else if (cur->valid & SPI_BIT(SPI_DW_FP)) {
		next->r[SPI_DW_FP] = cur->r[SPI_DW_FP];
		next->valid |= SPI_BIT(SPI_DW_FP);
	}
	return 0;
}

/*
 * chain[i..n) as return addresses, rewound, after ips[0..res->n), until
 * one is in no module (the walk's end) or max.  roots: where one is in a
 * function where Go starts a stack, the walk is complete (a splice);
 * else it never is.  Returns how many were added.
 */
static size_t
walk_chain(const struct sp_unwind_lookup *lk, const uint64_t *chain,
    size_t i, size_t n, uint64_t *ips, size_t max,
    struct sp_unwind_result *res, int roots)
{
	const struct sp_cfi_table *t;
	uint64_t bias, ra;
	size_t added = 0;

	for (; i < n; i++) {
		ra = spi_arch_code_addr(chain[i]);
		/* The chain's end: a frame pointer that was none. */
		if (ra < 4096 || lk->find(lk->ctx, ra - 1, &t, &bias) != 0)
			break;
		if (res->n == max) {
			res->error = SP_UNW_DEPTH;
			return added;
		}
		ips[res->n++] = ra - 1;
		added++;
		if (roots && t != NULL && spi_cfi_table_stack_end(t,
		    ra - 1 - bias) == SPI_END_ROOT) {
			res->complete = 1;
			res->error = SP_UNW_OK;
			break;
		}
	}
	return added;
}

size_t
spi_unwind_splice(const struct sp_unwind_lookup *lk, const uint64_t *chain,
    size_t n, uint64_t *ips, size_t max, struct sp_unwind_result *res)
{
	size_t i, added;
	enum sp_unwind_error before = res->error;

	if (res->error != SP_UNW_SWITCH)
		return 0;
	/* The sampled pc is no return address: from entry 1 on, after the
	 * return address into the switch (none: the sample is in it). */
	i = 1;
	if (res->switch_ra != 0) {
		while (i < n && chain[i] != res->switch_ra)
			i++;
		i++;
	}
	added = walk_chain(lk, chain, i, n, ips, max, res, 1);
	/* Cut at max: still the switch that stopped the walk. */
	if (!res->complete)
		res->error = before;
	return added;
}

void
spi_unwind_chain(const struct sp_unwind_lookup *lk, const uint64_t *chain,
    size_t n, uint64_t *ips, size_t max, struct sp_unwind_result *res)
{
	memset(res, 0, sizeof(*res));
	res->error = n == 0 ? SP_UNW_NO_REGS : SP_UNW_FP_END;
	if (n == 0 || max == 0) {
		res->error = n == 0 ? SP_UNW_NO_REGS : SP_UNW_DEPTH;
		return;
	}
	/* Never complete: a function that keeps no frame record (a leaf,
	 * code built without frame pointers) is skipped without a trace,
	 * and the walk may still end at _start (arm64's tree-O2 in a VM:
	 * _start;__libc_start_main;spin, its callers gone). */
	ips[res->n++] = spi_arch_code_addr(chain[0]);
	(void)walk_chain(lk, chain, 1, n, ips, max, res, 0);
}
