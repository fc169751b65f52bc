/* SPDX-License-Identifier: MIT */
#ifndef SP_AARCH64_LEAF_INT_H
#define SP_AARCH64_LEAF_INT_H

/*
 * Instruction analysis of an AArch64 frame where no CFI covers its pc
 * (JIT code, hand-written assembly, a prologue or epilogue without CFI):
 * by decoding A64 forward from the sampled pc to the function's return,
 * it finds where the caller's sp, return address and frame pointer are
 * relative to the sampled sp.  The x86-64 counterpart is
 * x86_64_leaf_int.h.
 *
 * Self-contained on purpose (no other libsp header): the unit test and
 * the fuzz target compile aarch64_leaf.c into themselves, so every host
 * tests it, not only the arm64 builds whose libsp.a holds it.
 */

#include <stddef.h>
#include <stdint.h>

#define SPI_A64_INSNS_MAX 256   /* instructions simulated per analysis */
#define SPI_A64_FETCH_MAX 8     /* code reads per analysis */
#define SPI_A64_WINDOW 256      /* bytes per code read */

struct spi_a64_leaf {
	int known;          /* 0: could not tell (the rest is 0) */
	int64_t sp_off;     /* the caller's sp = sampled sp + sp_off */
	int ra_at;          /* 1: the return address is saved at sampled
	                     * sp + ra_off; 0: x30 still holds it */
	int64_t ra_off;
	int fp_at;          /* 1: the caller's x29 is saved at sampled
	                     * sp + fp_off; 0: x29 still holds it */
	int64_t fp_off;
};

/*
 * Reads up to len code bytes at addr into buf; returns how many (0 when
 * none are readable).  A return above len counts as 0.
 */
typedef size_t (*spi_a64_read_fn)(void *ctx, uint64_t addr, uint8_t *buf,
    size_t len);

/*
 * Analyses the function containing pc by simulating from pc to its
 * return (ret, retaa, retab, a tail call through the PLT's x16/x17).
 * Returns 0 and fills *out; known is 0 when it could not tell, which
 * includes sp restored from an x29 set up before pc (walk the
 * frame-pointer chain instead).  At most SPI_A64_FETCH_MAX reads of
 * SPI_A64_WINDOW bytes and SPI_A64_INSNS_MAX instructions, whatever the
 * bytes.  With known, 0 <= ra_off, fp_off and each slot ends at or below
 * sp_off, a multiple of 16.
 */
int spi_a64_leaf(uint64_t pc, spi_a64_read_fn read, void *ctx,
    struct spi_a64_leaf *out);

#endif
