/* SPDX-License-Identifier: MIT */
#ifndef SP_DEMANGLE_H
#define SP_DEMANGLE_H

/*
 * Demangling for what people read (sp-fold, pprof, sp-flame, sp-dump,
 * sp-top): C++ (Itanium ABI, "_Z...") and Rust (legacy "_ZN...17h<hash>E"
 * and v0 "_R...") names as c++filt (binutils) prints them, made in the
 * process by the demanglers c++filt is built from (libiberty's
 * cp-demangle.c and rust-demangle.c, linked in; no program is run, so
 * the text does not depend on the host's binutils).  The spool keeps the
 * mangled names; this only changes what is shown.
 *
 * As c++filt reads a line, each word of a name (a run of letters, digits
 * and "_$.") is demangled and the rest copied, so "libx.so`_Z1fv:x.cc:3"
 * is shown as "libx.so`f():x.cc:3".  As c++filt, a C++ name of more than
 * 1024 bytes is left as it is (libiberty's recursion limit); unlike it, so
 * is a Rust v0 name with a binder of more than 64 lifetimes (on which
 * c++filt can loop for ever; docs/limits.md).
 *
 * A name is demangled when it has a word starting with "_Z" and a letter
 * or digit, or "_R" and an upper-case letter or digit (at the start of
 * the name, or after a byte that cannot be in a symbol: not a letter,
 * digit, '_', '$' or '.'; "std::_Rb_tree" is not), has neither a newline
 * nor a NUL, and is at most SP_DEMANGLE_NAME_MAX bytes; every other name
 * is shown as it is.  Of c++filt's verbose text, Rust's legacy hash
 * ("::h" and 16 hex digits) and v0 crate disambiguators ("[hex]" after a
 * crate's name) are left out, as perf and rustfilt do.  A text longer
 * than SP_DEMANGLE_NAME_MAX (the demanglers are stopped there), or past
 * SP_DEMANGLE_KEPT_MAX of all names demangled, is not kept: the name
 * stays mangled.
 */

#include <stddef.h>

#include "sp/common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest name demangled, and longest text kept, in bytes. */
#define SP_DEMANGLE_NAME_MAX 16384
/* Bytes of texts kept when sent bytes of names were demangled: the text
 * of a real program's names is about twice theirs, and at most 15 times
 * for short names of std::string ("_ZNSsC1EOSs"). */
#define SP_DEMANGLE_KEPT_MAX(sent) \
	(16 * (unsigned long long)(sent) + SP_DEMANGLE_NAME_MAX)

struct sp_demangle;
struct sp_defs;
struct sp_flame;

/*
 * A demangler.  prog is not used (it named the c++filt that earlier
 * versions ran; pass NULL).  Returns 0 with *out, or -ENOMEM.
 */
int sp_demangle_new(const char *prog, struct sp_demangle **out);

/* Frees dm.  NULL ok. */
void sp_demangle_free(struct sp_demangle *dm);

/*
 * Queues name s[0..len) for the next sp_demangle_run when it is to be
 * demangled (see above) and was not queued before.  Returns 1 when
 * queued, 0 when not (also once the demangler has failed), or -ENOMEM.
 */
int sp_demangle_add(struct sp_demangle *dm, const char *s, size_t len);

/* Queues every function name of d's SYMBOL records.  Returns 0 or
 * -ENOMEM. */
int sp_demangle_add_defs(struct sp_demangle *dm, const struct sp_defs *d);

/* Queues the name of every frame of f.  Returns 0 or -ENOMEM. */
int sp_demangle_add_flame(struct sp_demangle *dm, const struct sp_flame *f);

/*
 * Demangles the queued names.  last is not used (earlier versions closed
 * c++filt's input after the last batch); names may be queued after any
 * run.  Returns 0, or -ENOMEM with diag (may be NULL) saying so; after
 * that every name not yet demangled stays as it is and later calls
 * return 0.
 */
int sp_demangle_run(struct sp_demangle *dm, int last, struct sp_diag *diag);

/*
 * The demangled text of s[0..len), with its length in *outlen, or NULL
 * when it has none (not to be demangled, not yet run, c++filt would
 * leave it as it is, or its text was not kept).  Valid until the next
 * sp_demangle_run or sp_demangle_free.
 */
const char *sp_demangle_get(const struct sp_demangle *dm, const char *s,
    size_t len, size_t *outlen);

#ifdef __cplusplus
}
#endif

#endif
