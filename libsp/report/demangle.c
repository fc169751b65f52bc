/* SPDX-License-Identifier: MIT */
/*
 * Demangled names for the readers (sp/report/demangle.h): which names to
 * demangle, the table of their texts, Rust's cleanup.  The text itself,
 * c++filt's, is made by libiberty's demanglers in demangle_iberty.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "demangle_int.h"
#include "flame_int.h"
#include "sp/spool/spool.h"

#define K_NAME 1 /* the intern table's only kind */

int
sp_demangle_new(const char *prog, struct sp_demangle **out)
{
	struct sp_demangle *dm;

	(void)prog; /* no program runs any more */
	*out = NULL;
	dm = calloc(1, sizeof(*dm));
	if (dm == NULL)
		return -ENOMEM;
	*out = dm;
	return 0;
}

void
sp_demangle_free(struct sp_demangle *dm)
{
	if (dm == NULL)
		return;
	spi_intern_fini(&dm->names);
	free(dm->e);
	free(dm->queue);
	spi_buf_fini(&dm->res);
	free(dm->text.p);
	free(dm->text.word);
	free(dm);
}

static int
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * Whether s[0..len) has a word starting as a mangled symbol: "_Z" and a
 * letter or digit (Itanium: "_ZN", "_Z3", "_ZTV", "_Znwm" for operator
 * new), or "_R" and an upper-case letter or digit (Rust v0: "_RNv",
 * "_R0"), where a C++ name already demangled ("std::_Rb_tree") has a
 * lower-case letter.
 */
static int
has_word(const char *s, size_t len, char c)
{
	size_t i;
	char n;

	for (i = 0; i + 2 < len; i++) {
		n = s[i + 2];
		if (s[i] == '_' && s[i + 1] == c &&
		    ((n >= 'A' && n <= 'Z') || (n >= '0' && n <= '9') ||
		    (c == 'Z' && n >= 'a' && n <= 'z')) &&
		    (i == 0 || !spi_demangle_symbol_byte((unsigned char)s[i - 1])))
			return 1;
	}
	return 0;
}

/* Whether s[0..len) is to be demangled. */
static int
wanted(const char *s, size_t len)
{
	return len <= SP_DEMANGLE_NAME_MAX && (has_word(s, len, 'Z') ||
	    has_word(s, len, 'R')) && memchr(s, '\n', len) == NULL &&
	    memchr(s, '\0', len) == NULL;
}

/*
 * Whether s[0..len) holds a legacy Rust symbol: its last path element
 * "17h" and 16 hex digits, then the 'E' that ends the path and the
 * symbol (or a ".llvm.N" suffix).  A C++ function named so has its
 * parameters after the 'E'.
 */
static int
rust_legacy(const char *s, size_t len)
{
	size_t i, k;

	for (i = 0; i + 20 <= len; i++) {
		if (memcmp(s + i, "17h", 3) != 0 || s[i + 19] != 'E' ||
		    (i + 20 < len && s[i + 20] != '.' &&
		    spi_demangle_symbol_byte((unsigned char)s[i + 20])))
			continue;
		for (k = 0; k < 16 && is_hex((unsigned char)s[i + 3 + k]); k++)
			;
		if (k == 16)
			return 1;
	}
	return 0;
}

/* Whether "::h" and 16 hex digits, not followed by a symbol's byte,
 * start at p[i]. */
static int
hash_at(const char *p, size_t n, size_t i)
{
	size_t k;

	if (i + 19 > n || memcmp(p + i, "::h", 3) != 0)
		return 0;
	for (k = 0; k < 16; k++)
		if (!is_hex((unsigned char)p[i + 3 + k]))
			return 0;
	return i + 19 == n || !spi_demangle_symbol_byte((unsigned char)p[i + 19]);
}

/* The length of "[hex]" (1 to 16 digits) after an identifier's byte at
 * p[i], or 0. */
static size_t
disambiguator_at(const char *p, size_t n, size_t i)
{
	size_t k;

	if (i == 0 || p[i] != '[' || !spi_demangle_symbol_byte((unsigned char)p[i - 1]))
		return 0;
	for (k = 1; i + k < n && k <= 17 && is_hex((unsigned char)p[i + k]);
	    k++)
		;
	return k > 1 && k <= 17 && i + k < n && p[i + k] == ']' ? k + 1 : 0;
}

/*
 * c++filt prints Rust names verbosely (DMGL_VERBOSE, which it always
 * sets): the legacy hash, the hash of the crate's metadata that makes
 * the symbol unique ("rtree::main::h0123456789abcdef"), and v0 crate
 * disambiguators ("core[6cdcc5c448ae7c26]::fmt").  Both are left out of
 * p[0..n) in place, as perf and rustfilt (rustc-demangle's alternate
 * form) do; only for names that have Rust's marks, so no C++ name
 * changes.  Returns the new length.
 */
static size_t
rust_clean(const char *name, size_t len, char *p, size_t n)
{
	int legacy = rust_legacy(name, len), v0 = has_word(name, len, 'R');
	size_t i = 0, o = 0, skip;

	if (!legacy && !v0)
		return n;
	while (i < n) {
		skip = legacy && hash_at(p, n, i) ? 19 : 0;
		if (skip == 0 && v0)
			skip = disambiguator_at(p, n, i);
		if (skip > 0) {
			i += skip;
			continue;
		}
		p[o++] = p[i++];
	}
	return o;
}

/* Keeps the text t->p[0..t->len) of entry id (1-based), cleaned, when it
 * differs from the name and fits the limits. */
static void
result(struct sp_demangle *dm, uint32_t id, struct dm_text *t)
{
	const struct sp_intern_entry *ie = &dm->names.entries[id - 1];
	const char *name = (const char *)spi_buf_at(&dm->names.keys, ie->off);
	struct dm_entry *e = &dm->e[id - 1];
	size_t n = rust_clean(name, ie->len, t->p, t->len);

	if ((n == ie->len && memcmp(t->p, name, n) == 0) ||
	    dm->kept + n > SP_DEMANGLE_KEPT_MAX(dm->sent))
		return;
	e->off = dm->res.len;
	e->len = (uint32_t)n;
	spi_buf_put(&dm->res, t->p, n);
	if (dm->res.err)
		return;
	dm->kept += n;
	e->state = DM_DONE;
}

int
sp_demangle_run(struct sp_demangle *dm, int last, struct sp_diag *diag)
{
	const struct sp_intern_entry *ie;
	size_t i;
	int rc = 0;

	(void)last; /* names may follow any run */
	if (dm->failed)
		return 0;
	for (i = 0; i < dm->nq && rc >= 0; i++) {
		ie = &dm->names.entries[dm->queue[i] - 1];
		dm->e[dm->queue[i] - 1].state = DM_RAW;
		dm->sent += ie->len;
		rc = spi_demangle_text(&dm->text, (const char *)spi_buf_at(
		    &dm->names.keys, ie->off), ie->len);
		if (rc > 0) {
			result(dm, dm->queue[i], &dm->text);
			rc = dm->res.err;
		}
		if (rc == -E2BIG)
			rc = 0; /* shown as it is */
	}
	dm->nq = 0;
	if (rc < 0) {
		/* Out of memory: the names without a text stay as they
		 * are, from now on all of them. */
		dm->failed = 1;
		return sp_diag_set(diag, 0, rc, "%s", sp_strerror(rc));
	}
	return 0;
}

int
sp_demangle_add(struct sp_demangle *dm, const char *s, size_t len)
{
	uint64_t hash;
	uint32_t id;

	if (dm->failed || !wanted(s, len) ||
	    spi_intern_find(&dm->names, K_NAME, (const uint8_t *)s, len,
	    &hash) != 0)
		return 0;
	if (spi_grow_zeroed(&dm->e, &dm->cape, dm->ne + 1, sizeof(*dm->e)) ||
	    spi_grow_zeroed(&dm->queue, &dm->capq, dm->nq + 1,
	    sizeof(*dm->queue)))
		return -ENOMEM;
	id = (uint32_t)dm->ne + 1;
	if (spi_intern_add(&dm->names, K_NAME, (const uint8_t *)s, len, hash,
	    id) != 0)
		return -ENOMEM;
	dm->e[dm->ne++].state = DM_QUEUED;
	dm->queue[dm->nq++] = id;
	return 1;
}

int
sp_demangle_add_defs(struct sp_demangle *dm, const struct sp_defs *d)
{
	uint64_t n = sp_defs_count(d, SP_REC_FRAME), id;
	const struct sp_symbol *sym;
	const struct sp_str *fn;
	uint32_t i;

	for (id = 1; id <= n && id <= UINT32_MAX; id++) {
		if ((sym = sp_defs_symbol(d, (uint32_t)id)) == NULL)
			continue;
		for (i = 0; i < sym->count; i++)
			if ((fn = sp_defs_string(d, sym->lines[i].function)) !=
			    NULL && sp_demangle_add(dm, fn->s, fn->len) < 0)
				return -ENOMEM;
	}
	return 0;
}

int
sp_demangle_add_flame(struct sp_demangle *dm, const struct sp_flame *f)
{
	uint32_t i;

	for (i = 1; i < f->n; i++)
		if (sp_demangle_add(dm, sp_flame_name(f, i),
		    f->node[i].name_len) < 0)
			return -ENOMEM;
	return 0;
}

const char *
sp_demangle_get(const struct sp_demangle *dm, const char *s, size_t len,
    size_t *outlen)
{
	const struct dm_entry *e;
	uint64_t hash;
	uint32_t id;

	if (dm == NULL || dm->ne == 0 || !wanted(s, len))
		return NULL;
	id = spi_intern_find(&dm->names, K_NAME, (const uint8_t *)s, len,
	    &hash);
	if (id == 0 || (e = &dm->e[id - 1])->state != DM_DONE)
		return NULL;
	*outlen = e->len;
	return (const char *)spi_buf_at(&dm->res, e->off);
}
