/* SPDX-License-Identifier: MIT */
/* Perf maps and kallsyms: hand-written texts for the rules, the JIT
 * workload's real perf map, this machine's /proc/kallsyms. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sym/kallsyms_int.h"
#include "sym/perfmap_int.h"

#define TMP "build/test-tmp"

static struct sp_perf_map *
pm(const char *text)
{
	struct sp_perf_map *m = NULL;

	cr_assert_eq(spi_perf_map_parse(text, strlen(text), &m), 0);
	cr_assert_not_null(m);
	return m;
}

/* The name of the entry at addr ("" when none). */
static const char *
at(const struct sp_perf_map *m, uint64_t addr)
{
	const struct spi_perf_map_entry *e = spi_perf_map_find(m, addr);

	return e != NULL ? e->name : "";
}

static void
entry_is(const struct sp_perf_map *m, size_t i, uint64_t start,
    uint64_t size, const char *name)
{
	const struct spi_perf_map_entry *e = spi_perf_map_entry(m, i);

	cr_assert_not_null(e, "entry %zu", i);
	cr_assert_eq(e->start, start, "entry %zu start 0x%" PRIx64, i,
	    e->start);
	cr_assert_eq(e->size, size, "entry %zu size 0x%" PRIx64, i, e->size);
	cr_assert_str_eq(e->name, name);
	cr_assert_eq(e->name_len, strlen(name));
}

Test(perfmap, a_later_line_splits_trims_or_drops_an_earlier_one)
{
	struct sp_perf_map *m;

	m = pm("1000 100 A\n1050 10 B\n");           /* B splits A */
	cr_assert_eq(spi_perf_map_count(m), 3);
	entry_is(m, 0, 0x1000, 0x50, "A");
	entry_is(m, 1, 0x1050, 0x10, "B");
	entry_is(m, 2, 0x1060, 0xa0, "A");
	cr_assert_str_eq(at(m, 0x104f), "A");
	cr_assert_str_eq(at(m, 0x105f), "B");
	cr_assert_str_eq(at(m, 0x10ff), "A");
	cr_assert_str_eq(at(m, 0x1100), "");
	cr_assert_str_eq(at(m, 0xfff), "");
	spi_perf_map_free(m);

	m = pm("1000 100 A\nf80 100 B\n10c0 100 C\n"); /* trims both ends */
	cr_assert_eq(spi_perf_map_count(m), 3);
	entry_is(m, 0, 0xf80, 0x100, "B");
	entry_is(m, 1, 0x1080, 0x40, "A");
	entry_is(m, 2, 0x10c0, 0x100, "C");
	spi_perf_map_free(m);

	m = pm("1010 10 A\n1030 10 B\n1000 100 C\n"); /* C covers both */
	cr_assert_eq(spi_perf_map_count(m), 1);
	entry_is(m, 0, 0x1000, 0x100, "C");
	spi_perf_map_free(m);

	m = pm("1000 100 C\n1010 10 A\n1030 10 B\n1000 100 D\n");
	cr_assert_eq(spi_perf_map_count(m), 1, "re-JIT of the whole range");
	entry_is(m, 0, 0x1000, 0x100, "D");
	spi_perf_map_free(m);
}

Test(perfmap, an_earlier_line_never_covers_a_later_one)
{
	struct sp_perf_map *m = pm("1050 10 B\n1000 100 A\n");

	cr_assert_eq(spi_perf_map_count(m), 1);
	entry_is(m, 0, 0x1000, 0x100, "A");
	spi_perf_map_free(m);
}

Test(perfmap, identical_re_adds_and_neighbours_stay_apart)
{
	struct sp_perf_map *m;

	m = pm("1000 10 A\n1000 10 A\n1000 10 A\n");
	cr_assert_eq(spi_perf_map_count(m), 1);
	entry_is(m, 0, 0x1000, 0x10, "A");
	spi_perf_map_free(m);

	/* Same name, adjacent, but two blobs: two entries. */
	m = pm("1010 10 A\n1000 10 A\n1020 8 x\n");
	cr_assert_eq(spi_perf_map_count(m), 3);
	entry_is(m, 0, 0x1000, 0x10, "A");
	entry_is(m, 1, 0x1010, 0x10, "A");
	entry_is(m, 2, 0x1020, 0x8, "x");
	spi_perf_map_free(m);
}

/*
 * Random overlapping lines against a naive model: paint each line's
 * range into an array in line order, then every address must find the
 * line that painted it last, and the entries must be the maximal runs.
 */
Test(perfmap, random_overlaps_match_a_painted_array)
{
	enum { SPACE = 4096, LINES = 600 };
	static int owner[SPACE];
	char *text = malloc(LINES * 32), name[16];
	size_t len = 0, i, runs = 0;
	uint32_t rnd = 12345;
	struct sp_perf_map *m;
	const struct spi_perf_map_entry *e, *prev = NULL;
	int a, l;

	cr_assert_not_null(text);
	for (a = 0; a < SPACE; a++)
		owner[a] = -1;
	for (l = 0; l < LINES; l++) {
		uint32_t start, size;

		rnd = rnd * 1103515245u + 12345u;
		start = (rnd >> 8) % SPACE;
		rnd = rnd * 1103515245u + 12345u;
		size = 1 + (rnd >> 8) % (l % 10 == 0 ? 600 : 40);
		if (start + size > SPACE)
			size = SPACE - start;
		for (a = (int)start; a < (int)(start + size); a++)
			owner[a] = l;
		len += (size_t)sprintf(text + len, "%x %x f%d\n", 0x10000 +
		    start, size, l);
	}
	cr_assert_eq(spi_perf_map_parse(text, len, &m), 0);
	cr_assert_eq(spi_perf_map_bad_lines(m), 0);
	for (a = 0; a < SPACE; a++) {
		if (owner[a] < 0) {
			cr_assert_str_eq(at(m, 0x10000 + (uint64_t)a), "");
			continue;
		}
		(void)snprintf(name, sizeof(name), "f%d", owner[a]);
		cr_assert_str_eq(at(m, 0x10000 + (uint64_t)a), name,
		    "address %d", a);
		if (a == 0 || owner[a - 1] != owner[a])
			runs++;
	}
	cr_assert_eq(spi_perf_map_count(m), runs);
	for (i = 0; (e = spi_perf_map_entry(m, i)) != NULL; prev = e, i++)
		cr_assert(prev == NULL || prev->start + prev->size <= e->start,
		    "sorted, not overlapping at %zu", i);
	spi_perf_map_free(m);
	free(text);
}

Test(perfmap, names_keep_their_spaces_and_fields_take_any_blanks)
{
	struct sp_perf_map *m = pm(
	    "1000 20 std::vector<int, std::allocator<int> >::push_back(int)\n"
	    "0x2000\t0X10\t\tLazyCompile:*main /srv/app.js:1 \n"
	    "3000  8   name\n"
	    "ABCD 1 upper\n");

	cr_assert_eq(spi_perf_map_count(m), 4);
	cr_assert_eq(spi_perf_map_bad_lines(m), 0);
	cr_assert_str_eq(at(m, 0x101f),
	    "std::vector<int, std::allocator<int> >::push_back(int)");
	cr_assert_str_eq(at(m, 0x2000), "LazyCompile:*main /srv/app.js:1 ",
	    "trailing blanks are part of the name");
	cr_assert_str_eq(at(m, 0x3007), "name");
	cr_assert_str_eq(at(m, 0xabcd), "upper");
	spi_perf_map_free(m);
}

Test(perfmap, malformed_lines_are_skipped_and_counted)
{
	static const char text[] =
	    "zzz 10 not_hex\n"
	    "1000 10\n"                  /* no name */
	    "1000 10 \n"                 /* blank name */
	    "1000 0 empty_range\n"
	    "ffffffffffffffff 2 past_2_64\n"
	    "10000000000000000 1 too_wide\n"
	    "1000-10 dash\n"
	    "0x 10 no_digits\n"
	    "1100 10 nul\0byte\n"
	    "\n"                         /* blank lines: ignored */
	    "   \t\n"
	    "fffffffffffffffe 2 to_2_64\n"
	    "fffffffffffffff0 f top\n"
	    "1000 10 good";              /* no final newline */
	struct sp_perf_map *m = NULL;

	cr_assert_eq(spi_perf_map_parse(text, sizeof(text) - 1, &m), 0);
	cr_assert_eq(spi_perf_map_bad_lines(m), 10);
	cr_assert_eq(spi_perf_map_count(m), 2);
	cr_assert_str_eq(at(m, 0x100f), "good");
	cr_assert_str_eq(at(m, UINT64_MAX - 1), "top");
	cr_assert_str_eq(at(m, UINT64_MAX), "");
	cr_assert_str_eq(at(m, 0x1100), "");
	spi_perf_map_free(m);
	cr_assert_eq(spi_perf_map_parse(NULL, 0, &m), 0);
	cr_assert_eq(spi_perf_map_count(m), 0);
	cr_assert_null(spi_perf_map_find(m, 0));
	spi_perf_map_free(m);
}

Test(perfmap, crlf_and_overlong_lines)
{
	char *text, *p;
	struct sp_perf_map *m;
	size_t n;

	m = pm("1000 10 dos\r\n2000 10 mid\rcr\r\n3000 10 last\r");
	cr_assert_eq(spi_perf_map_count(m), 3);
	entry_is(m, 0, 0x1000, 0x10, "dos");
	entry_is(m, 1, 0x2000, 0x10, "mid\rcr");
	entry_is(m, 2, 0x3000, 0x10, "last");
	spi_perf_map_free(m);

	/* Lines of exactly the cap and one byte more, then a good one. */
	text = malloc(3 * SP_PERF_MAP_LINE_MAX);
	cr_assert_not_null(text);
	p = text + sprintf(text, "1000 10 ");
	n = SP_PERF_MAP_LINE_MAX - strlen("1000 10 ");
	memset(p, 'a', n);
	p += n;
	p += sprintf(p, "\n2000 10 ");
	memset(p, 'b', n + 1);
	p += n + 1;
	p += sprintf(p, "\r\n3000 10 after\n");
	cr_assert_eq(spi_perf_map_parse(text, (size_t)(p - text), &m), 0);
	cr_assert_eq(spi_perf_map_bad_lines(m), 1);
	cr_assert_eq(spi_perf_map_count(m), 2);
	cr_assert_eq(spi_perf_map_find(m, 0x1000)->name_len, n);
	cr_assert_str_eq(at(m, 0x2000), "");
	cr_assert_str_eq(at(m, 0x3000), "after");
	spi_perf_map_free(m);
	free(text);
}

static void
py_is(const char *name, const char *func, const char *file)
{
	const char *f = NULL, *s = NULL;
	size_t fl = 0, sl = 0;

	cr_assert_eq(spi_perf_map_python(name, strlen(name), &f, &fl, &s, &sl),
	    1, "%s", name);
	cr_assert_eq(fl, strlen(func), "%s", name);
	cr_assert_eq(memcmp(f, func, fl), 0, "%s", name);
	cr_assert_eq(sl, strlen(file), "%s", name);
	cr_assert_eq(memcmp(s, file, sl), 0, "%s", name);
}

static void
not_py(const char *name)
{
	const char *f = NULL, *s = NULL;
	size_t fl = 0, sl = 0;

	cr_assert_eq(spi_perf_map_python(name, strlen(name), &f, &fl, &s, &sl),
	    0, "%s", name);
	cr_assert_null(f);
}

Test(perfmap, python_names_split_at_the_first_colon)
{
	struct sp_perf_map *m;
	const struct spi_perf_map_entry *e;
	const char *f, *s;
	size_t fl, sl;

	py_is("py::bar:/run/t.py", "bar", "/run/t.py");
	py_is("py::Cls.meth.<locals>.<lambda>:/srv/a b/m.py",
	    "Cls.meth.<locals>.<lambda>", "/srv/a b/m.py");
	py_is("py::f:/data/2024-01-01T10:00/x.py", "f",
	    "/data/2024-01-01T10:00/x.py");
	py_is("py::<module>:<frozen importlib._bootstrap>", "<module>",
	    "<frozen importlib._bootstrap>");
	py_is("py:::", "", "");
	py_is("py::f:", "f", "");
	not_py("py::");
	not_py("py::no_file");
	not_py("py:");
	not_py("");
	not_py("jit_spin_loop");
	not_py("Py::f:x.py");

	/* Through a map, as sp-sym will use it: the span is in the name. */
	m = pm("7f3529fcf759 b     py::bar:/run/t.py\n");
	e = spi_perf_map_find(m, 0x7f3529fcf760);
	cr_assert_not_null(e);
	cr_assert_eq(spi_perf_map_python(e->name, e->name_len, &f, &fl, &s,
	    &sl), 1);
	cr_assert_eq(f, e->name + 4);
	cr_assert_eq(s + sl, e->name + e->name_len);
	spi_perf_map_free(m);
	/* A bare "py::" line is an ordinary entry with that name. */
	m = pm("1000 10 py::\n");
	cr_assert_str_eq(at(m, 0x1000), "py::");
	spi_perf_map_free(m);
}

static void
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(close(fd), 0);
}

Test(perfmap, open_refuses_links_fifos_other_owners_and_huge_files)
{
	const char *good = TMP "/maps-perf-good.map";
	const char *link = TMP "/maps-perf-link.map";
	const char *fifo = TMP "/maps-perf-fifo.map";
	const char *big = TMP "/maps-perf-big.map";
	struct sp_perf_map *m = NULL;
	struct sp_diag d;
	int fd;

	(void)mkdir("build", 0755);
	(void)mkdir(TMP, 0755);
	write_file(good, "1000 10 ok\n");
	cr_assert_eq(spi_perf_map_open(good, geteuid(), &m, &d), 0);
	cr_assert_str_eq(at(m, 0x1000), "ok");
	spi_perf_map_free(m);

	(void)unlink(link);
	cr_assert_eq(symlink("maps-perf-good.map", link), 0);
	cr_assert_eq(spi_perf_map_open(link, (uid_t)-1, &m, &d), -ELOOP);
	cr_assert_null(m);
	cr_assert_not_null(strstr(d.msg, link), "%s", d.msg);
	cr_assert_not_null(strstr(d.msg, "symbolic link"), "%s", d.msg);

	(void)unlink(fifo);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(spi_perf_map_open(fifo, (uid_t)-1, &m, &d), -EPERM);
	cr_assert_not_null(strstr(d.msg, "not a regular file"), "%s", d.msg);

	cr_assert_eq(spi_perf_map_open(TMP "/maps-none.map", 0, &m, &d),
	    -ENOENT);
	cr_assert_not_null(strstr(d.msg, "maps-none.map"), "%s", d.msg);

	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)SP_PERF_MAP_MAX + 1), 0, "sparse");
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(spi_perf_map_open(big, (uid_t)-1, &m, &d), -SP_ELIMIT);
	cr_assert_not_null(strstr(d.msg, "limit"), "%s", d.msg);
	(void)unlink(big);

	if (geteuid() != 0)
		cr_skip_test("chown needs root");
	cr_assert_eq(chown(good, 65534, 65534), 0, "%s", strerror(errno));
	cr_assert_eq(spi_perf_map_open(good, 0, &m, &d), -EPERM);
	cr_assert_not_null(strstr(d.msg, "uid 65534"), "%s", d.msg);
	cr_assert_eq(spi_perf_map_open(good, 65534, &m, &d), 0);
	spi_perf_map_free(m);
	cr_assert_eq(spi_perf_map_open(good, (uid_t)-1, &m, &d), 0);
	spi_perf_map_free(m);
	(void)unlink(good);
	(void)unlink(link);
	(void)unlink(fifo);
}

/* Runs build/tests/jit, returns its pid and the address it prints. */
static pid_t
run_jit(uint64_t *addr)
{
	char line[128];
	int pfd[2], status;
	pid_t pid;
	FILE *f;

	cr_assert_eq(pipe(pfd), 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		(void)dup2(pfd[1], 1);
		(void)close(pfd[0]);
		execl("build/tests/jit", "jit", "50", (char *)NULL);
		_exit(127);
	}
	(void)close(pfd[1]);
	f = fdopen(pfd[0], "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f), "jit printed nothing");
	(void)fclose(f);
	cr_assert_eq(sscanf(line, "jit=%" SCNx64, addr), 1, "%s", line);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return pid;
}

Test(perfmap, reads_the_jit_workloads_real_map)
{
	char path[64], name[256], text[512], more[512];
	uint64_t addr, start, size;
	size_t lines = 1;
	struct sp_perf_map *m = NULL;
	const struct spi_perf_map_entry *e;
	struct sp_diag d;
	pid_t pid = run_jit(&addr);
	FILE *f;

	(void)snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	/* The expected entry, read with stdio rather than the parser. */
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(text, sizeof(text), f));
	while (fgets(more, sizeof(more), f) != NULL)
		lines++;
	(void)fclose(f);
	cr_assert_eq(sscanf(text, "%" SCNx64 " %" SCNx64 " %255s", &start,
	    &size, name), 3);
	cr_assert_eq(spi_perf_map_open(path, geteuid(), &m, &d), 0, "%s",
	    d.msg);
	(void)unlink(path);
	cr_assert_eq(spi_perf_map_count(m), lines);
	e = spi_perf_map_find(m, addr);
	cr_assert_not_null(e, "jit address 0x%" PRIx64, addr);
	cr_assert_eq(e->start, start);
	cr_assert_eq(e->size, size);
	cr_assert_str_eq(e->name, name);
	cr_assert_eq(spi_perf_map_find(m, addr + size - 1), e);
	cr_assert_null(spi_perf_map_find(m, addr + size));
	cr_assert_null(spi_perf_map_find(m, addr - 1));
	spi_perf_map_free(m);
}

/* The output of a shell command (at most cap - 1 bytes). */
static void
shell(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	cr_assert_not_null(p, "%s", cmd);
	n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	cr_assert_eq(pclose(p), 0, "%s", cmd);
}

static struct sp_kallsyms *
proc_kallsyms(void)
{
	struct sp_kallsyms *k = NULL;
	struct sp_diag d;

	if (geteuid() != 0)
		cr_skip_test("kallsyms shows addresses to root only");
	cr_assert_eq(spi_kallsyms_open("/proc/kallsyms", &k, &d), 0, "%s",
	    d.msg);
	cr_assert_eq(spi_kallsyms_hidden(k), 0);
	return k;
}

Test(kallsyms, parses_this_machines_kallsyms)
{
	struct sp_kallsyms *k = proc_kallsyms();
	struct sp_ksym s, prev;
	char out[64];
	size_t want, n = spi_kallsyms_count(k), i;

	memset(&prev, 0, sizeof(prev));
	shell("grep -c ' [tTwW] ' /proc/kallsyms", out, sizeof(out));
	want = strtoul(out, NULL, 10);
	cr_assert_gt(want, 1000);
	cr_assert_leq((n > want ? n - want : want - n) * 100, want,
	    "kept %zu text symbols, grep counts %zu", n, want);
	cr_assert_eq(spi_kallsyms_bad_lines(k), 0);
	for (i = 0; i < n; i++, prev = s) {
		cr_assert_eq(spi_kallsyms_symbol(k, i, &s), 0);
		cr_assert_gt(s.end, s.start, "%s", s.name);
		if (i > 0 && prev.start == s.start)
			cr_assert_eq(prev.end, s.end, "aliases %s, %s",
			    prev.name, s.name);
		else if (i > 0)
			cr_assert(prev.start < s.start && prev.end <= s.start,
			    "%s, %s: sorted, not overlapping", prev.name,
			    s.name);
	}
	cr_assert_eq(spi_kallsyms_symbol(k, n, &s), -SP_ENOTFOUND);
	spi_kallsyms_free(k);
}

/* Whether name is among the text symbols at addr in /proc/kallsyms. */
static int
listed_at(uint64_t addr, const char *name)
{
	char cmd[160], out[4096], *p;
	size_t len = strlen(name);

	(void)snprintf(cmd, sizeof(cmd), "grep '^%016" PRIx64 " [tTwW] ' "
	    "/proc/kallsyms", addr);
	shell(cmd, out, sizeof(out));
	for (p = out; (p = strstr(p, name)) != NULL; p++)
		if (p[-1] == ' ' && (p[len] == '\n' || p[len] == '\t'))
			return 1;
	return 0;
}

/* A core kernel function: its address and the next higher text symbol's,
 * from /proc/kallsyms sorted by sort(1). */
static void
check_core_function(const struct sp_kallsyms *k, const char *fn)
{
	char cmd[300], out[128];
	uint64_t addr, next, start = 0;
	const char *mod = "x", *name;

	(void)snprintf(cmd, sizeof(cmd), "grep ' [tTwW] ' /proc/kallsyms | "
	    "LC_ALL=C sort | awk '$3 == \"%s\" && !a { a = $1; next } "
	    "a && $1 != a { print a, $1; exit }'", fn);
	shell(cmd, out, sizeof(out));
	cr_assert_eq(sscanf(out, "%" SCNx64 " %" SCNx64, &addr, &next), 2,
	    "%s: %s", fn, out);
	name = spi_kallsyms_find(k, addr, &start, &mod);
	cr_assert_not_null(name, "%s", fn);
	cr_assert(listed_at(addr, name), "%s found as %s", fn, name);
	if (strcmp(name, fn) != 0)
		cr_assert(listed_at(addr, fn), "%s is an alias", name);
	cr_assert_eq(start, addr);
	cr_assert_null(mod, "%s is in the core kernel", fn);
	cr_assert_str_eq(spi_kallsyms_find(k, next - 1, NULL, NULL), name);
	cr_assert_eq(spi_kallsyms_find(k, next, &start, NULL) != NULL &&
	    start == next, 1, "%s ends at the next symbol", fn);
}

Test(kallsyms, finds_schedule_do_syscall_64_and_a_module_symbol)
{
	struct sp_kallsyms *k = proc_kallsyms();
	char out[512], name[256], mod[128];
	uint64_t addr, start = 0;
	const char *found, *m = NULL;

	check_core_function(k, "schedule");
	check_core_function(k, "do_syscall_64");

	/* The first text symbol with a [module] (here, without loadable
	 * modules, [__builtin__ftrace] or [bpf] ones qualify). */
	shell("awk -F'\\t' 'NF > 1 && $1 ~ / [tTwW] / { print; exit }' "
	    "/proc/kallsyms", out, sizeof(out));
	if (out[0] == '\0')
		cr_skip_test("no module symbols in /proc/kallsyms");
	cr_assert_eq(sscanf(out, "%" SCNx64 " %*c %255s [%127[^]]]", &addr,
	    name, mod), 3, "%s", out);
	found = spi_kallsyms_find(k, addr, &start, &m);
	cr_assert_not_null(found, "%s", out);
	cr_assert(listed_at(addr, found), "%s found as %s", name, found);
	cr_assert_eq(start, addr);
	cr_assert_not_null(m);
	cr_assert_str_eq(m, mod);
	cr_assert_null(spi_kallsyms_find(k, 0x1000, NULL, NULL),
	    "below the kernel");
	spi_kallsyms_free(k);
}

Test(kallsyms, zero_addresses_report_hidden)
{
	const char *path = TMP "/maps-kallsyms-hidden";
	char cmd[200];
	struct sp_kallsyms *k = NULL;
	struct sp_diag d;

	/* What kptr_restrict shows: this machine's symbols, zeroed. */
	(void)mkdir("build", 0755);
	(void)mkdir(TMP, 0755);
	(void)snprintf(cmd, sizeof(cmd), "head -200 /proc/kallsyms | sed "
	    "'s/^[0-9a-f]*/0000000000000000/' > %s", path);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(spi_kallsyms_open(path, &k, &d), 0, "%s", d.msg);
	cr_assert_eq(spi_kallsyms_hidden(k), 1);
	cr_assert_eq(spi_kallsyms_count(k), 0);
	cr_assert_eq(spi_kallsyms_bad_lines(k), 0);
	cr_assert_null(spi_kallsyms_find(k, 0, NULL, NULL));
	cr_assert_null(spi_kallsyms_find(k, UINT64_MAX, NULL, NULL));
	spi_kallsyms_free(k);
	(void)unlink(path);

	cr_assert_eq(spi_kallsyms_parse("ffffffff81000000 T _stext\n", 26, &k),
	    0);
	cr_assert_eq(spi_kallsyms_hidden(k), 0);
	cr_assert_eq(spi_kallsyms_count(k), 1);
	spi_kallsyms_free(k);
}

static const char ktext[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 t local_alias\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 W weak_fn\n"
    "ffffffff81000200 D data_is_skipped\n"
    "ffffffff81000300 t last_core\n"
    "ffffffffc0001000 t mod_a_1\t[mod_a]\n"
    "ffffffffc0001080 T mod_a_2\t[mod_a]\n"
    "ffffffffc0000000 t mod_b_1\t[mod_b]\n"   /* modules are not sorted */
    "ffffffffc0002000 w mod_b_weak\t[mod_b]\n"
    "ffffffffc0200000 t mod_c_1\t[mod_c]\n"
    "ffffffffc0400000 t mod_c_2\t[mod_c]\n"
    "garbage\n"
    "ffffffff81000400 T\n"
    "ffffffff81000500 T two words\n"
    "ffffffffc0003000 t unbracketed\tmod\n"
    "ffffffffc0003000 t empty\t[]\n"
    "ffffffffffffffff T top_byte\n"
    "ffffffff81000600 t crlf\r\n";

static void
ksym_is(const struct sp_kallsyms *k, uint64_t addr, const char *name,
    uint64_t start, const char *module)
{
	const char *m = "x", *n;
	uint64_t s = 0;

	n = spi_kallsyms_find(k, addr, &s, &m);
	if (name == NULL) {
		cr_assert_null(n, "0x%" PRIx64 ": %s", addr, n);
		return;
	}
	cr_assert_not_null(n, "0x%" PRIx64, addr);
	cr_assert_str_eq(n, name, "0x%" PRIx64, addr);
	cr_assert_eq(s, start, "0x%" PRIx64, addr);
	if (module == NULL)
		cr_assert_null(m, "0x%" PRIx64, addr);
	else
		cr_assert_str_eq(m, module, "0x%" PRIx64, addr);
}

Test(kallsyms, symbols_end_at_the_next_of_their_module)
{
	struct sp_kallsyms *k = NULL;
	struct sp_ksym s;
	const uint64_t core = 0xffffffff81000000, mods = 0xffffffffc0000000;

	cr_assert_eq(spi_kallsyms_parse(ktext, sizeof(ktext) - 1, &k), 0);
	cr_assert_eq(spi_kallsyms_count(k), 12);
	cr_assert_eq(spi_kallsyms_bad_lines(k), 6);
	cr_assert_eq(spi_kallsyms_hidden(k), 0);
	ksym_is(k, core - 1, NULL, 0, NULL);
	ksym_is(k, core, "_stext", core, NULL);          /* global first */
	ksym_is(k, core + 0xff, "_stext", core, NULL);
	ksym_is(k, core + 0x100, "weak_fn", core + 0x100, NULL);
	ksym_is(k, core + 0x2ff, "weak_fn", core + 0x100, NULL);
	ksym_is(k, core + 0x300, "last_core", core + 0x300, NULL);
	ksym_is(k, core + 0x600, "crlf", core + 0x600, NULL);
	/* The core kernel's last symbol: SP_KALLSYMS_TAIL_MAX. */
	ksym_is(k, core + 0x600 + SP_KALLSYMS_TAIL_MAX - 1, "crlf",
	    core + 0x600, NULL);
	ksym_is(k, core + 0x600 + SP_KALLSYMS_TAIL_MAX, NULL, 0, NULL);
	/* Another module's symbol ends it, within the tail. */
	ksym_is(k, mods + 0xfff, "mod_b_1", mods, "mod_b");
	ksym_is(k, mods + 0x1000, "mod_a_1", mods + 0x1000, "mod_a");
	ksym_is(k, mods + 0x1080, "mod_a_2", mods + 0x1080, "mod_a");
	ksym_is(k, mods + 0x1fff, "mod_a_2", mods + 0x1080, "mod_a");
	ksym_is(k, mods + 0x2000, "mod_b_weak", mods + 0x2000, "mod_b");
	ksym_is(k, mods + 0x2000 + SP_KALLSYMS_TAIL_MAX, NULL, 0, NULL);
	/* Within one module the gap is the function's. */
	ksym_is(k, mods + 0x3fffff, "mod_c_1", mods + 0x200000, "mod_c");
	ksym_is(k, mods + 0x400000 + SP_KALLSYMS_TAIL_MAX - 1, "mod_c_2",
	    mods + 0x400000, "mod_c");
	ksym_is(k, UINT64_MAX, NULL, 0, NULL);
	/* Aliases in preference order. */
	cr_assert_eq(spi_kallsyms_symbol(k, 0, &s), 0);
	cr_assert_str_eq(s.name, "_stext");
	cr_assert_eq(spi_kallsyms_symbol(k, 1, &s), 0);
	cr_assert_str_eq(s.name, "_text");
	cr_assert_eq(spi_kallsyms_symbol(k, 2, &s), 0);
	cr_assert_str_eq(s.name, "local_alias");
	cr_assert_eq(s.end, core + 0x100);
	/* Ranges never overlap, though ends cross modules. */
	cr_assert_eq(spi_kallsyms_symbol(k, 6, &s), 0);
	cr_assert_str_eq(s.name, "mod_b_1");
	cr_assert_eq(s.end, mods + 0x1000);
	spi_kallsyms_free(k);
}

Test(kallsyms, open_refuses_what_is_not_a_regular_file)
{
	struct sp_kallsyms *k = NULL;
	struct sp_diag d;

	(void)mkdir("build", 0755);
	(void)mkdir(TMP, 0755);
	cr_assert_eq(spi_kallsyms_open("/dev/null", &k, &d), -EPERM);
	cr_assert_not_null(strstr(d.msg, "/dev/null: not a regular file"),
	    "%s", d.msg);
	cr_assert_eq(spi_kallsyms_open(TMP, &k, &d), -EPERM);
	cr_assert_eq(spi_kallsyms_open(TMP "/maps-none", &k, &d), -ENOENT);
	cr_assert_not_null(strstr(d.msg, "maps-none"), "%s", d.msg);
	cr_assert_null(k);
}

Test(perfmap, more_lines_than_the_limit_are_refused)
{
	size_t n = SP_PERF_MAP_ENTRIES_MAX, i;
	char *text = malloc((n + 1) * 6);
	struct sp_perf_map *m = NULL;

	cr_assert_not_null(text);
	for (i = 0; i <= n; i++)
		memcpy(text + 6 * i, "1 1 a\n", 6);
	m = (struct sp_perf_map *)text; /* not NULL: the failure clears it */
	cr_assert_eq(spi_perf_map_parse(text, 6 * (n + 1), &m), -SP_ELIMIT);
	cr_assert_null(m);
	cr_assert_eq(spi_perf_map_parse(text, 6 * n, &m), 0, "at the limit");
	cr_assert_eq(spi_perf_map_count(m), 1);
	spi_perf_map_free(m);
	free(text);
}
