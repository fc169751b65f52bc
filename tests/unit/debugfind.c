/* SPDX-License-Identifier: MIT */
/*
 * The debug-file search, on copies of the binaries build.ninja makes
 * from tests/workloads/syms.c laid out as distributions, sysroots and
 * bundles lay them out, in build/test-tmp.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfsym_int.h"
#include "elftest.h"
#include "sp/common/error.h"
#include "sp/sym/debuginfod.h"
#include "sym/debugfind_int.h"

/* --- the debug-file search --------------------------------------------------- */

/* DIR/.build-id/xx/rest.debug holding a copy of from. */
static void
build_id_layout(const char *dir, const struct ids *i, const char *from,
    char *out)
{
	char d[PATH_MAX];

	pathf(d, "%s/.build-id/%.2s", dir, i->hex);
	mkdirs(d);
	pathf(out, "%s/%s.debug", d, i->hex + 2);
	copy(from, out);
}

static void
assert_names_main(struct sp_elf_file *f)
{
	uint64_t addr = nm_addr(SYMS, 'T', "main");
	struct sp_elf_syms *x;
	const char *got;

	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	got = spi_elf_syms_find(x, addr + 1, NULL);
	cr_assert_not_null(got);
	cr_assert_str_eq(got, "main");
	spi_elf_syms_free(x);
}

Test(debugfind, by_build_id_directory_first)
{
	char dir[PATH_MAX], want[PATH_MAX], bin[PATH_MAX];
	const char *dirs[1] = { dir };
	struct sp_debug_search s = { dirs, 1, NULL, NULL, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;

	syms_id(&i);
	tmpdir(dir, "byid");
	build_id_layout(dir, &i, SYMS ".debug", want);
	abspath(bin, SYMS "-stripped");
	cr_assert_eq(spi_debug_find(&s, bin, i.id, i.len, &r), 0);
	cr_assert_not_null(r.binary, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.binary), bin);
	cr_assert_not_null(r.debug, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.debug), want, "%s", r.tried);
	cr_assert_not(r.unverified);
	cr_assert_eq(r.mismatches, 0);
	assert_names_main(r.debug);
	spi_debug_found_fini(&r);
	cr_assert_null(r.binary);

	/* Without a recorded id the binary's own names the debug file. */
	cr_assert_eq(spi_debug_find(&s, bin, NULL, 0, &r), 0);
	cr_assert(r.unverified);
	cr_assert_not_null(r.debug, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.debug), want);
	spi_debug_found_fini(&r);
}

Test(debugfind, by_debuglink_next_to_the_binary)
{
	char dir[PATH_MAX], bin[PATH_MAX], dbg[PATH_MAX];
	const char *dirs[1] = { dir };
	struct sp_debug_search s = { dirs, 1, NULL, NULL, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;

	syms_id(&i);
	tmpdir(dir, "bylink");
	abspath(bin, SYMS "-stripped");
	abspath(dbg, SYMS ".debug");
	cr_assert_eq(spi_debug_find(&s, bin, i.id, i.len, &r), 0);
	cr_assert_not_null(r.debug, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.debug), dbg);
	cr_assert(strstr(r.tried, "/.build-id/") != NULL, "%s", r.tried);
	cr_assert(strstr(r.tried, "(absent)") != NULL, "%s", r.tried);
	assert_names_main(r.debug);
	spi_debug_found_fini(&r);
}

Test(debugfind, debuglink_crc_mismatch_is_rejected)
{
	char dir[PATH_MAX], bin[PATH_MAX], p[PATH_MAX];
	const char *dirs[1] = { dir };
	struct sp_debug_search s = { dirs, 1, NULL, NULL, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;

	syms_id(&i);
	tmpdir(dir, "crc");
	pathf(bin, "%s/syms-stripped", dir);
	copy(SYMS "-stripped", bin);
	/* Same build-id, other bytes: only the CRC tells it apart. */
	pathf(p, "%s/syms.debug", dir);
	copy(SYMS "-gz", p);
	cr_assert_eq(spi_debug_find(&s, bin, i.id, i.len, &r), 0);
	cr_assert_null(r.debug, "%s", r.tried);
	cr_assert_eq(r.mismatches, 1);
	cr_assert(strstr(r.tried, "CRC differs") != NULL, "%s", r.tried);
	spi_debug_found_fini(&r);
	/* The right one in .debug/ is found after the wrong one. */
	pathf(p, "%s/.debug", dir);
	mkdirs(p);
	pathf(p, "%s/.debug/syms.debug", dir);
	copy(SYMS ".debug", p);
	cr_assert_eq(spi_debug_find(&s, bin, i.id, i.len, &r), 0);
	cr_assert_not_null(r.debug, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.debug), p);
	cr_assert_eq(r.mismatches, 1);
	spi_debug_found_fini(&r);
}

Test(debugfind, under_a_sysroot)
{
	char root[PATH_MAX], d[PATH_MAX], want[PATH_MAX];
	struct sp_debug_search s = { NULL, 0, root, NULL, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;

	syms_id(&i);
	tmpdir(root, "sysroot");
	pathf(d, "%s/opt/app", root);
	mkdirs(d);
	pathf(d, "%s/opt/app/syms", root);
	copy(SYMS "-stripped", d);
	/* The default debug dir, under the sysroot. */
	pathf(d, "%s/usr/lib/debug", root);
	build_id_layout(d, &i, SYMS ".debug", want);
	cr_assert_eq(spi_debug_find(&s, "/opt/app/syms", i.id, i.len, &r), 0);
	cr_assert_not_null(r.binary, "%s", r.tried);
	pathf(d, "%s/opt/app/syms", root);
	cr_assert_str_eq(spi_elf_file_path(r.binary), d);
	cr_assert_not_null(r.debug, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.debug), want);
	spi_debug_found_fini(&r);
	/* Without it, by the debuglink next to the binary in the sysroot. */
	cr_assert_eq(unlink(want), 0);
	pathf(d, "%s/opt/app/syms.debug", root);
	copy(SYMS ".debug", d);
	cr_assert_eq(spi_debug_find(&s, "/opt/app/syms", i.id, i.len, &r), 0);
	cr_assert_not_null(r.debug, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.debug), d);
	spi_debug_found_fini(&r);
}

Test(debugfind, bundle_binary_and_a_different_build_id)
{
	char dir[PATH_MAX], p[PATH_MAX], other[PATH_MAX];
	const char *dirs[1] = { dir };
	struct sp_debug_search s = { dirs, 1, NULL, dir, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;

	syms_id(&i);
	tmpdir(dir, "bundle");
	pathf(p, "%s/binaries", dir);
	mkdirs(p);
	pathf(p, "%s/binaries/%s", dir, i.hex);
	copy(SYMS, p);
	/* Recorded at a path where now another build lives. */
	abspath(other, SYMS "-otherid");
	cr_assert_eq(spi_debug_find(&s, other, i.id, i.len, &r), 0);
	cr_assert_not_null(r.binary, "%s", r.tried);
	cr_assert_str_eq(spi_elf_file_path(r.binary), p);
	cr_assert_eq(r.mismatches, 0, "the bundle comes first");
	spi_debug_found_fini(&r);
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(spi_debug_find(&s, other, i.id, i.len, &r), 0);
	cr_assert_null(r.binary, "%s", r.tried);
	cr_assert_null(r.debug, "%s", r.tried);
	cr_assert_eq(r.mismatches, 1);
	cr_assert(strstr(r.tried, "build-id differs") != NULL, "%s", r.tried);
	spi_debug_found_fini(&r);
}

Test(debugfind, a_debuglink_to_itself_is_not_followed)
{
	char dir[PATH_MAX], self[PATH_MAX];
	const char *dirs[1] = { dir };
	struct sp_debug_search s = { dirs, 1, NULL, NULL, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;

	syms_id(&i);
	tmpdir(dir, "self");
	pathf(self, "%s/self", dir);
	copy(SYMS, self);
	free(run("objcopy --strip-debug --add-gnu-debuglink=%s %s %s.new && "
	    "mv %s.new %s", self, self, self, self, self));
	cr_assert_eq(spi_debug_find(&s, self, i.id, i.len, &r), 0);
	cr_assert_not_null(r.binary, "%s", r.tried);
	cr_assert_null(r.debug, "%s", r.tried);
	cr_assert(strstr(r.tried, "binary itself") != NULL, "%s", r.tried);
	spi_debug_found_fini(&r);
}

Test(debugfind, tried_is_cut_short_with_dots)
{
	char names[SP_DEBUG_DIRS_MAX][300];
	const char *dirs[SP_DEBUG_DIRS_MAX];
	struct sp_debug_search s = { dirs, SP_DEBUG_DIRS_MAX, NULL, NULL, NULL, NULL };
	struct sp_debug_found r;
	struct ids i;
	size_t k;

	syms_id(&i);
	for (k = 0; k < SP_DEBUG_DIRS_MAX; k++) {
		(void)snprintf(names[k], sizeof(names[k]),
		    "/nonexistent/%zu-%0200d", k, 0);
		dirs[k] = names[k];
	}
	cr_assert_eq(spi_debug_find(&s, "/nonexistent/bin", i.id, i.len, &r),
	    0);
	cr_assert_null(r.binary);
	cr_assert_lt(strlen(r.tried), sizeof(r.tried));
	cr_assert_str_eq(r.tried + strlen(r.tried) - 3, "...");
	spi_debug_found_fini(&r);
	s.ndebug_dirs = SP_DEBUG_DIRS_MAX + 1;
	cr_assert_eq(spi_debug_find(&s, "/x", i.id, i.len, &r), -SP_EUSAGE);
	spi_debug_found_fini(&r);
}

Test(debugfind, dirs_from_the_environment)
{
	struct sp_debug_dirs d;
	char many[200];
	size_t k;

	cr_assert_eq(unsetenv(SP_DEBUG_DIRS_ENV), 0);
	cr_assert_eq(sp_debug_dirs_from_env(&d), 0);
	cr_assert_eq(d.n, 1);
	cr_assert_str_eq(d.dirs[0], "/usr/lib/debug");
	sp_debug_dirs_fini(&d);
	cr_assert_eq(setenv(SP_DEBUG_DIRS_ENV, ":/a::/b/c:", 1), 0);
	cr_assert_eq(sp_debug_dirs_from_env(&d), 0);
	cr_assert_eq(d.n, 2);
	cr_assert_str_eq(d.dirs[0], "/a");
	cr_assert_str_eq(d.dirs[1], "/b/c");
	sp_debug_dirs_fini(&d);
	for (k = 0; k <= SP_DEBUG_DIRS_MAX; k++)
		memcpy(many + 2 * k, "x:", 2);
	many[2 * k] = '\0';
	cr_assert_eq(sp_debug_dirs_parse(many, &d), -SP_ELIMIT);
	many[2 * SP_DEBUG_DIRS_MAX] = '\0';
	cr_assert_eq(sp_debug_dirs_parse(many, &d), 0);
	cr_assert_eq(d.n, SP_DEBUG_DIRS_MAX);
	sp_debug_dirs_fini(&d);
}

/* --- debuginfod, servers it cannot ask ------------------------------------- */

/* What happened at each server goes to the diagnostic, in order; a long
 * story is cut to fit, and a caller may want none of it. */
Test(debugfind, debuginfod_says_what_each_server_did)
{
	char cache[PATH_MAX], path[PATH_MAX], urls[256] = "";
	struct sp_debuginfod d = { "ftp://a gopher://b", NULL, 0, 0 };
	struct sp_diag diag;
	uint64_t fetched = 7;
	struct ids i;
	int k;

	syms_id(&i);
	tmpdir(cache, "debuginfod-cache");
	d.cache = cache;
	memset(&diag, 'x', sizeof(diag));
	cr_assert_eq(sp_debuginfod_find(&d, i.id, i.len, path, sizeof(path),
	    &fetched, &diag), 1);
	cr_assert_eq(fetched, 0);
	cr_assert_eq(diag.err, 0);
	cr_assert_str_eq(diag.msg, "ftp://a: not an http:// or https:// URL; "
	    "gopher://b: not an http:// or https:// URL");
	/* Nine servers: eight notes and "more than 8", over 320 bytes. */
	for (k = 0; k <= SP_DEBUGINFOD_URLS_MAX; k++)
		(void)snprintf(urls + strlen(urls), sizeof(urls) - strlen(urls),
		    "%sftp://server-%d", k ? " " : "", k);
	d.urls = urls;
	cr_assert_eq(sp_debuginfod_find(&d, i.id, i.len, path, sizeof(path),
	    &fetched, &diag), 1);
	cr_assert_eq(strlen(diag.msg), sizeof(diag.msg) - 1, "%s", diag.msg);
	cr_assert(strncmp(diag.msg, "ftp://server-0: not an http:// or "
	    "https:// URL; ftp://server-1: ", 60) == 0, "%s", diag.msg);
	cr_assert_eq(sp_debuginfod_find(&d, i.id, i.len, path, sizeof(path),
	    &fetched, NULL), 1);
}
