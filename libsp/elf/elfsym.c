/* SPDX-License-Identifier: MIT */
/* Function symbols of .symtab and .dynsym, and the PLT stubs, one name
 * per address, sorted for binary search. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "elf/elfsym_int.h"
#include "elffile_int.h"
#include "elfplt_int.h"

#define SYM_SIZE sizeof(Elf64_Sym)
#define NONE UINT32_MAX

/* A symbol read from a table, before aliases are merged. */
struct cand {
	uint64_t value, size;
	const char *name;
	uint32_t off;         /* st_name */
	uint32_t len;         /* strlen(name) */
	uint16_t shndx;
	uint8_t rank;         /* binding: 0 global, 1 weak, 2 local, 3 other;
	                         4 a PLT stub (a real symbol there wins) */
	uint8_t unders;       /* leading underscores, at most 255 */
};

/* One address and the name it resolves to. */
struct ent {
	uint64_t start, end;
	const char *name;
	uint32_t up;          /* the nearest earlier entry still open here */
};

struct sp_elf_syms {
	struct ent *e;
	size_t n;
	uint8_t *plt_names;   /* the PLT stubs' names (elfplt.c) */
};

static int
cmp_cand(const struct cand *x, const struct cand *y)
{
	int r;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->unders != y->unders)
		return x->unders < y->unders ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	r = x->name == y->name ? 0 : memcmp(x->name, y->name, x->len);
	if (r != 0)
		return r;
	/* The same name twice (.symtab and .dynsym): any order would do,
	 * but a total one keeps the sort's result the same everywhere. */
	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

static uint8_t
bind_rank(unsigned bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

/* A string table and the offset past its last NUL: names that start
 * before it end inside the table, checked once per table, not per name. */
struct strtab {
	const uint8_t *p;
	size_t end;
};

static int
is_function(const struct sp_elf_file *f, unsigned type, uint16_t shndx)
{
	if (shndx == 0 || shndx >= SHN_LORESERVE)
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return 1;
	return type == STT_NOTYPE && shndx < f->shnum &&
	    (f->sh[shndx].sh_flags & SHF_EXECINSTR);
}

/*
 * Whether x sorts before y: by cmp_cand, or by_off by name offset, the
 * highest first (measure's order).  by_off is a constant where sort()
 * is inlined, so each order gets its own copy.
 */
static inline int
before(const struct cand *x, const struct cand *y, int by_off)
{
	return by_off ? x->off > y->off : cmp_cand(x, y) < 0;
}

static inline void
sift_down(struct cand *c, size_t root, size_t n, int by_off)
{
	struct cand v = c[root];
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && before(&c[child], &c[child + 1], by_off))
			child++;
		if (!before(&v, &c[child], by_off))
			break;
		c[root] = c[child];
		root = child;
	}
	c[root] = v;
}

/*
 * Heapsort of c[0..n), in place: qsort's generic copies of 40-byte
 * elements (musl's smoothsort moves them with memcpy) and its calls of
 * the comparison were most of the sorting's time in sp-sym.  Not
 * stable; neither order needs it (cmp_cand is total, and names at one
 * offset measure the same).
 */
static inline void
sort(struct cand *c, size_t n, int by_off)
{
	struct cand t;
	size_t i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(c, i, n, by_off);
	for (i = n; --i > 0;) {
		t = c[0];
		c[0] = c[i];
		c[i] = t;
		sift_down(c, 0, i, by_off);
	}
}

static uint8_t
unders(const char *name, size_t len)
{
	size_t u;

	for (u = 0; u < 255 && u < len && name[u] == '_'; u++)
		;
	return (uint8_t)u;
}

/*
 * Sets len and unders of c[0..n), whose names lie in st.  Going down the
 * offsets, each byte of the table is looked at once: a table of many
 * names inside one long string costs its size, not names times size.
 */
static void
measure(const struct strtab *st, struct cand *c, size_t n)
{
	size_t i, scan = st->end, nul = st->end - 1;

	sort(c, n, 1);
	for (i = 0; i < n; i++) {
		while (scan > c[i].off)
			if (st->p[--scan] == 0)
				nul = scan;
		c[i].len = (uint32_t)(nul - c[i].off);
		c[i].unders = unders(c[i].name, c[i].len);
	}
}

/* The Arm ELF ABIs' mapping symbols ("$x", "$d", "$x.42"): where code or
 * data begins in a section, no function's name. */
static int
is_mapping(unsigned type, const char *name)
{
	return type == STT_NOTYPE && name[0] == '$' && name[1] != 0 &&
	    strchr("xdat", name[1]) != NULL && (name[2] == 0 || name[2] == '.');
}

/* gABI "Symbol Table": Elf64_Sym is st_name, st_info, st_other,
 * st_shndx, st_value, st_size. */
static void
read_syms(const struct sp_elf_file *f, const uint8_t *p, size_t len,
    const struct strtab *st, struct cand *out, size_t *n)
{
	struct sp_cur c = sp_cur_make(p, len);
	const uint8_t *b;
	size_t first = *n;

	while ((b = sp_take(&c, SYM_SIZE)) != NULL) {
		uint32_t name = sp_le32(b);
		uint16_t shndx = sp_le16(b + 6);
		struct cand *x = &out[*n];

		if (!is_function(f, b[4] & 0xf, shndx) || name >= st->end ||
		    st->p[name] == 0 ||
		    is_mapping(b[4] & 0xf, (const char *)st->p + name))
			continue;
		x->name = (const char *)st->p + name;
		x->off = name;
		x->rank = bind_rank(b[4] >> 4);
		x->shndx = shndx;
		x->value = sp_le64(b + 8);
		x->size = sp_le64(b + 16);
		(*n)++;
	}
	if (*n > first)
		measure(st, out + first, *n - first);
}

/* The string table section i links to. */
static int
load_strtab(struct sp_elf_file *f, uint32_t link, struct strtab *st)
{
	const uint8_t *p, *nul;
	size_t len;
	int err;

	if (link == 0 || link >= f->shnum)
		return -SP_EFORMAT;
	err = spi_elf_section_at(f, link, &p, &len);
	if (err)
		return err;
	st->p = p;
	st->end = 0;
	for (nul = p + len; nul > p; nul--)
		if (nul[-1] == 0) {
			st->end = (size_t)(nul - p);
			break;
		}
	return 0;
}

/* Appends the function symbols of symbol table section i to *c. */
static int
add_table(struct sp_elf_file *f, size_t i, struct cand **c, size_t *n,
    size_t *capc)
{
	const GElf_Shdr *h = &f->sh[i];
	struct strtab st = { NULL, 0 };
	const uint8_t *p;
	size_t len, cnt;
	int err;

	if (h->sh_type == SHT_NOBITS)
		return 0;
	if (!spi_elf_in_file(f, h->sh_offset, h->sh_size))
		return -SP_EFORMAT;
	if (h->sh_entsize != SYM_SIZE)
		return -SP_EFORMAT;
	if (h->sh_size / SYM_SIZE > SP_ELF_SYMS_MAX - *n)
		return -SP_ELIMIT;
	err = load_strtab(f, h->sh_link, &st);
	if (err == 0)
		err = spi_elf_section_at(f, i, &p, &len);
	if (err == -SP_ENOTFOUND)
		return 0;
	if (err)
		return err;
	cnt = len / SYM_SIZE; /* compressed tables inflate: check again */
	if (cnt > SP_ELF_SYMS_MAX - *n)
		return -SP_ELIMIT;
	if (cnt == 0)
		return 0;
	if (spi_grow_zeroed(c, capc, *n + cnt, sizeof(**c)) != 0)
		return -ENOMEM;
	read_syms(f, p, len, &st, *c, n);
	return 0;
}

/* Where a group of zero-size symbols at start, in section shndx, ends. */
static uint64_t
open_end(const struct sp_elf_file *f, uint64_t start, uint16_t shndx,
    const uint64_t *next)
{
	uint64_t end = next != NULL ? *next : UINT64_MAX;

	if (shndx < f->shnum && f->sh[shndx].sh_addr <= start) {
		const GElf_Shdr *h = &f->sh[shndx];
		uint64_t sec_end = h->sh_size > UINT64_MAX - h->sh_addr ?
		    UINT64_MAX : h->sh_addr + h->sh_size;

		if (sec_end < end)
			end = sec_end;
	}
	return end > start ? end : start;
}

/* Merges each address's aliases (c is sorted, best name first) into
 * s->e; returns the number of entries. */
static size_t
merge(const struct sp_elf_file *f, const struct cand *c, size_t n,
    struct ent *e)
{
	size_t i = 0, j, k = 0;

	while (i < n) {
		uint64_t size = 0;

		for (j = i; j < n && c[j].value == c[i].value; j++)
			if (c[j].size > size)
				size = c[j].size;
		e[k].start = c[i].value;
		e[k].name = c[i].name;
		if (size > 0)
			e[k].end = size > UINT64_MAX - c[i].value ? UINT64_MAX :
			    c[i].value + size;
		else
			e[k].end = open_end(f, c[i].value, c[i].shndx,
			    j < n ? &c[j].value : NULL);
		k++;
		i = j;
	}
	return k;
}

/*
 * Links each entry to the nearest earlier one that still covers its
 * start (a stack of open entries), so a lookup can step outwards when
 * the entry below an address ends before it.
 */
static int
link_nesting(struct ent *e, size_t n)
{
	uint32_t *stack, top = 0;
	size_t i;

	stack = malloc((n > 0 ? n : 1) * sizeof(*stack));
	if (stack == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		while (top > 0 && e[stack[top - 1]].end <= e[i].start)
			top--;
		e[i].up = top > 0 ? stack[top - 1] : NONE;
		stack[top++] = (uint32_t)i;
	}
	free(stack);
	return 0;
}

/* The best name of the symbols at addr, for the PLT stubs of IFUNCs:
 * ctx is the sorted candidates (struct cands). */
struct cands {
	const struct cand *c;
	size_t n;
};

static const char *
cand_at(void *ctx, uint64_t addr)
{
	const struct cands *cs = ctx;
	size_t lo = 0, hi = cs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->c[mid].value < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cs->n && cs->c[lo].value == addr ? cs->c[lo].name : NULL;
}

/*
 * c[0..n) (sorted) and the stubs of plt, sorted together into a new
 * array *all of n + plt->n.
 */
static int
add_plt(const struct cand *c, size_t n, const struct spi_plt *plt,
    struct cand **all)
{
	struct cand *b, *o;
	size_t i, j = 0, k = 0;

	b = calloc(plt->n, sizeof(*b));
	o = malloc((n + plt->n) * sizeof(*o));
	if (b == NULL || o == NULL) {
		free(b);
		free(o);
		return -ENOMEM;
	}
	for (i = 0; i < plt->n; i++) {
		b[i].value = plt->v[i].start;
		b[i].size = plt->v[i].size;
		b[i].name = (const char *)spi_buf_at(&plt->names, plt->v[i].name);
		b[i].len = (uint32_t)strlen(b[i].name);
		b[i].unders = unders(b[i].name, b[i].len);
		b[i].shndx = plt->v[i].shndx;
		b[i].rank = 4;
	}
	sort(b, plt->n, 0);
	for (i = 0; i < n || j < plt->n;)
		o[k++] = j == plt->n || (i < n && cmp_cand(&c[i], &b[j]) <= 0) ?
		    c[i++] : b[j++];
	free(b);
	*all = o;
	return 0;
}

/*
 * Sorts c[0..n), adds the PLT stubs of f (a file whose PLT cannot be
 * read keeps its symbols: the stubs are an extra) and indexes them all.
 */
static int
build_index(struct sp_elf_file *f, struct cand *c, size_t n,
    struct sp_elf_syms *s)
{
	struct cands cs = { c, n };
	struct cand *all = c;
	struct spi_plt plt;
	int err;

	sort(c, n, 0);
	memset(&plt, 0, sizeof(plt));
	err = spi_elf_plt_read(f, cand_at, &cs, &plt);
	if (err == 0 && plt.n > 0)
		err = add_plt(c, n, &plt, &all);
	if (err == -ENOMEM) {
		spi_elf_plt_fini(&plt);
		return err;
	}
	if (err == 0 && plt.n > 0) {
		s->plt_names = plt.names.p;
		plt.names.p = NULL;
		n += plt.n;
	}
	spi_elf_plt_fini(&plt);
	err = 0;
	if (n > 0 && (s->e = malloc(n * sizeof(*s->e))) == NULL)
		err = -ENOMEM;
	if (err == 0)
		s->n = merge(f, all, n, s->e);
	if (all != c)
		free(all);
	return err == 0 ? link_nesting(s->e, s->n) : err;
}

int
spi_elf_syms_load(struct sp_elf_file *f, struct sp_elf_syms **out)
{
	struct sp_elf_syms *s;
	struct cand *c = NULL;
	size_t i, n = 0, capc = 0;
	int err = 0;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	for (i = 0; i < f->shnum && err == 0; i++)
		if (f->sh[i].sh_type == SHT_SYMTAB ||
		    f->sh[i].sh_type == SHT_DYNSYM)
			err = add_table(f, i, &c, &n, &capc);
	if (err == 0)
		err = build_index(f, c, n, s);
	free(c);
	if (err) {
		spi_elf_syms_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void
spi_elf_syms_free(struct sp_elf_syms *s)
{
	if (s == NULL)
		return;
	free(s->e);
	free(s->plt_names);
	free(s);
}

const char *
spi_elf_syms_find(const struct sp_elf_syms *s, uint64_t vaddr,
    uint64_t *start)
{
	size_t lo = 0, hi = s->n, k;
	uint32_t i;

	/* The last entry that starts at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->e[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	i = (uint32_t)(lo - 1);
	for (k = 0; k < SP_ELF_SYMS_NEST_MAX && i != NONE; k++) {
		if (vaddr < s->e[i].end) {
			if (start != NULL)
				*start = s->e[i].start;
			return s->e[i].name;
		}
		i = s->e[i].up;
	}
	return NULL;
}

size_t
spi_elf_syms_count(const struct sp_elf_syms *s)
{
	return s->n;
}

int
spi_elf_syms_named(const struct sp_elf_syms *s, const char *name,
    uint64_t *start, uint64_t *end)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->e[i].name, name) == 0) {
			*start = s->e[i].start;
			*end = s->e[i].end;
			return 0;
		}
	return -SP_ENOTFOUND;
}
