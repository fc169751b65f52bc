/* SPDX-License-Identifier: MIT */
/*
 * The native backend's side of sp/sym/symbolizer.h: the requests it is
 * given (struct sp_native_lookup) and the answers it appends (struct
 * sp_native_out).  The symbolizer builds both with the same calls that a
 * backend's own tests use, so a request made up in a test has the
 * addresses a recording would give it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "sp/common/error.h"
#include "sp/sym/symbolizer.h"
#include "symbolizer_int.h"

void
spi_native_lookup_fill(struct sp_native_lookup *l, uint32_t module_id,
    const struct sp_module *m, const char *path, uint64_t abs, uint64_t rel)
{
	memset(l, 0, sizeof(*l));
	l->module = module_id;
	l->pid = m->pid;
	l->path = path;
	l->build_id = m->build_id;
	l->build_id_len = m->build_id_len;
	l->abs = abs;
	l->rel = rel;
	/* The image address from the file offset: the mapping's first byte
	 * is at elf_vaddr in the image (the recorder reads it from the
	 * program headers). */
	if (m->elf_vaddr_plus1 != 0 && rel >= m->file_offset) {
		l->image = m->elf_vaddr_plus1 - 1 + (rel - m->file_offset);
		l->image_base = abs - l->image;
		l->has_image = 1;
	}
}

int
sp_native_lookup_init(struct sp_native_lookup *l, uint32_t module_id,
    const struct sp_module *m, const char *path, uint64_t abs)
{
	if (l == NULL || m == NULL || path == NULL || module_id == 0 ||
	    (m->flags & (SP_MOD_KERNEL | SP_MOD_ANON)) || abs < m->start ||
	    abs - m->start >= m->size || m->build_id_len > SP_BUILD_ID_MAX)
		return -SP_EUSAGE;
	spi_native_lookup_fill(l, module_id, m, path, abs,
	    abs - m->start + m->file_offset);
	/* Synthetic: no image of a process to open. */
	l->open_path = NULL;
	return 0;
}

void
spi_native_out_reset(struct sp_native_out *out, size_t max)
{
	out->n = 0;
	out->nlines = 0;
	out->text.len = 0;
	out->err = 0;
	out->max = max;
}

int
sp_native_out_new(size_t max, struct sp_native_out **out)
{
	*out = NULL;
	if (max == 0)
		return -SP_EUSAGE;
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	spi_native_out_reset(*out, max);
	return 0;
}

void
sp_native_out_free(struct sp_native_out *out)
{
	if (out == NULL)
		return;
	spi_native_out_fini(out);
	free(out);
}

void
spi_native_out_fini(struct sp_native_out *out)
{
	free(out->a);
	free(out->lines);
	spi_buf_fini(&out->text);
}

int
sp_native_append(struct sp_native_out *out, enum sp_native_status status,
    const struct sp_native_line *lines, size_t nlines)
{
	struct answer *a;
	size_t i;

	if (out->n >= out->max || (status == SP_NATIVE_NAMED &&
	    (nlines == 0 || lines == NULL || lines[0].function == NULL)) ||
	    status > SP_NATIVE_FALLBACK)
		return -SP_EUSAGE;
	if (status != SP_NATIVE_NAMED)
		nlines = 0;
	if (nlines > SP_INLINE_MAX)
		nlines = SP_INLINE_MAX;
	if (spi_grow_zeroed((void **)&out->a, &out->cap, out->n + 1,
	    sizeof(*out->a)) != 0 ||
	    spi_grow_zeroed((void **)&out->lines, &out->caplines,
	    out->nlines + nlines, sizeof(*out->lines)) != 0)
		return out->err = -ENOMEM;
	a = &out->a[out->n];
	a->status = status;
	a->first = (uint32_t)out->nlines;
	a->count = 0;
	for (i = 0; i < nlines && lines[i].function != NULL; i++) {
		struct oline *l = &out->lines[out->nlines + i];

		/* Offsets: text may move while it grows. */
		l->line = lines[i].line;
		l->column = lines[i].column;
		l->function = out->text.len + 1;
		spi_buf_put(&out->text, lines[i].function,
		    strlen(lines[i].function) + 1);
		l->file = 0;
		if (lines[i].file != NULL) {
			l->file = out->text.len + 1;
			spi_buf_put(&out->text, lines[i].file,
			    strlen(lines[i].file) + 1);
		}
		a->count++;
	}
	if (out->text.err)
		return out->err = out->text.err;
	out->nlines += a->count;
	out->n++;
	return 0;
}

size_t
sp_native_out_count(const struct sp_native_out *out)
{
	return out->n;
}

/* A string of the answers' text, by offset + 1 (0: NULL). */
static const char *
out_text(const struct sp_native_out *out, size_t off)
{
	return off == 0 ? NULL : (const char *)spi_buf_at(&out->text, off - 1);
}

int
sp_native_out_answer(const struct sp_native_out *out, size_t i,
    enum sp_native_status *status, struct sp_native_line *lines,
    size_t *nlines)
{
	const struct answer *a;
	uint32_t k;

	if (i >= out->n)
		return -SP_EUSAGE;
	a = &out->a[i];
	*status = a->status;
	*nlines = a->count;
	for (k = 0; k < a->count; k++) {
		const struct oline *l = &out->lines[a->first + k];

		lines[k].function = out_text(out, l->function);
		lines[k].file = out_text(out, l->file);
		lines[k].line = l->line;
		lines[k].column = l->column;
	}
	return 0;
}
