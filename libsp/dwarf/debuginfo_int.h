/* SPDX-License-Identifier: MIT */
#ifndef SP_DEBUGINFO_INT_H
#define SP_DEBUGINFO_INT_H

/*
 * Offline symbolization from DWARF debugging information (DWARF 4 and 5,
 * also the version 2 and 3 line tables): an ELF address to its source
 * file and line, with the chain of inlined functions around it.  The
 * readers work on caller-provided section bytes, which they treat as
 * untrusted: every read is bounds-checked and the following limits hold.
 *
 *   - DIE nesting deeper than SP_DWARF_DEPTH_MAX is a format error.
 *   - Names follow DW_AT_abstract_origin / DW_AT_specification at most
 *     SP_DWARF_CHAIN_MAX times (cycles end there too), DW_FORM_indirect
 *     at most SP_DWARF_INDIRECT_MAX times.
 *   - A unit's functions may list at most SP_DWARF_RANGES_MAX(unit bytes)
 *     address ranges (counting empty ones and base selections), more is
 *     -SP_ELIMIT for that unit.
 *   - An index does at most SP_DWARF_WORK_MAX(bytes of all sections) work
 *     in its life: the bytes of units, line programs and abbreviation
 *     tables it parses plus the bytes it keeps for them.  Real files need
 *     a fraction; hostile ones (many units sharing one long line program,
 *     say) get -SP_ELIMIT for the units that come too late.
 *   - Joined paths longer than SP_DWARF_PATH_MAX bytes are given as the
 *     file name alone.
 *   - Every count the input states is capped by the bytes that remain;
 *     arrays grow with what is actually read.  Line programs and range
 *     lists run straight through their bytes, so they always end.
 *   - Strings must end with a NUL inside their section, or are unknown.
 *
 * Not supported: split DWARF (.dwo files, DW_UT_skeleton and
 * DW_UT_split_* units are skipped), supplementary object files
 * (DW_FORM_*_sup, the GNU dwz forms: such names are unknown), type units
 * (skipped; they have no code), and DW_TAG_imported_unit is not followed.
 * Names are DW_AT_name as written, not qualified by namespace or class
 * (C++ gets "push_back", not "std::vector<int>::push_back").  64-bit
 * DWARF is read.  An sp_dwarf is not thread-safe: lookups fill caches
 * inside it.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/error.h"

#define SP_DWARF_DEPTH_MAX 256
#define SP_DWARF_CHAIN_MAX 8
#define SP_DWARF_INDIRECT_MAX 4
#define SP_DWARF_RANGES_MAX(unit_bytes) (4 * (uint64_t)(unit_bytes) + 65536)
#define SP_DWARF_WORK_MAX(bytes) \
	(64 * (uint64_t)(bytes) + ((uint64_t)64 << 20))
#define SP_DWARF_PATH_MAX 4096

struct sp_dwarf_bytes {
	const uint8_t *p;
	size_t len;
};

/* Caller-owned, must outlive the index; already decompressed.  Absent
 * sections are { NULL, 0 }. */
struct sp_dwarf_sections {
	struct sp_dwarf_bytes info, abbrev, line, str, line_str, str_offsets,
	    addr, ranges, rnglists, aranges;
};

/* An index over one ELF file's DWARF. */
struct sp_dwarf;

/*
 * Makes an index over the sections s, which must stay valid and
 * unchanged until spi_dwarf_free.  Cheap: reads the unit headers of
 * .debug_info and .debug_aranges now, everything else lazily on lookup.
 * Returns 0 and *out; -ENOMEM; -SP_ENOTFOUND when .debug_info or
 * .debug_line is empty; -SP_EUSAGE for NULL arguments.  Malformed units
 * are not an error here: lookups in them are.
 */
int spi_dwarf_open(const struct sp_dwarf_sections *s, struct sp_dwarf **out);

/* Frees d and everything lookups returned; accepts NULL. */
void spi_dwarf_free(struct sp_dwarf *d);

/* Strings are NUL-terminated and valid until spi_dwarf_free; file is the
 * full path as DWARF gives it, the directory joined. */
struct sp_dwarf_frame {
	const char *function;   /* NULL when unknown */
	const char *file;       /* NULL when unknown */
	uint32_t line;          /* 0 unknown */
	uint32_t column;        /* 0 unknown (or past 2047 in a line table) */
};

/*
 * Fills out[0..max) with the logical frames at ELF address addr,
 * innermost (deepest inlined callee) first, outermost (the concrete
 * subprogram) last; a longer chain loses its outermost frames.  The
 * innermost frame's file and line come from the line table row for addr;
 * each outer frame gets the DW_AT_call_file / DW_AT_call_line of the
 * inlined subroutine it contains.  Function names are the
 * DW_AT_linkage_name where it is mangled (spi_dwarf_mangled: it
 * demangles to the qualified name, where DW_AT_name of a C++ method is
 * bare), else the DW_AT_name, of the DIE or of those
 * DW_AT_abstract_origin and DW_AT_specification lead to.  A C function's
 * linkage name is an asm label (glibc's __GI___clock_gettime for
 * __clock_gettime), not its name.
 * Returns the number of frames (>= 1); 0 when no
 * unit covers addr; -SP_EFORMAT (or -SP_ELIMIT) when the unit covering
 * addr is malformed (other units stay usable); -ENOMEM; -SP_EUSAGE when
 * max is 0.  Strings stay valid until spi_dwarf_free.
 */
int spi_dwarf_lookup(struct sp_dwarf *d, uint64_t addr,
    struct sp_dwarf_frame *out, size_t max);

/*
 * Whether name is mangled, a linkage name that demangles to a qualified
 * one: Itanium C++ and Rust legacy ("_Z" and a letter or digit), Rust v0
 * ("_R" and an upper-case letter or digit).  1 or 0.
 */
int spi_dwarf_mangled(const char *name);

#endif
