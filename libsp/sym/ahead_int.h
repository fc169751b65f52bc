/* SPDX-License-Identifier: MIT */
#ifndef SP_AHEAD_INT_H
#define SP_AHEAD_INT_H

/*
 * sp_sym_spool's look-ahead: a second reader over the same input reads
 * its frames a chunk ahead of the copy, and the symbolizer resolves each
 * chunk sorted by module and address, so that line tables, function
 * trees and symbol tables are read in order instead of at random (the
 * copy must put each frame's SYMBOL right after its FRAME, in the
 * input's order).  The copy then takes each frame's symbol from here.
 *
 * A frame's symbol does not depend on when it is resolved, but for the
 * records read before it: a PYTHON record changes what the frames after
 * it resolve to, so a chunk ends at one and the next is read once the
 * copy has put it; a SYMBOL read names an address-only frame, so the
 * second reader decodes none.  A frame the look-ahead did not resolve
 * (left out, past an error of the input, or whose resolution failed)
 * the copy resolves itself, as it would without a look-ahead.  So the
 * output is the same.
 */

#include <stddef.h>
#include <stdint.h>

struct sp_frame;
struct sp_replay;
struct sp_symbol;
struct sp_symbolizer;
struct sym_ahead;

/* Frames a chunk holds: large enough to cover most of a program's
 * functions at once, and a bound on its memory (a few MB). */
#define SP_AHEAD_FRAMES ((size_t)1 << 16)
#define SP_AHEAD_MAX ((size_t)1 << 20)

/*
 * A look-ahead over in (opened, nothing read yet) for sym, in chunks of
 * chunk frames (at most SP_AHEAD_MAX).  Returns 0 with *out, or with
 * *out NULL for chunk 0 or when in is a pipe (it can be read only
 * once); -ENOMEM.
 */
int spi_ahead_new(const struct sp_replay *in, struct sp_symbolizer *sym,
    size_t chunk, struct sym_ahead **out);

/*
 * The symbol of input frame id frame, f its definition as the copy read
 * it: 1 and *out (valid until the next call; strings are the
 * symbolizer's ids, its frame field is not set), or 0 when the caller
 * must resolve it.  Frames are asked for in increasing order, each at
 * most once.
 */
int spi_ahead_symbol(struct sym_ahead *a, uint32_t frame,
    const struct sp_frame *f, const struct sp_symbol **out);

/* After the symbolizer is freed: it keeps paths from a's definitions. */
void spi_ahead_free(struct sym_ahead *a);

#endif
