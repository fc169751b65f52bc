/* SPDX-License-Identifier: MIT */
/* A process's executable mappings: a sorted table of address ranges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recorder_int.h"

/* The mapping containing ip, or NULL (binary search). */
const struct rec_range *
rec_find_range(const struct rec_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < p->maps[mid].start)
			hi = mid;
		else if (ip >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/*
 * Inserts nr into p's sorted table, cutting away what it overlaps: a new
 * mapping replaces the old one there (mmap over a range, exec).
 */
int
rec_insert_range(struct rec_proc *p, const struct rec_range *nr)
{
	struct rec_range *v = malloc((p->nmaps + 2) * sizeof(*v));
	size_t i, j = 0;
	int placed = 0;

	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < p->nmaps; i++) {
		struct rec_range o = p->maps[i];

		if (o.end <= nr->start) {
			v[j++] = o;
			continue;
		}
		if (!placed) {
			if (o.start < nr->start) {
				v[j] = o;
				v[j++].end = nr->start;
			}
			v[j++] = *nr;
			placed = 1;
		}
		if (o.start >= nr->end) {
			v[j++] = o;
		} else if (o.end > nr->end) {
			o.offset += nr->end - o.start;
			o.start = nr->end;
			v[j++] = o;
		}
	}
	if (!placed)
		v[j++] = *nr;
	free(p->maps);
	p->maps = v;
	p->nmaps = j;
	p->capmaps = j;
	return 0;
}

int
rec_clone_maps(struct rec_proc *child, const struct rec_proc *parent)
{
	struct rec_range *v;

	if (parent->nmaps == 0)
		return 0;
	v = malloc(parent->nmaps * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	memcpy(v, parent->maps, parent->nmaps * sizeof(*v));
	free(child->maps);
	child->maps = v;
	child->nmaps = child->capmaps = parent->nmaps;
	return 0;
}
