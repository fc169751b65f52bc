/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolizer: the resolver (sym_resolve.c, sym_elf.c) with its strings
 * in a table of its own, a cache of every frame resolved, and a native
 * backend a program can replace.  sp-sym's copy loop (symbolize.c) is
 * built on it: one frame at a time, uncached.
 *
 * A frame is resolved once into a slot (by the reader's frame id, or by
 * pid and address for raw addresses) holding its lines, which name
 * strings of the table.  A backend's lookups are gathered over a stack,
 * asked in one batch, and each answer put through the same resolver
 * again, so module names, kinds and the report come out as for the
 * built-in backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "sp/spool/format.h"
#include "sp/sym/symbolizer.h"
#include "sym_int.h"
#include "symbolizer_int.h"

/* A kernel address: the upper half of the address space, where the
 * 64-bit architectures Linux runs on (x86-64, arm64) put the kernel.  A
 * reader may run on another machine than the recording's. */
#define KERNEL_HALF (1ull << 63)

static const char *
str(const struct sp_symbolizer *s, uint32_t id)
{
	if (id == 0 || id > s->strs.used)
		return NULL;
	return (const char *)spi_buf_at(&s->strs.keys, s->strs.entries[id - 1].off);
}

/*
 * The hook of c->native.  Gathering: sets the frame aside (3).  Applying
 * answer i: adds its lines (1), counts the frame as unnamed (2), or
 * names it as the built-in backend does (SP_NATIVE_FALLBACK).
 */
static int
native_hook(struct sym_ctx *c, uint32_t module_id, const struct sp_module *m,
    const struct sp_frame *f)
{
	struct sp_symbolizer *s = c->native_arg;
	struct sp_native_line lines[SP_INLINE_MAX];
	enum sp_native_status status = SP_NATIVE_NOT_FOUND;
	size_t i, n = 0;
	int err, answered;

	if (s->answering == 0)
		return 3;
	answered = sp_native_out_answer(&s->out, (size_t)s->answering - 1,
	    &status, lines, &n) == 0;
	/* Not the backend's module: named as without a backend. */
	if (status == SP_NATIVE_FALLBACK)
		return spi_sym_file_frame(c, f, m);
	/* What the file does not name, its process's perf map may. */
	if (status != SP_NATIVE_NAMED &&
	    (err = spi_sym_pmap_frame(c, m, f->abs_ip)) != 0)
		return err;
	if (status != SP_NATIVE_NAMED) {
		err = spi_sym_report_frame(c, module_id, m, !answered ?
		    "the native backend gave no answer" : status ==
		    SP_NATIVE_PROVISIONAL ? "the native backend could not "
		    "look it up yet" : "the native backend did not name it");
		return err < 0 ? err : 2;
	}
	for (i = 0; i < n; i++) {
		uint32_t had = c->sym.count;

		err = spi_sym_add_line(c, lines[i].function,
		    strlen(lines[i].function), lines[i].file,
		    lines[i].file != NULL ? strlen(lines[i].file) : 0,
		    lines[i].line);
		if (err < 0)
			return err;
		if (c->sym.count > had)
			c->columns[had] = lines[i].column;
	}
	c->sym.origin = SP_ORIGIN_ELF;
	return 1;
}

/*
 * The defaults that sp-sym takes from the environment, for a symbolizer
 * made without options: the debug directories of STACKPULSE_DEBUG_DIRS
 * (else /usr/lib/debug), and debuginfod's servers in DEBUGINFOD_URLS
 * with DEBUGINFOD_TIMEOUT's seconds (its cache: DEBUGINFOD_CACHE_PATH or
 * the places sp/sym/debuginfod.h names).  0, -SP_ELIMIT or -ENOMEM.
 */
static int
env_defaults(struct sp_symbolizer *s)
{
	/* Read once here, copied: a later setenv changes nothing. */
	/* NOLINTBEGIN(concurrency-mt-unsafe) */
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	/* NOLINTEND(concurrency-mt-unsafe) */
	char *end;
	long secs;
	int err = sp_debug_dirs_from_env(&s->env_dirs);

	if (err < 0)
		return err;
	s->o.debug_dirs = s->env_dirs.dirs;
	s->o.ndebug_dirs = s->env_dirs.n;
	if (urls == NULL || urls[strspn(urls, " ")] == '\0')
		return 0;
	if ((s->env_urls = strdup(urls)) == NULL)
		return -ENOMEM;
	s->env_dbgd.urls = s->env_urls;
	/* As sp-sym's, but a bad value is the default here, not an error. */
	errno = 0;
	secs = t != NULL ? strtol(t, &end, 10) : 0;
	if (t != NULL && errno == 0 && end != t && *end == '\0' && secs >= 1 &&
	    secs <= 3600)
		s->env_dbgd.timeout_s = (int)secs;
	s->o.debuginfod = &s->env_dbgd;
	return 0;
}

int
sp_symbolizer_new(const struct sp_defs *defs, const struct sp_header *hdr,
    const struct sp_sym_options *o, const struct sp_native_backend *backend,
    struct sp_symbolizer **out)
{
	return spi_symbolizer_new(defs, hdr, o, backend, NULL, out);
}

int
spi_symbolizer_new(const struct sp_defs *defs, const struct sp_header *hdr,
    const struct sp_sym_options *o, const struct sp_native_backend *backend,
    struct sp_sym_report *rep, struct sp_symbolizer **out)
{
	struct sp_symbolizer *s;
	int err;

	*out = NULL;
	if (defs == NULL || hdr == NULL ||
	    (backend != NULL && backend->lookup == NULL))
		return -SP_EUSAGE;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	if (o != NULL)
		err = spi_opts_copy(&s->o, sizeof(s->o), o, SYM_OPTS_SZ0,
		    "sp_sym_options", NULL);
	else
		err = env_defaults(s);
	if (err < 0) {
		sp_symbolizer_free(s);
		return err;
	}
	s->c.o = &s->o;
	s->c.rep = rep != NULL ? rep : &s->rep;
	s->c.defs = defs;
	s->c.hdr = hdr;
	s->c.own = &s->strs;
	s->c.native_arg = s;
	if (backend != NULL) {
		s->be = *backend;
		s->have_be = 1;
		s->c.native = native_hook;
	}
	s->rawmap.words = 2;
	s->ids.words = 3;
	s->stack = malloc(SP_RESOLVE_MAX * sizeof(*s->stack));
	s->invalid = malloc(MAX_INVALID * sizeof(*s->invalid));
	if (s->stack == NULL || s->invalid == NULL) {
		sp_symbolizer_free(s);
		return -ENOMEM;
	}
	{
		static const uint8_t zero[16];
		struct sp_header me;

		s->c.this_boot = sp_header_init_host(&me) == 0 &&
		    memcmp(hdr->boot_id, zero, 16) != 0 &&
		    memcmp(hdr->boot_id, me.boot_id, 16) == 0;
	}
	err = spi_sym_string(&s->c, "[truncated]", 11, &s->truncated);
	if (err < 0) {
		sp_symbolizer_free(s);
		return err;
	}
	*out = s;
	return 0;
}

static enum sp_resolved_kind
kind_of(const struct sp_symbolizer *s, const struct sp_frame *f)
{
	const struct sp_module *m = sp_defs_module(s->c.defs, f->module);

	if (s->c.sym.flags & SP_SYM_PYTHON_FRAME)
		return SP_RESOLVED_PYTHON;
	if (s->c.sym.origin == SP_ORIGIN_KERNEL || f->mode == SP_FRAME_KERNEL ||
	    (m != NULL && (m->flags & SP_MOD_KERNEL)))
		return SP_RESOLVED_KERNEL;
	if (f->mode == SP_FRAME_USER && m != NULL)
		return SP_RESOLVED_NATIVE;
	return SP_RESOLVED_UNKNOWN;
}

/* Whether a later call may name f better: a JIT frame not in its map. */
static int
provisional(const struct sp_symbolizer *s, const struct sp_frame *f)
{
	const struct sp_module *m = sp_defs_module(s->c.defs, f->module);

	return s->c.sym.origin == SP_ORIGIN_ADDRESS && m != NULL &&
	    (m->flags & SP_MOD_ANON) && m->pid != 0 && !s->o.perf_maps_none;
}

/* c->sym into *sl, its strings already in the table. */
static int
store(struct sp_symbolizer *s, struct slot *sl, const struct sp_frame *f,
    int prov)
{
	uint32_t i, kind = kind_of(s, f);
	uint64_t key[3], h;
	int64_t id;

	if (spi_grow_zeroed((void **)&s->lines, &s->caplines,
	    s->nlines + s->c.sym.count, sizeof(*s->lines)) != 0)
		return -ENOMEM;
	sl->first = (uint32_t)s->nlines;
	for (i = 0; i < s->c.sym.count; i++) {
		const struct sp_symline *l = &s->c.lines[i];
		struct sline *o = &s->lines[s->nlines + i];

		o->function = l->function;
		o->file = l->file;
		o->line = l->line;
		o->column = s->c.columns[i];
		key[0] = (uint64_t)l->function << 32 | l->file;
		key[1] = (uint64_t)l->line << 32 | s->c.sym.module_name;
		key[2] = (uint64_t)kind << 56 | (uint64_t)o->column << 16 |
		    (s->c.sym.count - 1 - i);
		id = spi_idmap_find(&s->ids, key, &h);
		if (id == 0 && (id = spi_idmap_add(&s->ids, key, h)) < 0)
			return (int)id;
		o->id = (uint32_t)id;
	}
	s->nlines += s->c.sym.count;
	sl->count = (uint16_t)s->c.sym.count;
	sl->kind = (uint8_t)kind;
	sl->origin = s->c.sym.origin;
	sl->flags = s->c.sym.flags;
	sl->module_name = s->c.sym.module_name;
	sl->offset_plus1 = s->c.func_offset_plus1;
	sl->state = prov ? 2 : 1;
	sl->epoch = s->epoch;
	/* The symbolizer's own report counts each resolution; sp-sym's run
	 * counts the SYMBOLs it writes. */
	if (s->c.rep == &s->rep) {
		s->rep.frames++;
		spi_sym_report_count(&s->rep, &s->c.sym);
	}
	return 0;
}

static struct slot *
slot_at(struct sp_symbolizer *s, int raw, size_t index)
{
	return raw == 2 ? &s->scratch : raw ? &s->raw[index] :
	    &s->frames[index];
}

/* Resolves f into its slot, or sets it aside for the backend. */
static int
resolve_one(struct sp_symbolizer *s, int raw, size_t index,
    const struct sp_frame *f, uint32_t frame)
{
	struct pending *p;
	int err;

	memset(&s->c.sym, 0, sizeof(s->c.sym));
	s->c.sym.lines = s->c.lines;
	err = spi_sym_resolve_frame(&s->c, f, frame);
	if (err < 0)
		return err;
	if (err == 0)
		return store(s, slot_at(s, raw, index), f, provisional(s, f));
	if (spi_grow_zeroed((void **)&s->pend, &s->cappend, s->npend + 1,
	    sizeof(*s->pend)) != 0)
		return -ENOMEM;
	p = &s->pend[s->npend++];
	p->raw = raw;
	p->index = index;
	p->f = *f;
	p->frame = frame;
	return 0;
}

/*
 * The file a backend may open for m now: the very image the process has
 * mapped (/proc/PID/map_files, for root, while it runs: also when the
 * file was replaced or deleted since), else the recorded path if there
 * is a file there.
 */
static const char *
open_path(const struct sym_ctx *c, struct pending *p,
    const struct sp_module *m, const struct sp_str *path)
{
	const char *image = spi_sym_mapped_image(c, m, p->open,
	    sizeof(p->open));

	if (image != NULL)
		return image;
	if (path != NULL && path->s[0] == '/' && access(path->s, R_OK) == 0)
		return path->s;
	return NULL;
}

static void
lookup_of(const struct sp_symbolizer *s, struct pending *p,
    struct sp_native_lookup *l)
{
	const struct sp_module *m = sp_defs_module(s->c.defs, p->f.module);
	const struct sp_str *path = sp_defs_string(s->c.defs, m->path);

	spi_native_lookup_fill(l, p->f.module, m, path != NULL ? path->s : "",
	    p->f.abs_ip, p->f.rel_ip);
	l->open_path = open_path(&s->c, p, m, path);
}

/* Asks the backend for the frames set aside, and stores its answers. */
static int
ask_backend(struct sp_symbolizer *s)
{
	struct sp_native_out *out = &s->out;
	size_t i;
	int err;

	if (s->npend == 0)
		return 0;
	if (spi_grow_zeroed((void **)&s->batch, &s->capbatch, s->npend,
	    sizeof(*s->batch)) != 0)
		return -ENOMEM;
	for (i = 0; i < s->npend; i++)
		lookup_of(s, &s->pend[i], &s->batch[i]);
	spi_native_out_reset(out, s->npend);
	err = s->be.lookup(s->be.arg, s->batch, s->npend, out);
	if (err == 0)
		err = out->err;
	for (i = 0; i < s->npend && err == 0; i++) {
		const struct pending *p = &s->pend[i];
		int prov = i < out->n &&
		    out->a[i].status == SP_NATIVE_PROVISIONAL;

		s->answering = (long)i + 1;
		memset(&s->c.sym, 0, sizeof(s->c.sym));
		s->c.sym.lines = s->c.lines;
		err = spi_sym_resolve_frame(&s->c, &p->f, p->frame);
		if (err == 0)
			err = store(s, slot_at(s, p->raw, p->index), &p->f,
			    prov);
	}
	s->answering = 0;
	s->npend = 0;
	return err;
}

/* Whether a slot needs resolving (again). */
static int
stale(const struct sp_symbolizer *s, const struct slot *sl)
{
	return sl->state == 0 || (sl->state == 2 && sl->epoch != s->epoch);
}

static int
add_res(struct sp_symbolizer *s, size_t *n, struct sp_resolved_frame **r)
{
	if (spi_grow_zeroed((void **)&s->res, &s->capres, *n + 1,
	    sizeof(*s->res)) != 0)
		return -ENOMEM;
	*r = &s->res[(*n)++];
	memset(*r, 0, sizeof(**r));
	return 0;
}

/*
 * Expands the slots base[ids[i] - 1] into logical frames; addrs gives
 * their addresses, or NULL: their FRAMEs' (ids are frame ids then);
 * frames their FRAME ids, or NULL for none.
 */
static int
expand(struct sp_symbolizer *s, const struct slot *base, const uint32_t *ids,
    const uint64_t *addrs, const uint32_t *frames, size_t n, int cut,
    struct sp_resolved_stack *out)
{
	struct sp_resolved_frame *r;
	size_t i, k = 0;
	uint32_t j;
	int err;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		const struct slot *sl = &base[ids[i] - 1];
		uint64_t addr = addrs != NULL ? addrs[i] :
		    sp_defs_frame(s->c.defs, ids[i])->abs_ip;

		if (sl->state == 2)
			out->provisional = 1;
		for (j = 0; j < sl->count; j++) {
			const struct sline *l = &s->lines[sl->first + j];

			if (k + 1 >= SP_RESOLVE_MAX) {
				cut = 1;
				break;
			}
			if ((err = add_res(s, &k, &r)) < 0)
				return err;
			r->id = l->id;
			r->frame = frames != NULL ? frames[i] : 0;
			r->kind = sl->kind;
			r->origin = sl->origin;
			r->flags = sl->flags;
			r->inline_depth = sl->count - 1 - j;
			r->name = str(s, l->function);
			r->file = str(s, l->file);
			r->line = l->line;
			r->column = l->column;
			r->module = str(s, sl->module_name);
			r->address = addr;
			if (j + 1 == sl->count && sl->offset_plus1 != 0) {
				r->offset = sl->offset_plus1 - 1;
				r->has_offset = 1;
			}
		}
	}
	if (cut) {
		if ((err = add_res(s, &k, &r)) < 0)
			return err;
		r->name = str(s, s->truncated);
		r->flags = SP_SYM_TRUNCATED;
		r->origin = SP_ORIGIN_ADDRESS;
	}
	out->frames = s->res;
	out->n = k;
	return 0;
}

int
sp_symbolizer_resolve(struct sp_symbolizer *s, uint32_t stack,
    struct sp_resolved_stack *out)
{
	size_t depth = 0, i;
	int cut = 0, err;

	memset(out, 0, sizeof(*out));
	s->npend = 0;
	err = sp_defs_stack(s->c.defs, stack, s->stack, SP_RESOLVE_MAX,
	    &depth);
	if (err == -SP_ELIMIT) {
		cut = 1;
		depth = SP_RESOLVE_MAX;
	} else if (err < 0) {
		return err;
	}
	for (i = 0; i < depth; i++) {
		uint32_t id = s->stack[i];
		const struct sp_frame *f = sp_defs_frame(s->c.defs, id);

		if (f == NULL)
			return -SP_EREF;
		if (spi_grow_zeroed((void **)&s->frames, &s->capframes, id,
		    sizeof(*s->frames)) != 0)
			return -ENOMEM;
		if (stale(s, &s->frames[id - 1]) &&
		    (err = resolve_one(s, 0, id - 1, f, id)) < 0)
			return err;
	}
	if ((err = ask_backend(s)) < 0)
		return err;
	return expand(s, s->frames, s->stack, NULL, s->stack, depth, cut, out);
}

/* The module of pid over addr: the last one defined. */
static uint32_t
module_at(const struct sp_symbolizer *s, uint32_t pid, uint64_t addr)
{
	uint32_t id = sp_defs_count(s->c.defs, SP_REC_MODULE);

	for (; id > 0; id--) {
		const struct sp_module *m = sp_defs_module(s->c.defs, id);

		if (m->pid == pid && addr >= m->start &&
		    addr - m->start < m->size && !(m->flags & SP_MOD_KERNEL))
			return id;
	}
	return 0;
}

int
sp_symbolizer_resolve_raw(struct sp_symbolizer *s, uint32_t pid,
    const uint64_t *addrs, size_t n, struct sp_resolved_stack *out)
{
	uint64_t key[2], h;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	s->npend = 0;
	if (n > SP_RESOLVE_MAX || (n > 0 && addrs == NULL))
		return -SP_EUSAGE;
	for (i = 0; i < n; i++) {
		struct sp_frame f;
		const struct sp_module *m;
		int64_t id;

		key[0] = pid;
		key[1] = addrs[i];
		id = spi_idmap_find(&s->rawmap, key, &h);
		if (id == 0) {
			if ((id = spi_idmap_add(&s->rawmap, key, h)) < 0)
				return (int)id;
			if (spi_grow_zeroed((void **)&s->raw, &s->capraw,
			    (size_t)id, sizeof(*s->raw)) != 0)
				return -ENOMEM;
		}
		s->stack[i] = (uint32_t)id;
		if (!stale(s, &s->raw[id - 1]))
			continue;
		memset(&f, 0, sizeof(f));
		f.abs_ip = addrs[i];
		if (addrs[i] >= KERNEL_HALF) {
			f.mode = SP_FRAME_KERNEL;
		} else if ((f.module = module_at(s, pid, addrs[i])) != 0) {
			m = sp_defs_module(s->c.defs, f.module);
			f.rel_ip = addrs[i] - m->start + m->file_offset;
		}
		if ((err = resolve_one(s, 1, (size_t)id - 1, &f, 0)) < 0)
			return err;
	}
	if ((err = ask_backend(s)) < 0)
		return err;
	return expand(s, s->raw, s->stack, addrs, NULL, n, 0, out);
}

int
sp_symbolizer_resolve_frame(struct sp_symbolizer *s, uint32_t frame,
    struct sp_resolved_stack *out)
{
	const struct sp_frame *f = sp_defs_frame(s->c.defs, frame);
	size_t mark = s->nlines;
	int err;

	memset(out, 0, sizeof(*out));
	s->npend = 0;
	if (f == NULL)
		return -SP_EREF;
	memset(&s->scratch, 0, sizeof(s->scratch));
	s->stack[0] = 1;
	if ((err = resolve_one(s, 2, 0, f, frame)) < 0 ||
	    (err = ask_backend(s)) < 0)
		return err;
	err = expand(s, &s->scratch, s->stack, &f->abs_ip, &frame, 1, 0, out);
	/* Not cached: its lines go again. */
	s->nlines = mark;
	return err;
}

int
spi_symbolizer_frame_symbol(struct sp_symbolizer *s,
    const struct sp_defs *defs, uint32_t frame, const struct sp_symbol **out)
{
	const struct sp_defs *own = s->c.defs;
	const struct sp_frame *f;
	int err;

	*out = NULL;
	if (s->have_be)
		return -SP_EUSAGE;
	if (defs != NULL)
		s->c.defs = defs;
	f = sp_defs_frame(s->c.defs, frame);
	memset(&s->c.sym, 0, sizeof(s->c.sym));
	s->c.sym.lines = s->c.lines;
	err = f != NULL ? spi_sym_resolve_frame(&s->c, f, frame) : -SP_EREF;
	s->c.defs = own;
	if (err < 0)
		return err;
	*out = &s->c.sym;
	return 0;
}

const char *
spi_symbolizer_str(const struct sp_symbolizer *s, uint32_t id, size_t *len)
{
	const char *z = str(s, id);

	if (z != NULL)
		*len = s->strs.entries[id - 1].len - 1; /* the key has the NUL */
	return z;
}

const struct sp_sym_report *
sp_symbolizer_report(const struct sp_symbolizer *s)
{
	return s->c.rep;
}

int
spi_symbolizer_set_python(struct sp_symbolizer *s, uint32_t host,
    uint32_t pid, int is_python)
{
	return spi_sym_set_python(&s->c, host, pid, is_python);
}

void
spi_symbolizer_report_finish(struct sp_symbolizer *s)
{
	spi_sym_report_finish(&s->c);
}

void
sp_symbolizer_free(struct sp_symbolizer *s)
{
	if (s == NULL)
		return;
	if (s->have_be && s->be.destroy != NULL)
		s->be.destroy(s->be.arg);
	spi_sym_ctx_fini(&s->c);
	sp_sym_report_fini(&s->rep); /* empty when the caller's was used */
	sp_debug_dirs_fini(&s->env_dirs);
	free(s->env_urls);
	spi_intern_fini(&s->strs);
	spi_idmap_fini(&s->rawmap);
	spi_idmap_fini(&s->ids);
	free(s->frames);
	free(s->raw);
	free(s->lines);
	free(s->pend);
	free(s->batch);
	spi_native_out_fini(&s->out);
	free(s->stack);
	free(s->res);
	free(s->invalid);
	free(s);
}
