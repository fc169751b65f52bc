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

/*
 * A frame: its registers by DWARF number, the architecture's
 * SPI_WALK_NREGS of them (a CFI row's rules for others are not followed;
 * bit i of valid: r[i] is known), and its pc, kept apart from the return-address column: on
 * x86-64 that column is no register and the two are one, but AArch64's
 * is x30, which in the sampled frame holds the caller's return address
 * while pc is elsewhere.  A step gives the caller's pc as the column's
 * value (spi_arch_code_addr of it); sp_guess: the caller's stack pointer
 * is a lower bound (a frame pointer's step where the frame record is not
 * at the caller's stack pointer, as on AArch64), not its value.
 */
struct spi_frame {
	uint64_t r[SPI_WALK_NREGS];
	uint64_t valid;
	uint64_t pc;
	int sp_guess;
};

#define SPI_BIT(i) (1ull << (i))

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

/* The steps alike on every architecture (unwind_frame.c). */

/* The caller's frame from cur's frame record: 0; -SP_EFORMAT when its
 * frame pointer is none; -SP_ETRUNC when the record is past the copy. */
int spi_unwind_fp_step(const struct spi_walk *w, const struct spi_frame *cur,
    struct spi_frame *next);

/* Whether sp is the stack the kernel gives a new process (its entry
 * point's frame, where the outermost frame pointer is 0). */
int spi_unwind_entry_stack(const struct spi_walk *w, uint64_t sp);

/* Whether ra (a code address) is in known code right after a call. */
int spi_unwind_code_ra(const struct sp_unwind_lookup *lk, uint64_t ra);

/* JIT code that neither unwinds: a return address looked for among the
 * stack words above the stack pointer.  0, or -SP_ENOTFOUND. */
int spi_unwind_scan_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, struct spi_frame *next);

/*
 * The leaf memo (leaf_memo.c): an analysis's result, up to
 * SPI_LEAF_MEMO_VALUE bytes, kept by the code at pc.  find fills *key and
 * returns 0 with the result in v, or -SP_ENOTFOUND; after an analysis,
 * keep stores its result under *key (nothing when the code could not be
 * read or no memo is given).
 */
#define SPI_LEAF_MEMO_CODE 16
#define SPI_LEAF_MEMO_VALUE 48

struct spi_leaf_key {
	uint64_t pc;
	uint8_t code[SPI_LEAF_MEMO_CODE];
	int ok;
};

int spi_leaf_memo_find(const struct sp_unwind_lookup *lk, uint64_t pc,
    struct spi_leaf_key *key, void *v, size_t len,
    struct sp_unwind_stats *stats);
void spi_leaf_memo_keep(const struct sp_unwind_lookup *lk,
    const struct spi_leaf_key *key, const void *v, size_t len);

#endif
