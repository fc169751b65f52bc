/* SPDX-License-Identifier: MIT */
#ifndef SP_DEMANGLE_H
#define SP_DEMANGLE_H

/*
 * Demangling for what people read (sp-fold, pprof, sp-flame, sp-dump):
 * C++ (Itanium ABI, "_Z...") and Rust (legacy "_ZN...17h<hash>E" and v0
 * "_R...") names as the system's c++filt (binutils) prints them.  The
 * spool keeps the mangled names; this only changes what is shown.
 *
 * One c++filt runs per demangler, started on the first batch and fed
 * every batch through a socket: each name on its own line, one line of
 * its text back per name (c++filt demangles each mangled word of a line
 * and copies the rest, so "libx.so`_Z1fv:x.cc:3" comes back as
 * "libx.so`f():x.cc:3").  Writing and reading are interleaved (poll), so
 * a batch of any size cannot deadlock on full pipes.
 *
 * A name is sent when it has a word starting with "_Z" and a letter or
 * digit, or "_R" and an upper-case letter or digit (at the start of the
 * name, or after a byte that cannot be in a symbol: not a letter, digit,
 * '_', '$' or '.'; "std::_Rb_tree" is not sent), has neither a newline
 * nor a NUL, and
 * is at most SP_DEMANGLE_NAME_MAX bytes; every other name is shown as it
 * is.  Of c++filt's verbose output, Rust's legacy hash ("::h" and 16 hex
 * digits) and v0 crate disambiguators ("[hex]" after a crate's name) are
 * left out, as perf and rustfilt do.  A result longer than
 * SP_DEMANGLE_NAME_MAX, or past SP_DEMANGLE_KEPT_MAX of all names sent,
 * is not kept: the name stays mangled.
 */

#include <stddef.h>

#include "sp/common/error.h"

/* Longest name sent to c++filt, and longest result kept, in bytes. */
#define SP_DEMANGLE_NAME_MAX 16384
/* Bytes of results kept when sent bytes of names were sent: c++filt's
 * text of a real program's names is about twice theirs, and at most 15
 * times for short names of std::string ("_ZNSsC1EOSs"). */
#define SP_DEMANGLE_KEPT_MAX(sent) \
	(16 * (unsigned long long)(sent) + SP_DEMANGLE_NAME_MAX)

struct sp_demangle;
struct sp_defs;
struct sp_flame;

/*
 * A demangler that runs prog (NULL: "c++filt"; looked up in PATH) when
 * it has names to demangle.  Returns 0 with *out, or -ENOMEM.
 */
int sp_demangle_new(const char *prog, struct sp_demangle **out);

/* Ends the child (its input is closed, it exits) and frees dm.  NULL
 * ok. */
void sp_demangle_free(struct sp_demangle *dm);

/*
 * Queues name s[0..len) for the next sp_demangle_run when it is to be
 * sent (see above) and was not queued before.  Returns 1 when queued, 0
 * when not (also once the demangler has failed), or -ENOMEM.
 */
int sp_demangle_add(struct sp_demangle *dm, const char *s, size_t len);

/* Queues every function name of d's SYMBOL records.  Returns 0 or
 * -ENOMEM. */
int sp_demangle_add_defs(struct sp_demangle *dm, const struct sp_defs *d);

/* Queues the name of every frame of f.  Returns 0 or -ENOMEM. */
int sp_demangle_add_flame(struct sp_demangle *dm, const struct sp_flame *f);

/*
 * Demangles the queued names: starts the child on the first call, sends
 * them and reads their lines back.  last says no names will follow: the
 * child's input is then closed once written (so a c++filt that answers
 * only at the end of its input works too) and its output read to its
 * end; later calls must queue nothing.  Returns 0, or the first time
 * it fails an error with diag (may be NULL) saying why: -ENOENT
 * ("c++filt not found (install binutils)"), -errno of starting or
 * talking to it, -SP_EFORMAT (it stopped before answering every name, or
 * answered more), -ENOMEM.  After a failure every name stays as it is
 * and later calls return 0.
 */
int sp_demangle_run(struct sp_demangle *dm, int last, struct sp_diag *diag);

/*
 * The demangled text of s[0..len), with its length in *outlen, or NULL
 * when it has none (not to be sent, not yet run, c++filt left it as it
 * was, or its result was not kept).  Valid until the next
 * sp_demangle_run or sp_demangle_free.
 */
const char *sp_demangle_get(const struct sp_demangle *dm, const char *s,
    size_t len, size_t *outlen);

#endif
