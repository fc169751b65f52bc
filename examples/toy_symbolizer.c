/* SPDX-License-Identifier: MIT */
/*
 * Plugs a native-symbolizer backend of its own into libsp: this toy one
 * names every native frame after its module ("in libc.so.6"), where a
 * real one would ask its own debug-info reader.  The symbolizer still
 * names kernel frames, perf-map frames and the frames of no file itself.
 * Reads a whole spool (a Snapshot) and prints how often each name was
 * the leaf, most often first, then how many lookups and batches the
 * backend got.
 *
 * usage: toy_symbolizer SPOOL [N]   (the N most frequent leaves, 10)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sp/spool/snapshot.h>
#include <sp/sym/symbolizer.h>

struct toy {
	unsigned long lookups, batches;
};

static int
toy_lookup(void *arg, const struct sp_native_lookup *batch, size_t n,
    struct sp_native_out *out)
{
	struct toy *toy = arg;
	size_t i;
	int err;

	toy->batches++;
	for (i = 0; i < n; i++) {
		const char *base = strrchr(batch[i].path, '/');
		char name[512];
		struct sp_native_line line = { name, NULL, 0, 0 };

		(void)snprintf(name, sizeof(name), "in %s",
		    base != NULL ? base + 1 : batch[i].path);
		toy->lookups++;
		if ((err = sp_native_append(out, SP_NATIVE_NAMED, &line,
		    1)) < 0)
			return err;
	}
	return 0;
}

struct leaf {
	uint32_t id;
	char name[128];
	unsigned long count;
};

static int
by_count(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct toy toy = { 0, 0 };
	struct sp_native_backend be = { toy_lookup, NULL, &toy };
	struct sp_snapshot *s;
	struct sp_symbolizer *sym;
	struct sp_diag diag = { 0 };
	struct leaf *leaves = NULL;
	size_t nleaves = 0, i, k, top = argc > 2 ? (size_t)atol(argv[2]) : 10;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: toy_symbolizer SPOOL [N]\n");
		return 2;
	}
	if ((err = sp_snapshot_open(argv[1], &s, &diag)) < 0) {
		fprintf(stderr, "toy_symbolizer: %s\n", diag.msg);
		return 1;
	}
	err = sp_symbolizer_new(sp_snapshot_defs(s), sp_snapshot_header(s),
	    NULL, &be, &sym);
	for (i = 0; err == 0 && i < sp_snapshot_nsamples(s); i++) {
		struct sp_resolved_stack st;

		err = sp_symbolizer_resolve(sym, sp_snapshot_samples(s)[i].stack,
		    &st);
		if (err < 0 || st.n == 0)
			continue;
		/* Stable ids: one entry per distinct leaf. */
		for (k = 0; k < nleaves && leaves[k].id != st.frames[0].id; k++)
			;
		if (k == nleaves) {
			struct leaf *v = realloc(leaves, (nleaves + 1) *
			    sizeof(*v));

			if (v == NULL) {
				err = -1;
				break;
			}
			leaves = v;
			leaves[k].id = st.frames[0].id;
			leaves[k].count = 0;
			(void)snprintf(leaves[k].name, sizeof(leaves[k].name),
			    "%s", st.frames[0].name);
			nleaves++;
		}
		leaves[k].count++;
	}
	if (err < 0) {
		fprintf(stderr, "toy_symbolizer: resolving failed (%d)\n", err);
	} else {
		qsort(leaves, nleaves, sizeof(*leaves), by_count);
		for (k = 0; k < nleaves && k < top; k++)
			printf("%lu %s\n", leaves[k].count, leaves[k].name);
		printf("%lu lookups in %lu batches\n", toy.lookups,
		    toy.batches);
	}
	free(leaves);
	sp_symbolizer_free(sym);
	sp_snapshot_free(s);
	return err < 0 ? 1 : 0;
}
