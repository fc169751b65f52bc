/* SPDX-License-Identifier: MIT */
/*
 * A program's own native backend, as docs/api.md describes it: one that
 * covers some modules and hands the others back to the built-in
 * ELF/DWARF backend (on a real process through the kernel), one tested
 * alone on synthetic requests, symbolizers on two threads at once, and
 * the invalidations a cache applies.  Public headers only.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "livetest.h"
#include "sp/spool/format.h"
#include "sp/sym/symbolizer.h"

/* Names the frames of one file, answers `others` for the rest. */
struct mine {
	char path[4096];
	enum sp_native_status others;
	int named, handed_back;
};

static int
mine_lookup(void *arg, const struct sp_native_lookup *batch, size_t n,
    struct sp_native_out *out)
{
	struct mine *m = arg;
	struct sp_native_line line = { "mine", NULL, 0, 0 };
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (strcmp(batch[i].path, m->path) == 0) {
			m->named++;
			err = sp_native_append(out, SP_NATIVE_NAMED, &line, 1);
		} else {
			m->handed_back++;
			err = sp_native_append(out, m->others, NULL, 0);
		}
		if (err < 0)
			return err;
	}
	return 0;
}

static int
in_libc(const struct sp_resolved_frame *f)
{
	return f->module != NULL && strncmp(f->module, "libc.so", 7) == 0;
}

/*
 * The libc frames of stack as sym names them, "|"-joined into buf, with
 * the origin they all share (-1 if they differ); their count.
 */
static size_t
libc_names(struct sp_symbolizer *sym, uint32_t stack, char *buf, size_t cap,
    int *origin)
{
	struct sp_resolved_stack st;
	size_t i, k = 0, len = 0;

	buf[0] = '\0';
	*origin = -1;
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	for (i = 0; i < st.n; i++) {
		if (!in_libc(&st.frames[i]))
			continue;
		*origin = k == 0 || *origin == (int)st.frames[i].origin ?
		    (int)st.frames[i].origin : -1;
		len += (size_t)snprintf(buf + len, cap - len, "%s|",
		    st.frames[i].name);
		cr_assert_lt(len, cap);
		k++;
	}
	return k;
}

Test(native, a_backend_of_some_modules_hands_the_others_to_elf)
{
	struct live l;
	struct sp_sample s[4096];
	struct sp_symbolizer *sym, *msym;
	struct sp_resolved_stack st;
	struct mine mine;
	struct sp_native_backend be = { mine_lookup, NULL, &mine };
	char exe[64], builtin[4096], got[4096];
	uint32_t stack;
	size_t n, i, nlibc, mine_frames = 0;
	int origin, morigin;
	ssize_t len;
	pid_t a;

	n = live_spin_symbolized(&l, s, 4096, &a, &sym);
	memset(&mine, 0, sizeof(mine));
	(void)snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)a);
	len = readlink(exe, mine.path, sizeof(mine.path) - 1);
	cr_assert_gt(len, 0, "the spinner's executable");
	mine.path[len] = '\0';
	stack = native_stack(s, n, sym);
	cr_assert_neq(stack, 0, "a sample in the shell's own code");
	/* Every stack of the shell runs from libc's __libc_start_main. */
	nlibc = libc_names(sym, stack, builtin, sizeof(builtin), &origin);
	cr_assert_gt(nlibc, 0, "libc frames in the shell's stack");
	cr_assert_eq(origin, SP_ORIGIN_ELF, "libc named by ELF: %s", builtin);

	/* Handed back: libc's frames named as without a backend. */
	mine.others = SP_NATIVE_FALLBACK;
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    NULL, &be, &msym), 0);
	cr_assert_eq(libc_names(msym, stack, got, sizeof(got), &morigin),
	    nlibc);
	cr_assert_str_eq(got, builtin, "the built-in backend's names");
	cr_assert_eq(morigin, SP_ORIGIN_ELF);
	cr_assert(mine.named > 0 && mine.handed_back > 0, "%d named, %d "
	    "handed back", mine.named, mine.handed_back);
	cr_assert_eq(sp_symbolizer_resolve(msym, stack, &st), 0);
	for (i = 0; i < st.n; i++)
		if (st.frames[i].kind == SP_RESOLVED_NATIVE && !in_libc(
		    &st.frames[i]) && strcmp(st.frames[i].name, "mine") == 0)
			mine_frames++;
	cr_assert_gt(mine_frames, 0, "the backend's own frames keep its name");
	sp_symbolizer_free(msym);

	/* Not found: the address alone, as before. */
	mine.others = SP_NATIVE_NOT_FOUND;
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    NULL, &be, &msym), 0);
	/* Fewer maybe: an address has no inlined calls. */
	cr_assert_gt(libc_names(msym, stack, got, sizeof(got), &morigin), 0);
	cr_assert_eq(morigin, SP_ORIGIN_ADDRESS, "%s", got);
	cr_assert_not_null(strstr(got, "libc.so.6+0x"), "%s", got);
	sp_symbolizer_free(msym);

	sp_symbolizer_free(sym);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	live_end(&l);
}

/*
 * A backend that reads a made-up server's symbol table by image address:
 * its own executable only, other modules handed back; without an image
 * address it cannot look yet.
 */
static const struct fn {
	uint64_t start, size;
	const char *name, *inlined;
} server_fns[] = {
	{ 0x1100, 0x80, "handle_request", "parse_header" },
	{ 0x1200, 0x40, "main", NULL },
};

static int
server_lookup(void *arg, const struct sp_native_lookup *batch, size_t n,
    struct sp_native_out *out)
{
	const char *server = arg;
	size_t i, k;
	int err;

	for (i = 0; i < n; i++) {
		const struct sp_native_lookup *l = &batch[i];
		const struct fn *f = NULL;

		for (k = 0; k < sizeof(server_fns) / sizeof(*f); k++)
			if (l->has_image && l->image - server_fns[k].start <
			    server_fns[k].size)
				f = &server_fns[k];
		if (strcmp(l->path, server) != 0)
			err = sp_native_append(out, SP_NATIVE_FALLBACK, NULL, 0);
		else if (!l->has_image)
			err = sp_native_append(out, SP_NATIVE_PROVISIONAL,
			    NULL, 0);
		else if (f == NULL)
			err = sp_native_append(out, SP_NATIVE_NOT_FOUND, NULL,
			    0);
		else {
			struct sp_native_line lines[2] = {
				{ f->inlined, "server.c", 40, 3 },
				{ f->name, "server.c", 90, 0 },
			};

			err = f->inlined != NULL ?
			    sp_native_append(out, SP_NATIVE_NAMED, lines, 2) :
			    sp_native_append(out, SP_NATIVE_NAMED, lines + 1, 1);
		}
		if (err < 0)
			return err;
	}
	return 0;
}

Test(native, a_backend_is_tested_on_synthetic_requests)
{
	static const char server[] = "/srv/bin/server";
	struct sp_module exe, libc, stripped, anon;
	struct sp_native_lookup batch[4], l;
	struct sp_native_line lines[SP_INLINE_MAX];
	struct sp_native_out *out;
	enum sp_native_status st;
	size_t nl;

	/* The server's text: file offset 0x1000 at 0x5555000000000 + 0x1000,
	 * image address 0x1000 (a PIE's first executable segment). */
	memset(&exe, 0, sizeof(exe));
	exe.pid = 42;
	exe.start = 0x555500001000;
	exe.size = 0x2000;
	exe.file_offset = 0x1000;
	exe.elf_vaddr_plus1 = 0x1000 + 1;
	exe.build_id_len = 2;
	exe.build_id[0] = 0xab;
	exe.build_id[1] = 0xcd;
	libc = exe;
	libc.start = 0x7f0000028000;
	libc.file_offset = 0x28000;
	libc.elf_vaddr_plus1 = 0x28000 + 1;
	stripped = exe;
	stripped.elf_vaddr_plus1 = 0;   /* the recorder could not read it */
	anon = exe;
	anon.flags = SP_MOD_ANON;

	cr_assert_eq(sp_native_lookup_init(&batch[0], 1, &exe, server,
	    exe.start + 0x120), 0);
	cr_assert_eq(batch[0].module, 1);
	cr_assert_eq(batch[0].pid, 42);
	cr_assert_str_eq(batch[0].path, server);
	cr_assert_null(batch[0].open_path, "no image of a process");
	cr_assert(batch[0].build_id_len == 2 && batch[0].build_id[1] == 0xcd);
	cr_assert_eq(batch[0].abs, 0x555500001120);
	cr_assert_eq(batch[0].rel, 0x1120);
	cr_assert(batch[0].has_image && batch[0].image == 0x1120);
	cr_assert_eq(batch[0].image_base + batch[0].image, batch[0].abs);
	cr_assert_eq(sp_native_lookup_init(&batch[1], 2, &libc,
	    "/usr/lib/libc.so.6", libc.start + 0x10), 0);
	cr_assert_eq(batch[1].rel, 0x28010);
	cr_assert_eq(sp_native_lookup_init(&batch[2], 3, &stripped, server,
	    stripped.start + 0x120), 0);
	cr_assert_not(batch[2].has_image);
	cr_assert_eq(sp_native_lookup_init(&batch[3], 1, &exe, server,
	    exe.start + 0x1f00), 0);
	/* Requests no recording makes. */
	cr_assert_eq(sp_native_lookup_init(&l, 1, &exe, server,
	    exe.start + exe.size), -SP_EUSAGE);
	cr_assert_eq(sp_native_lookup_init(&l, 1, &exe, server,
	    exe.start - 1), -SP_EUSAGE);
	cr_assert_eq(sp_native_lookup_init(&l, 0, &exe, server, exe.start),
	    -SP_EUSAGE);
	cr_assert_eq(sp_native_lookup_init(&l, 1, &exe, NULL, exe.start),
	    -SP_EUSAGE);
	cr_assert_eq(sp_native_lookup_init(&l, 4, &anon, "[anon]",
	    anon.start), -SP_EUSAGE);

	cr_assert_eq(sp_native_out_new(0, &out), -SP_EUSAGE);
	cr_assert_eq(sp_native_out_new(4, &out), 0);
	cr_assert_eq(server_lookup((void *)server, batch, 4, out), 0);
	cr_assert_eq(sp_native_out_count(out), 4);
	cr_assert_eq(sp_native_out_answer(out, 0, &st, lines, &nl), 0);
	cr_assert(st == SP_NATIVE_NAMED && nl == 2);
	cr_assert_str_eq(lines[0].function, "parse_header");
	cr_assert(lines[0].line == 40 && lines[0].column == 3);
	cr_assert_str_eq(lines[1].function, "handle_request");
	cr_assert_str_eq(lines[1].file, "server.c");
	cr_assert_eq(sp_native_out_answer(out, 1, &st, lines, &nl), 0);
	cr_assert(st == SP_NATIVE_FALLBACK && nl == 0);
	cr_assert_eq(sp_native_out_answer(out, 2, &st, lines, &nl), 0);
	cr_assert(st == SP_NATIVE_PROVISIONAL && nl == 0);
	cr_assert_eq(sp_native_out_answer(out, 3, &st, lines, &nl), 0);
	cr_assert(st == SP_NATIVE_NOT_FOUND && nl == 0);
	cr_assert_eq(sp_native_out_answer(out, 4, &st, lines, &nl),
	    -SP_EUSAGE);
	/* An answer past the batch, and answers that mean nothing. */
	cr_assert_eq(sp_native_append(out, SP_NATIVE_NOT_FOUND, NULL, 0),
	    -SP_EUSAGE);
	sp_native_out_free(out);
	cr_assert_eq(sp_native_out_new(1, &out), 0);
	cr_assert_eq(sp_native_append(out, SP_NATIVE_NAMED, NULL, 0),
	    -SP_EUSAGE);
	cr_assert_eq(sp_native_append(out, (enum sp_native_status)7, NULL, 0),
	    -SP_EUSAGE);
	cr_assert_eq(sp_native_out_count(out), 0);
	sp_native_out_free(out);
	sp_native_out_free(NULL);
}

/*
 * One thread's symbolizer over a reader shared with another thread's: its
 * backend notes whether lookup ran on any other thread than the one
 * resolving.
 */
struct worker {
	const struct live *l;
	const struct sp_sample *s;
	size_t n;
	pthread_t self;
	int lookups, elsewhere, err;
	char leaf[256];         /* the first native stack's leaf */
};

static int
worker_lookup(void *arg, const struct sp_native_lookup *batch, size_t n,
    struct sp_native_out *out)
{
	struct worker *w = arg;
	size_t i;
	int err;

	(void)batch;
	w->lookups++;
	if (!pthread_equal(pthread_self(), w->self))
		w->elsewhere++;
	for (i = 0; i < n; i++)
		if ((err = sp_native_append(out, SP_NATIVE_FALLBACK, NULL,
		    0)) < 0)
			return err;
	return 0;
}

static void *
worker_run(void *arg)
{
	struct worker *w = arg;
	struct sp_native_backend be = { worker_lookup, NULL, w };
	struct sp_symbolizer *sym;
	struct sp_resolved_stack st;
	size_t i;

	w->self = pthread_self();
	w->err = sp_symbolizer_new(sp_tail_defs(w->l->t),
	    sp_tail_header(w->l->t), NULL, &be, &sym);
	for (i = 0; w->err == 0 && i < w->n; i++) {
		w->err = sp_symbolizer_resolve(sym, w->s[i].stack, &st);
		if (w->err == 0 && w->leaf[0] == '\0' && st.n > 2 &&
		    st.frames[0].kind == SP_RESOLVED_NATIVE)
			(void)snprintf(w->leaf, sizeof(w->leaf), "%s",
			    st.frames[0].name);
	}
	if (w->err == 0)
		sp_symbolizer_free(sym);
	return NULL;
}

Test(native, symbolizers_on_two_threads_call_lookup_on_their_own)
{
	struct live l;
	struct sp_sample s[4096];
	struct sp_symbolizer *sym;
	struct sp_resolved_stack st;
	struct worker w[2];
	pthread_t t[2];
	uint32_t stack;
	size_t n, i;
	pid_t a;

	n = live_spin_symbolized(&l, s, 4096, &a, &sym);
	stack = native_stack(s, n, sym);
	cr_assert_neq(stack, 0, "a sample in the shell's own code");
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	memset(w, 0, sizeof(w));
	for (i = 0; i < 2; i++) {
		w[i].l = &l;
		w[i].s = s;
		w[i].n = n;
		cr_assert_eq(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
	}
	for (i = 0; i < 2; i++)
		cr_assert_eq(pthread_join(t[i], NULL), 0);
	for (i = 0; i < 2; i++) {
		cr_assert_eq(w[i].err, 0, "thread %zu: %d", i, w[i].err);
		cr_assert_gt(w[i].lookups, 0, "thread %zu asked its backend", i);
		cr_assert_eq(w[i].elsewhere, 0, "thread %zu: lookup on another "
		    "thread", i);
		/* Handed back, every frame: the built-in backend's names. */
		cr_assert_str_eq(w[i].leaf, st.frames[0].name, "thread %zu", i);
	}
	sp_symbolizer_free(sym);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	live_end(&l);
}

Test(native, an_invalidation_affects_its_pids_or_all)
{
	static const uint32_t pids[] = { 3, 5 };
	struct sp_invalidation some = { 0, pids, 2 }, all = { 1, NULL, 0 },
	    none = { 0, NULL, 0 };

	cr_assert(sp_invalidation_affects(&some, 3));
	cr_assert(sp_invalidation_affects(&some, 5));
	cr_assert_not(sp_invalidation_affects(&some, 4));
	cr_assert(sp_invalidation_affects(&all, 4));
	cr_assert_not(sp_invalidation_affects(&none, 3));
}

Test(native, python_runtimes_are_told_by_base_name_or_path)
{
	static const struct {
		const char *path;
		int python;
	} cases[] = {
		{ "python3.12", 1 }, { "/usr/bin/python3.12", 1 },
		{ "libpython3.13.so.1.0", 1 }, { "python3", 0 },
		{ "python3.", 0 }, { "/usr/lib/python3.12/x.so", 0 },
		{ "mypython3.12", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(sp_python_runtime_path(cases[i].path,
		    strlen(cases[i].path)), cases[i].python, "%s",
		    cases[i].path);
}
