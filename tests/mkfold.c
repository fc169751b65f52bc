/* SPDX-License-Identifier: MIT */
/*
 * mkfold: writes a large symbolized spool for bench/fold.sh.
 *   mkfold FILE NSAMPLES [NSTACKS [DEPTH]]
 * One process of 8 threads, one module with 4096 named functions, NSTACKS
 * (default 2000) distinct stacks of DEPTH frames (default 24, a shared
 * root-side chain and a random tail), samples spread over the stacks with
 * a skewed distribution (a few hot stacks, a long tail) at 1 kHz per
 * thread.  Deterministic: the same arguments write the same bytes.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/spool/writer.h"

#define NFUNC 4096
#define NTHREADS 8

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64: good enough to spread samples, and reproducible. */
static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
check(int e, const char *what)
{
	if (e != 0)
		errx(1, "%s: %s", what, sp_strerror(e));
}

static uint32_t
put(struct sp_writer *w, struct sp_record *r)
{
	uint32_t id = 0;

	check(sp_writer_put(w, r, &id), sp_kind_name(r->kind));
	return id;
}

static void
defs(struct sp_writer *w, uint32_t *frames, uint32_t *threads)
{
	struct sp_record r;
	struct sp_symline l;
	uint32_t i, file;
	char name[64];

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_RECORDING;
	r.u.recording.event = (struct sp_str){ "cpu-clock", 9 };
	r.u.recording.frequency = 1000;
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = 1000;
	r.u.module.start = 0x400000;
	r.u.module.size = 0x1000000;
	check(sp_writer_string(w, "/usr/bin/bench", 14, &r.u.module.path),
	    "string");
	(void)put(w, &r);
	check(sp_writer_string(w, "bench.c", 7, &file), "string");
	for (i = 0; i < NFUNC; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_FRAME;
		r.u.frame.module = 1;
		r.u.frame.rel_ip = 0x1000 + 64ull * i;
		r.u.frame.abs_ip = 0x400000 + 64ull * i;
		frames[i] = put(w, &r);
		(void)snprintf(name, sizeof(name), "function_%u_of_the_bench", i);
		memset(&l, 0, sizeof(l));
		check(sp_writer_string(w, name, strlen(name), &l.function),
		    "string");
		l.file = file;
		l.line = 10 + i;
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_SYMBOL;
		r.u.symbol.frame = frames[i];
		r.u.symbol.origin = SP_ORIGIN_ELF;
		r.u.symbol.count = 1;
		r.u.symbol.lines = &l;
		(void)put(w, &r);
	}
	for (i = 0; i < NTHREADS; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_THREAD;
		r.u.thread.pid = 1000;
		r.u.thread.tid = 1000 + i;
		check(sp_writer_string(w, "bench", 5, &r.u.thread.comm),
		    "string");
		threads[i] = put(w, &r);
	}
}

int
main(int argc, char **argv)
{
	struct sp_header h;
	struct sp_writer *w;
	struct sp_record r;
	uint32_t frames[NFUNC], threads[NTHREADS], st[64], *stacks;
	unsigned long long n, nstacks = 2000, depth = 24, i, k, j;
	int fd;

	if (argc < 3 || argc > 5)
		errx(2, "usage: mkfold FILE NSAMPLES [NSTACKS [DEPTH]]");
	n = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		nstacks = strtoull(argv[3], NULL, 10);
	if (argc > 4)
		depth = strtoull(argv[4], NULL, 10);
	if (nstacks == 0 || nstacks > 1000000 || depth < 4 || depth > 64)
		errx(2, "NSTACKS 1..1000000, DEPTH 4..64");
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		err(1, "%s", argv[1]);
	check(sp_header_init_host(&h), "header");
	check(sp_writer_new(fd, &h, &w), "writer");
	defs(w, frames, threads);
	if ((stacks = calloc(nstacks, sizeof(*stacks))) == NULL)
		err(1, "calloc");
	for (i = 0; i < nstacks; i++) {
		/* Leaf first: a random tail, then main's chain (frames 0..3). */
		for (k = 0; k < depth - 4; k++)
			st[k] = frames[4 + next() % (NFUNC - 4)];
		for (j = 0; j < 4; j++)
			st[k + j] = frames[3 - j];
		check(sp_writer_stack(w, st, depth, &stacks[i]), "stack");
	}
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SAMPLE;
	for (i = 0; i < n; i++) {
		/* Skewed: half the samples on the first 1/64 of the stacks. */
		k = next();
		r.u.sample.stack = stacks[(k & 1) ?
		    (k >> 8) % (nstacks / 64 + 1) % nstacks : (k >> 8) % nstacks];
		r.u.sample.thread = threads[i % NTHREADS];
		r.u.sample.time = h.start_mono_ns + i / NTHREADS * 1000000ull;
		r.u.sample.cpu = (uint32_t)(i % 2);
		(void)put(w, &r);
	}
	check(sp_writer_finish(w), "finish");
	sp_writer_free(w);
	free(stacks);
	if (close(fd) != 0)
		err(1, "%s", argv[1]);
	return 0;
}
