/* SPDX-License-Identifier: MIT */
/*
 * The demangler, in the process, against c++filt: the names of real C++
 * libraries (this host's libstdc++ and LLVM, by nm -D) and of real Rust
 * programs (built here by rustc with v0 and legacy mangling) come out as
 * c++filt prints them (Rust's without their hashes); names that are not
 * demangled stay as they are; no program is run; hostile names (a text
 * of 2^40 bytes asked for by a few hundred) end fast and stay mangled.
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

/* Splits text into lines in place; *n of them, at most max. */
static void
lines_of(char *text, char **lines, size_t max, size_t *n)
{
	char *save = NULL, *l;

	*n = 0;
	for (l = strtok_r(text, "\n", &save); l != NULL && *n < max;
	    l = strtok_r(NULL, "\n", &save))
		lines[(*n)++] = l;
}

static int
have(const char *prog)
{
	char *where = run("command -v %s || true", prog);
	int yes = where[0] != '\0';

	free(where);
	return yes;
}

#define MAXNAMES 65536

/*
 * The names in dir/names (one a line) demangled as c++filt prints them,
 * without Rust's hashes (sp/report/demangle.h: as sp-fold shows them),
 * all of them queued at once and run.  Returns how many of n differ from
 * the name; at least min must.
 */
static size_t
as_cxxfilt(const char *dir, size_t min)
{
	static char *mangled[MAXNAMES], *want[MAXNAMES];
	struct sp_demangle *dm = demangler(NULL);
	size_t n, m, i, changed = 0;
	struct sp_diag d;
	char *a, *b;

	/* c++filt's text; of a Rust name (legacy: its last element "17h"
	 * and 16 hex digits and "E"; v0: a word "_R" and a capital), the
	 * hash and the crate disambiguators left out. */
	a = run("cat %s/names", dir);
	b = run("c++filt < %s/names | paste %s/names - | perl -ne '"
	    "chomp; my ($n, $t) = split /\\t/, $_, 2; "
	    "$t =~ s/::h[0-9a-f]{16}(?![A-Za-z0-9_\\$.])//g "
	    "if $n =~ /17h[0-9a-f]{16}E(?:$|\\.|[^A-Za-z0-9_\\$])/; "
	    "$t =~ s/(?<=[A-Za-z0-9_\\$.])\\[[0-9a-f]{1,16}\\]//g "
	    "if $n =~ /(?:^|[^A-Za-z0-9_\\$.])_R[A-Z0-9]/; print \"$t\\n\"'",
	    dir, dir);
	lines_of(a, mangled, MAXNAMES, &n);
	lines_of(b, want, MAXNAMES, &m);
	cr_assert_eq(n, m);
	cr_assert_lt(n, MAXNAMES);
	for (i = 0; i < n; i++)
		(void)sp_demangle_add(dm, mangled[i], strlen(mangled[i]));
	cr_assert_null(sp_demangle_get(dm, mangled[0], strlen(mangled[0]),
	    &m), "nothing before the run");
	cr_assert_eq(sp_demangle_run(dm, 1, &d), 0, "%s", d.msg);
	for (i = 0; i < n; i++) {
		cr_assert_str_eq(shown(dm, mangled[i]), want[i], "%s",
		    mangled[i]);
		changed += strcmp(want[i], mangled[i]) != 0;
	}
	cr_assert_geq(changed, min, "%zu of %zu names demangled", changed, n);
	sp_demangle_free(dm);
	free(a);
	free(b);
	return changed;
}

/* nm's defined names of a shared library that start as C++'s do. */
static void
cxx_names(const char *dir, const char *lib)
{
	free(run("nm -D --defined-only \"%s\" | awk '$3 ~ /^_Z/ { "
	    "sub(/@.*/, \"\", $3); print $3 }' | sort -u > %s/names", lib,
	    dir));
}

Test(demangle, libstdcxx_as_cxxfilt_prints_it)
{
	char dir[PATH_MAX], *lib;

	if (!have("c++filt"))
		cr_skip_test("c++filt is not installed (binutils): nothing "
		    "to compare with");
	tmpdir(dir, "demangle-stdcxx");
	lib = run("printf %%s \"$(gcc -print-file-name=libstdc++.so.6)\"");
	cxx_names(dir, lib);
	(void)as_cxxfilt(dir, 1000);
	free(lib);
}

/* LLVM's C++ API: some 40000 names, long templates among them. */
Test(demangle, llvm_as_cxxfilt_prints_it)
{
	char dir[PATH_MAX], *lib;

	if (!have("c++filt"))
		cr_skip_test("c++filt is not installed (binutils): nothing "
		    "to compare with");
	lib = run("ls /usr/lib/llvm-*/lib/libLLVM-*.so 2>/dev/null | "
	    "sort -V | tail -n 1 | tr -d '\\n'");
	if (lib[0] == '\0')
		cr_skip_test("no libLLVM-*.so under /usr/lib/llvm-*/lib");
	tmpdir(dir, "demangle-llvm");
	cxx_names(dir, lib);
	(void)as_cxxfilt(dir, 10000);
	free(lib);
}

/* A Rust program: generics, a trait object, a closure, a const
 * generic, std's HashMap. */
static const char rust_src[] =
    "use std::collections::HashMap;\n"
    "trait Shape { fn area(&self) -> f64; }\n"
    "struct Sq<T>(T);\n"
    "impl<T: Into<f64> + Copy> Shape for Sq<T> {\n"
    "    fn area(&self) -> f64 { let x: f64 = self.0.into(); x * x }\n"
    "}\n"
    "fn index<K: std::hash::Hash + Eq + Clone, const N: usize>(k: [K; N])"
    " -> HashMap<K, usize> {\n"
    "    let mut m = HashMap::new();\n"
    "    for (i, x) in k.iter().enumerate() { m.insert(x.clone(), i); }\n"
    "    m\n"
    "}\n"
    "fn main() {\n"
    "    let s: Vec<Box<dyn Shape>> = vec![Box::new(Sq(2u8)), "
    "Box::new(Sq(3.0f32))];\n"
    "    let total: f64 = s.iter().map(|s| s.area()).sum();\n"
    "    let m = index([1u32, 2, 3]);\n"
    "    let c = || println!(\"{} {}\", total, m.len());\n"
    "    c();\n"
    "}\n";

/*
 * Rust's std (v0 or legacy as this rustc ships it) and a program's own
 * names, built once with v0 mangling and once with the default
 * (legacy): each kind must be there.
 */
Test(demangle, rust_v0_and_legacy_as_cxxfilt_prints_them)
{
	char dir[PATH_MAX], src[PATH_MAX], *rustc, *counts;
	unsigned v0 = 0, legacy = 0;

	if (!have("c++filt"))
		cr_skip_test("c++filt is not installed (binutils): nothing "
		    "to compare with");
	rustc = run("{ command -v rustc || ls \"$HOME/.cargo/bin/rustc\" "
	    "2>/dev/null || true; } | head -n 1 | tr -d '\\n'");
	if (rustc[0] == '\0')
		cr_skip_test("rustc is not installed (neither in PATH nor "
		    "~/.cargo/bin): no Rust names to compare");
	tmpdir(dir, "demangle-rust");
	pathf(src, "%s/p.rs", dir);
	spit(src, rust_src, sizeof(rust_src) - 1);
	free(run("cd %s && \"%s\" -C symbol-mangling-version=v0 -o v0 p.rs "
	    "&& \"%s\" -o legacy p.rs && { nm --defined-only v0; "
	    "nm --defined-only legacy; } | awk '$3 ~ /^_[RZ]/ { print $3 }' "
	    "| sort -u > names", dir, rustc, rustc));
	counts = run("grep -c '^_R' %s/names; grep -c '17h[0-9a-f]\\{16\\}E' "
	    "%s/names", dir, dir);
	cr_assert_eq(sscanf(counts, "%u %u", &v0, &legacy), 2);
	cr_assert_gt(v0, 100, "v0 names: %u", v0);
	cr_assert_gt(legacy, 20, "legacy names: %u", legacy);
	(void)as_cxxfilt(dir, v0 + legacy);
	free(rustc);
	free(counts);
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
	    "c++filt leaves it as it is");
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
		/* A crate of an empty name, which the demangler passes as
		 * NULL and 0 bytes (found by fuzzing: UBSan's memcpy). */
		{ "_RNvC01f", "[0]::f" },
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

/* Runs one after another, names queued after each, as sp-dump and
 * sp-top ask. */
Test(demangle, names_queued_after_a_run_are_demangled_by_the_next)
{
	struct sp_demangle *dm = demangler(NULL);
	char name[32], want[32];
	int i;

	for (i = 0; i < 50; i++) {
		(void)snprintf(name, sizeof(name), "_Z%df%dv", i < 10 ? 2 : 3,
		    i);
		(void)snprintf(want, sizeof(want), "f%d()", i);
		cr_assert_eq(sp_demangle_add(dm, name, strlen(name)), 1);
		cr_assert_eq(sp_demangle_run(dm, i % 2, NULL), 0);
		cr_assert_str_eq(shown(dm, name), want);
	}
	sp_demangle_free(dm);
}

/* No c++filt anywhere, a program named that does not exist: no program
 * is run, the names are demangled. */
Test(demangle, no_program_is_run)
{
	struct sp_demangle *dm = demangler("stackpulse-no-such-c++filt");
	char dir[PATH_MAX];
	struct sp_diag d;

	tmpdir(dir, "demangle-nopath");
	cr_assert_eq(setenv("PATH", dir, 1), 0);
	cr_assert_eq(sp_demangle_add(dm, "_Z1fv", 5), 1);
	cr_assert_eq(sp_demangle_add(dm, "_RNvC1a1f", 9), 1);
	cr_assert_eq(sp_demangle_run(dm, 1, &d), 0, "%s", d.msg);
	cr_assert_str_eq(shown(dm, "_Z1fv"), "f()");
	cr_assert_str_eq(shown(dm, "_RNvC1a1f"), "a::f");
	sp_demangle_free(dm);
}

/*
 * A reference by number, as both manglings write one: tag, then nothing
 * for 0, else n - 1 in base strlen(digits), then '_' (Itanium's
 * substitutions S_, S0_, ... in base 36; Rust v0's back references B_,
 * B0_, ... in base 62).  Returns its length.
 */
static size_t
ref(char *p, char tag, size_t n, const char *digits)
{
	size_t base = strlen(digits), k = 0, i;
	char t[16];

	p[0] = tag;
	if (n > 0)
		for (n--; k == 0 || n > 0; n /= base)
			t[k++] = digits[n % base];
	for (i = 0; i < k; i++)
		p[1 + i] = t[k - 1 - i];
	p[1 + k] = '_';
	p[2 + k] = '\0';
	return k + 2;
}

static size_t
cxx_ref(char *p, size_t n)
{
	return ref(p, 'S', n, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ");
}

static size_t
rust_ref(char *p, size_t n)
{
	return ref(p, 'B', n, "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
}

/*
 * f(a, b<a, a>, c<b<a, a>, b<a, a> >, ...) with k templates, each
 * argument the one before by substitution: 2^k bytes of text from some
 * 10 k bytes of name (c++filt runs for ever on k = 40).
 */
static char *
cxx_bomb(int k)
{
	char *s = malloc(32 + 24 * (size_t)k), *p;
	size_t prev = 0, next = 1;
	int i;

	cr_assert_not_null(s);
	p = s + sprintf(s, "_Z1f1a");
	for (i = 0; i < k; i++) {
		p += sprintf(p, "2%c%cI", 'a' + i / 26, 'a' + i % 26);
		p += cxx_ref(p, prev);
		p += cxx_ref(p, prev);
		*p++ = 'E';
		prev = next + 1;
		next += 2;
	}
	*p = '\0';
	return s;
}

/*
 * a::f::<T0, T1, ...>: T0 = (leaf,), each T the tuple of two of the one
 * before, by back reference.  leaf is a Rust v0 type: "h" (u8), or a
 * path whose name is punycode ("é"), whose text the demangler allocates.
 */
static char *
rust_bomb(int k, const char *leaf)
{
	char *s = malloc(64 + 16 * (size_t)k), *p;
	size_t prev, pos;
	int i;

	cr_assert_not_null(s);
	p = s + sprintf(s, "_RINvC1a1f");
	prev = (size_t)(p - s) - 2;
	p += sprintf(p, "T%sE", leaf);
	for (i = 0; i < k; i++) {
		pos = (size_t)(p - s) - 2;
		*p++ = 'T';
		p += rust_ref(p, prev);
		p += rust_ref(p, prev);
		*p++ = 'E';
		prev = pos;
	}
	(void)sprintf(p, "E");
	return s;
}

/*
 * The same names small (their whole text kept) and with 40 levels
 * (2^40 bytes of text asked for): the demanglers are stopped at
 * SP_DEMANGLE_NAME_MAX bytes, the names stay mangled, and it is quick
 * (a second for all, under ASan; c++filt would not end).  And a Rust
 * binder of 2^59 lifetimes where nothing is printed (the instantiating
 * crate's path, found by fuzzing), next to binders of 2 and 37 in a
 * name printed: the big one is not tried (c++filt would not end).
 */
Test(demangle, names_asking_for_endless_text_stay_mangled, .timeout = 20)
{
	char *small[5] = { cxx_bomb(2), rust_bomb(2, "h"),
		rust_bomb(2, "NtC1au3_9ca"), strdup("_RINvC1a1fFG0_RL1_hEuE"),
		strdup("_RINvC1a1fFGz_EuE") };
	char *big[5] = { cxx_bomb(40), rust_bomb(40, "h"),
		rust_bomb(40, "NtC1au3_9ca"),
		strdup("_RNvC1a1fINvC1b1gFGzzzzzzzzzz_EuEE"),
		strdup("_RINvC1a1fFGA0_EuE") };
	static const char *const want[5] = {
		"f(a, aa<a, a>, ab<aa<a, a>, aa<a, a> >)",
		"a::f::<(u8,), ((u8,), (u8,)), (((u8,), (u8,)), ((u8,), "
		    "(u8,)))>",
		"a::f::<(a::\xc3\xa9,), ((a::\xc3\xa9,), (a::\xc3\xa9,)), "
		    "(((a::\xc3\xa9,), (a::\xc3\xa9,)), ((a::\xc3\xa9,), "
		    "(a::\xc3\xa9,)))>",
		"a::f::<for<'a, 'b> fn(&'a u8)>",
		"a::f::<for<'a, 'b, 'c, 'd, 'e, 'f, 'g, 'h, 'i, 'j, 'k, 'l, 'm, "
		    "'n, 'o, 'p, 'q, 'r, 's, 't, 'u, 'v, 'w, 'x, 'y, 'z, '_26, "
		    "'_27, '_28, '_29, '_30, '_31, '_32, '_33, '_34, '_35, "
		    "'_36> fn()>",
	};
	struct sp_demangle *dm = demangler(NULL);
	size_t i, len;

	for (i = 0; i < 5; i++) {
		cr_assert_lt(strlen(big[i]), 1024, "%s", big[i]);
		cr_assert_eq(sp_demangle_add(dm, small[i], strlen(small[i])), 1);
		cr_assert_eq(sp_demangle_add(dm, big[i], strlen(big[i])), 1);
	}
	cr_assert_eq(sp_demangle_run(dm, 1, NULL), 0);
	for (i = 0; i < 5; i++) {
		cr_assert_str_eq(shown(dm, small[i]), want[i]);
		cr_assert_null(sp_demangle_get(dm, big[i], strlen(big[i]),
		    &len), "%s", big[i]);
		free(small[i]);
		free(big[i]);
	}
	sp_demangle_free(dm);
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
 * the length each has alone; some are, some are not.
 */
Test(demangle, kept_text_is_bounded_by_the_names_sent)
{
	struct sp_demangle *dm = demangler(NULL), *alone;
	unsigned long long sent = 0, kept = 0;
	size_t len, i, n_kept = 0, n_refused = 0;
	char fn[16], *name;
	int want;

	for (i = 0; i < 8; i++) {
		(void)snprintf(fn, sizeof(fn), "f%zu", i);
		name = repeated(fn, 120, 128);
		alone = demangler(NULL);
		cr_assert_eq(sp_demangle_add(alone, name, strlen(name)), 1);
		cr_assert_eq(sp_demangle_run(alone, 1, NULL), 0);
		cr_assert_not_null(sp_demangle_get(alone, name, strlen(name),
		    &len));
		sp_demangle_free(alone);
		cr_assert_gt(len, 30 * strlen(name), "%zu bytes", len);
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
	}
	cr_assert(n_kept > 0 && n_refused > 0, "the limit was reached");
	sp_demangle_free(dm);
}
