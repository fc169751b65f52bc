/* SPDX-License-Identifier: MIT */
/*
 * The report's lists: the tables of usable files that were skipped, and
 * every module that kept address-only frames, with how many and why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "sp/spool/format.h"
#include "sym_int.h"

static void
hex_id(char *out, const uint8_t *id, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < SP_BUILD_ID_MAX; i++)
		(void)snprintf(out + 2 * i, 3, "%02x", id[i]);
	out[2 * i] = '\0';
}

int
spi_sym_report_damaged(struct sym_ctx *c, const char *path, const char *what,
    int err)
{
	struct sp_sym_report *rep = c->rep;
	struct sp_sym_damaged *v;

	if (spi_grow_zeroed(&rep->damaged, &c->capdamaged, rep->ndamaged + 1,
	    sizeof(*v)) != 0)
		return -ENOMEM;
	v = &rep->damaged[rep->ndamaged++];
	(void)snprintf(v->path, sizeof(v->path), "%s", path != NULL ? path :
	    "(in memory)");
	(void)snprintf(v->what, sizeof(v->what), "%s: %s", what,
	    err == -SP_EFORMAT ? "malformed" : err == -SP_ENOTFOUND ?
	    "no PT_LOAD holds a recorded file offset" : sp_strerror(err));
	return 0;
}

int
spi_sym_report_fetch(struct sym_ctx *c, const struct sym_file *f)
{
	struct sp_sym_report *rep = c->rep;
	struct sp_sym_fetch *v;
	size_t i;

	if (spi_grow_zeroed(&rep->fetches, &c->capfetches, rep->nfetches + 1,
	    sizeof(*v)) != 0)
		return -ENOMEM;
	v = &rep->fetches[rep->nfetches++];
	(void)snprintf(v->path, sizeof(v->path), "%s", f->path);
	for (i = 0; i < f->id_len; i++)
		(void)snprintf(v->build_id + 2 * i, 3, "%02x", f->build_id[i]);
	(void)snprintf(v->said, sizeof(v->said), "%s",
	    f->found.debuginfod_said);
	v->used = f->found.debuginfod;
	return 0;
}

/* A new, empty entry; its index + 1 in *index. */
static int
new_entry(struct sym_ctx *c, const char *path, const char *why,
    size_t *index)
{
	struct sp_sym_report *rep = c->rep;
	struct sp_sym_missing *m;
	int err;

	err = spi_grow_zeroed((void **)&rep->missing, &c->capmissing,
	    rep->nmissing + 1, sizeof(*rep->missing));
	if (err < 0)
		return err;
	m = &rep->missing[rep->nmissing];
	(void)snprintf(m->path, sizeof(m->path), "%s", path);
	(void)snprintf(m->why, sizeof(m->why), "%s", why);
	*index = rep->nmissing + 1;
	rep->nmissing++;
	return 0;
}

static int
has_symtab(const struct sp_elf_file *f)
{
	return f != NULL && spi_elf_file_has_section(f, ".symtab");
}

/*
 * Why the usable tables of f did not name a frame.  A .dynsym holds only
 * what the file exports, so a stripped binary or library names few of
 * its functions; a .symtab names them all, and misses only code outside
 * every symbol (hand-written assembly, padding; PLT stubs of other
 * machines than x86-64).
 */
static const char *
file_why(const struct sym_file *f, int *want_debug)
{
	*want_debug = 0;
	if (f->state < 0 && f->found.binary == NULL && f->found.debug == NULL)
		return f->found.mismatches > 0 ? "no symbols: the files found "
		    "have another build-id" : "no symbols: its file was not "
		    "found";
	if (f->state < 0)
		return f->found.debug != NULL ? "no symbols in it or its debug "
		    "file" : "no symbols: stripped (no function symbols, no "
		    "DWARF), and no debug file found";
	if (has_symtab(f->found.binary) || has_symtab(f->found.debug))
		return f->dwarf != NULL ? "no symbol of .symtab or DWARF "
		    "function covers these addresses" : "no symbol of .symtab "
		    "covers these addresses";
	*want_debug = 1;
	if (f->dwarf != NULL)
		return "no .symtab, and neither its .dynsym (exported "
		    "functions only) nor DWARF covers these addresses";
	return f->found.debug != NULL ? "its debug file has no .symtab: "
	    "only .dynsym (exported functions)" : "only .dynsym (exported "
	    "functions): no .symtab, and no debug file found";
}

int
spi_sym_report_file_frame(struct sym_ctx *c, struct sym_file *f)
{
	struct sp_sym_missing *m;
	const char *why;
	int want_debug, err;

	if (f->missing == 0) {
		why = file_why(f, &want_debug);
		if ((err = new_entry(c, f->path, why, &f->missing)) < 0)
			return err;
		m = &c->rep->missing[f->missing - 1];
		hex_id(m->build_id, f->build_id, f->id_len);
		(void)snprintf(m->tried, sizeof(m->tried), "%s",
		    f->found.tried[0] ? f->found.tried : "-");
		m->mismatches = f->found.mismatches;
		m->no_symbols = f->state < 0;
		m->want_debug = want_debug || f->state < 0;
	}
	c->rep->missing[f->missing - 1].frames++;
	return 0;
}

/* The entry of name and why among those of modules without a file. */
static int
find_entry(struct sym_ctx *c, const char *name, const char *why,
    size_t *index)
{
	const struct sp_sym_missing *m;
	size_t i;

	for (i = 0; i < c->rep->nmissing; i++) {
		m = &c->rep->missing[i];
		if (m->tried[0] == '\0' && strcmp(m->path, name) == 0 &&
		    strcmp(m->why, why) == 0) {
			*index = i + 1;
			return 0;
		}
	}
	return new_entry(c, name, why, index);
}

int
spi_sym_report_frame(struct sym_ctx *c, uint32_t id, const struct sp_module *m,
    const char *why)
{
	const struct sp_str *path = m != NULL ?
	    sp_defs_string(c->defs, m->path) : NULL;
	char name[1024];
	size_t index = 0;
	int err;

	/* The reason of a module's frames is the same for all of them. */
	if (id > 0 && id <= c->capunnamed_of && c->unnamed_of[id - 1] != 0)
		index = c->unnamed_of[id - 1];
	if (index == 0) {
		(void)snprintf(name, sizeof(name), "%.*s", path != NULL ?
		    (int)strnlen(path->s, path->len) : 0,
		    path != NULL ? path->s : "");
		if (name[0] == '\0')
			(void)snprintf(name, sizeof(name), "%s", m != NULL ?
			    sp_module_basename(c->defs, id) : "(no module)");
		if ((err = find_entry(c, name, why, &index)) < 0)
			return err;
	}
	if (id > 0 && index < UINT32_MAX) {
		err = spi_grow_zeroed((void **)&c->unnamed_of,
		    &c->capunnamed_of, id, sizeof(*c->unnamed_of));
		if (err < 0)
			return err;
		c->unnamed_of[id - 1] = (uint32_t)index;
	}
	c->rep->missing[index - 1].frames++;
	return 0;
}

static int
by_frames(const void *a, const void *b)
{
	const struct sp_sym_missing *x = a, *y = b;

	if (x->frames != y->frames)
		return x->frames > y->frames ? -1 : 1;
	return strcmp(x->path, y->path);
}

void
spi_sym_report_finish(struct sym_ctx *c)
{
	struct sp_sym_report *rep = c->rep;
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		if (c->files[i].missing > 0)
			rep->missing[c->files[i].missing - 1].named =
			    c->files[i].named;
	/* The indexes into the list are not used after this. */
	for (i = 0; i < c->nfiles; i++)
		c->files[i].missing = 0;
	if (rep->nmissing > 1)
		qsort(rep->missing, rep->nmissing, sizeof(*rep->missing),
		    by_frames);
}

void
sp_sym_report_fini(struct sp_sym_report *rep)
{
	if (rep == NULL)
		return;
	free(rep->missing);
	free(rep->damaged);
	free(rep->fetches);
	memset(rep, 0, sizeof(*rep));
}

void
spi_sym_report_count(struct sp_sym_report *rep, const struct sp_symbol *s)
{
	if (s->origin < sizeof(rep->by_origin) / sizeof(rep->by_origin[0]))
		rep->by_origin[s->origin]++;
	if (s->flags & SP_SYM_PYTHON_FRAME)
		rep->python_frames++;
	if (s->flags & SP_SYM_JIT)
		rep->jit_frames++;
	if (s->flags & SP_SYM_HIDDEN)
		rep->hidden++;
	if (s->flags & SP_SYM_TRUNCATED)
		rep->truncated++;
	if (s->count > 1)
		rep->inline_lines += s->count - 1;
}
