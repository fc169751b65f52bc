/* SPDX-License-Identifier: MIT */
/*
 * c++filt's text of a name, made in the process by the demanglers c++filt
 * itself is built from: libiberty's rust-demangle.c and cp-demangle.c
 * (configure.sh builds them from Debian's libiberty source; they carry
 * the GCC runtime library exception).  binutils 2.40 cxxfilt.c is
 * followed to the letter: a word is a run of letters, digits and "_$.";
 * a word's leading '.' or '$' is set aside (the '.' put back before a
 * demangled text); each word goes to cplus_demangle in its automatic
 * style, which tries Rust (legacy and v0) first, then the Itanium C++
 * ABI, with c++filt's options: parameters, ANSI qualifiers, verbose, and
 * the recursion limit kept (DEMANGLE_RECURSION_LIMIT: a C++ name of more
 * than 1024 bytes is left as it is, and the demanglers' stack stays
 * bounded).
 *
 * A text is at most SP_DEMANGLE_NAME_MAX bytes.  The demanglers cannot
 * be told to stop, and a hostile name of a few hundred bytes (back
 * references of back references) asks for more text than there are
 * atoms in the world; so the callback that takes the text leaves them
 * by longjmp once it is over the limit.  That is safe where they own no
 * memory: cp-demangle.c's callback interface allocates none (its tables
 * are on the stack); rust-demangle.c allocates only the text of a
 * punycode identifier, and passes it to the callback before freeing it.
 * That text always holds a byte of 0x80 or more (punycode encodes only
 * code points from 0x80 up); every other piece either demangler prints
 * is ASCII.  So the callback jumps only from an ASCII piece, and after a
 * non-ASCII one waits for the next.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle_int.h"

/* binutils cxxfilt.c: static int flags. */
#define CXXFILT_FLAGS (DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE)

struct sink {
	char *p;                /* SP_DEMANGLE_NAME_MAX bytes */
	size_t len;
	int over;               /* the text passed SP_DEMANGLE_NAME_MAX */
	jmp_buf stop;
};

/* What c++filt takes as part of a symbol (cxxfilt.c: ISALNUM and the
 * target's "_$."). */
int
spi_demangle_symbol_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

static int
ascii(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0;
	return 1;
}

/* Appends s[0..n) to k, or sets k->over when that would pass the limit;
 * returns whether it did. */
static int
append(struct sink *k, const char *s, size_t n)
{
	if (n == 0)
		return 1; /* rust-demangle.c gives an empty name as NULL, 0 */
	if (k->over || n > SP_DEMANGLE_NAME_MAX - k->len) {
		k->over = 1;
		return 0;
	}
	memcpy(k->p + k->len, s, n);
	k->len += n;
	return 1;
}

/* The demanglers' callback (demangle_callbackref): see above for when
 * it leaves them. */
static void
put(const char *s, size_t n, void *opaque)
{
	struct sink *k = opaque;

	if (!append(k, s, n) && ascii(s, n))
		longjmp(k->stop, 1);
}

/*
 * Whether the Rust v0 symbol w has a binder of more than BINDER_MAX
 * lifetimes: "F" (a fn type) or "D" (a dyn type), "G", their count in
 * base 62 and "_" (the v0 mangling's binder).  rust-demangle.c prints
 * each of them in a loop, which also turns where it prints nothing (the
 * instantiating crate, an impl's own path): there the callback never
 * sees it, and 20 bytes of name ask for 2^64 turns.  Real code binds a
 * few lifetimes; the test is on the bytes, so an identifier holding
 * such bytes ("DGEMM_") leaves its name mangled too.
 */
#define BINDER_MAX 64
static int
huge_binder(const char *w)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const char *p = w, *d;
	unsigned long x;
	int n;

	while ((p = strchr(p + 1, 'G')) != NULL) {
		if (p[-1] != 'F' && p[-1] != 'D')
			continue;
		/* Three digits are past BINDER_MAX (62 * 62 at least). */
		for (x = 0, n = 0; n < 3 && p[1 + n] != '\0' &&
		    (d = strchr(digits, p[1 + n])) != NULL; n++)
			x = x * 62 + (unsigned long)(d - digits);
		if (n == 3 || (p[1 + n] == '_' && n > 0 && x + 2 > BINDER_MAX))
			return 1;
	}
	return 0;
}

/*
 * Appends c++filt's text of the NUL-terminated word w to k: 1 when
 * demangled, 0 when it is not a mangled name (nothing appended), or
 * k->over set.
 */
static int
word(struct sink *k, const char *w)
{
	size_t start = k->len, skip = w[0] == '.' || w[0] == '$';
	volatile int done = 0;

	if (setjmp(k->stop) != 0)
		return 0;       /* over: k->over says so */
	if (w[0] == '.')
		(void)append(k, ".", 1);
	/* cplus_demangle, auto style: Rust first (its legacy names are
	 * Itanium names too), then C++, which wants "_Z". */
	if (w[skip] == '_' && w[skip + 1] == 'R' && huge_binder(w + skip))
		return 0;
	done = rust_demangle_callback(w + skip, CXXFILT_FLAGS, put, k);
	if (!done && !k->over) {
		k->len = start + (w[0] == '.');
		done = cplus_demangle_v3_callback(w + skip, CXXFILT_FLAGS,
		    put, k);
	}
	if (!done)
		k->len = start;
	return done;
}

int
spi_demangle_text(struct dm_text *t, const char *s, size_t len)
{
	struct sink k;
	size_t i = 0, j;
	int changed = 0;

	if (t->p == NULL && (t->p = malloc(SP_DEMANGLE_NAME_MAX)) == NULL)
		return -ENOMEM;
	if (t->word == NULL &&
	    (t->word = malloc(SP_DEMANGLE_NAME_MAX + 1)) == NULL)
		return -ENOMEM;
	memset(&k, 0, sizeof(k));
	k.p = t->p;
	if (len > SP_DEMANGLE_NAME_MAX)
		return -E2BIG;
	while (i < len) {
		for (j = i; j < len && spi_demangle_symbol_byte(
		    (unsigned char)s[j]); j++)
			;
		if (j > i) {
			memcpy(t->word, s + i, j - i);
			t->word[j - i] = '\0';
			if (word(&k, t->word))
				changed = 1;
			else
				(void)append(&k, s + i, j - i);
		}
		/* The byte between words, copied. */
		if (j < len)
			(void)append(&k, s + j, 1);
		if (k.over)
			return -E2BIG;
		i = j + 1;
	}
	t->len = k.len;
	return changed;
}
