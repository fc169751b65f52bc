/* SPDX-License-Identifier: MIT */
/* The DWARF readers on whole section sets: the input starts with four
 * 8-byte addresses and ten 2-byte section lengths (struct sp_dwarf_
 * sections' order), then the sections' bytes one after the other. */
#include <stdint.h>
#include <string.h>

#include "dwarf/debuginfo_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_dwarf_sections s;
	struct sp_dwarf_bytes *b[] = { &s.info, &s.abbrev, &s.line, &s.str,
		&s.line_str, &s.str_offsets, &s.addr, &s.ranges, &s.rnglists,
		&s.aranges };
	struct sp_dwarf_frame f[8];
	struct sp_dwarf *d;
	uint64_t addr[4];
	size_t i, off = 52;

	if (size < off)
		return 0;
	memcpy(addr, data, sizeof(addr));
	for (i = 0; i < 10; i++) {
		size_t n = (size_t)(data[32 + 2 * i] | data[33 + 2 * i] << 8);

		b[i]->len = n < size - off ? n : size - off;
		b[i]->p = data + off;
		off += b[i]->len;
	}
	if (spi_dwarf_open(&s, &d) != 0)
		return 0;
	for (i = 0; i < 8; i++)
		(void)spi_dwarf_lookup(d, addr[i % 4] + i / 4, f, 1 + i);
	spi_dwarf_free(d);
	return 0;
}
