/* SPDX-License-Identifier: MIT */
/*
 * Reads a whole spool with a Snapshot and prints its stacks, the most
 * frequent first: each one's sample count and its frames root first,
 * named by sp_format_frame (function names once sp-sym resolved them,
 * module+offset before).
 *
 * usage: snapshot SPOOL [TOP]   (TOP stacks, default 10)
 */
#include <stdio.h>
#include <stdlib.h>

#include <sp/spool/format.h>
#include <sp/spool/snapshot.h>

struct count {
	uint32_t stack;
	size_t n;
};

static int
by_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) :
	    (x->stack > y->stack) - (x->stack < y->stack);
}

int
main(int argc, char **argv)
{
	struct sp_diag diag = { 0 };
	struct sp_snapshot *s;
	const struct sp_defs *d;
	const struct sp_sample *smp;
	struct count *c;
	uint32_t frames[1024];
	size_t n, i, k, depth, top = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
	char name[256];

	if (argc < 2) {
		fprintf(stderr, "usage: snapshot SPOOL [TOP]\n");
		return 2;
	}
	if (sp_snapshot_open(argv[1], &s, &diag) != 0) {
		fprintf(stderr, "snapshot: %s\n", diag.msg);
		return 1;
	}
	d = sp_snapshot_defs(s);
	smp = sp_snapshot_samples(s);
	n = sp_snapshot_nsamples(s);
	/* Stacks are NODE ids, one per distinct stack: count per id. */
	c = calloc(sp_defs_count(d, SP_REC_NODE) + 1, sizeof(*c));
	if (c == NULL)
		return 1;
	for (i = 0; i <= sp_defs_count(d, SP_REC_NODE); i++)
		c[i].stack = (uint32_t)i;
	for (i = 0; i < n; i++)
		c[smp[i].stack].n++;
	qsort(c, sp_defs_count(d, SP_REC_NODE) + 1, sizeof(*c), by_count);
	printf("%zu samples%s\n", n, sp_snapshot_status(s)->truncated ?
	    " (the spool's tail is cut)" : "");
	for (i = 0; i < top && c[i].n > 0; i++) {
		printf("%zu", c[i].n);
		(void)sp_defs_stack(d, c[i].stack, frames, 1024, &depth);
		if (depth > 1024)
			depth = 1024;
		for (k = depth; k-- > 0;) {
			(void)sp_format_frame(d, frames[k], name, sizeof(name));
			printf("%s%s", k + 1 == depth ? " " : ";", name);
		}
		printf("\n");
	}
	free(c);
	sp_snapshot_free(s);
	return 0;
}
