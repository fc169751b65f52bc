/* SPDX-License-Identifier: MIT */
/*
 * The embedder's calls, through the kernel and on real processes: process
 * helpers (a command launched suspended and released, descendants, the
 * pidfd exit watcher), the recorder's attach modes, flush, pending and
 * liveness, and a symbolizer over a tail of the spool being written
 * (stacks, raw addresses, stable ids, a plugged-in backend, updates).
 * Public headers only.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "livetest.h"
#include "sp/common/process.h"
#include "sp/record/recorder.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"
#include "sp/sym/symbolizer.h"

/* The target of /proc/PID/exe, or "". */
static void
exe_of(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, cap - 1);
	buf[n > 0 ? n : 0] = '\0';
}

Test(process, launched_suspended_then_released_and_watched_to_its_exit)
{
	char *const argv[] = { "/bin/sleep", "0.3", NULL };
	struct sp_launch l;
	struct sp_diag diag = { 0 };
	struct sp_exit_watch *w;
	char self[4096], exe[4096];
	int err;

	cr_assert_eq(sp_process_launch(argv, &l, &diag), 0, "%s", diag.msg);
	cr_assert(sp_process_exists(l.pid));
	usleep(100000);
	exe_of(getpid(), self, sizeof(self));
	exe_of(l.pid, exe, sizeof(exe));
	cr_assert_str_eq(exe, self, "not exec'd before the release (%s)", exe);
	err = sp_exit_watch_new(l.pid, &w);
	if (err == -ENOSYS) {
		sp_process_abandon(&l);
		cr_skip_test("no pidfd_open in this kernel");
	}
	cr_assert_eq(err, 0);
	cr_assert_eq(sp_exit_watch_wait(w, 0), 0, "it waits, not exited");
	cr_assert_eq(sp_process_release(&l, argv[0], &diag), 0, "%s", diag.msg);
	exe_of(l.pid, exe, sizeof(exe));
	cr_assert_str_eq(exe, "/usr/bin/sleep", "exec'd at the release (%s)",
	    exe);
	cr_assert_eq(sp_exit_watch_wait(w, 5000), 1, "its exit is seen");
	cr_assert_eq(waitpid(l.pid, NULL, 0), l.pid);
	cr_assert_not(sp_process_exists(l.pid), "reaped: gone");
	sp_exit_watch_free(w);
	cr_assert_eq(sp_exit_watch_new(l.pid, &w), -ESRCH);
}

Test(process, a_command_that_cannot_run_is_reported_and_reaped)
{
	char *const argv[] = { "/no/such/command", NULL };
	struct sp_launch l;
	struct sp_diag diag = { 0 };

	cr_assert_eq(sp_process_launch(argv, &l, &diag), 0);
	cr_assert_eq(sp_process_release(&l, argv[0], &diag), -ENOENT);
	cr_assert(strstr(diag.msg, "cannot run /no/such/command") != NULL,
	    "%s", diag.msg);
	cr_assert_not(sp_process_exists(l.pid));
	cr_assert_eq(sp_process_launch(NULL, &l, &diag), -SP_EUSAGE);
}

Test(process, descendants_parents_first)
{
	int p[2];
	pid_t child, grandchild = 0, *v;
	size_t n;

	cr_assert_eq(pipe(p), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		grandchild = fork();
		if (grandchild == 0) {
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
		(void)!write(p[1], &grandchild, sizeof(grandchild));
		pause();
		_exit(0);
	}
	cr_assert_eq(read(p[0], &grandchild, sizeof(grandchild)),
	    sizeof(grandchild));
	usleep(50000);
	cr_assert_eq(sp_process_descendants(getpid(), &v, &n), 0);
	cr_assert_geq(n, 2);
	cr_assert_eq(v[0], child);
	cr_assert_eq(v[1], grandchild);
	free(v);
	cr_assert_eq(sp_process_descendants(child, &v, &n), 0);
	cr_assert(n == 1 && v[0] == grandchild);
	free(v);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* A child that waits for a signal: SIGINT and SIGKILL both end it, by
 * their default action, so its status says which one came. */
static pid_t
paused_child(void)
{
	int ready[2];
	char c;
	pid_t pid;

	/* The child says when SIGINT is its default again: a runner that
	 * ignores SIGINT would otherwise have the interrupt land first, and
	 * the child pause for ever. */
	cr_assert_eq(pipe(ready), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		(void)signal(SIGINT, SIG_DFL);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the child started");
	close(ready[0]);
	return pid;
}

Test(process, wait_try_wait_interrupt_and_kill_a_child)
{
	struct sp_exit_watch *w;
	pid_t pid = paused_child();
	int status = -1;

	/* Nothing ends a paused child but a signal: still running. */
	cr_assert_eq(sp_process_try_wait(pid, &status), 0);
	cr_assert_eq(sp_process_interrupt(pid), 0);
	cr_assert_eq(sp_process_wait(pid, &status), 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT,
	    "status %#x", status);
	cr_assert_eq(sp_process_try_wait(pid, &status), -ECHILD, "reaped");
	cr_assert_eq(sp_process_wait(pid, NULL), -ECHILD);
	cr_assert_eq(sp_process_kill(pid), -ESRCH, "gone once reaped");

	pid = paused_child();
	cr_assert_eq(sp_process_kill(pid), 0);
	cr_assert_eq(sp_process_wait(pid, &status), 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);

	/* Ended on its own: try_wait reaps it once the pidfd says so. */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(5);
	cr_assert_eq(sp_exit_watch_new(pid, &w), 0);
	cr_assert_eq(sp_exit_watch_wait(w, -1), 1);
	sp_exit_watch_free(w);
	cr_assert_eq(sp_process_try_wait(pid, &status), 1);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 5,
	    "status %#x", status);
}

Test(process, pids_below_1_are_usage_errors)
{
	pid_t bad[] = { 0, -1 };
	size_t i;

	for (i = 0; i < 2; i++) {
		cr_assert_eq(sp_process_wait(bad[i], NULL), -SP_EUSAGE);
		cr_assert_eq(sp_process_try_wait(bad[i], NULL), -SP_EUSAGE);
		cr_assert_eq(sp_process_interrupt(bad[i]), -SP_EUSAGE);
		cr_assert_eq(sp_process_kill(bad[i]), -SP_EUSAGE);
	}
}

/* ------------------------------------------------ recording, resolving */

Test(recorder, attach_modes_flush_pending_liveness)
{
	struct live l;
	struct sp_diag diag = { 0 };
	struct sp_sample s[4096];
	pid_t a, b;
	size_t n;

	live_start(&l, NULL);
	a = live_launch(&l, spin_argv);
	cr_assert_eq(sp_recorder_live(l.r), 1);
	cr_assert_eq(sp_recorder_other_alive(l.r, a), 0);
	n = record_samples(&l, s, 4096, 200);
	cr_assert_geq(n, 200, "flushed: the tail sees the samples (%zu)", n);
	cr_assert_eq(sp_recorder_counter(l.r, "samples"), n,
	    "every sample written is in the tail");
	cr_assert_eq(sp_recorder_counter(l.r, "no_such_counter"), 0);

	/* A second process, attached stopped, into the same recording. */
	b = fork();
	cr_assert_geq(b, 0);
	if (b == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			;
	}
	cr_assert_eq(sp_recorder_attach_mode(l.r, b, SP_ATTACH_STOPPED, &diag),
	    0, "%s", diag.msg);
	cr_assert_eq(sp_recorder_live(l.r), 2);
	cr_assert_eq(sp_recorder_other_alive(l.r, a), 1);
	cr_assert_eq(sp_recorder_refresh(l.r), 0);
	cr_assert_eq(sp_recorder_attach_mode(l.r, b, SP_ATTACH_RUNNING, &diag),
	    0, "a pid attached already is one target");
	cr_assert_eq(sp_recorder_live(l.r), 2);
	usleep(100000);
	cr_assert_eq(sp_recorder_pending(l.r), 1, "two spinners: records wait");
	cr_assert_eq(sp_recorder_flush(l.r), 0);

	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	record_for(&l, 0.3);
	cr_assert_eq(sp_recorder_live(l.r), 1, "a's exit was seen");
	cr_assert_eq(sp_recorder_other_alive(l.r, b), 0);
	cr_assert_eq(sp_recorder_other_alive(l.r, a), 1);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	record_for(&l, 0.3);
	cr_assert_eq(sp_recorder_live(l.r), 0);
	cr_assert_eq(sp_recorder_attach_mode(l.r, 1, 7, &diag), -SP_EUSAGE);
	live_end(&l);
}

/* A backend that counts and answers as told. */
struct toy {
	int lookups, batches;
	enum sp_native_status status;
	int extra;      /* one answer more than asked */
	int fail;       /* return this */
	char open[128]; /* the first lookup's open_path */
};

static int
toy_lookup(void *arg, const struct sp_native_lookup *batch, size_t n,
    struct sp_native_out *out)
{
	struct toy *t = arg;
	struct sp_native_line line = { "toy_fn", "toy.c", 7, 0 };
	size_t i;

	t->batches++;
	if (t->fail)
		return t->fail;
	(void)snprintf(t->open, sizeof(t->open), "%s",
	    batch[0].open_path != NULL ? batch[0].open_path : "");
	for (i = 0; i < n; i++) {
		t->lookups++;
		cr_assert(batch[i].path[0] == '/' && batch[i].abs != 0);
		cr_assert(!batch[i].has_image ||
		    batch[i].image_base + batch[i].image == batch[i].abs);
		cr_assert_eq(sp_native_append(out, t->status, &line, 1), 0);
	}
	if (t->extra)
		cr_assert_eq(sp_native_append(out, t->status, &line, 1),
		    -SP_EUSAGE, "an answer past the batch is refused");
	return 0;
}

Test(symbolizer, stacks_raw_addresses_backends_and_updates)
{
	struct live l;
	struct sp_sample s[4096];
	struct sp_symbolizer *sym, *toysym;
	struct sp_resolved_stack st, raw;
	struct toy toy = { 0, 0, SP_NATIVE_NAMED, 1, 0, "" };
	struct sp_native_backend be = { toy_lookup, NULL, &toy };
	struct sp_invalidation inv;
	struct sp_tail_events ev;
	struct sp_proc exec;
	uint64_t addrs[64];
	uint32_t stack, ids[64];
	pid_t a;
	size_t n, i, k;

	n = live_spin_symbolized(&l, s, 4096, &a, &sym);
	stack = native_stack(s, n, sym);
	cr_assert_neq(stack, 0, "a sample in the shell's own code");
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	cr_assert_not(st.provisional);
	for (i = 0; i < st.n && i < 64; i++) {
		cr_assert_not_null(st.frames[i].name);
		cr_assert_neq(st.frames[i].id, 0);
		ids[i] = st.frames[i].id;
		addrs[i] = st.frames[i].address;
	}
	k = i;
	cr_assert_not_null(st.frames[0].module);
	cr_assert_eq(st.frames[st.n - 1].inline_depth, 0);
	/* One frame alone, uncached: the same name and id as in the stack. */
	{
		struct sp_resolved_stack one;
		uint32_t frame = st.frames[0].frame;
		char name[256];

		(void)snprintf(name, sizeof(name), "%s", st.frames[0].name);
		cr_assert_eq(sp_symbolizer_resolve_frame(sym, frame, &one), 0);
		cr_assert_geq(one.n, 1);
		cr_assert_str_eq(one.frames[0].name, name);
		cr_assert_eq(one.frames[0].id, ids[0]);
		cr_assert_eq(one.frames[0].frame, frame);
		cr_assert_eq(sp_symbolizer_resolve_frame(sym, 0xfffffff0u, &one),
		    -SP_EREF);
		cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	}
	/* Resolved again: the same frames, the same ids (cached). */
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	for (i = 0; i < k; i++)
		cr_assert_eq(st.frames[i].id, ids[i]);

	/* The same addresses as the caller's own: the same names.  Inline
	 * frames share an address, so compare the outermost of each. */
	{
		uint64_t u[64];
		size_t nu = 0;
		char names[64][128];

		for (i = 0; i < k; i++)
			if (st.frames[i].inline_depth == 0) {
				u[nu] = addrs[i];
				(void)snprintf(names[nu++], 128, "%s",
				    st.frames[i].name);
			}
		cr_assert_eq(sp_symbolizer_resolve_raw(sym, (uint32_t)a, u, nu,
		    &raw), 0);
		for (i = 0, k = 0; i < raw.n; i++)
			if (raw.frames[i].inline_depth == 0) {
				cr_assert_str_eq(raw.frames[i].name, names[k],
				    "raw frame %zu", k);
				cr_assert_eq(raw.frames[i].frame, 0);
				k++;
			}
		cr_assert_eq(k, nu);
	}
	/* A kernel address: kallsyms of this boot (root reads it), or none
	 * when asked for none. */
	if (geteuid() == 0) {
		struct sp_sym_options none;
		struct sp_symbolizer *ksym;
		uint64_t kaddr = 0;
		FILE *f = fopen("/proc/kallsyms", "r");
		char line[256];

		while (f != NULL && kaddr == 0 && fgets(line, sizeof(line), f))
			if (strstr(line, " T schedule\n") != NULL)
				kaddr = strtoull(line, NULL, 16) + 1;
		if (f != NULL)
			fclose(f);
		cr_assert_neq(kaddr, 0, "schedule in /proc/kallsyms");
		cr_assert_eq(sp_symbolizer_resolve_raw(sym, (uint32_t)a, &kaddr, 1,
		    &raw), 0);
		cr_assert_eq(raw.frames[0].kind, SP_RESOLVED_KERNEL);
		cr_assert_eq(raw.frames[0].origin, SP_ORIGIN_KERNEL);
		cr_assert_str_eq(raw.frames[0].name, "schedule");
		memset(&none, 0, sizeof(none));
		none.kernel_none = 1;
		cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t),
		    sp_tail_header(l.t), &none, NULL, &ksym), 0);
		cr_assert_eq(sp_symbolizer_resolve_raw(ksym, (uint32_t)a, &kaddr, 1,
		    &raw), 0);
		cr_assert_eq(raw.frames[0].kind, SP_RESOLVED_KERNEL);
		cr_assert_eq(raw.frames[0].origin, SP_ORIGIN_ADDRESS);
		cr_assert_str_eq(sp_symbolizer_report(ksym)->kernel,
		    "none asked for");
		sp_symbolizer_free(ksym);
	}
	cr_assert_eq(sp_symbolizer_resolve_raw(sym, (uint32_t)a, addrs, 0,
	    &raw), 0);
	cr_assert_eq(raw.n, 0);
	addrs[0] = 0x10;
	cr_assert_eq(sp_symbolizer_resolve_raw(sym, (uint32_t)a, addrs, 1,
	    &raw), 0);
	cr_assert(raw.n == 1 && raw.frames[0].kind == SP_RESOLVED_UNKNOWN &&
	    strcmp(raw.frames[0].name, "0x10") == 0, "%s", raw.frames[0].name);

	/* An exec invalidates its pid; an overflow, all. */
	memset(&ev, 0, sizeof(ev));
	memset(&exec, 0, sizeof(exec));
	exec.event = SP_PROC_EXEC;
	exec.pid = (uint32_t)a;
	ev.procs = &exec;
	ev.nprocs = 1;
	cr_assert_eq(sp_symbolizer_update(sym, &ev, &inv), 0);
	cr_assert(!inv.all && inv.npids == 1 && inv.pids[0] == (uint32_t)a);
	cr_assert(sp_invalidation_affects(&inv, (uint32_t)a));
	cr_assert_not(sp_invalidation_affects(&inv, (uint32_t)a + 1));
	ev.overflow = 1;
	cr_assert_eq(sp_symbolizer_update(sym, &ev, &inv), 0);
	cr_assert(inv.all);
	cr_assert(sp_invalidation_affects(&inv, (uint32_t)a + 1));
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	cr_assert_eq(st.frames[0].id, ids[0], "ids survive invalidation");

	/* A backend of the test's own: every native frame asked, in batches. */
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    NULL, &be, &toysym), 0);
	cr_assert_eq(sp_symbolizer_resolve(toysym, stack, &st), 0);
	cr_assert_eq(toy.batches, 1, "one batch for the stack");
	cr_assert_gt(toy.lookups, 0);
	if (geteuid() == 0)
		cr_assert(strncmp(toy.open, "/proc/", 6) == 0, "root, the "
		    "process alive: its mapped image to open (%s)", toy.open);
	cr_assert_str_eq(st.frames[0].name, "toy_fn");
	cr_assert_str_eq(st.frames[0].file, "toy.c");
	cr_assert_eq(st.frames[0].line, 7);
	cr_assert_eq(st.frames[0].origin, SP_ORIGIN_ELF);
	cr_assert_not(st.provisional);
	cr_assert_eq(sp_symbolizer_resolve(toysym, stack, &st), 0);
	cr_assert_eq(toy.batches, 1, "cached: not asked again");
	sp_symbolizer_free(toysym);

	/* Provisional answers: the stack says so, and an update asks again. */
	toy = (struct toy){ 0, 0, SP_NATIVE_PROVISIONAL, 0, 0, "" };
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    NULL, &be, &toysym), 0);
	cr_assert_eq(sp_symbolizer_resolve(toysym, stack, &st), 0);
	cr_assert(st.provisional);
	cr_assert_neq(strcmp(st.frames[0].name, "toy_fn"), 0,
	    "the address for now (%s)", st.frames[0].name);
	cr_assert_eq(sp_symbolizer_resolve(toysym, stack, &st), 0);
	cr_assert_eq(toy.batches, 1, "not asked again before an update");
	cr_assert_eq(sp_symbolizer_update(toysym, NULL, &inv), 0);
	toy.status = SP_NATIVE_NAMED;
	cr_assert_eq(sp_symbolizer_resolve(toysym, stack, &st), 0);
	cr_assert_eq(toy.batches, 2, "asked again after the update");
	cr_assert_not(st.provisional);
	cr_assert_str_eq(st.frames[0].name, "toy_fn");
	sp_symbolizer_free(toysym);

	/* A backend's error is the call's. */
	toy = (struct toy){ 0, 0, SP_NATIVE_NAMED, 0, -EIO, "" };
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    NULL, &be, &toysym), 0);
	cr_assert_eq(sp_symbolizer_resolve(toysym, stack, &st), -EIO);
	sp_symbolizer_free(toysym);

	cr_assert_eq(sp_symbolizer_resolve(sym, 0xfffffff0u, &st), -SP_EREF);
	cr_assert_eq(sp_symbolizer_resolve(sym, 0, &st), 0);
	cr_assert_eq(st.n, 0, "stack 0 is empty");
	sp_symbolizer_free(sym);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	live_end(&l);
}

Test(symbolizer, a_perf_map_that_appears_later_names_the_jit_frames)
{
	char *const argv[] = { "build/tests/jit", "30000", NULL };
	struct live l;
	struct sp_sample s[4096];
	struct sp_sym_options o;
	struct sp_symbolizer *sym;
	struct sp_resolved_stack st;
	struct sp_invalidation inv;
	char dir[] = "/tmp/sp-unit-maps-XXXXXX", from[64], to[128], cmd[256];
	uint32_t pid, stack;
	size_t n;

	cr_assert_not_null(mkdtemp(dir));
	live_start(&l, NULL);
	pid = (uint32_t)live_launch(&l, argv);
	n = record_samples(&l, s, 4096, 200);
	cr_assert_geq(n, 200, "samples of the JIT (%zu)", n);

	/* Perf maps read from dir, for this pid: none there yet. */
	memset(&o, 0, sizeof(o));
	o.perf_map_dir = dir;
	o.perf_map_pids = &pid;
	o.nperf_map_pids = 1;
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    &o, NULL, &sym), 0);
	cr_assert_eq(sp_symbolizer_update(sym, sp_tail_events(l.t), &inv), 0);
	stack = anon_stack(s, n, sym);
	cr_assert_neq(stack, 0, "samples in the JIT's code");
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	cr_assert(st.provisional, "a JIT frame named by its address only");
	cr_assert_eq(st.frames[0].origin, SP_ORIGIN_ADDRESS);

	/* The JIT's map appears: an update a second later reads it. */
	(void)snprintf(from, sizeof(from), "/tmp/perf-%u.map", pid);
	(void)snprintf(to, sizeof(to), "%s/perf-%u.map", dir, pid);
	(void)snprintf(cmd, sizeof(cmd), "cp %s %s", from, to);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	usleep(1100000);
	cr_assert_eq(sp_symbolizer_update(sym, NULL, &inv), 0);
	cr_assert(inv.all || (inv.npids == 1 && inv.pids[0] == pid),
	    "the pid whose perf map changed is invalidated");
	cr_assert_eq(sp_symbolizer_resolve(sym, stack, &st), 0);
	cr_assert_not(st.provisional);
	cr_assert_eq(st.frames[0].origin, SP_ORIGIN_PERF_MAP);
	cr_assert(st.frames[0].flags & SP_SYM_JIT);
	cr_assert_str_eq(st.frames[0].name, "jit_spin_loop");
	cr_assert_eq(st.frames[0].kind, SP_RESOLVED_NATIVE);
	/* The jit binary has DWARF: its frames have lines and columns. */
	for (n = 0; n < st.n; n++)
		if (st.frames[n].module != NULL &&
		    strcmp(st.frames[n].module, "jit") == 0 &&
		    st.frames[n].line > 0)
			break;
	cr_assert_lt(n, st.n, "a frame of the jit binary with a line");
	cr_assert_gt(st.frames[n].column, 0, "%s:%u has a column",
	    st.frames[n].file, st.frames[n].line);

	sp_symbolizer_free(sym);
	(void)unlink(to);
	(void)rmdir(dir);
	kill((pid_t)pid, SIGKILL);
	waitpid((pid_t)pid, NULL, 0);
	(void)unlink(from);
	live_end(&l);
}

/* Whether a frame of stack is named name. */
static int
names(struct sp_symbolizer *sym, uint32_t stack, const char *name)
{
	struct sp_resolved_stack st;
	size_t i;

	if (sp_symbolizer_resolve(sym, stack, &st) != 0)
		return 0;
	for (i = 0; i < st.n; i++)
		if (strcmp(st.frames[i].name, name) == 0)
			return 1;
	return 0;
}

Test(symbolizer, live_images_name_a_binary_deleted_since)
{
	char bin[] = "/tmp/sp-unit-tree-XXXXXX", cmd[256];
	/* Runs until killed below (30 s at most if the test fails first): the
	 * mapped image is read while it runs. */
	char *argv[] = { bin, "30000", NULL };
	struct live l;
	struct sp_launch lc;
	struct sp_diag diag = { 0 };
	struct sp_sample s[4096];
	struct sp_sym_options o;
	struct sp_symbolizer *plain, *live;
	size_t n, i, named_plain = 0, named_live = 0;
	int fd, err;

	if (geteuid() != 0)
		cr_skip_test("/proc/PID/map_files needs root");
	fd = mkstemp(bin);
	cr_assert_geq(fd, 0);
	(void)close(fd);
	(void)snprintf(cmd, sizeof(cmd), "cp build/tests/tree-O2 %s && "
	    "chmod +x %s", bin, bin);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	live_start(&l, NULL);
	cr_assert_eq(sp_process_launch(argv, &lc, &diag), 0);
	err = sp_recorder_attach_mode(l.r, lc.pid, SP_ATTACH_AT_EXEC, &diag);
	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		sp_process_abandon(&lc);
		(void)unlink(bin);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, 0, "%s", diag.msg);
	cr_assert_eq(sp_process_release(&lc, bin, &diag), 0, "%s", diag.msg);
	n = record_samples(&l, s, 4096, 200);
	cr_assert_geq(n, 200, "samples of the running copy (%zu)", n);
	/* A deploy replaced it: the file recorded is gone. */
	cr_assert_eq(unlink(bin), 0);
	memset(&o, 0, sizeof(o));
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    &o, NULL, &plain), 0);
	o.live_images = 1;
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l.t), sp_tail_header(l.t),
	    &o, NULL, &live), 0);
	for (i = 0; i < n; i++) {
		named_plain += names(plain, s[i].stack, "main");
		named_live += names(live, s[i].stack, "main");
	}
	cr_assert_eq(named_plain, 0, "the file is gone: main unnamed (%zu)",
	    named_plain);
	cr_assert_gt(named_live, n / 2, "the mapped image names main in "
	    "%zu of %zu stacks", named_live, n);
	sp_symbolizer_free(plain);
	sp_symbolizer_free(live);
	kill(lc.pid, SIGKILL);
	waitpid(lc.pid, NULL, 0);
	live_end(&l);
}
