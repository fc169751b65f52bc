/* SPDX-License-Identifier: MIT */
/*
 * sp_sym_spool's look-ahead (libsp/sym/ahead.c) changes the order in
 * which frames are resolved, never the output: the same spool through
 * chunks of every size, from memory, a file and a pipe (which it cannot
 * read twice), gives the bytes and report of resolving each frame when
 * the copy comes to it (chunk 0).
 *
 * The spool names this test program's own code (its DWARF: lines and
 * inline chains) and a JIT region of the same process that a perf map
 * names only while the process is a Python runtime, which PYTHON records
 * switch on and off between the frames: resolved at the wrong time, a
 * frame would get the other answer.  Symbols of a symbolized input
 * follow some frames (copied, not resolved), strings others, and some
 * come late, frames after their own (dropped, and not to be seen by an
 * address-only frame's name before the copy reaches them).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"
#include "sp/spool/replay.h"
#include "sp/spool/writer.h"
#include "sp/sym/sym.h"
#include "sym/ahead_int.h"
#include "sym/sym_int.h"

#define PID 31337u
#define JIT_START 0x7f0000000000ull
#define JIT_FUNCS 64
#define FRAMES 700 /* FRAME records put; fewer are new */
#define DENSE 3000 /* put in a dense spool */
#define LATE 5     /* a late symbol names a frame up to this many back */

/* Where this program's code is mapped: its first executable mapping. */
struct text {
	uint64_t start, end, offset;
	char path[4096];
};

static void
find_text(struct text *t, uintptr_t inside)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192], perm[8];
	unsigned long long lo, hi, off;
	int n;

	cr_assert_not_null(f);
	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi,
		    perm, &off, &n) != 4 || perm[2] != 'x' ||
		    inside < lo || inside >= hi)
			continue;
		t->start = lo;
		t->end = hi;
		t->offset = off;
		(void)snprintf(t->path, sizeof(t->path), "%s", line + n);
		t->path[strcspn(t->path, "\n")] = '\0';
	}
	(void)fclose(f);
	cr_assert(t->end > t->start, "no executable mapping holds this code");
	cr_assert_eq(t->path[0], '/');
}

static uint32_t
put(struct sp_writer *w, struct sp_record *r)
{
	uint32_t id = 0;
	int err = sp_writer_put(w, r, &id);

	cr_assert_eq(err, 0, "put kind %u: %s", r->kind, sp_strerror(err));
	return id;
}

static uint32_t
string(struct sp_writer *w, const char *s)
{
	uint32_t id = 0;

	cr_assert_eq(sp_writer_string(w, s, strlen(s), &id), 0);
	return id;
}

/* A deterministic sequence, so that a failure can be run again. */
static uint32_t
next(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*x >> 33);
}

/* Code addresses in this program: libsp's functions, which have DWARF,
 * at a few offsets into each. */
static const void *const funcs[] = {
	(const void *)sp_sym_spool, (const void *)spi_sym_spool_ahead,
	(const void *)spi_ahead_symbol, (const void *)spi_ahead_new,
	(const void *)sp_replay_next, (const void *)sp_writer_put,
	(const void *)sp_writer_string, (const void *)sp_replay_open_mem,
	(const void *)sp_writer_new, (const void *)sp_replay_free,
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

/* The spool: see the top of the file.  Its frames are moved on by
 * shift (functions in the JIT region, bytes in the code); dense: DENSE
 * frames put, 64 samples after each new one instead of one after a
 * quarter of them (over 256 KiB, which a reader reads at once), and no
 * PYTHON records. */
static struct mem
make_spool(const struct text *t, uint64_t shift, int dense)
{
	struct sp_record r;
	uint32_t path, comm, node, python = 0, fn, file, frames = 0, n;
	uint8_t named[DENSE + 1] = { 0 };
	uint64_t x = 42;
	int fd, i;
	struct sp_writer *w = mem_writer(&fd);

	path = string(w, t->path);
	comm = string(w, "ahead-test");
	fn = string(w, "copied_function");
	file = string(w, "copied.c");
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = PID;
	r.u.module.start = t->start;
	r.u.module.size = t->end - t->start;
	r.u.module.file_offset = t->offset;
	r.u.module.path = path;
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = PID;
	r.u.module.flags = SP_MOD_ANON;
	r.u.module.start = JIT_START;
	r.u.module.size = JIT_FUNCS * 0x100;
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = PID;
	r.u.thread.tid = PID;
	r.u.thread.comm = comm;
	(void)put(w, &r);
	for (i = 0; i < (dense ? DENSE : FRAMES); i++) {
		uint32_t k = next(&x), frame;

		/* Every 50 frames or so the process starts or stops being
		 * a Python runtime. */
		if (k % 50 == 0 && !dense) {
			memset(&r, 0, sizeof(r));
			r.kind = SP_REC_PYTHON;
			r.u.python.pid = PID;
			r.u.python.is_python = python = !python;
			r.u.python.time = 2000 + (uint64_t)i;
			(void)put(w, &r);
		}
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_FRAME;
		if (k % 3 == 0) {
			r.u.frame.module = 2;
			/* Not the first function: offsets all take two
			 * bytes, so that a shift keeps the spool's size. */
			r.u.frame.abs_ip = JIT_START + (1 + ((k >> 8) +
			    shift) % (JIT_FUNCS - 1)) * 0x100 + k % 0x80;
			r.u.frame.rel_ip = r.u.frame.abs_ip - JIT_START;
		} else {
			uint64_t ip = (uint64_t)(uintptr_t)funcs[(k >> 8) %
			    NFUNCS] + ((k >> 4) + shift) % 48;

			r.u.frame.module = 1;
			r.u.frame.abs_ip = ip;
			r.u.frame.rel_ip = ip - t->start + t->offset;
		}
		frame = put(w, &r);
		/* The writer gave a frame met before its first id. */
		if (frame <= frames)
			continue;
		frames = frame;
		/* A frame a first run named, now and then, and strings
		 * between frames and what follows them. */
		k = next(&x);
		if (k % 7 == 0)
			(void)string(w, k % 2 ? "between" : "and again");
		if (k % 5 == 0 || (k % 11 == 0 && frame > LATE)) {
			struct sp_symline line = { fn, file, (uint32_t)i };

			if (k % 5 != 0)
				frame -= 1 + (k >> 8) % LATE;
			if (named[frame])
				continue;
			named[frame] = 1;
			memset(&r, 0, sizeof(r));
			r.kind = SP_REC_SYMBOL;
			r.u.symbol.frame = frame;
			r.u.symbol.origin = SP_ORIGIN_ELF;
			r.u.symbol.count = 1;
			r.u.symbol.lines = &line;
			(void)put(w, &r);
		}
		for (n = dense ? 64 : k % 4 == 0; n > 0; n--) {
			cr_assert_eq(sp_writer_stack(w, &frame, 1, &node), 0);
			memset(&r, 0, sizeof(r));
			r.kind = SP_REC_SAMPLE;
			r.u.sample.thread = 1;
			r.u.sample.stack = node;
			r.u.sample.time = 3000 + (uint64_t)i;
			(void)put(w, &r);
		}
	}
	cr_assert_eq(sp_writer_finish(w), 0);
	sp_writer_free(w);
	return mem_collect(fd);
}

/* DIR/perf-PID.map naming the JIT region's functions. */
static void
write_perf_map(const char *dir)
{
	char path[4200];
	FILE *f;
	int i;

	(void)snprintf(path, sizeof(path), "%s/perf-%u.map", dir, PID);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	for (i = 0; i < JIT_FUNCS; i++)
		(void)fprintf(f, "%" PRIx64 " 80 jit_function_%d\n",
		    (uint64_t)(JIT_START + (uint64_t)i * 0x100), i);
	cr_assert_eq(fclose(f), 0);
}

/* What a run wrote and reported. */
struct run {
	int err;
	struct mem out;
	struct sp_sym_report rep;
};

enum source { FROM_MEMORY, FROM_FILE, FROM_PIPE };

/* The input as a file or a pipe of its own (a pipe is fed by a child). */
static int
input_fd(const struct mem *in, enum source src)
{
	int p[2], fd;
	pid_t pid;

	if (src == FROM_FILE) {
		fd = memfd_create("in", MFD_CLOEXEC);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, in->p, in->len), (ssize_t)in->len);
		cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
		return fd;
	}
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		size_t off = 0;

		(void)close(p[0]);
		while (off < in->len) {
			ssize_t n = write(p[1], in->p + off, in->len - off);

			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	(void)close(p[1]);
	return p[0];
}

static struct text text;
static struct mem spool;
static char maps[] = "/tmp/sp-ahead-XXXXXX";

/* An input to rewrite from the progress callback, once. */
struct rewrite {
	int fd;
	const struct mem *to;
	int done;
};

static void
rewrite(void *arg, uint64_t bytes, uint64_t frames)
{
	struct rewrite *w = arg;

	(void)bytes;
	(void)frames;
	if (w->done++)
		return;
	cr_assert_eq(pwrite(w->fd, w->to->p, w->to->len, 0),
	    (ssize_t)w->to->len);
	cr_assert_eq(ftruncate(w->fd, (off_t)w->to->len), 0);
}

/* r's spool symbolized, chunk frames ahead; w: the input rewritten
 * under it (or NULL). */
static struct run
run_on(struct sp_replay *r, size_t chunk, struct rewrite *w)
{
	struct sp_sym_options o;
	struct run run;
	int out = memfd_create("out", MFD_CLOEXEC);

	cr_assert_geq(out, 0);
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.perf_map_dir = maps;
	o.kernel_none = 1;
	if (w != NULL) {
		o.progress = rewrite;
		o.progress_arg = w;
	}
	run.err = spi_sym_spool_ahead(&o, r, out, &run.rep, NULL, chunk);
	sp_replay_free(r);
	run.out = mem_collect(out);
	return run;
}

static struct run
sym(const struct mem *in, enum source src, size_t chunk)
{
	struct sp_replay *r;
	struct run run;
	int fd = -1;

	if (src == FROM_MEMORY) {
		cr_assert_eq(sp_replay_open_mem(in->p, in->len, &r, NULL), 0);
	} else {
		fd = input_fd(in, src);
		cr_assert_eq(sp_replay_open_fd(fd, &r, NULL), 0);
	}
	run = run_on(r, chunk, NULL);
	if (fd >= 0)
		(void)close(fd);
	return run;
}

static void
run_free(struct run *r)
{
	mem_free(&r->out);
	sp_sym_report_fini(&r->rep);
}

/* The same error and output bytes. */
static void
same_bytes(const struct run *want, const struct run *got, const char *what)
{
	cr_assert_eq(got->err, want->err, "%s: error %d, want %d", what,
	    got->err, want->err);
	cr_assert_eq(got->out.len, want->out.len, "%s: %zu bytes, want %zu",
	    what, got->out.len, want->out.len);
	cr_assert(memcmp(got->out.p, want->out.p, want->out.len) == 0,
	    "%s: the output differs", what);
}

/* ... and the same report. */
static void
same(const struct run *want, const struct run *got, const char *what)
{
	size_t i;

	same_bytes(want, got, what);
	cr_assert_eq(got->rep.frames, want->rep.frames, "%s", what);
	cr_assert_eq(got->rep.copied, want->rep.copied, "%s", what);
	for (i = 0; i < 5; i++)
		cr_assert_eq(got->rep.by_origin[i], want->rep.by_origin[i],
		    "%s: origin %zu", what, i);
	cr_assert_eq(got->rep.nmissing, want->rep.nmissing, "%s", what);
	for (i = 0; i < want->rep.nmissing; i++) {
		cr_assert_str_eq(got->rep.missing[i].path,
		    want->rep.missing[i].path, "%s", what);
		cr_assert_eq(got->rep.missing[i].frames,
		    want->rep.missing[i].frames, "%s", what);
	}
	cr_assert_eq(got->rep.input_truncated, want->rep.input_truncated);
}


static void
setup(void)
{
	find_text(&text, (uintptr_t)(const void *)sp_sym_spool);
	spool = make_spool(&text, 0, 0);
	cr_assert_not_null(mkdtemp(maps));
	write_perf_map(maps);
}

static void
teardown(void)
{
	char path[4200];

	(void)snprintf(path, sizeof(path), "%s/perf-%u.map", maps, PID);
	(void)unlink(path);
	(void)rmdir(maps);
	mem_free(&spool);
}

TestSuite(ahead, .init = setup, .fini = teardown);

/* The spool tests what it is meant to: DWARF lines, perf map names
 * and address-only JIT frames (the Python switch), copied symbols. */
Test(ahead, spool_has_every_case)
{
	struct run want = sym(&spool, FROM_MEMORY, 0);

	cr_assert_eq(want.err, 0);
	cr_assert_gt(want.rep.frames, FRAMES / 2);
	cr_assert_gt(want.rep.by_origin[SP_ORIGIN_ELF], want.rep.copied + 50);
	cr_assert_gt(want.rep.by_origin[SP_ORIGIN_PERF_MAP], 20);
	cr_assert_gt(want.rep.by_origin[SP_ORIGIN_ADDRESS], 20);
	cr_assert_gt(want.rep.copied, 50);
	cr_assert_gt(want.rep.stale_symbols, 5);
	cr_assert_gt(want.rep.inline_lines, 0, "no inline chain: no DWARF?");
	run_free(&want);
}

Test(ahead, every_chunk_size_gives_the_same_spool)
{
	static const size_t chunks[] = { 1, 2, 3, 7, 64, 699, 700, 701,
	    SP_AHEAD_FRAMES };
	struct run want = sym(&spool, FROM_MEMORY, 0), got;
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		(void)snprintf(what, sizeof(what), "chunk %zu", chunks[i]);
		got = sym(&spool, FROM_MEMORY, chunks[i]);
		same(&want, &got, what);
		run_free(&got);
	}
	run_free(&want);
}

/* A file is read again with pread, its offset left to the copy; a pipe
 * cannot be, and is resolved in order. */
Test(ahead, files_and_pipes_give_the_same_spool)
{
	struct run want = sym(&spool, FROM_MEMORY, 0), got;

	got = sym(&spool, FROM_FILE, 5);
	same(&want, &got, "file, chunk 5");
	run_free(&got);
	got = sym(&spool, FROM_FILE, SP_AHEAD_FRAMES);
	same(&want, &got, "file");
	run_free(&got);
	got = sym(&spool, FROM_PIPE, SP_AHEAD_FRAMES);
	same(&want, &got, "pipe");
	run_free(&got);
	run_free(&want);
}

/* A cut input: the prefix, as without a look-ahead. */
Test(ahead, a_truncated_input_gives_the_same_prefix)
{
	struct mem cut = { spool.p, spool.len * 2 / 3 };
	struct run want = sym(&cut, FROM_MEMORY, 0), got;

	cr_assert_eq(want.rep.input_truncated, 1);
	got = sym(&cut, FROM_MEMORY, 9);
	same(&want, &got, "cut, chunk 9");
	run_free(&got);
	got = sym(&cut, FROM_FILE, SP_AHEAD_FRAMES);
	same(&want, &got, "cut file");
	run_free(&got);
	run_free(&want);
}

/* A damaged input: the copy stops at the same record with the same
 * error (the report may count frames resolved ahead of it). */
Test(ahead, a_damaged_input_fails_alike)
{
	struct mem bad = { malloc(spool.len), spool.len };
	struct run want, got;

	cr_assert_not_null(bad.p);
	memcpy(bad.p, spool.p, spool.len);
	bad.p[bad.len - 1] ^= 0x55;     /* END's crc32 */
	want = sym(&bad, FROM_MEMORY, 0);
	cr_assert_eq(want.err, -SP_ECHECKSUM);
	got = sym(&bad, FROM_MEMORY, 3);
	same_bytes(&want, &got, "a damaged END, chunk 3");
	run_free(&got);
	run_free(&want);
	mem_free(&bad);
}

/* The input file rewritten in place while sp-sym reads it (from the
 * progress callback, after 8192 records, before the copy reads past its
 * first 256 KiB; the look-ahead read all of the old one at the first
 * frame): the copy then reads frames the look-ahead did not resolve,
 * which it sees and resolves itself.  The same as resolving each in
 * turn through the same rewrite. */
static struct run
sym_rewritten(const struct mem *in, const struct mem *to, size_t chunk)
{
	struct rewrite w = { input_fd(in, FROM_FILE), to, 0 };
	struct sp_replay *r;
	struct run run;

	cr_assert_eq(sp_replay_open_fd(w.fd, &r, NULL), 0);
	run = run_on(r, chunk, &w);
	cr_assert_eq(w.done > 0, 1, "the progress callback was not called");
	(void)close(w.fd);
	return run;
}

Test(ahead, an_input_rewritten_under_it_is_read_as_the_copy_reads_it)
{
	struct mem a = make_spool(&text, 0, 1), b = make_spool(&text, 16, 1);
	struct run want, got;

	cr_assert_eq(a.len, b.len, "the two spools frame alike");
	cr_assert_gt(a.len, 2 * 256 * 1024, "%zu bytes", a.len);
	want = sym_rewritten(&a, &b, 0);
	got = sym_rewritten(&a, &b, SP_AHEAD_FRAMES);
	/* Else a frame gets the symbol of the one the look-ahead read. */
	same_bytes(&want, &got, "rewritten");
	run_free(&got);
	run_free(&want);
	mem_free(&a);
	mem_free(&b);
}

/* Its own output, symbolized: every symbol is copied, none resolved. */
Test(ahead, a_symbolized_input_is_copied)
{
	struct run first = sym(&spool, FROM_MEMORY, SP_AHEAD_FRAMES);
	struct run want = sym(&first.out, FROM_MEMORY, 0), got;

	cr_assert_eq(want.rep.copied, want.rep.frames);
	got = sym(&first.out, FROM_MEMORY, 4);
	same(&want, &got, "symbolized, chunk 4");
	run_free(&got);
	run_free(&want);
	run_free(&first);
}
