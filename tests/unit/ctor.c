/* SPDX-License-Identifier: MIT */
/*
 * The constructor rule (docs/api.md, Errors): a constructor that fails
 * leaves *out NULL and frees what it built.  Each public constructor is
 * made to fail for real, with *out preset to a sentinel.  Under ASan
 * (unit-asan) each test ends by asking LeakSanitizer whether anything is
 * left unreachable: what a failure path forgot fails the test (a leak
 * LeakSanitizer finds at exit only prints, Criterion passes the test).
 * sp_recorder_new's own test is in enable.c.
 *
 * Constructors that only fail for want of memory fail here in a process
 * whose memory is used up (starve below); that needs glibc's malloc and
 * is skipped under ASan, whose allocator aborts instead of failing.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifdef UNDER_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#include "common.h"
#include "dwarf/debuginfo_int.h"
#include "elf/elf_int.h"
#include "elf/elfsym_int.h"
#include "elftest.h"
#include "sp/common/bundle.h"
#include "sp/common/process.h"
#include "sp/report/demangle.h"
#include "sp/report/flame.h"
#include "sp/report/fold.h"
#include "sp/report/top.h"
#include "sp/spool/merge.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"
#include "sp/sym/symbolizer.h"
#include "sym/debugfind_int.h"
#include "sym/kallsyms_int.h"
#include "sym/perfmap_int.h"
#include "unwind/cfi_table_int.h"

/* What no constructor returns: *out still equal to it was never set. */
#define SENTINEL ((void *)&sentinel_byte)
static char sentinel_byte;

#define MISSING "build/test-tmp/ctor-no-such-dir/none"
#define NOT_ELF "tests/bad/bad-crc.spl"

/* Under ASan: nothing allocated is unreachable.  (Elsewhere no check.) */
static void
no_leaks(void)
{
#ifdef UNDER_ASAN
	cr_assert_eq(__lsan_do_recoverable_leak_check(), 0,
	    "LeakSanitizer found a leak (its report is on stderr)");
#endif
}

/* The lowest free descriptor: a leaked one makes it higher. */
static int
lowest_fd(void)
{
	int fd = dup(0);

	cr_assert(fd >= 0);
	(void)close(fd);
	return fd;
}

/* --- sp/common/bundle.h, sp/common/process.h ------------------------------------------ */

Test(ctor, bundle_open_fails_with_out_null_and_no_descriptor_kept)
{
	struct sp_bundle *b = SENTINEL;
	struct sp_diag d;
	char dir[PATH_MAX], path[PATH_MAX];
	int fd0 = lowest_fd();

	cr_assert_eq(sp_bundle_open(MISSING, 0, &b, &d), -ENOENT);
	cr_assert_null(b);
	/* The directory opens, its subdirectory cannot be made: a file
	 * is in the way. */
	tmpdir(dir, "ctor-bundle");
	pathf(path, "%s/perf-maps", dir);
	spit(path, "x", 1);
	b = SENTINEL;
	cr_assert_eq(sp_bundle_open(dir, 1, &b, &d), -ENOTDIR, "%s", d.msg);
	cr_assert_null(b);
	cr_assert_eq(lowest_fd(), fd0, "the directory's descriptor leaked");
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(rmdir(dir), 0);
	no_leaks();
}

Test(ctor, exit_watch_new_of_no_process)
{
	struct sp_exit_watch *w = SENTINEL;
	pid_t pid;
	int err;

	cr_assert_eq(sp_exit_watch_new(0, &w), -ESRCH);
	cr_assert_null(w);
	/* A child reaped: its pid names no process. */
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	w = SENTINEL;
	err = sp_exit_watch_new(pid, &w);
	cr_assert_null(w);
	if (err == -ENOSYS)
		cr_skip_test("no pidfd_open on this kernel");
	cr_assert_eq(err, -ESRCH);
	no_leaks();
}

/* --- sp/spool/replay.h, sp/spool/snapshot.h, sp/spool/tail.h ------------------------------ */

static const char not_a_spool[SP_HEADER_LEN] = "this is not a spool";

Test(ctor, replay_open_fails_with_out_null)
{
	struct sp_replay *r = SENTINEL;
	struct sp_diag d;
	int fd;

	cr_assert_eq(sp_replay_open(MISSING, &r, &d), -ENOENT);
	cr_assert_null(r);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	r = SENTINEL;
	cr_assert_eq(sp_replay_open_fd(fd, &r, &d), -SP_EFORMAT, "%s", d.msg);
	cr_assert_null(r);
	cr_assert_eq(close(fd), 0, "the caller's fd stays open");
	r = SENTINEL;
	cr_assert_eq(sp_replay_open_mem(not_a_spool, sizeof(not_a_spool), &r,
	    &d), -SP_EMAGIC);
	cr_assert_null(r);
	r = SENTINEL;
	cr_assert_eq(sp_replay_open_mem(NULL, 0, &r, &d), -SP_EFORMAT);
	cr_assert_null(r);
	no_leaks();
}

Test(ctor, snapshot_open_fails_with_out_null)
{
	struct sp_snapshot *s = SENTINEL;
	struct sp_diag d;

	cr_assert_eq(sp_snapshot_open(MISSING, &s, &d), -ENOENT);
	cr_assert_null(s);
	/* Fails at its END record, with every definition and sample
	 * before it loaded: all of that is freed. */
	s = SENTINEL;
	cr_assert_eq(sp_snapshot_open("tests/bad/bad-crc.spl", &s, &d),
	    -SP_ECHECKSUM, "%s", d.msg);
	cr_assert_null(s);
	s = SENTINEL;
	cr_assert_eq(sp_snapshot_open_mem(not_a_spool, sizeof(not_a_spool),
	    &s, &d), -SP_EMAGIC);
	cr_assert_null(s);
	no_leaks();
}

Test(ctor, tail_open_of_no_file)
{
	struct sp_tail *t = SENTINEL;

	cr_assert_eq(sp_tail_open(MISSING, &t), -ENOENT);
	cr_assert_null(t);
	no_leaks();
}

/* --- elf/elf_int.h, elf/elfsym_int.h, dwarf/debuginfo_int.h ------------------------------ */

Test(ctor, elf_file_open_fails_with_out_null)
{
	struct sp_elf_file *f = SENTINEL;
	struct sp_diag d;
	int fd;

	cr_assert_eq(spi_elf_file_open(MISSING, &f, &d), -ENOENT);
	cr_assert_null(f);
	f = SENTINEL;
	cr_assert_eq(spi_elf_file_open("tests", &f, &d), -SP_EFORMAT);
	cr_assert_null(f);
	f = SENTINEL;
	cr_assert_eq(spi_elf_file_open(NOT_ELF, &f, &d), -SP_EFORMAT);
	cr_assert_null(f);
	fd = open(NOT_ELF, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	f = SENTINEL;
	cr_assert_eq(spi_elf_file_open_fd(fd, &f, &d), -SP_EFORMAT);
	cr_assert_null(f);
	cr_assert_eq(fcntl(fd, F_GETFD), -1, "the fd is closed on failure");
	f = SENTINEL;
	cr_assert_eq(spi_elf_file_open_mem(not_a_spool, sizeof(not_a_spool),
	    &f, &d), -SP_EFORMAT);
	cr_assert_null(f);
	f = SENTINEL;
	cr_assert_eq(spi_elf_file_open_mem(NULL, 0, &f, &d), -SP_EFORMAT);
	cr_assert_null(f);
	no_leaks();
}

Test(ctor, elf_syms_load_of_a_bad_symbol_table)
{
	struct sp_elf_file *f;
	struct sp_elf_syms *s = SENTINEL;
	size_t len;
	uint8_t *img = slurp(SYMS, &len);

	shdr_named(img, ".symtab")->sh_entsize = 16;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	free(img);
	cr_assert_eq(spi_elf_syms_load(f, &s), -SP_EFORMAT);
	cr_assert_null(s);
	spi_elf_file_free(f);
	no_leaks();
}

Test(ctor, dwarf_open_fails_with_out_null)
{
	struct sp_dwarf_sections sec;
	struct sp_dwarf *d = SENTINEL;
	static const uint8_t line[4] = { 1, 2, 3, 4 };

	cr_assert_eq(spi_dwarf_open(NULL, &d), -SP_EUSAGE);
	cr_assert_null(d);
	memset(&sec, 0, sizeof(sec));
	sec.line.p = line;
	sec.line.len = sizeof(line);
	d = SENTINEL;
	cr_assert_eq(spi_dwarf_open(&sec, &d), -SP_ENOTFOUND, "no .debug_info");
	cr_assert_null(d);
	no_leaks();
}

/* --- sym/kallsyms_int.h, sym/perfmap_int.h ---------------------------------------- */

Test(ctor, kallsyms_open_fails_with_out_null)
{
	struct sp_kallsyms *k = SENTINEL;
	struct sp_diag d;

	cr_assert_eq(spi_kallsyms_open(MISSING, &k, &d), -ENOENT);
	cr_assert_null(k);
	k = SENTINEL;
	cr_assert_eq(spi_kallsyms_open("tests", &k, &d), -EPERM);
	cr_assert_null(k);
	no_leaks();
}

Test(ctor, perf_map_open_fails_with_out_null)
{
	struct sp_perf_map *m = SENTINEL;
	struct sp_diag d;
	char dir[PATH_MAX], file[PATH_MAX], link[PATH_MAX];

	cr_assert_eq(spi_perf_map_open(MISSING, (uid_t)-1, &m, &d), -ENOENT);
	cr_assert_null(m);
	tmpdir(dir, "ctor-perfmap");
	pathf(file, "%s/perf-1.map", dir);
	pathf(link, "%s/perf-2.map", dir);
	spit(file, "1000 10 f\n", 10);
	(void)unlink(link);
	cr_assert_eq(symlink(file, link), 0);
	m = SENTINEL;
	cr_assert_eq(spi_perf_map_open(link, (uid_t)-1, &m, &d), -ELOOP);
	cr_assert_null(m);
	m = SENTINEL;
	cr_assert_eq(spi_perf_map_open(file, getuid() + 1, &m, &d), -EPERM);
	cr_assert_null(m);
	cr_assert_eq(unlink(link), 0);
	cr_assert_eq(unlink(file), 0);
	cr_assert_eq(rmdir(dir), 0);
	no_leaks();
}

/* --- sp/sym/symbolizer.h, sp/report/top.h, sp/report/fold.h, sp/report/flame.h ------------------- */

static int
no_lookup(void *arg, const struct sp_native_lookup *batch, size_t n,
    struct sp_native_out *out)
{
	(void)arg;
	(void)batch;
	(void)n;
	(void)out;
	return 0;
}

Test(ctor, symbolizer_and_top_new_refuse_missing_arguments)
{
	struct mem m = make_reference(2, 1);
	struct sp_snapshot *snap;
	struct sp_symbolizer *sym = SENTINEL, *ok;
	struct sp_native_backend be = { NULL, NULL, NULL };
	struct sp_top *t = SENTINEL;
	const struct sp_defs *defs;
	const struct sp_header *h;

	cr_assert_eq(sp_snapshot_open_mem(m.p, m.len, &snap, NULL), 0);
	defs = sp_snapshot_defs(snap);
	h = sp_snapshot_header(snap);
	cr_assert_eq(sp_symbolizer_new(NULL, h, NULL, NULL, &sym), -SP_EUSAGE);
	cr_assert_null(sym);
	sym = SENTINEL;
	cr_assert_eq(sp_symbolizer_new(defs, h, NULL, &be, &sym), -SP_EUSAGE,
	    "a backend without lookup");
	cr_assert_null(sym);
	be.lookup = no_lookup;
	cr_assert_eq(sp_symbolizer_new(defs, h, NULL, &be, &ok), 0);
	cr_assert_eq(sp_top_new(NULL, ok, &t), -SP_EUSAGE);
	cr_assert_null(t);
	t = SENTINEL;
	cr_assert_eq(sp_top_new(defs, NULL, &t), -SP_EUSAGE);
	cr_assert_null(t);
	sp_symbolizer_free(ok);
	sp_snapshot_free(snap);
	mem_free(&m);
	no_leaks();
}

Test(ctor, fold_new_refuses_options_out_of_range)
{
	struct sp_fold_options o;
	struct sp_header h;
	struct sp_fold *f = SENTINEL;

	ref_header(&h);
	memset(&o, 0, sizeof(o));
	o.flags = SP_FOLD_USER_ONLY | SP_FOLD_KERNEL_ONLY;
	cr_assert_eq(sp_fold_new(&o, &h, &f), -SP_EUSAGE);
	cr_assert_null(f);
	memset(&o, 0, sizeof(o));
	o.root = (enum sp_fold_root)(SP_FOLD_ROOT_THREAD + 1);
	f = SENTINEL;
	cr_assert_eq(sp_fold_new(&o, &h, &f), -SP_EUSAGE);
	cr_assert_null(f);
	memset(&o, 0, sizeof(o));
	o.time = (enum sp_fold_time)(SP_FOLD_TIME_PREEMPTED + 1);
	f = SENTINEL;
	cr_assert_eq(sp_fold_new(&o, &h, &f), -SP_EUSAGE);
	cr_assert_null(f);
	no_leaks();
}

Test(ctor, flame_parse_of_a_spool)
{
	struct mem m = make_reference(2, 1);
	struct sp_flame *f = SENTINEL;

	/* Built the tree, then found the input is no folded text. */
	cr_assert_eq(sp_flame_parse((const char *)m.p, m.len, &f),
	    -SP_EFORMAT);
	cr_assert_null(f);
	mem_free(&m);
	no_leaks();
}

/* --- sym/debugfind_int.h: a caller's struct, cleared on failure -------------- */

Test(ctor, debug_dirs_parse_over_the_limit_leaves_nothing)
{
	struct sp_debug_dirs dirs;
	char spec[3 * (SP_DEBUG_DIRS_MAX + 1) + 1];
	size_t i;

	for (i = 0; i <= SP_DEBUG_DIRS_MAX; i++)
		memcpy(spec + 3 * i, "/d:", 3);
	spec[3 * i] = '\0';
	memset(&dirs, 0xa5, sizeof(dirs));
	cr_assert_eq(sp_debug_dirs_parse(spec, &dirs), -SP_ELIMIT);
	cr_assert_null(dirs.dirs);
	cr_assert_null(dirs.buf);
	cr_assert_eq(dirs.n, 0);
	no_leaks();
}

/* --- Constructors that fail only for want of memory --------------------- */

struct hoard {
	void *head;          /* blocks taken, linked through their start */
	struct rlimit as;    /* the address space limit before */
};

/* Grows the stack now: it may not grow once the address space is
 * capped. */
static void __attribute__((noinline))
stack_reserve(void)
{
	volatile char big[256 * 1024];

	memset((char *)big, 0, sizeof(big));
}

/*
 * Caps the address space at what is mapped now, then takes every free
 * block of the heap, of every size, until malloc fails: the next
 * allocation fails.  feast gives it all back.
 */
static void
starve(struct hoard *h)
{
	struct rlimit lim;
	unsigned long pages;
	size_t sz;
	void *p;
	FILE *f;

#ifdef UNDER_ASAN
	cr_skip_test("ASan's allocator aborts when memory runs out");
#endif
	stack_reserve();
	f = fopen("/proc/self/statm", "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%lu", &pages), 1);
	(void)fclose(f);
	h->head = NULL;
	cr_assert_eq(getrlimit(RLIMIT_AS, &h->as), 0);
	lim = h->as;
	lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
	cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
	/* Large blocks first; then each small size, whose free lists
	 * (glibc's tcache and fast bins) serve only that size. */
	for (sz = (size_t)1 << 20; sz >= 16; sz = sz > 2048 ? sz / 2 : sz - 8)
		while ((p = malloc(sz)) != NULL) {
			*(void **)p = h->head;
			h->head = p;
		}
}

static void
feast(struct hoard *h)
{
	void *p;

	while ((p = h->head) != NULL) {
		h->head = *(void **)p;
		free(p);
	}
	cr_assert_eq(setrlimit(RLIMIT_AS, &h->as), 0);
}

Test(ctor, memory_is_used_up_by_starve)
{
	struct hoard h;
	void *a, *b;

	starve(&h);
	a = malloc(1);
	b = calloc(1, 100);
	feast(&h);
	cr_assert_null(a);
	cr_assert_null(b);
	a = malloc(1);
	cr_assert_not_null(a, "memory is back");
	free(a);
}

Test(ctor, writer_merge_demangle_flame_new_without_memory)
{
	struct sp_header hdr;
	struct sp_writer *w = SENTINEL;
	struct sp_merge *m = SENTINEL;
	struct sp_demangle *dm = SENTINEL;
	struct sp_flame *f = SENTINEL, *g = SENTINEL;
	struct hoard h;
	int ew, em, ed, ef, eg;

	ref_header(&hdr);
	starve(&h);
	ew = sp_writer_new(1, &hdr, &w);
	em = sp_merge_new(1, &m);
	ed = sp_demangle_new(NULL, &dm);
	ef = sp_flame_new(&f);
	eg = sp_flame_parse("a;b 1\n", 6, &g);
	feast(&h);
	cr_assert_eq(ew, -ENOMEM);
	cr_assert_null(w);
	cr_assert_eq(em, -ENOMEM);
	cr_assert_null(m);
	cr_assert_eq(ed, -ENOMEM);
	cr_assert_null(dm);
	cr_assert_eq(ef, -ENOMEM);
	cr_assert_null(f);
	cr_assert_eq(eg, -ENOMEM);
	cr_assert_null(g);
}

/* A backend's test buffer (sp/sym/symbolizer.h): NULL without memory. */
Test(ctor, native_out_new_without_memory)
{
	struct sp_native_out *out = SENTINEL;
	struct hoard h;
	int err;

	starve(&h);
	err = sp_native_out_new(1, &out);
	feast(&h);
	cr_assert_eq(err, -ENOMEM);
	cr_assert_null(out);
}

Test(ctor, parsers_and_cfi_table_open_without_memory)
{
	static const char ks[] = "ffffffff81000000 T _stext\n";
	static const char pm[] = "1000 10 f\n";
	struct sp_kallsyms *k = SENTINEL;
	struct sp_perf_map *pmap = SENTINEL;
	struct sp_cfi_table *t = SENTINEL;
	struct sp_elf_file *f;
	struct hoard h;
	int ek, ep, et;

	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	starve(&h);
	ek = spi_kallsyms_parse(ks, sizeof(ks) - 1, &k);
	ep = spi_perf_map_parse(pm, sizeof(pm) - 1, &pmap);
	et = spi_cfi_table_open(f, &t); /* takes f, on failure too */
	feast(&h);
	cr_assert_eq(ek, -ENOMEM);
	cr_assert_null(k);
	cr_assert_eq(ep, -ENOMEM);
	cr_assert_null(pmap);
	cr_assert_eq(et, -ENOMEM);
	cr_assert_null(t);
}
