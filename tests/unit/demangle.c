/* SPDX-License-Identifier: MIT */
/*
 * The demangler against the c++filt it runs: names of a real C++ library
 * (this host's libstdc++, by nm -D) come back as c++filt prints them when
 * run by the test; Rust names without their hashes; names that must not
 * be sent stay as they are; batches far larger than a socket's buffer;
 * a program that is missing, that answers nothing, or too much.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elftest.h"
#include "sp/report/demangle.h"

static struct sp_demangle *
demangler(const char *prog)
{
	struct sp_demangle *dm;

	cr_assert_eq(sp_demangle_new(prog, &dm), 0);
	return dm;
}

/* The demangled text of s, or s itself, as a string for comparisons. */
static const char *
shown(const struct sp_demangle *dm, const char *s)
{
	static char buf[2 * SP_DEMANGLE_NAME_MAX];
	size_t len;
	const char *t = sp_demangle_get(dm, s, strlen(s), &len);

	if (t == NULL)
		return s;
	cr_assert_lt(len, sizeof(buf));
	memcpy(buf, t, len);
	buf[len] = '\0';
	return buf;
}

static char *
lines_of(char *text, char **lines, size_t max, size_t *n)
{
	char *save = NULL, *l;

	*n = 0;
	for (l = strtok_r(text, "\n", &save); l != NULL && *n < max;
	    l = strtok_r(NULL, "\n", &save))
		lines[(*n)++] = l;
	return text;
}

#define MAXNAMES 8192

Test(demangle, a_real_library_as_cxxfilt_prints_it)
{
	static char *mangled[MAXNAMES], *want[MAXNAMES];
	struct sp_demangle *dm = demangler(NULL);
	size_t n, m, i, changed = 0;
	char dir[PATH_MAX], *a, *b;
	struct sp_diag d;

	tmpdir(dir, "demangle");
	a = run("nm -D --defined-only \"$(gcc -print-file-name="
	    "libstdc++.so.6)\" | awk '$3 ~ /^_Z/ { sub(/@.*/, \"\", $3); "
	    "print $3 }' | sort -u | tee %s/names", dir);
	b = run("c++filt < %s/names", dir);

	lines_of(a, mangled, MAXNAMES, &n);
	lines_of(b, want, MAXNAMES, &m);
	cr_assert_eq(n, m);
	cr_assert_gt(n, 1000, "libstdc++ exports %zu C++ names", n);
	for (i = 0; i < n; i++)
		cr_assert_eq(sp_demangle_add(dm, mangled[i], strlen(mangled[i])),
		    1);
	/* Queued once. */
	cr_assert_eq(sp_demangle_add(dm, mangled[0], strlen(mangled[0])), 0);
	cr_assert_null(sp_demangle_get(dm, mangled[0], strlen(mangled[0]),
	    &m), "nothing before the run");
	/* Some 300 KB of names: more than a socket holds either way. */
	cr_assert_eq(sp_demangle_run(dm, 1, &d), 0, "%s", d.msg);
	for (i = 0; i < n; i++) {
		cr_assert_str_eq(shown(dm, mangled[i]), want[i]);
		changed += strcmp(want[i], mangled[i]) != 0;
	}
	cr_assert_gt(changed, n / 2);
	sp_demangle_free(dm);
	free(a);
	free(b);
}

Test(demangle, what_is_not_sent_stays_as_it_is)
{
	static const char *const kept[] = { "main", "py::compute",
		"my_Zfunc", "x._Z1fv", "libc.so.6+0x1234", "",
		"std::_Rb_tree<int>::_M_begin()", "_R", "_Z", "_Z_" };
	static const char nl[] = "_Z1fv\nsecond", nul[] = "_Z1fv\0x";
	struct sp_demangle *dm = demangler(NULL);
	char big[SP_DEMANGLE_NAME_MAX + 2];
	size_t i, len;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		cr_assert_eq(sp_demangle_add(dm, kept[i], strlen(kept[i])), 0,
		    "%s", kept[i]);
	cr_assert_eq(sp_demangle_add(dm, nl, sizeof(nl) - 1), 0);
	cr_assert_eq(sp_demangle_add(dm, nul, sizeof(nul) - 1), 0);
	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "_Z", 2);
	big[SP_DEMANGLE_NAME_MAX + 1] = '\0';
	cr_assert_eq(sp_demangle_add(dm, big, SP_DEMANGLE_NAME_MAX + 1), 0);
	/* Mangled words inside a frame's text are: module`, :file:line. */
	cr_assert_eq(sp_demangle_add(dm, "app`_Z1fv:x.cc:3", 16), 1);
	cr_assert_eq(sp_demangle_add(dm, "_Z1fv@plt", 9), 1);
	cr_assert_eq(sp_demangle_add(dm, "_Z9not_a_na", 11), 1);
	cr_assert_eq(sp_demangle_run(dm, 1, NULL), 0);
	cr_assert_str_eq(shown(dm, "app`_Z1fv:x.cc:3"), "app`f():x.cc:3");
	cr_assert_str_eq(shown(dm, "_Z1fv@plt"), "f()@plt");
	cr_assert_null(sp_demangle_get(dm, "_Z9not_a_na", 11, &len),
	    "c++filt left it as it was");
	cr_assert_null(sp_demangle_get(dm, nl, sizeof(nl) - 1, &len));
	sp_demangle_free(dm);
}

/*
 * Rust, legacy and v0, from symbols rustc 1.x writes: c++filt's hash and
 * disambiguators are left out; a C++ name with what looks like them is
 * not touched.
 */
Test(demangle, rust_names_lose_their_hashes)
{
	static const char *const cases[][2] = {
		{ "_ZN5rtree4main17h0123456789abcdefE", "rtree::main" },
		{ "_ZN4core3fmt5write17h5f5d8b0e1c9a7d3bE.llvm.1234",
		    "core::fmt::write" },
		{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
		    "17h4d2e1ef0df7d6b1aE",
		    "std::rt::lang_start::{{closure}}" },
		{ "_RNvMNtCs9ltgdHTiPiY_4core3fmtNtB2_9Formatter3pad",
		    "<core::fmt::Formatter>::pad" },
		{ "_RINvCs1234_3foo3barReEB2_", "foo::bar::<&str>" },
		/* C++: a::h0123456789abcdef(), which only looks like it. */
		{ "_ZN1a17h0123456789abcdefEv", "a::h0123456789abcdef()" },
	};
	struct sp_demangle *dm = demangler(NULL);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(sp_demangle_add(dm, cases[i][0],
		    strlen(cases[i][0])), 1);
	cr_assert_eq(sp_demangle_run(dm, 1, NULL), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(shown(dm, cases[i][0]), cases[i][1]);
	sp_demangle_free(dm);
}

/* Batches one after another through one child, as sp-dump asks. */
Test(demangle, batches_share_one_child)
{
	struct sp_demangle *dm = demangler(NULL);
	char name[32], want[32];
	int i;

	for (i = 0; i < 50; i++) {
		(void)snprintf(name, sizeof(name), "_Z%df%dv", i < 10 ? 2 : 3,
		    i);
		(void)snprintf(want, sizeof(want), "f%d()", i);
		cr_assert_eq(sp_demangle_add(dm, name, strlen(name)), 1);
		cr_assert_eq(sp_demangle_run(dm, i == 49, NULL), 0);
		cr_assert_str_eq(shown(dm, name), want);
	}
	sp_demangle_free(dm);
}

Test(demangle, a_missing_program_is_said_once_and_names_stay)
{
	struct sp_demangle *dm = demangler("stackpulse-no-such-c++filt");
	char dir[PATH_MAX];
	struct sp_diag d;
	size_t len;

	cr_assert_eq(sp_demangle_run(dm, 1, &d), 0, "nothing to do");
	cr_assert_eq(sp_demangle_add(dm, "_Z1fv", 5), 1);
	cr_assert_eq(sp_demangle_run(dm, 1, &d), -ENOENT);
	cr_assert(strstr(d.msg, "stackpulse-no-such-c++filt"), "%s", d.msg);
	cr_assert_null(sp_demangle_get(dm, "_Z1fv", 5, &len));
	cr_assert_eq(sp_demangle_add(dm, "_Z1gv", 5), 0, "off from then on");
	cr_assert_eq(sp_demangle_run(dm, 1, &d), 0);
	sp_demangle_free(dm);
	dm = demangler(NULL);
	tmpdir(dir, "demangle-nopath");
	cr_assert_eq(setenv("PATH", dir, 1), 0);
	cr_assert_eq(sp_demangle_add(dm, "_Z1fv", 5), 1);
	cr_assert_eq(sp_demangle_run(dm, 1, &d), -ENOENT);
	cr_assert_str_eq(d.msg, "c++filt not found (install binutils)");
	sp_demangle_free(dm);
}

/* A child that stops before answering, one that answers too much. */
Test(demangle, a_child_that_answers_wrong_is_an_error)
{
	char dir[PATH_MAX], twice[PATH_MAX];
	const char *progs[] = { "true", twice };
	struct sp_demangle *dm;
	struct sp_diag d;
	size_t i, len;

	tmpdir(dir, "demangle-twice");
	pathf(twice, "%s/twice", dir);
	free(run("printf '#!/bin/sh\\nexec sed p\\n' > %s && chmod +x %s",
	    twice, twice));
	for (i = 0; i < 2; i++) {
		dm = demangler(progs[i]);
		cr_assert_eq(sp_demangle_add(dm, "_Z1fv", 5), 1);
		cr_assert_eq(sp_demangle_add(dm, "_Z1gv", 5), 1);
		cr_assert_eq(sp_demangle_run(dm, 1, &d), -SP_EFORMAT, "%s",
		    progs[i]);
		cr_assert(strstr(d.msg, i == 0 ? "stopped after 0 of 2" :
		    "more lines"), "%s", d.msg);
		cr_assert_null(sp_demangle_get(dm, "_Z1gv", 5, &len));
		sp_demangle_free(dm);
	}
}

/*
 * "_Z" fn, a type named by width a's, then k "S_" (that type again):
 * fn(T, T, ...), 3 + width + k * (width + 2) bytes with a one-letter fn.
 * (libiberty gives up on a few hundred parameters: long types, not many
 * parameters, make long texts.)
 */
static char *
repeated(const char *fn, size_t width, size_t k)
{
	char *s = malloc(32 + strlen(fn) + width + 2 * k);
	size_t n, i;

	cr_assert_not_null(s);
	n = (size_t)sprintf(s, "_Z%zu%s%zu", strlen(fn), fn, width);
	memset(s + n, 'a', width);
	n += width;
	for (i = 0; i < k; i++, n += 2)
		memcpy(s + n, "S_", 2);
	s[n] = '\0';
	return s;
}

/* A result of SP_DEMANGLE_NAME_MAX bytes is kept, one a byte longer is
 * not: f(T, ...) with a type of 125 letters and 128 more of it is
 * 3 + 125 + 128 * 127 = 16384 bytes. */
Test(demangle, results_up_to_16_kib_are_kept_one_more_byte_is_not)
{
	char *at = repeated("f", 125, 128), *over = repeated("ff", 125, 128);
	struct sp_demangle *dm = demangler(NULL);
	const char *t;
	size_t len;

	cr_assert_eq(3 + 125 + 128 * 127, SP_DEMANGLE_NAME_MAX);
	cr_assert_eq(sp_demangle_add(dm, at, strlen(at)), 1);
	cr_assert_eq(sp_demangle_add(dm, over, strlen(over)), 1);
	cr_assert_eq(sp_demangle_run(dm, 1, NULL), 0);
	t = sp_demangle_get(dm, at, strlen(at), &len);
	cr_assert_not_null(t);
	cr_assert_eq(len, SP_DEMANGLE_NAME_MAX);
	cr_assert(memcmp(t, "f(aaa", 5) == 0 && t[len - 1] == ')');
	cr_assert_null(sp_demangle_get(dm, over, strlen(over), &len));
	sp_demangle_free(dm);
	free(at);
	free(over);
}

/*
 * Names whose text is 40 times theirs, a batch each: each is kept while
 * the texts kept stay within SP_DEMANGLE_KEPT_MAX of the names sent, by
 * the lengths c++filt gives here; some are, some are not.
 */
Test(demangle, kept_text_is_bounded_by_the_names_sent)
{
	struct sp_demangle *dm = demangler(NULL);
	char fn[16], dir[PATH_MAX], *name, *text;
	unsigned long long sent = 0, kept = 0;
	size_t len, i, n_kept = 0, n_refused = 0;
	int want;

	tmpdir(dir, "demangle-kept");
	for (i = 0; i < 8; i++) {
		(void)snprintf(fn, sizeof(fn), "f%zu", i);
		name = repeated(fn, 120, 128);
		free(run("echo %s > %s/name", name, dir));
		text = run("c++filt < %s/name", dir);
		len = strcspn(text, "\n");
		cr_assert_gt(len, 30 * strlen(name), "c++filt: %zu bytes", len);
		sent += strlen(name);
		want = kept + len <= SP_DEMANGLE_KEPT_MAX(sent);
		cr_assert_eq(sp_demangle_add(dm, name, strlen(name)), 1);
		cr_assert_eq(sp_demangle_run(dm, i == 7, NULL), 0);
		cr_assert_eq(sp_demangle_get(dm, name, strlen(name), &len) !=
		    NULL, want, "name %zu", i);
		kept += want ? len : 0;
		n_kept += want;
		n_refused += !want;
		free(name);
		free(text);
	}
	cr_assert(n_kept > 0 && n_refused > 0, "the limit was reached");
	sp_demangle_free(dm);
}
