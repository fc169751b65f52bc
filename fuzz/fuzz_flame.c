/* SPDX-License-Identifier: MIT */
/* Folded stacks: fed in pieces (first byte: piece size) they parse as
 * one text; the SVG of any profile, compared with itself, is complete. */
#include <stdlib.h>
#include <string.h>

#include "sp/report/flame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_flame *f, *g;
	struct sp_flame_svg_opts o;
	size_t piece, i, len = 0;
	char *svg = NULL;
	FILE *out;

	if (size < 1 || sp_flame_parse((const char *)data + 1, size - 1,
	    &f) != 0)
		return 0;
	if (sp_flame_new(&g) != 0)
		abort();
	for (piece = data[0] + 1u, i = 1; i < size; i += piece)
		if (sp_flame_feed(g, (const char *)data + i, size - i < piece ?
		    size - i : piece) != 0)
			abort();
	if (sp_flame_end(g) != 0 || sp_flame_samples(f) != sp_flame_samples(g)
	    || sp_flame_frames(f) != sp_flame_frames(g) ||
	    sp_flame_bad_count(f) != sp_flame_bad_count(g))
		abort();
	sp_flame_svg_defaults(&o);
	o.icicle = data[0] & 1;
	o.colors = data[0] >> 1 & 1 ? SP_FLAME_LANG : SP_FLAME_MODULE;
	o.before = data[0] & 4 ? g : NULL;
	if ((out = open_memstream(&svg, &len)) == NULL)
		abort();
	if (sp_flame_svg(f, &o, out) != (sp_flame_samples(f) ? 0 :
	    -SP_ENOTFOUND) || fclose(out) != 0 || (sp_flame_samples(f) &&
	    (len < 7 || strcmp(svg + len - 7, "</svg>\n") != 0)))
		abort();
	free(svg);
	sp_flame_free(f);
	sp_flame_free(g);
	return 0;
}
