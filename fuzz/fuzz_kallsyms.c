/* SPDX-License-Identifier: MIT */
/* kallsyms text: symbols sorted, aliases share a range, other ranges are
 * disjoint; each is found from its first to its last byte. */
#include <stdlib.h>
#include <string.h>

#include "sym/kallsyms_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_ksym s, p = { 0, 0, NULL, NULL };
	struct sp_kallsyms *k;
	uint64_t a, start;
	size_t i;

	if (spi_kallsyms_parse((const char *)data, size, &k) != 0)
		return 0;
	for (i = 0; spi_kallsyms_symbol(k, i, &s) == 0; p = s, i++)
		if (s.end <= s.start || s.name[0] == '\0' || (i > 0 &&
		    (p.start == s.start ? p.end != s.end : p.end > s.start)) ||
		    spi_kallsyms_find(k, s.start, &start, NULL) == NULL ||
		    start != s.start ||
		    spi_kallsyms_find(k, s.end - 1, &start, NULL) == NULL ||
		    start != s.start)
			abort();
	for (i = 0; i + 8 <= size && i < 512; i += 8) {
		memcpy(&a, data + i, 8);
		if (spi_kallsyms_find(k, a, &start, NULL) != NULL && start > a)
			abort();
	}
	spi_kallsyms_free(k);
	return 0;
}
