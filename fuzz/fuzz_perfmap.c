/* SPDX-License-Identifier: MIT */
/* Perf map text: entries sorted and disjoint, each found at both ends and
 * nowhere in a gap, names NUL-terminated, py:: spans inside the name. */
#include <stdlib.h>
#include <string.h>

#include "sym/perfmap_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct spi_perf_map_entry *e, *p = NULL;
	struct sp_perf_map *m;
	const char *f, *s;
	size_t i, fl, sl;
	uint64_t a;

	if (spi_perf_map_parse((const char *)data, size, &m) != 0)
		return 0;
	for (i = 0; (e = spi_perf_map_entry(m, i)) != NULL; p = e, i++)
		if (e->size == 0 || (p && p->start + p->size > e->start) ||
		    strlen(e->name) != e->name_len ||
		    spi_perf_map_find(m, e->start) != e ||
		    spi_perf_map_find(m, e->start + e->size - 1) != e ||
		    (e->start > 0 && spi_perf_map_find(m, e->start - 1) !=
		    (p && p->start + p->size == e->start ? p : NULL)) ||
		    (spi_perf_map_python(e->name, e->name_len, &f, &fl, &s, &sl)
		    && (f != e->name + 4 || s + sl != e->name + e->name_len)))
			abort();
	for (i = 0; i + 8 <= size && i < 512; i += 8) {
		memcpy(&a, data + i, 8);
		e = spi_perf_map_find(m, a);
		if (e != NULL && a - e->start >= e->size)
			abort();
	}
	spi_perf_map_free(m);
	return 0;
}
