/* SPDX-License-Identifier: MIT */
/* The ELF reader and symbol index on arbitrary bytes: headers, build-id,
 * debuglink, every section (inflated), symbols, PLT stubs and lookups. */
#include <stdint.h>
#include <string.h>

#include "elf/elf_int.h"
#include "elf/elfsym_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { ".symtab", ".dynsym", ".strtab",
	".debug_info", ".debug_line", ".debug_abbrev", ".debug_str",
	".gnu_debuglink", ".note.gnu.build-id", ".text", ".eh_frame" };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_elf_file *f;
	struct sp_elf_syms *s;
	const uint8_t *p;
	const char *name;
	uint64_t v = 0, entry = 0, plt = 0, start;
	size_t i, len;
	uint32_t crc;

	if (spi_elf_file_open_mem(data, size, &f, NULL) != 0)
		return 0;
	(void)spi_elf_file_build_id(f, &p, &len);
	if (spi_elf_file_debuglink(f, &name, &crc) == 0 && strchr(name, '/'))
		__builtin_trap();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)spi_elf_file_section(f, names[i], &p, &len);
	(void)spi_elf_file_has_debug(f);
	(void)spi_elf_file_vaddr(f, size / 2, &v);
	(void)spi_elf_file_exec_vaddr(f, size / 2, &v);
	if (size >= 32) /* e_entry: where real files have a symbol */
		memcpy(&entry, data + 24, sizeof(entry));
	(void)spi_elf_file_section_addr(f, ".plt", &plt);
	if (spi_elf_syms_load(f, &s) == 0) {
		/* Where real files have symbols, and their PLT stubs. */
		for (i = 0; i < 48; i++) {
			uint64_t a = (i % 3 == 0 ? entry : i % 3 == 1 ? v : plt) +
			    (i / 3) * 8;

			name = spi_elf_syms_find(s, a, &start);
			if (name != NULL && (start > a || name[0] == '\0'))
				__builtin_trap();
		}
		spi_elf_syms_free(s);
	}
	spi_elf_file_free(f);
	return 0;
}
