/* SPDX-License-Identifier: MIT */
/* The public face of the DWARF readers: an index from addresses to units
 * (.debug_aranges, else each unit DIE's ranges) and lookups in a unit's
 * cached line table and function tree. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

int
spi_dwarf_open(const struct sp_dwarf_sections *s, struct sp_dwarf **out)
{
	struct sp_dwarf *d;
	int err;

	if (out == NULL)
		return -SP_EUSAGE;
	*out = NULL;
	if (s == NULL)
		return -SP_EUSAGE;
	if (s->info.p == NULL || s->info.len == 0 || s->line.p == NULL ||
	    s->line.len == 0)
		return -SP_ENOTFOUND;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->s = *s;
	d->work_max = SP_DWARF_WORK_MAX((uint64_t)s->info.len + s->abbrev.len +
	    s->line.len + s->str.len + s->line_str.len + s->str_offsets.len +
	    s->addr.len + s->ranges.len + s->rnglists.len + s->aranges.len);
	err = spi_dw_units_scan(d);
	if (err) {
		spi_dwarf_free(d);
		return err;
	}
	*out = d;
	return 0;
}

void
spi_dwarf_free(struct sp_dwarf *d)
{
	if (d == NULL)
		return;
	free(d->units);
	free(d->abbr);
	spi_dw_spans_fini(&d->ix);
	spi_dw_arena_free(&d->arena);
	spi_dw_scratch_free(&d->scr);
	free(d);
}

/* The compile or partial unit whose header is at .debug_info offset off. */
static struct dw_unit *
unit_at(struct sp_dwarf *d, uint64_t off)
{
	size_t lo = 0, hi = d->nunits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->units[mid].off == off)
			return &d->units[mid];
		if (d->units[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int
add_arange(void *ctx, uint64_t info_off, uint64_t lo, uint64_t hi)
{
	struct sp_dwarf *d = ctx;
	struct dw_unit *u = unit_at(d, info_off);

	if (u == NULL || (u->type != DW_UT_COMPILE && u->type != DW_UT_PARTIAL))
		return 0;
	if (lo == hi) {		/* the set was read whole */
		u->has_aranges = 1;
		return 0;
	}
	return spi_dw_spans_add(&d->ix, lo, hi, (uint32_t)(u - d->units));
}

struct unit_ranges {
	struct sp_dwarf *d;
	uint32_t idx;
};

static int
add_unit_range(void *ctx, uint64_t lo, uint64_t hi)
{
	struct unit_ranges *r = ctx;

	return spi_dw_spans_add(&r->d->ix, lo, hi, r->idx);
}

/*
 * The unit index: .debug_aranges, then the unit DIE's ranges of each
 * unit it leaves out (clang writes no .debug_aranges).  Its size is
 * bounded by the sections it comes from; a malformed unit is left out.
 */
static int
index_build(struct sp_dwarf *d)
{
	const struct sp_dwarf_sections *s = &d->s;
	size_t i;
	int err;

	d->ix.limit = SP_DWARF_RANGES_MAX(s->info.len + s->aranges.len +
	    s->ranges.len + s->rnglists.len);
	err = spi_dw_aranges(&s->aranges, add_arange, d);
	for (i = 0; err != -ENOMEM && i < d->nunits; i++) {
		struct unit_ranges r = { d, (uint32_t)i };

		if (!d->units[i].has_aranges)
			err = spi_dw_unit_ranges(d, &d->units[i], add_unit_range,
			    &r);
	}
	if (err != -ENOMEM)
		err = spi_dw_spans_sort(&d->ix);
	if (err == -ENOMEM) {
		spi_dw_spans_fini(&d->ix);
		for (i = 0; i < d->nunits; i++)
			d->units[i].has_aranges = 0;
		return err;
	}
	d->ix_done = 1;
	return 0;
}

/* The innermost node containing addr: the smallest range, and of equal
 * ones the last in DIE order (as binutils' addr2line chooses). */
static struct dw_node *
innermost(struct dw_cu *cu, uint64_t addr)
{
	const struct dw_spans *s = &cu->spans;
	size_t i = spi_dw_spans_upper(s, addr);
	const struct dw_span *best = NULL;

	while (i-- > 0 && s->maxhi[i] > addr) {
		const struct dw_span *v = &s->v[i];
		uint64_t len = v->hi - v->lo;

		if (v->hi <= addr)
			continue;
		if (best == NULL || len < best->hi - best->lo ||
		    (len == best->hi - best->lo && v->idx > best->idx))
			best = v;
	}
	return best != NULL ? &cu->nodes[best->idx] : NULL;
}

/* The frames at addr in unit u; *exact when a function or line row
 * covers it (not just the unit's ranges). */
static int
unit_frames(struct sp_dwarf *d, struct dw_unit *u, uint64_t addr,
    struct sp_dwarf_frame *out, size_t max, int *exact)
{
	struct dw_cu *cu;
	const struct dw_row *row;
	struct dw_node *n;
	size_t k = 1;
	int err = spi_dw_unit_load(d, u);

	*exact = 0;
	if (err)
		return err;
	cu = u->cu;
	row = spi_dw_lines_find(&cu->lines, addr);
	n = innermost(cu, addr);
	*exact = row != NULL || n != NULL;
	out[0].function = NULL;
	out[0].file = NULL;
	out[0].line = row != NULL ? row->line : 0;
	out[0].column = row != NULL ? (row->file & ~DW_ROW_END) >>
	    DW_ROW_COL_SHIFT : 0;
	if (row != NULL)
		err = spi_dw_lines_path(&d->arena, &cu->lines,
		    row->file & DW_ROW_FILE, &out[0].file);
	if (err == 0 && n != NULL)
		err = spi_dw_node_name(d, n);
	if (err || n == NULL)
		return err ? err : 1;
	out[0].function = n->name;
	/* Callers: parents have lower indexes, so this ends. */
	for (; n->inlined && n->parent >= 0 && k < max; k++) {
		struct dw_node *caller = &cu->nodes[n->parent];

		err = spi_dw_node_name(d, caller);
		if (err == 0)
			err = spi_dw_lines_path(&d->arena, &cu->lines,
			    n->call_file, &out[k].file);
		if (err)
			return err;
		out[k].function = caller->name;
		out[k].line = n->call_line;
		out[k].column = n->call_column;
		n = caller;
	}
	return (int)k;
}

int
spi_dwarf_lookup(struct sp_dwarf *d, uint64_t addr,
    struct sp_dwarf_frame *out, size_t max)
{
	size_t i, rough = SIZE_MAX;
	int err = 0, n, exact;

	if (d == NULL || out == NULL || max == 0)
		return -SP_EUSAGE;
	if (!d->ix_done && (err = index_build(d)) != 0)
		return err;
	/* Units may overlap (code discarded by the linker sits at 0): take
	 * the first whose function or line table covers addr. */
	i = spi_dw_spans_upper(&d->ix, addr);
	while (i-- > 0 && d->ix.maxhi[i] > addr) {
		if (d->ix.v[i].hi <= addr)
			continue;
		n = unit_frames(d, &d->units[d->ix.v[i].idx], addr, out, max,
		    &exact);
		if (n == -ENOMEM)
			return n;
		if (n < 0 && err == 0)
			err = n;
		if (n > 0 && exact)
			return n;
		if (n > 0 && rough == SIZE_MAX)
			rough = i;
	}
	if (rough != SIZE_MAX)
		return unit_frames(d, &d->units[d->ix.v[rough].idx], addr, out,
		    max, &exact);
	return err;
}
