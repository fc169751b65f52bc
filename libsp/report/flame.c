/* SPDX-License-Identifier: MIT */
/* Folded stacks into a tree of frames (see sp/report/flame.h for the format). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "flame_int.h"
#include "sp/spool/spool.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* FNV-1a over the name, seeded with the parent: children of different
 * parents with one name land apart. */
static uint64_t
hash_key(uint32_t parent, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ parent;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ h >> 29;
}

static int
node_is(const struct sp_flame *f, uint32_t i, uint32_t parent,
    const char *name, size_t len)
{
	const struct flame_node *n = &f->node[i];

	return n->parent == parent && n->name_len == len &&
	    memcmp(sp_flame_name(f, i), name, len) == 0;
}

uint32_t
spi_flame_child(const struct sp_flame *f, uint32_t parent, const char *name,
    size_t len)
{
	size_t mask = f->tabcap - 1, i;

	for (i = hash_key(parent, name, len) & mask;
	    f->tab[i] != FLAME_NONE; i = (i + 1) & mask)
		if (node_is(f, f->tab[i], parent, name, len))
			return f->tab[i];
	return FLAME_NONE;
}

/* Doubles the table; every node but the root is in it. */
static int
grow_table(struct sp_flame *f)
{
	size_t cap = f->tabcap * 2, mask = cap - 1, i, j;
	const struct flame_node *n;
	uint32_t *t;

	t = malloc(cap * sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	memset(t, 0xff, cap * sizeof(*t));
	for (i = 1; i < f->n; i++) {
		n = &f->node[i];
		j = hash_key(n->parent, sp_flame_name(f, (uint32_t)i),
		    n->name_len) & mask;
		while (t[j] != FLAME_NONE)
			j = (j + 1) & mask;
		t[j] = (uint32_t)i;
	}
	free(f->tab);
	f->tab = t;
	f->tabcap = cap;
	return 0;
}

/* A new child of parent, first among its siblings (the writer sorts). */
static int
add_node(struct sp_flame *f, uint32_t parent, const char *name, size_t len,
    uint32_t *out)
{
	struct flame_node *n;
	size_t j, mask;
	int err;

	if (f->n > SP_FLAME_NODES_MAX ||
	    len + 1 > SP_FLAME_NAMES_MAX - f->names.len)
		return -SP_ELIMIT;
	if (2 * (f->n + 1) > f->tabcap && (err = grow_table(f)) != 0)
		return err;
	if (spi_grow_zeroed(&f->node, &f->cap, f->n + 1, sizeof(*f->node)) != 0)
		return -ENOMEM;
	n = &f->node[f->n];
	n->total = 0;
	n->name = f->names.len;
	n->name_len = (uint32_t)len;
	n->parent = parent;
	n->child = FLAME_NONE;
	n->next = f->node[parent].child;
	spi_buf_put(&f->names, name, len);
	spi_buf_u8(&f->names, 0);
	if (f->names.err)
		return f->names.err;
	f->node[parent].child = (uint32_t)f->n;
	mask = f->tabcap - 1;
	for (j = hash_key(parent, name, len) & mask; f->tab[j] != FLAME_NONE;
	    j = (j + 1) & mask)
		;
	f->tab[j] = (uint32_t)f->n;
	*out = (uint32_t)f->n++;
	return 0;
}

int
sp_flame_new(struct sp_flame **out)
{
	struct sp_flame *f;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->cap = 256;
	f->tabcap = 512;
	f->node = calloc(f->cap, sizeof(*f->node));
	f->tab = malloc(f->tabcap * sizeof(*f->tab));
	f->carry = malloc(SP_FLAME_LINE_MAX);
	f->path = malloc(SP_FLAME_DEPTH_MAX * sizeof(*f->path));
	f->path_len = malloc(SP_FLAME_DEPTH_MAX * sizeof(*f->path_len));
	if (f->node == NULL || f->tab == NULL || f->carry == NULL ||
	    f->path == NULL || f->path_len == NULL) {
		sp_flame_free(f);
		return -ENOMEM;
	}
	memset(f->tab, 0xff, f->tabcap * sizeof(*f->tab));
	f->n = 1;
	f->node[0].parent = FLAME_NONE;
	f->node[0].child = FLAME_NONE;
	f->node[0].next = FLAME_NONE;
	spi_buf_put(&f->names, "all", 4);
	f->node[0].name_len = 3;
	if (f->names.err) {
		sp_flame_free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void
sp_flame_free(struct sp_flame *f)
{
	if (f == NULL)
		return;
	free(f->node);
	free(f->tab);
	free(f->carry);
	free(f->path);
	free(f->path_len);
	spi_buf_fini(&f->names);
	free(f);
}

static void
bad_line(struct sp_flame *f, const char *why)
{
	if (f->nbad < SP_FLAME_BAD_KEEP) {
		f->bad[f->nbad].line = f->lines;
		f->bad[f->nbad].why = why;
	}
	f->nbad++;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The count s[0..len): digits, then optionally '.' and more digits, as
 * flamegraph.pl reads it (/\d+(?:\.\d*)?$/), into *v / 10^*dec with no
 * trailing zero decimals and at most SP_FLAME_DECIMALS_MAX of them (the
 * rest are dropped).  NULL, or why the count is bad.
 */
static const char *
parse_count(const char *s, size_t len, uint64_t *v, unsigned *dec)
{
	size_t i, dot = len;
	unsigned d;

	*v = 0;
	*dec = 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.' && dot == len && i > 0) {
			dot = i;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			return "count is not a number";
		if (dot != len && i - dot > SP_FLAME_DECIMALS_MAX)
			continue;
		d = (unsigned)(s[i] - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return "count overflows 64 bits";
		*v = *v * 10 + d;
		*dec += dot != len;
	}
	for (; *dec > 0 && *v % 10 == 0; (*dec)--)
		*v /= 10;
	return NULL;
}

/*
 * Brings count (in 10^-dec samples) and the tree to one unit, the finer:
 * the tree's totals are multiplied up when a line has more decimals than
 * any before, so integer counts never lose their 64-bit range.  NULL, or
 * why the line is bad.
 */
static const char *
same_unit(struct sp_flame *f, uint64_t *count, unsigned dec)
{
	static const char *const big = "count overflows the total of 2^64 - 1 "
	    "samples";
	uint64_t m;
	size_t i;

	if (dec <= f->decimals) {
		m = flame_pow10(f->decimals - dec);
		if (*count > UINT64_MAX / m)
			return big;
		*count *= m;
		return NULL;
	}
	m = flame_pow10(dec - f->decimals);
	if (f->node[0].total > UINT64_MAX / m)
		return big;
	for (i = 0; i < f->n; i++)
		f->node[i].total *= m;
	f->decimals = dec;
	return NULL;
}

/*
 * Splits the stack s[0..len) at every ';', as flamegraph.pl, inferno and
 * speedscope do (a name has no escapes), into f->path/f->path_len, the
 * number of frames in *depth.  NULL, or why the stack is bad.
 */
static const char *
split_frames(struct sp_flame *f, const char *s, size_t len, int *depth)
{
	size_t i, start = 0;

	*depth = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != ';')
			continue;
		if (i == start)
			return "empty frame name";
		if (*depth == SP_FLAME_DEPTH_MAX)
			return "more frames than the limit of "
			    STR(SP_FLAME_DEPTH_MAX);
		/* i < SP_FLAME_LINE_MAX: offsets fit. */
		f->path[*depth] = (uint32_t)start;
		f->path_len[(*depth)++] = (uint32_t)(i - start);
		start = i + 1;
	}
	return NULL;
}

/* Adds the frames of f->path (offsets into s) with count samples. */
static int
add_stack(struct sp_flame *f, const char *s, int depth, uint64_t count)
{
	uint32_t at = 0, next;
	const char *name;
	int i, err;

	f->node[0].total += count;
	for (i = 0; i < depth; i++) {
		name = s + f->path[i];
		next = spi_flame_child(f, at, name, f->path_len[i]);
		if (next == FLAME_NONE &&
		    (err = add_node(f, at, name, f->path_len[i], &next)) != 0)
			return err;
		f->node[next].total += count;
		at = next;
	}
	return 0;
}

/* A comment line before the stacks: "# countname: NAME" or "# title:
 * TEXT" is kept (cut to fit, a NUL ends it), anything else skipped. */
static void
header(struct sp_flame *f, const char *s, size_t len)
{
	static const char cn[] = "# countname: ", ti[] = "# title: ";
	char *dst = NULL;
	size_t skip = 0, n;

	if (len > sizeof(cn) - 1 && memcmp(s, cn, sizeof(cn) - 1) == 0) {
		dst = f->countname;
		skip = sizeof(cn) - 1;
	} else if (len > sizeof(ti) - 1 && memcmp(s, ti, sizeof(ti) - 1) == 0) {
		dst = f->title;
		skip = sizeof(ti) - 1;
	}
	if (dst == NULL)
		return;
	n = len - skip < SP_FLAME_HEADER_MAX - 1 ? len - skip :
	    SP_FLAME_HEADER_MAX - 1;
	memcpy(dst, s + skip, n);
	dst[n] = '\0';
}

const char *
sp_flame_countname(const struct sp_flame *f)
{
	return f->countname;
}

const char *
sp_flame_title(const struct sp_flame *f)
{
	return f->title;
}

/* One line without its newline (see sp/report/flame.h for what is accepted). */
static int
add_line(struct sp_flame *f, const char *s, size_t len)
{
	const char *why;
	uint64_t count;
	size_t sp;
	unsigned dec;
	int depth;

	/* A spool's magic ends in "\r\n": its first line is the rest. */
	if (f->lines++ == 0 && len == SP_MAGIC_LEN - 1 &&
	    memcmp(s, SP_MAGIC, SP_MAGIC_LEN - 1) == 0)
		return -SP_EFORMAT;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	while (len > 0 && is_blank(s[len - 1]))
		len--;
	if (len == 0)
		return 0;
	if (!f->stacks && s[0] == '#') {
		header(f, s, len);
		return 0;
	}
	f->stacks = 1;
	if (memchr(s, '\0', len) != NULL) {
		bad_line(f, "NUL byte in the line");
		return 0;
	}
	for (sp = len; sp > 0 && !is_blank(s[sp - 1]); sp--)
		;
	if (sp == 0) {
		bad_line(f, "no sample count after the stack");
		return 0;
	}
	if ((why = parse_count(s + sp, len - sp, &count, &dec)) != NULL) {
		bad_line(f, why);
		return 0;
	}
	while (sp > 0 && is_blank(s[sp - 1]))
		sp--;
	if (sp == 0) {
		bad_line(f, "empty stack");
		return 0;
	}
	if ((why = split_frames(f, s, sp, &depth)) != NULL) {
		bad_line(f, why);
		return 0;
	}
	if (count == 0)
		return 0;
	if ((why = same_unit(f, &count, dec)) != NULL) {
		bad_line(f, why);
		return 0;
	}
	if (count > UINT64_MAX - f->node[0].total) {
		bad_line(f, "count overflows the total of 2^64 - 1 samples");
		return 0;
	}
	return add_stack(f, s, depth, count);
}

static void
too_long(struct sp_flame *f)
{
	f->lines++;
	bad_line(f, "line longer than the limit of " STR(SP_FLAME_LINE_MAX)
	    " bytes");
}

int
sp_flame_feed(struct sp_flame *f, const char *buf, size_t len)
{
	struct sp_cur c = sp_cur_make(buf, len);
	const uint8_t *nl, *s;
	size_t n;
	int err;

	while (sp_cur_left(&c) > 0) {
		s = c.p + c.pos;
		nl = memchr(s, '\n', sp_cur_left(&c));
		n = nl != NULL ? (size_t)(nl - s) : sp_cur_left(&c);
		(void)sp_take(&c, nl != NULL ? n + 1 : n);
		if (f->skipping) {
			/* The rest of a line already reported as too long. */
			f->skipping = nl == NULL;
			continue;
		}
		if (n > SP_FLAME_LINE_MAX - f->carry_len) {
			f->carry_len = 0;
			f->skipping = nl == NULL;
			too_long(f);
			continue;
		}
		if (nl == NULL) {
			memcpy(f->carry + f->carry_len, s, n);
			f->carry_len += n;
			break;
		}
		if (f->carry_len > 0) {
			memcpy(f->carry + f->carry_len, s, n);
			n += f->carry_len;
			f->carry_len = 0;
			s = (const uint8_t *)f->carry;
		}
		if ((err = add_line(f, (const char *)s, n)) != 0)
			return err;
	}
	return 0;
}

int
sp_flame_end(struct sp_flame *f)
{
	size_t n = f->carry_len;

	f->carry_len = 0;
	if (f->skipping) {
		f->skipping = 0;
		return 0;
	}
	return n > 0 ? add_line(f, f->carry, n) : 0;
}

int
sp_flame_parse(const char *text, size_t len, struct sp_flame **out)
{
	struct sp_flame *f;
	int err;

	*out = NULL;
	if ((err = sp_flame_new(&f)) != 0)
		return err;
	if ((err = sp_flame_feed(f, text, len)) != 0 ||
	    (err = sp_flame_end(f)) != 0) {
		sp_flame_free(f);
		return err;
	}
	*out = f;
	return 0;
}

uint64_t
sp_flame_samples(const struct sp_flame *f)
{
	return f->node[0].total;
}

size_t
sp_flame_frames(const struct sp_flame *f)
{
	return f->n - 1;
}

unsigned
sp_flame_decimals(const struct sp_flame *f)
{
	return f->decimals;
}

uint64_t
sp_flame_lines(const struct sp_flame *f)
{
	return f->lines;
}

size_t
sp_flame_bad_count(const struct sp_flame *f)
{
	return f->nbad;
}

const struct sp_flame_bad *
sp_flame_bad(const struct sp_flame *f, size_t i)
{
	return i < f->nbad && i < SP_FLAME_BAD_KEEP ? &f->bad[i] : NULL;
}

int
sp_flame_lookup(const struct sp_flame *f, const char *const *path,
    size_t depth, uint64_t *samples)
{
	uint32_t at = 0;
	size_t i;

	for (i = 0; i < depth; i++) {
		at = spi_flame_child(f, at, path[i], strlen(path[i]));
		if (at == FLAME_NONE)
			return -SP_ENOTFOUND;
	}
	*samples = f->node[at].total;
	return 0;
}
