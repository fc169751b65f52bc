/* SPDX-License-Identifier: MIT */
/* A process's executable mappings: a sorted table of address ranges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_int.h"
#include "rec_ctx_int.h"
#include "unwind/cfi_table_int.h"

/* Drops a mapping's reference; the last one frees the file's CFI. */
static void
file_unref(struct rec_ctx *r, struct rec_file *f)
{
	struct rec_file **pp;

	if (f == NULL || --f->refs > 0)
		return;
	for (pp = &r->files; *pp != NULL; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	if (f->cfi != NULL) {
		/* The row cache points into the table. */
		spi_unwind_cache_forget(r->cache, f->cfi);
		spi_cfi_table_free(f->cfi);
		r->c[C_CFI_RELEASED]++;
	}
	spi_elf_file_free(f->elf);
	if (f->unreachable && f->keep_fd >= 0)
		(void)close(f->keep_fd);
	free(f->path);
	free(f);
}

/* p's mappings change: memos of them are stale, and its code may be
 * another (a new epoch).  (r is NULL in unit tests of tables without
 * files.) */
static void
changed(struct rec_ctx *r, struct rec_proc *p)
{
	if (r != NULL) {
		r->maps_gen++;
		if (p != NULL)
			p->code_epoch = ++r->epochs;
	}
}

/* The mapping containing ip, or NULL (binary search). */
const struct rec_range *
spi_rec_find_range(const struct rec_proc *p, uint64_t ip)
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
 * mapping replaces the old one there (mmap over a range, exec).  Every
 * range holds a reference on its file: nr gets one, a range split in two
 * one more, a range cut away entirely loses its.
 */
int
spi_rec_insert_range(struct rec_ctx *r, struct rec_proc *p,
    const struct rec_range *nr)
{
	struct rec_range *v = malloc((p->nmaps + 2) * sizeof(*v));
	size_t i, j = 0;
	int placed = 0;

	if (v == NULL)
		return -ENOMEM;
	changed(r, p);
	/* First: nr may replace the last other mapping of its own file (a
	 * rescan of /proc/PID/maps). */
	if (nr->file != NULL)
		nr->file->refs++;
	for (i = 0; i < p->nmaps; i++) {
		struct rec_range o = p->maps[i];
		int kept = 0;

		if (o.end <= nr->start) {
			v[j++] = o;
			continue;
		}
		if (!placed) {
			if (o.start < nr->start) {
				v[j] = o;
				v[j++].end = nr->start;
				kept++;
			}
			v[j++] = *nr;
			placed = 1;
		}
		if (o.start >= nr->end) {
			v[j++] = o;
			kept++;
		} else if (o.end > nr->end) {
			o.offset += nr->end - o.start;
			o.start = nr->end;
			v[j++] = o;
			kept++;
		}
		if (o.file != NULL && kept == 2)
			o.file->refs++;
		else if (kept == 0)
			file_unref(r, o.file);
	}
	if (!placed)
		v[j++] = *nr;
	free(p->maps);
	p->maps = v;
	p->nmaps = j;
	p->capmaps = j;
	return 0;
}

void
spi_rec_drop_maps(struct rec_ctx *r, struct rec_proc *p)
{
	size_t i;

	changed(r, p);
	for (i = 0; i < p->nmaps; i++)
		file_unref(r, p->maps[i].file);
	p->nmaps = 0;
}

int
spi_rec_clone_maps(struct rec_ctx *r, struct rec_proc *child,
    const struct rec_proc *parent)
{
	struct rec_range *v;
	size_t i;

	if (parent->nmaps == 0)
		return 0;
	v = malloc(parent->nmaps * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	changed(r, child);
	memcpy(v, parent->maps, parent->nmaps * sizeof(*v));
	for (i = 0; i < parent->nmaps; i++)
		if (v[i].file != NULL)
			v[i].file->refs++;
	spi_rec_drop_maps(r, child);
	free(child->maps);
	child->maps = v;
	child->nmaps = child->capmaps = parent->nmaps;
	return 0;
}

void
spi_rec_proc_free(struct rec_ctx *r, struct rec_proc *p)
{
	changed(r, p); /* its pid may come back */
	if (p != NULL) {
		spi_rec_drop_maps(r, p);
		free(p->maps);
	}
	free(p);
}
