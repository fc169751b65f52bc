/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolizer_update on what a tail read: a pid reused (new modules
 * over its old ones) in a spool written with the public writer, and a
 * process that becomes a Python runtime, recorded through the kernel:
 * the invalidation names that pid alone, and its frames are named anew
 * (Python frames from its perf map, the interpreter's hidden).  Public
 * headers only.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "livetest.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"
#include "sp/sym/symbolizer.h"

/* A spool being written to a file that a tail follows. */
struct spool {
	struct sp_writer *w;
	struct sp_tail *t;
	int fd;
};

static void
spool_start(struct spool *sp)
{
	char path[] = "/tmp/sp-unit-update-XXXXXX";
	struct sp_header h;

	sp->fd = mkstemp(path);
	cr_assert_geq(sp->fd, 0);
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(sp->fd, &h, &sp->w), 0);
	cr_assert_eq(sp_writer_flush(sp->w), 0);
	cr_assert_eq(sp_tail_open(path, &sp->t), 0);
	(void)unlink(path);
}

static void
spool_end(struct spool *sp)
{
	sp_tail_free(sp->t);
	sp_writer_free(sp->w);
	(void)close(sp->fd);
}

/* Puts a MODULE of pid: path over [start, start + size), offset 0. */
static void
put_module(struct spool *sp, uint32_t pid, const char *path, uint64_t start,
    uint64_t size)
{
	struct sp_record r;
	uint32_t id;

	memset(&r, 0, sizeof(r));
	cr_assert_eq(sp_writer_string(sp->w, path, strlen(path),
	    &r.u.module.path), 0);
	r.kind = SP_REC_MODULE;
	r.u.module.pid = pid;
	r.u.module.start = start;
	r.u.module.size = size;
	cr_assert_eq(sp_writer_put(sp->w, &r, &id), 0);
}

/* Flushes the writer and reads what it wrote through the tail. */
static void
spool_read(struct spool *sp)
{
	struct sp_sample s[4];
	size_t n;

	cr_assert_eq(sp_writer_flush(sp->w), 0);
	cr_assert_eq(sp_tail_poll(sp->t, s, 4, &n), 0);
	cr_assert_eq(n, 0);
}

/* The name resolve_raw gives address addr of pid, into buf. */
static const char *
raw_name(struct sp_symbolizer *sym, uint32_t pid, uint64_t addr, char *buf,
    size_t cap)
{
	struct sp_resolved_stack st;

	cr_assert_eq(sp_symbolizer_resolve_raw(sym, pid, &addr, 1, &st), 0);
	cr_assert_eq(st.n, 1);
	(void)snprintf(buf, cap, "%s", st.frames[0].name);
	return buf;
}

Test(update, a_pid_reused_over_its_old_modules_is_invalidated_alone)
{
	struct spool sp;
	struct sp_symbolizer *sym;
	struct sp_invalidation inv;
	const struct sp_tail_events *ev;
	char b[128];

	spool_start(&sp);
	put_module(&sp, 100, "/nonexistent/old.so", 0x10000, 0x1000);
	put_module(&sp, 200, "/nonexistent/old.so", 0x10000, 0x1000);
	spool_read(&sp);
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(sp.t), sp_tail_header(sp.t),
	    NULL, NULL, &sym), 0);
	ev = sp_tail_events(sp.t);
	cr_assert(ev->modules_from == 0 && ev->modules_to == 2,
	    "the tail read modules %u to %u", ev->modules_from + 1,
	    ev->modules_to);
	cr_assert_eq(sp_symbolizer_update(sym, ev, &inv), 0);
	cr_assert(!inv.all && inv.npids == 0, "first modules: nothing stale");
	cr_assert_str_eq(raw_name(sym, 200, 0x10810, b, sizeof(b)),
	    "old.so+0x810");
	cr_assert_str_eq(raw_name(sym, 100, 0x10010, b, sizeof(b)),
	    "old.so+0x10");

	/* pid 100 maps a library elsewhere (a dlopen), pid 300 is new at
	 * the old addresses of others, pid 200 is reused: its new program
	 * lies over the old one's. */
	put_module(&sp, 100, "/nonexistent/lib.so", 0x20000, 0x1000);
	put_module(&sp, 300, "/nonexistent/new.so", 0x10000, 0x1000);
	put_module(&sp, 200, "/nonexistent/new.so", 0x10800, 0x1000);
	spool_read(&sp);
	ev = sp_tail_events(sp.t);
	cr_assert(ev->modules_from == 2 && ev->modules_to == 5);
	cr_assert_eq(sp_symbolizer_update(sym, ev, &inv), 0);
	cr_assert_not(inv.all);
	cr_assert(inv.npids == 1 && inv.pids[0] == 200,
	    "only the reused pid is stale (%zu pids, the first %u)",
	    inv.npids, inv.npids > 0 ? inv.pids[0] : 0);
	cr_assert_str_eq(raw_name(sym, 200, 0x10810, b, sizeof(b)),
	    "new.so+0x10", "the new program's module names the address");
	cr_assert_str_eq(raw_name(sym, 100, 0x10010, b, sizeof(b)),
	    "old.so+0x10");
	cr_assert_str_eq(raw_name(sym, 300, 0x10010, b, sizeof(b)),
	    "new.so+0x10");

	/* Nothing new: nothing stale. */
	spool_read(&sp);
	cr_assert_eq(sp_symbolizer_update(sym, sp_tail_events(sp.t), &inv), 0);
	cr_assert(!inv.all && inv.npids == 0);
	sp_symbolizer_free(sym);
	spool_end(&sp);
}

/*
 * sp_symbolizer_resolve_raw looks an address up in the modules the reader
 * defined: one that no module held is named once a module over it comes,
 * a library mapped after the caller first asked (its cache was kept).
 */
Test(update, a_raw_address_is_named_by_a_module_defined_later)
{
	struct spool sp;
	struct sp_symbolizer *sym;
	struct sp_invalidation inv;
	char b[128];

	spool_start(&sp);
	put_module(&sp, 100, "/nonexistent/app", 0x10000, 0x1000);
	spool_read(&sp);
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(sp.t), sp_tail_header(sp.t),
	    NULL, NULL, &sym), 0);
	cr_assert_eq(sp_symbolizer_update(sym, sp_tail_events(sp.t), &inv), 0);
	cr_assert_str_eq(raw_name(sym, 100, 0x30010, b, sizeof(b)), "0x30010");
	cr_assert_str_eq(raw_name(sym, 100, 0x10010, b, sizeof(b)), "app+0x10");
	put_module(&sp, 100, "/nonexistent/lib.so", 0x30000, 0x1000);
	spool_read(&sp);
	cr_assert_eq(sp_symbolizer_update(sym, sp_tail_events(sp.t), &inv), 0);
	cr_assert(!inv.all && inv.npids == 0, "a new library: no cached "
	    "stack is stale");
	cr_assert_str_eq(raw_name(sym, 100, 0x30010, b, sizeof(b)),
	    "lib.so+0x10");
	cr_assert_str_eq(raw_name(sym, 100, 0x10010, b, sizeof(b)), "app+0x10");
	sp_symbolizer_free(sym);
	spool_end(&sp);
}

/* ------------------------------------------------- a Python runtime */

/* The PYTHON records the tail read, kept past their poll. */
struct pyrecs {
	struct sp_python v[16];
	size_t n;
};

static void
keep_python(void *arg, const struct sp_tail_events *ev)
{
	struct pyrecs *p = arg;
	size_t i;

	for (i = 0; i < ev->npython && p->n < 16; i++)
		p->v[p->n++] = ev->python[i];
}

/* The first frame of st named name, or NULL. */
static const struct sp_resolved_frame *
named(const struct sp_resolved_stack *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->frames[i].name, name) == 0)
			return &st->frames[i];
	return NULL;
}

/* The size nm -S gives symbol name in file bin, 0 when none. */
static unsigned long long
nm_size(const char *bin, const char *name)
{
	char cmd[512], line[256];
	unsigned long long addr, size = 0;
	FILE *f;

	(void)snprintf(cmd, sizeof(cmd), "nm -S %s | grep ' T %s$'", bin,
	    name);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	if (fgets(line, sizeof(line), f) == NULL ||
	    sscanf(line, "%llx %llx", &addr, &size) != 2)
		size = 0;
	(void)pclose(f);
	return size;
}

/* The runtime's copy, its perf map and pid: removed by py_end, also
 * when an assertion ended the test early. */
static char dir[] = "/tmp/sp-unit-py-XXXXXX", bin[64], map[64];
static pid_t py_pid;

static void
py_end(void)
{
	if (py_pid > 0) {
		kill(py_pid, SIGKILL);
		waitpid(py_pid, NULL, 0);
	}
	(void)unlink(map);
	(void)unlink(bin);
	(void)rmdir(dir);
}

/*
 * tests/workloads/fakepy.c run as python3.12: the recorder marks it a
 * Python runtime (a PYTHON record) and it names its "Python functions"
 * in /tmp/perf-PID.map as CPython's -X perf does.
 */
Test(update, a_python_runtime_event_invalidates_its_pid_and_names_python,
    .fini = py_end)
{
	char cmd[160];
	char *argv[] = { bin, "30000", NULL };
	struct live l;
	struct pyrecs py = { .n = 0 };
	struct sp_sample s[4096];
	struct sp_symbolizer *sym;
	struct sp_resolved_stack st;
	const struct sp_resolved_frame *f;
	struct sp_invalidation inv;
	struct sp_tail_events ev;
	struct sp_python notpy;
	uint64_t start;
	pid_t pid;
	size_t n;

	cr_assert_not_null(mkdtemp(dir));
	(void)snprintf(bin, sizeof(bin), "%s/python3.12", dir);
	(void)snprintf(cmd, sizeof(cmd), "cp build/tests/fakepy %s", bin);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	live_start(&l, NULL);
	l.on_poll = keep_python;
	l.on_poll_arg = &py;
	pid = py_pid = live_launch(&l, argv);
	(void)snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
	n = record_samples(&l, s, 4096, 300);
	cr_assert_geq(n, 300, "samples of the runtime (%zu)", n);
	cr_assert(py.n == 1 && py.v[0].pid == (uint32_t)pid &&
	    py.v[0].is_python, "the tail read its PYTHON record (%zu)", py.n);

	/* A symbolizer that has not seen the record: no perf map is read
	 * for the pid (the defaults read Python runtimes' only). */
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    NULL, NULL, &sym), 0);
	n = n > 2000 ? 2000 : n;
	start = 0;
	{
		uint32_t stack = anon_stack(s, n, sym);

		cr_assert_neq(stack, 0, "samples in the trampolines");
		cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
		cr_assert_eq(st.frames[0].origin, SP_ORIGIN_ADDRESS);
		cr_assert_neq(st.frames[0].kind, SP_RESOLVED_PYTHON);

		/* The PYTHON record alone: that pid is stale, no other. */
		memset(&ev, 0, sizeof(ev));
		ev.python = py.v;
		ev.npython = py.n;
		cr_assert_eq(sp_symbolizer_update(sym, &ev, &inv), 0);
		cr_assert(!inv.all && inv.npids == 1 &&
		    inv.pids[0] == (uint32_t)pid, "the runtime's pid alone "
		    "(%zu pids)", inv.npids);

		/* Its perf map names the leaf now: a Python frame. */
		cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
		f = &st.frames[0];
		cr_assert_eq(f->kind, SP_RESOLVED_PYTHON, "%s", f->name);
		cr_assert_eq(f->origin, SP_ORIGIN_PERF_MAP);
		cr_assert_eq(f->flags, SP_SYM_PYTHON_FRAME);
		cr_assert_not(f->has_offset, "no symbol table: no offset");
		cr_assert((strcmp(f->name, "compute") == 0 &&
		    strcmp(f->file, "/srv/app/calc.py") == 0) ||
		    (strcmp(f->name, "Loop.run") == 0 &&
		    strcmp(f->file, "/srv/app/main.py") == 0),
		    "%s in %s", f->name, f->file);
		cr_assert_not(st.provisional);

		/* The eval loop that called it: interpreter machinery, hidden
		 * by default, with its offset in the function. */
		f = named(&st, "_PyEval_EvalFrameDefault");
		cr_assert_not_null(f, "the eval loop calls the trampoline");
		cr_assert_eq(f->kind, SP_RESOLVED_NATIVE);
		cr_assert_eq(f->origin, SP_ORIGIN_ELF);
		cr_assert_eq(f->flags, SP_SYM_PYTHON_RUNTIME | SP_SYM_HIDDEN);
		cr_assert(f->has_offset && f->offset > 0, "a return address "
		    "past the function's start (+%llu)",
		    (unsigned long long)f->offset);
		cr_assert_lt(f->offset, nm_size(bin, f->name),
		    "inside the function");
		start = f->address - f->offset;
		f = named(&st, "main");
		cr_assert_not_null(f);
		cr_assert_eq(f->flags, 0, "main is neither runtime nor hidden");
		cr_assert_eq(f->kind, SP_RESOLVED_NATIVE);
		cr_assert(f->has_offset);
	}
	/* The function's first byte: the same name at offset 0. */
	cr_assert_eq(sp_symbolizer_resolve_raw(sym, (uint32_t)pid, &start, 1,
	    &st), 0);
	cr_assert_str_eq(st.frames[0].name, "_PyEval_EvalFrameDefault");
	cr_assert(st.frames[0].has_offset && st.frames[0].offset == 0,
	    "offset %llu", (unsigned long long)st.frames[0].offset);

	/* A record saying it is no Python runtime (any more): stale again,
	 * and its perf map is not read. */
	notpy = py.v[0];
	notpy.is_python = 0;
	ev.python = &notpy;
	ev.npython = 1;
	cr_assert_eq(sp_symbolizer_update(sym, &ev, &inv), 0);
	cr_assert(!inv.all && inv.npids == 1 && inv.pids[0] == (uint32_t)pid);
	cr_assert_eq(sp_symbolizer_resolve(sym, anon_stack(s, n, sym), &st),
	    0);
	cr_assert_eq(st.frames[0].origin, SP_ORIGIN_ADDRESS);
	cr_assert_neq(st.frames[0].kind, SP_RESOLVED_PYTHON);

	sp_symbolizer_free(sym);
	live_end(&l);
}
