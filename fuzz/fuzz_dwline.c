/* SPDX-License-Identifier: MIT */
/* The line program reader: the input is 8 bytes of address, then a
 * .debug_line, under a fixed unit covering every address. */
#include <stdint.h>
#include <string.h>

#include "dwarf/debuginfo_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* DWARF 4: compile_unit, no children, stmt_list 0, [0, 2^64 - 1), "/d". */
static const uint8_t abbrev[] = { 1, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x12,
	0x07, 0x1b, 0x08, 0, 0, 0 };
static const uint8_t info[] = { 31, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, '/', 'd', 0 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t delta[] = { 0, 1, 7, 0x40, 0x1000, ~0ull };
	struct sp_dwarf_sections s;
	struct sp_dwarf_frame f[8];
	struct sp_dwarf *d;
	uint64_t addr = 0;
	size_t i;

	if (size < 8)
		return 0;
	memcpy(&addr, data, 8);
	memset(&s, 0, sizeof(s));
	s.info = (struct sp_dwarf_bytes){ info, sizeof(info) };
	s.abbrev = (struct sp_dwarf_bytes){ abbrev, sizeof(abbrev) };
	s.line = (struct sp_dwarf_bytes){ data + 8, size - 8 };
	s.str = s.line_str = s.str_offsets = s.line;	/* names resolve */
	if (spi_dwarf_open(&s, &d) != 0)
		return 0;
	for (i = 0; i < sizeof(delta) / sizeof(delta[0]); i++)
		(void)spi_dwarf_lookup(d, addr + delta[i], f, 8);
	spi_dwarf_free(d);
	return 0;
}
