/* SPDX-License-Identifier: MIT */
#ifndef SP_WALK_INT_H
#define SP_WALK_INT_H

/*
 * What the DWARF unwinder (unwind_dwarf.c) shares with the rules of the
 * architecture it runs on (arch_int.h): a frame's registers by DWARF
 * number, and the walk over one sample's copied stack.
 */

#include <stdint.h>

#include "common/cursor_int.h"
#include "dwarf/cfi_int.h"
#include "sp/common/error.h"
#include "unwind/unwind_int.h"

/* A frame's registers, by DWARF number; bit i of valid: r[i] is known. */
struct spi_frame {
	uint64_t r[SPI_CFI_NREGS];
	uint32_t valid;
};

/* One walk: the sample's stack copy, which starts at address sp0. */
struct spi_walk {
	const struct sp_ustack *stk;
	uint64_t sp0;
};

/* 8 bytes of the copied stack at addr: 0, -SP_ENOTFOUND below the copy,
 * -SP_ETRUNC past its end (where the stack goes on, uncopied). */
static inline int
spi_unwind_load(const struct spi_walk *w, uint64_t addr, uint64_t *v)
{
	uint64_t off;

	if (addr < w->sp0)
		return -SP_ENOTFOUND;
	off = addr - w->sp0;
	if (off > w->stk->len || w->stk->len - off < 8)
		return -SP_ETRUNC;
	*v = sp_le64(w->stk->data + off);
	return 0;
}

#endif
