/* SPDX-License-Identifier: MIT */
/* The text of every tool's --version. */
#include <stdint.h>
#include <stdio.h>

#include "elf/elf_int.h"
#include "sp/common/error.h"
#include "sp/spool/spool.h"
#include "sp/tool/version.h"

const char *
sp_version(void)
{
	return SP_PROJECT_VERSION;
}

unsigned
sp_version_number(void)
{
	return SP_VERSION_NUMBER;
}

int
sp_version_text(const char *tool, char *buf, size_t cap)
{
	char hex[2 * SP_ELF_BUILD_ID_MAX + 1] = "unknown";
	struct sp_elf_file *f;
	const uint8_t *id;
	size_t len, i;
	int n;

	if (spi_elf_file_open("/proc/self/exe", &f, NULL) == 0) {
		if (spi_elf_file_build_id(f, &id, &len) == 0)
			for (i = 0; i < len; i++)
				(void)snprintf(hex + 2 * i, 3, "%02x", id[i]);
		spi_elf_file_free(f);
	}
	n = snprintf(buf, cap, "%s (stackpulse) %s\nspool format %d\nbuild-id %s\n",
	    tool, SP_PROJECT_VERSION, SP_VERSION, hex);
	if (n < 0 || (size_t)n >= cap)
		return -SP_ELIMIT;
	return n;
}
