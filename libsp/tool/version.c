/* SPDX-License-Identifier: MIT */
/* The text of every tool's --version. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "sp/elfid.h"
#include "sp/error.h"
#include "sp/spool.h"
#include "sp/version.h"

int
sp_version_text(const char *tool, char *buf, size_t cap)
{
	uint8_t id[64];
	char hex[2 * sizeof(id) + 1] = "unknown";
	size_t len = 0, i;
	int fd, n;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (sp_elf_build_id(fd, id, sizeof(id), &len) == 0 && len > 0) {
			for (i = 0; i < len && i < sizeof(id); i++)
				(void)snprintf(hex + 2 * i, 3, "%02x", id[i]);
		}
		(void)close(fd);
	}
	n = snprintf(buf, cap, "%s (stackpulse) %s\nspool format %d\nbuild-id %s\n",
	    tool, SP_PROJECT_VERSION, SP_VERSION, hex);
	if (n < 0 || (size_t)n >= cap)
		return -SP_ELIMIT;
	return n;
}
