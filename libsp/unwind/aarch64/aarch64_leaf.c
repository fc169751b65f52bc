/* SPDX-License-Identifier: MIT */
/* The A64 leaf analysis: until its decoder lands, it tells nothing, and
 * the walk takes the frame record (spi_arch_leaf_step counts it as
 * leaf_insn_unknown). */
#include <string.h>

#include "aarch64_leaf_int.h"

int
spi_a64_leaf(uint64_t pc, spi_a64_read_fn read, void *ctx,
    struct spi_a64_leaf *out)
{
	(void)pc, (void)read, (void)ctx;
	memset(out, 0, sizeof(*out));
	return 0;
}
