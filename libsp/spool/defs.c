/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "defs_int.h"

/*
 * Strings and symbol lines live in a chunked arena so that pointers handed
 * out stay valid while the table grows; the per-kind arrays are plain
 * growable arrays indexed by id - 1.
 */
struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	_Alignas(8) uint8_t data[];
};

#define ARENA_BLK 65536u

struct sp_defs {
	struct arena_blk *arena;
	struct sp_str *strings;
	struct sp_host *hosts;
	struct sp_module *modules;
	struct sp_frame *frames;
	struct sp_node *nodes;
	struct sp_thread *threads;
	uint32_t *symbol_of;            /* per frame: index + 1 in symbols */
	struct sp_symbol *symbols;
	struct sp_counter *counters;
	uint32_t n[SP_REC_KINDS_];
	size_t cap[SP_REC_KINDS_];
	uint32_t nsymbols, ncounters;
	size_t capsymbols, capcounters, capsymbol_of;
	int has_recording;
	struct sp_recording recording;
};

static void *
arena_alloc(struct sp_defs *d, size_t n)
{
	struct arena_blk *b = d->arena;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (b == NULL || n > b->cap - b->used) {
		size_t cap = n > ARENA_BLK ? n : ARENA_BLK;

		b = malloc(sizeof(*b) + cap);
		if (b == NULL)
			return NULL;
		b->next = d->arena;
		b->used = 0;
		b->cap = cap;
		d->arena = b;
	}
	p = b->data + b->used;
	b->used += n;
	return p;
}

/* Copies s into the arena with a terminating NUL. */
static int
copy_str(struct sp_defs *d, struct sp_str *s)
{
	char *p;

	if (s->s == NULL) {
		s->s = "";
		s->len = 0;
		return 0;
	}
	p = arena_alloc(d, (size_t)s->len + 1);
	if (p == NULL)
		return -ENOMEM;
	memcpy(p, s->s, s->len);
	p[s->len] = '\0';
	s->s = p;
	return 0;
}

/*
 * Makes room in the array at *arrp for element i (0-based; ids are 32-bit,
 * so i stays below 2^32-2): 0, -SP_ELIMIT or -ENOMEM.
 */
static int
room_for(void *arrp, size_t *cap, uint32_t i, size_t size)
{
	if (i >= UINT32_MAX - 1)
		return -SP_ELIMIT;
	return spi_grow_zeroed(arrp, cap, (size_t)i + 1, size);
}

struct sp_defs *
spi_defs_new(void)
{
	return calloc(1, sizeof(struct sp_defs));
}

void
spi_defs_free(struct sp_defs *d)
{
	struct arena_blk *b, *next;

	if (d == NULL)
		return;
	for (b = d->arena; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(d->strings);
	free(d->hosts);
	free(d->modules);
	free(d->frames);
	free(d->nodes);
	free(d->threads);
	free(d->symbol_of);
	free(d->symbols);
	free(d->counters);
	free(d);
}

uint32_t
sp_defs_count(const struct sp_defs *d, enum sp_kind kind)
{
	if (kind == SP_REC_SYMBOL)
		return d->nsymbols;
	if ((unsigned)kind >= SP_REC_KINDS_)
		return 0;
	return d->n[kind];
}

#define LOOKUP(name, kind, type, arr)                                   \
	const type *name(const struct sp_defs *d, uint32_t id)          \
	{                                                               \
		if (id == 0 || id > d->n[kind])                         \
			return NULL;                                    \
		return &d->arr[id - 1];                                 \
	}

LOOKUP(sp_defs_string, SP_REC_STRING, struct sp_str, strings)
LOOKUP(sp_defs_host, SP_REC_HOST, struct sp_host, hosts)
LOOKUP(sp_defs_module, SP_REC_MODULE, struct sp_module, modules)
LOOKUP(sp_defs_frame, SP_REC_FRAME, struct sp_frame, frames)
LOOKUP(sp_defs_node, SP_REC_NODE, struct sp_node, nodes)
LOOKUP(sp_defs_thread, SP_REC_THREAD, struct sp_thread, threads)

const struct sp_symbol *
sp_defs_symbol(const struct sp_defs *d, uint32_t frame)
{
	uint32_t i;

	if (frame == 0 || frame > d->capsymbol_of)
		return NULL;
	i = d->symbol_of[frame - 1];
	return i ? &d->symbols[i - 1] : NULL;
}

const struct sp_recording *
sp_defs_recording(const struct sp_defs *d)
{
	return d->has_recording ? &d->recording : NULL;
}

size_t
sp_defs_counters(const struct sp_defs *d, const struct sp_counter **out)
{
	*out = d->counters;
	return d->ncounters;
}

int
sp_defs_stack(const struct sp_defs *d, uint32_t stack, uint32_t *frames,
    size_t max, size_t *depth)
{
	size_t i = 0;

	*depth = 0;
	if (stack > d->n[SP_REC_NODE])
		return -SP_EREF;
	if (stack == 0)
		return 0;
	*depth = d->nodes[stack - 1].depth;
	/* Parents are always earlier nodes, so this walk ends. */
	while (stack != 0 && i < max) {
		frames[i++] = d->nodes[stack - 1].frame;
		stack = d->nodes[stack - 1].parent;
	}
	return stack != 0 ? -SP_ELIMIT : 0;
}

/* Is id 0 (none) or an id of kind defined so far? */
static int
ref_ok(const uint32_t *n, unsigned kind, uint32_t id)
{
	return id <= n[kind];
}

static int
add_counters(struct sp_defs *d, struct sp_summary *s)
{
	uint32_t i, j;
	int err;

	for (i = 0; i < s->count; i++) {
		struct sp_counter *c = (struct sp_counter *)&s->counters[i];

		for (j = 0; j < d->ncounters; j++)
			if (d->counters[j].name.len == c->name.len &&
			    (c->name.len == 0 || memcmp(d->counters[j].name.s,
			    c->name.s, c->name.len) == 0))
				break;
		if (j == d->ncounters) {
			err = room_for(&d->counters, &d->capcounters, j,
			    sizeof(*d->counters));
			if (err)
				return err;
			d->counters[j].name = c->name;
			d->counters[j].value = 0;
			if (copy_str(d, &d->counters[j].name) < 0)
				return -ENOMEM;
			d->ncounters++;
		}
		d->counters[j].value += c->value;
		c->name = d->counters[j].name;
	}
	return 0;
}

static int
add_symbol(struct sp_defs *d, struct sp_symbol *s, struct sp_diag *diag)
{
	struct sp_symline *lines;
	int err;

	err = room_for(&d->symbol_of, &d->capsymbol_of,
	    d->n[SP_REC_FRAME] - 1, sizeof(*d->symbol_of));
	if (err)
		return err;
	if (d->symbol_of[s->frame - 1] != 0)
		return sp_diag_set(diag, 0, -SP_EFORMAT,
		    "frame already has a symbol");
	err = room_for(&d->symbols, &d->capsymbols, d->nsymbols,
	    sizeof(*d->symbols));
	if (err)
		return err;
	lines = arena_alloc(d, s->count * sizeof(*lines));
	if (lines == NULL)
		return -ENOMEM;
	memcpy(lines, s->lines, s->count * sizeof(*lines));
	s->lines = lines;
	d->symbols[d->nsymbols++] = *s;
	d->symbol_of[s->frame - 1] = d->nsymbols;
	return 0;
}

static const char *
check_symbol(const uint32_t *n, const struct sp_symbol *s)
{
	uint32_t i;

	if (!ref_ok(n, SP_REC_FRAME, s->frame) ||
	    !ref_ok(n, SP_REC_STRING, s->module_name))
		return "symbol refers to an undefined frame or string";
	for (i = 0; i < s->count; i++)
		if (!ref_ok(n, SP_REC_STRING, s->lines[i].function) ||
		    !ref_ok(n, SP_REC_STRING, s->lines[i].file))
			return "symbol line refers to an undefined string";
	return NULL;
}

/* The reason one of r's references is invalid, or NULL. */
static const char *
bad_ref(const uint32_t *n, const struct sp_record *r)
{
	switch (r->kind) {
	case SP_REC_MODULE:
		if (!ref_ok(n, SP_REC_HOST, r->u.module.host) ||
		    !ref_ok(n, SP_REC_STRING, r->u.module.path))
			return "module refers to an undefined host or string";
		return NULL;
	case SP_REC_FRAME:
		if (!ref_ok(n, SP_REC_MODULE, r->u.frame.module))
			return "frame refers to an undefined module";
		return NULL;
	case SP_REC_NODE:
		if (!ref_ok(n, SP_REC_NODE, r->u.node.parent) ||
		    !ref_ok(n, SP_REC_FRAME, r->u.node.frame))
			return "stack node refers to an undefined node or frame";
		return NULL;
	case SP_REC_THREAD:
		if (!ref_ok(n, SP_REC_HOST, r->u.thread.host) ||
		    !ref_ok(n, SP_REC_STRING, r->u.thread.comm))
			return "thread refers to an undefined host or string";
		return NULL;
	case SP_REC_SAMPLE:
		if (!ref_ok(n, SP_REC_THREAD, r->u.sample.thread) ||
		    !ref_ok(n, SP_REC_NODE, r->u.sample.stack))
			return "sample refers to an undefined thread or stack";
		return NULL;
	case SP_REC_PYTHON:
		if (!ref_ok(n, SP_REC_HOST, r->u.python.host))
			return "python record refers to an undefined host";
		return NULL;
	case SP_REC_PROC:
		if (!ref_ok(n, SP_REC_HOST, r->u.proc.host) ||
		    !ref_ok(n, SP_REC_STRING, r->u.proc.comm))
			return "process event refers to an undefined host or string";
		return NULL;
	case SP_REC_SYMBOL:
		return check_symbol(n, &r->u.symbol);
	default:
		return NULL;
	}
}

int
spi_check_refs(const uint32_t *n, const struct sp_record *r,
    struct sp_diag *diag)
{
	const char *why = bad_ref(n, r);

	return why == NULL ? 0 : sp_diag_set(diag, 0, -SP_EREF, "%s", why);
}

/* Appends a definition of kind r->kind and gives it its id. */
static int
add_def(struct sp_defs *d, struct sp_record *r)
{
	uint32_t n = d->n[r->kind];
	size_t *cap = &d->cap[r->kind];
	int err;

#define APPEND(arr, value)                                              \
	do {                                                            \
		err = room_for(&d->arr, cap, n, sizeof(*d->arr));       \
		if (err)                                                \
			return err;                                     \
		d->arr[n] = (value);                                    \
	} while (0)

	switch (r->kind) {
	case SP_REC_STRING:
		APPEND(strings, r->u.string);
		break;
	case SP_REC_HOST:
		APPEND(hosts, r->u.host);
		break;
	case SP_REC_MODULE:
		APPEND(modules, r->u.module);
		break;
	case SP_REC_FRAME:
		APPEND(frames, r->u.frame);
		break;
	case SP_REC_NODE:
		r->u.node.depth = r->u.node.parent == 0 ? 1 :
		    d->nodes[r->u.node.parent - 1].depth + 1;
		APPEND(nodes, r->u.node);
		break;
	case SP_REC_THREAD:
		APPEND(threads, r->u.thread);
		break;
	default:
		return 0;
	}
#undef APPEND
	d->n[r->kind] = n + 1;
	r->id = n + 1;
	return 0;
}

static int
copy_strings(struct sp_defs *d, struct sp_record *r)
{
	int err = 0;

	switch (r->kind) {
	case SP_REC_STRING:
		return copy_str(d, &r->u.string);
	case SP_REC_HOST:
		err |= copy_str(d, &r->u.host.hostname);
		err |= copy_str(d, &r->u.host.release);
		err |= copy_str(d, &r->u.host.machine);
		return err ? -ENOMEM : 0;
	case SP_REC_RECORDING:
		err |= copy_str(d, &r->u.recording.event);
		err |= copy_str(d, &r->u.recording.command);
		if (err)
			return -ENOMEM;
		d->recording = r->u.recording;
		d->has_recording = 1;
		return 0;
	default:
		return 0;
	}
}

int
spi_defs_add(struct sp_defs *d, struct sp_record *r, struct sp_diag *diag)
{
	int err = spi_check_refs(d->n, r, diag);

	r->id = 0;
	if (err)
		return err;
	if (r->kind == SP_REC_SYMBOL)
		err = add_symbol(d, &r->u.symbol, diag);
	else if (r->kind == SP_REC_SUMMARY)
		err = add_counters(d, &r->u.summary);
	else
		err = copy_strings(d, r);
	if (err == 0 && r->kind != SP_REC_SYMBOL)
		err = add_def(d, r);
	if (err == -SP_ELIMIT)
		return sp_diag_set(diag, 0, err,
		    "more than 2^32-1 definitions of one kind");
	if (err == -ENOMEM)
		return sp_diag_set(diag, 0, err, "out of memory");
	return err; /* 0, or -SP_EFORMAT with diag */
}
