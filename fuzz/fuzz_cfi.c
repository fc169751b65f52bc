/* SPDX-License-Identifier: MIT */
/* The CFI parser and interpreter on arbitrary .eh_frame bytes, and the
 * expression evaluator on the same bytes: no crash, no hang. */
#include <stdint.h>

#include "dwarf/cfi_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
no_memory(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	*v = addr ^ 0x5555;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_cfi_section sec = { data, size, 0x10000, 0x20000, 0 };
	uint64_t regs[SPI_CFI_NREGS] = { 0 }, begin, end, v;
	struct sp_cfi_row row;
	struct sp_diag why;
	size_t off = 0, next, n;

	for (n = 0; n < 10000 && off < size; n++, off = next) {
		next = 0;
		if (spi_cfi_fde_range(&sec, off, &begin, &end, &next) == 0)
			(void)spi_cfi_row_at(&sec, off, begin + (end - begin) / 2,
			    &row, NULL, &why);
		if (next <= off)
			break;
	}
	sec.debug_frame = 1;
	(void)spi_cfi_fde_range(&sec, 0, &begin, &end, &next);
	(void)spi_dwarf_expr(data, size, regs, 0xffff, 0, 1, no_memory, NULL, &v);
	return 0;
}
