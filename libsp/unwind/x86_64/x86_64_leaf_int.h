/* SPDX-License-Identifier: MIT */
#ifndef SP_X86_64_LEAF_INT_H
#define SP_X86_64_LEAF_INT_H

/*
 * Instruction analysis of the leaf frame where no CFI covers its PC: by
 * decoding forward from the sampled PC (with Zydis) to the function's
 * return, it finds where the return address is relative to the sampled
 * stack pointer, so a leaf in its prologue, its epilogue or without a frame
 * pointer at all still unwinds into its caller.  The unwinder uses it for
 * the leaf, and for callers in code without any CFI (JIT code), from
 * their return address: there the stack pointer is the step's result
 * and the stack is as before the call; other registers may be guesses.
 */

#include <stddef.h>
#include <stdint.h>

#define SP_LEAF_INSNS_MAX 256  /* instructions simulated per analysis */
#define SP_LEAF_FETCH_MAX 8    /* code reads per analysis */
#define SP_LEAF_WINDOW 256     /* bytes per code read */

enum sp_leaf_kind {
	SP_LEAF_UNKNOWN,  /* no path to a return was found */
	SP_LEAF_FRAME,    /* a frame-pointer frame is set up: walk rbp */
	SP_LEAF_RA_AT,    /* return address at rsp + ra_off */
};

struct sp_leaf {
	enum sp_leaf_kind kind;
	int64_t ra_off;   /* SP_LEAF_RA_AT: bytes above the sampled rsp */
	int bp_saved;     /* the caller's rbp is at rsp + bp_off, else rbp
	                   * still holds it */
	int64_t bp_off;
};

/*
 * Reads up to len code bytes at addr into buf; returns how many (0 when
 * none are readable).
 */
typedef size_t (*sp_leaf_read_fn)(void *ctx, uint64_t addr, uint8_t *buf,
    size_t len);

/*
 * Analyses the function containing pc.  Returns 0 and fills *out (kind
 * SP_LEAF_UNKNOWN when it could not tell).  Bounded by SP_LEAF_INSNS_MAX
 * and SP_LEAF_FETCH_MAX, whatever the bytes.
 */
int spi_unwind_leaf(uint64_t pc, sp_leaf_read_fn read, void *ctx,
    struct sp_leaf *out);

#endif
