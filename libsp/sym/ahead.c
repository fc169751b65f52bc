/* SPDX-License-Identifier: MIT */
/*
 * sp-sym's look-ahead (ahead_int.h).  A chunk is the frames the copy
 * will resolve, in the input's order: each FRAME, unless a SYMBOL
 * follows it (with only STRING records in between), a symbolized
 * input's own, which the copy takes as it is.  That is the copy's rule,
 * applied to the same records; where the two disagree (a misplaced
 * SYMBOL of another frame), the copy resolves the frame itself, and
 * still writes the same.  No frame is resolved twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ahead_int.h"
#include "common/buf_int.h"
#include "sp/spool/replay.h"
#include "spool/replay_int.h"
#include "sym_int.h"

/* Logical frames a chunk keeps beyond those in its entries, per frame:
 * with the frames a chunk holds, a bound on its memory. */
#define LINES_PER_FRAME 8
#define AHEAD_PREFETCH 4

/*
 * The kinds the look-ahead decodes: a frame and what resolving it reads.
 * Not SYMBOL: the definitions would then hold the input's symbols of
 * frames the copy has not reached, which name an address-only frame
 * (sp_format_frame).  A SYMBOL or a PYTHON record is seen by its kind.
 */
#define WANTED (1u << SP_REC_STRING | 1u << SP_REC_HOST | \
	1u << SP_REC_MODULE | 1u << SP_REC_FRAME)

/* A frame of the chunk, in the input's order: its symbol's lines are
 * here when they are few, as most are, so that the copy reads the chunk
 * in order; else in lines[]. */
#define INLINE_LINES 2
struct ahead_sym {
	uint32_t frame;
	uint32_t seal;           /* the definition's fingerprint (seal()) */
	uint32_t flags, module_name;
	uint8_t origin, count;
	uint8_t done;            /* resolved: the fields hold its symbol */
	uint32_t line0;          /* count > INLINE_LINES: lines[line0...] */
	struct sp_symline in[INLINE_LINES];
};

/* A sort key: the rank of the frame's module by its first frame in the
 * chunk (bits 40 and up: at most SP_AHEAD_MAX + 1), then its address
 * (the low 40 bits of it: the order within a module only makes the
 * reading faster). */
struct ahead_key {
	uint64_t key;
	uint32_t index;          /* into syms */
	uint32_t frame;          /* syms[index].frame, read in key order */
};

struct sym_ahead {
	struct sp_replay *in;
	struct sp_symbolizer *sym;
	size_t chunk;            /* frames a chunk holds at most */
	int ended;               /* the reader ended (or failed) */
	uint32_t seen;           /* the last FRAME it read */
	uint32_t pend;           /* a FRAME whose SYMBOL may follow, or 0 */

	struct ahead_sym *syms;  /* this chunk's, by increasing frame id */
	size_t n, cap, next;     /* next: the first not asked for yet */
	struct sp_symline *lines;
	size_t nlines, caplines;
	struct ahead_key *keys, *tmp;
	size_t capkeys, captmp;
	struct sp_symbol out;    /* the last one asked for */
	uint32_t *rank_of;       /* module id -> its rank in this chunk
	                          * (from 1), 0 while it has none */
	size_t caprank;
};

/*
 * A fingerprint of a frame's definition.  Both readers read the same
 * bytes, unless the file changed under them (rewritten in place while
 * sp-sym ran): then a frame of the copy's is not the one resolved here,
 * and the copy resolves its own.
 */
static uint32_t
seal(const struct sp_frame *f)
{
	uint64_t h = (uint64_t)f->module << 32 ^ f->mode;

	h = (h ^ f->rel_ip) * 0x9e3779b97f4a7c15ull;
	h = (h ^ f->abs_ip) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32);
}

int
spi_ahead_new(const struct sp_replay *in, struct sp_symbolizer *sym,
    size_t chunk, struct sym_ahead **out)
{
	struct sym_ahead *a;
	int err;

	*out = NULL;
	if (chunk == 0)
		return 0;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	err = spi_replay_ahead(in, ~WANTED, &a->in);
	if (err < 0) {
		free(a);
		/* A pipe, or an input whose header fails (the copy says
		 * so): the copy resolves every frame itself. */
		return err == -ENOMEM ? err : 0;
	}
	a->sym = sym;
	a->chunk = chunk < SP_AHEAD_MAX ? chunk : SP_AHEAD_MAX;
	*out = a;
	return 0;
}

void
spi_ahead_free(struct sym_ahead *a)
{
	if (a == NULL)
		return;
	sp_replay_free(a->in);
	free(a->syms);
	free(a->lines);
	free(a->keys);
	free(a->tmp);
	free(a->rank_of);
	free(a);
}

/* The frame pend turned out to be one the copy resolves. */
static int
commit(struct sym_ahead *a)
{
	struct ahead_sym *e;

	if (a->pend == 0)
		return 0;
	if (spi_grow_zeroed(&a->syms, &a->cap, a->n + 1, sizeof(*a->syms)) < 0)
		return -ENOMEM;
	e = &a->syms[a->n++];
	memset(e, 0, sizeof(*e));
	e->frame = a->pend;
	a->pend = 0;
	return 0;
}

/* Reads the next chunk's frames: up to a->chunk, or to the next PYTHON
 * record. */
static int
collect(struct sym_ahead *a)
{
	struct sp_record rec;
	int r, err = 0;

	a->n = a->next = a->nlines = 0;
	for (;;) {
		/* Full: a frame whose SYMBOL may still follow is left to
		 * the copy, so that no frame is resolved twice. */
		if (err < 0 || a->n >= a->chunk) {
			a->pend = 0;
			return err;
		}
		r = sp_replay_next(a->in, &rec);
		if (r <= 0) {
			/* The copy meets the same end: at the data's end
			 * it resolves a last frame; at an error it stops
			 * (and says why). */
			a->ended = 1;
			if (r < 0)
				a->pend = 0;
			return commit(a);
		}
		switch (rec.kind) {
		case SP_REC_STRING:
			break;
		case SP_REC_SYMBOL:
			/* Taken for pend's, as a symbolized spool puts it.
			 * One of another frame (misplaced, which the copy
			 * drops) leaves pend to the copy to resolve. */
			a->pend = 0;
			break;
		case SP_REC_FRAME:
			err = commit(a);
			a->pend = a->seen = rec.id;
			break;
		case SP_REC_PYTHON:
			/* The chunk ends before the frames it changes. */
			return commit(a);
		default:
			err = commit(a);
			break;
		}
	}
}

/*
 * Sorts the n keys at k (tmp: room for n more), least significant digit
 * first, 11 bits at a time, skipping the digits every key has alike: a
 * chunk has few ranks and addresses of a few MB, so two or three passes.
 * Stable.  Returns where the sorted keys are: k or tmp.
 */
static struct ahead_key *
radix(struct ahead_key *k, struct ahead_key *tmp, size_t n)
{
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	size_t count[1u << 11], i, sum, c;
	struct ahead_key *t;
	unsigned shift;

	for (i = 0; i < n; i++) {
		all_or |= k[i].key;
		all_and &= k[i].key;
	}
	for (shift = 0; shift < 64; shift += 11) {
		if ((((all_or ^ all_and) >> shift) & 0x7ff) == 0)
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(k[i].key >> shift) & 0x7ff]++;
		for (sum = 0, i = 0; i < (1u << 11); i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[(k[i].key >> shift) & 0x7ff]++] = k[i];
		t = k;
		k = tmp;
		tmp = t;
	}
	return k;
}

/*
 * The chunk's frames in the order to resolve them: modules ranked by
 * their first frame, so that files are opened (and reported) in the
 * order the copy would open them, then addresses.  NULL: out of memory.
 */
static const struct ahead_key *
sort_chunk(struct sym_ahead *a)
{
	const struct sp_defs *defs = sp_replay_defs(a->in);
	uint32_t ranks = 0;
	size_t i;

	if (spi_grow_zeroed(&a->keys, &a->capkeys, a->n, sizeof(*a->keys)) < 0 ||
	    spi_grow_zeroed(&a->tmp, &a->captmp, a->n, sizeof(*a->tmp)) < 0)
		return NULL;
	if (a->caprank > 0)
		memset(a->rank_of, 0, a->caprank * sizeof(*a->rank_of));
	for (i = 0; i < a->n; i++) {
		const struct sp_frame *f = sp_defs_frame(defs, a->syms[i].frame);

		if (spi_grow_zeroed(&a->rank_of, &a->caprank,
		    (size_t)f->module + 1, sizeof(*a->rank_of)) < 0)
			return NULL;
		if (a->rank_of[f->module] == 0)
			a->rank_of[f->module] = ++ranks;
		a->keys[i].key = (uint64_t)a->rank_of[f->module] << 40 |
		    (f->rel_ip & ((1ull << 40) - 1));
		a->keys[i].index = (uint32_t)i;
		a->keys[i].frame = a->syms[i].frame;
		a->syms[i].seal = seal(f);
	}
	return radix(a->keys, a->tmp, a->n);
}

/* Keeps sym as e's. */
static int
keep(struct sym_ahead *a, struct ahead_sym *e, const struct sp_symbol *sym)
{
	struct sp_symline *to = e->in;

	if (sym->count > INLINE_LINES) {
		if (spi_grow_zeroed(&a->lines, &a->caplines,
		    a->nlines + sym->count, sizeof(*a->lines)) < 0)
			return -ENOMEM;
		e->line0 = (uint32_t)a->nlines;
		to = a->lines + a->nlines;
		a->nlines += sym->count;
	}
	memcpy(to, sym->lines, sym->count * sizeof(*sym->lines));
	e->flags = sym->flags;
	e->module_name = sym->module_name;
	e->origin = (uint8_t)sym->origin;
	e->count = (uint8_t)sym->count;
	e->done = 1;
	return 0;
}

/* Resolves the chunk in key order.  A frame that fails stays for the
 * copy; running out of memory, or past the chunk's lines, ends the
 * chunk's resolving there, and the copy resolves the rest. */
static void
resolve_chunk(struct sym_ahead *a)
{
	const struct sp_defs *defs = sp_replay_defs(a->in);
	const struct ahead_key *order;
	const struct sp_symbol *sym;
	size_t i;

	if (a->n == 0 || (order = sort_chunk(a)) == NULL)
		return;
	for (i = 0; i < a->n && a->nlines < a->chunk * LINES_PER_FRAME; i++) {
		int err;

		/* Its definition, read at random, a few frames early. */
		if (i + AHEAD_PREFETCH < a->n)
			__builtin_prefetch(sp_defs_frame(defs,
			    order[i + AHEAD_PREFETCH].frame));
		err = spi_symbolizer_frame_symbol(a->sym, defs, order[i].frame,
		    &sym);
		if (err == -ENOMEM)
			return;
		if (err == 0 && keep(a, &a->syms[order[i].index], sym) < 0)
			return;
	}
}

int
spi_ahead_symbol(struct sym_ahead *a, uint32_t frame,
    const struct sp_frame *f, const struct sp_symbol **out)
{
	struct ahead_sym *e;

	for (;;) {
		while (a->next < a->n && a->syms[a->next].frame < frame)
			a->next++;
		if (a->next < a->n)
			break;
		/*
		 * The chunk is spent.  A frame read already was left out
		 * (a SYMBOL followed it, or the chunk was full): the copy
		 * resolves it.  The copy asks for a frame not read yet
		 * once it has put every record read so far, so also the
		 * PYTHON record that may have ended the chunk: the next
		 * chunk's frames are resolved as the copy would.
		 */
		if (a->ended || frame <= a->seen)
			return 0;
		if (collect(a) < 0) {
			a->ended = 1;
			a->n = 0;
			return 0;
		}
		resolve_chunk(a);
		if (a->n == 0 && a->ended)
			return 0;
	}
	e = &a->syms[a->next];
	if (e->frame != frame || !e->done || f == NULL || e->seal != seal(f))
		return 0;
	a->next++;
	memset(&a->out, 0, sizeof(a->out));
	a->out.origin = e->origin;
	a->out.flags = e->flags;
	a->out.module_name = e->module_name;
	a->out.count = e->count;
	a->out.lines = e->count > INLINE_LINES ? a->lines + e->line0 : e->in;
	*out = &a->out;
	return 1;
}
