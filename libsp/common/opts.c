/* SPDX-License-Identifier: MIT */
/* Options structs that grow: the one reader of their sz (opts_int.h). */
#include <stdint.h>
#include <string.h>

#include "sp/common/error.h"
#include "opts_int.h"

int
spi_opts_copy(void *dst, size_t dst_size, const void *src,
    size_t baseline, const char *name, struct sp_diag *diag)
{
	const uint8_t *p = src;
	size_t sz, i;

	memset(dst, 0, dst_size);
	if (src == NULL)
		return 0;
	/* The struct is read as bytes: its sz is the only field known to
	 * be there whatever the caller's release. */
	memcpy(&sz, src, sizeof(sz));
	if (sz == 0)
		sz = baseline;
	if (sz < sizeof(sz) || sz > SPI_OPTS_SZ_MAX)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "struct %s: sz %zu is "
		    "not the size of an options struct (%zu to %u bytes): set "
		    "it to sizeof(struct %s), or 0, and zero the rest", name,
		    sz, sizeof(sz), SPI_OPTS_SZ_MAX, name);
	for (i = dst_size; i < sz; i++)
		if (p[i] != 0)
			return sp_diag_set(diag, 0, -SP_EUSAGE, "struct %s: "
			    "byte %zu of its %zu is set, past the %zu this "
			    "libstackpulse knows: a field of a newer release; "
			    "link with that release, or leave the field 0",
			    name, i, sz, dst_size);
	memcpy(dst, src, sz < dst_size ? sz : dst_size);
	memcpy(dst, &dst_size, sizeof(dst_size));
	return 0;
}
