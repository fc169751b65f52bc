/* SPDX-License-Identifier: MIT */
#ifndef SP_AARCH64_LEAF_INT_H
#define SP_AARCH64_LEAF_INT_H

/*
 * Instruction analysis of an AArch64 frame that no CFI covers, by
 * simulating from pc to the function's return: where the caller's stack
 * pointer is, and whether x30 and x29 still hold the return address and
 * the caller's frame pointer or were saved on the stack.
 */

#include <stddef.h>
#include <stdint.h>

#define SPI_A64_INSNS_MAX 256   /* instructions simulated per analysis */
#define SPI_A64_FETCH_MAX 8     /* code reads per analysis */
#define SPI_A64_WINDOW 256      /* bytes per code read */

struct spi_a64_leaf {
	int known;          /* 0: it could not tell (the rest is unset) */
	int64_t sp_off;     /* the caller's sp: the sampled sp + sp_off */
	int ra_at;          /* 1: the return address is at sp + ra_off;
	                     * 0: still in x30 */
	int64_t ra_off;
	int fp_at;          /* 1: the caller's x29 is at sp + fp_off; 0:
	                     * x29 still holds it */
	int64_t fp_off;
};

typedef size_t (*spi_a64_read_fn)(void *ctx, uint64_t addr, uint8_t *buf,
    size_t len);

/* Analyses the function containing pc.  0 with *out filled (known 0 when
 * it could not tell); bounded by the maxima whatever the bytes. */
int spi_a64_leaf(uint64_t pc, spi_a64_read_fn read, void *ctx,
    struct spi_a64_leaf *out);

#endif
