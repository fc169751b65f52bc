/* SPDX-License-Identifier: MIT */
#ifndef SP_DWARF_INT_H
#define SP_DWARF_INT_H

/*
 * What the DWARF readers share: the encodings they use (DWARF 5 §7),
 * unit headers, attribute values and their classes, abbreviation tables,
 * one DIE's attributes of interest, the line table of a unit and the
 * cached function tree of a unit.
 */

#include <stddef.h>
#include <stdint.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "dwarf/debuginfo_int.h"

/* DWARF 5 §7.5.6, table 7.6; GNU extensions from the GCC wiki. */
enum {
	DW_FORM_ADDR = 0x01, DW_FORM_BLOCK2 = 0x03, DW_FORM_BLOCK4 = 0x04,
	DW_FORM_DATA2 = 0x05, DW_FORM_DATA4 = 0x06, DW_FORM_DATA8 = 0x07,
	DW_FORM_STRING = 0x08, DW_FORM_BLOCK = 0x09, DW_FORM_BLOCK1 = 0x0a,
	DW_FORM_DATA1 = 0x0b, DW_FORM_FLAG = 0x0c, DW_FORM_SDATA = 0x0d,
	DW_FORM_STRP = 0x0e, DW_FORM_UDATA = 0x0f, DW_FORM_REF_ADDR = 0x10,
	DW_FORM_REF1 = 0x11, DW_FORM_REF2 = 0x12, DW_FORM_REF4 = 0x13,
	DW_FORM_REF8 = 0x14, DW_FORM_REF_UDATA = 0x15,
	DW_FORM_INDIRECT = 0x16, DW_FORM_SEC_OFFSET = 0x17,
	DW_FORM_EXPRLOC = 0x18, DW_FORM_FLAG_PRESENT = 0x19,
	DW_FORM_STRX = 0x1a, DW_FORM_ADDRX = 0x1b, DW_FORM_REF_SUP4 = 0x1c,
	DW_FORM_STRP_SUP = 0x1d, DW_FORM_DATA16 = 0x1e,
	DW_FORM_LINE_STRP = 0x1f, DW_FORM_REF_SIG8 = 0x20,
	DW_FORM_IMPLICIT_CONST = 0x21, DW_FORM_LOCLISTX = 0x22,
	DW_FORM_RNGLISTX = 0x23, DW_FORM_REF_SUP8 = 0x24,
	DW_FORM_STRX1 = 0x25, DW_FORM_STRX2 = 0x26, DW_FORM_STRX3 = 0x27,
	DW_FORM_STRX4 = 0x28, DW_FORM_ADDRX1 = 0x29, DW_FORM_ADDRX2 = 0x2a,
	DW_FORM_ADDRX3 = 0x2b, DW_FORM_ADDRX4 = 0x2c,
	DW_FORM_GNU_ADDR_INDEX = 0x1f01, DW_FORM_GNU_STR_INDEX = 0x1f02,
	DW_FORM_GNU_REF_ALT = 0x1f20, DW_FORM_GNU_STRP_ALT = 0x1f21,
};

/* DWARF 5 §7.5.4, table 7.5: the attributes the readers use. */
enum {
	DW_AT_SIBLING = 0x01, DW_AT_NAME = 0x03, DW_AT_STMT_LIST = 0x10,
	DW_AT_LOW_PC = 0x11, DW_AT_HIGH_PC = 0x12, DW_AT_LANGUAGE = 0x13,
	DW_AT_COMP_DIR = 0x1b,
	DW_AT_ABSTRACT_ORIGIN = 0x31, DW_AT_SPECIFICATION = 0x47,
	DW_AT_RANGES = 0x55, DW_AT_CALL_COLUMN = 0x57, DW_AT_CALL_FILE = 0x58,
	DW_AT_CALL_LINE = 0x59,
	DW_AT_LINKAGE_NAME = 0x6e, DW_AT_STR_OFFSETS_BASE = 0x72,
	DW_AT_ADDR_BASE = 0x73, DW_AT_RNGLISTS_BASE = 0x74,
	DW_AT_MIPS_LINKAGE_NAME = 0x2007,
};

/* DWARF 5 §7.5.3, table 7.3: the tags the readers tell apart. */
enum {
	DW_TAG_ARRAY_TYPE = 0x01, DW_TAG_CLASS_TYPE = 0x02,
	DW_TAG_ENUMERATION_TYPE = 0x04, DW_TAG_STRUCTURE_TYPE = 0x13,
	DW_TAG_SUBROUTINE_TYPE = 0x15, DW_TAG_UNION_TYPE = 0x17,
	DW_TAG_COMPILE_UNIT = 0x11, DW_TAG_INLINED_SUBROUTINE = 0x1d,
	DW_TAG_SUBPROGRAM = 0x2e, DW_TAG_PARTIAL_UNIT = 0x3c,
};

/* DWARF 5 §7.5.1, table 7.2: unit types. */
enum {
	DW_UT_COMPILE = 0x01, DW_UT_TYPE = 0x02, DW_UT_PARTIAL = 0x03,
	DW_UT_SKELETON = 0x04, DW_UT_SPLIT_COMPILE = 0x05,
	DW_UT_SPLIT_TYPE = 0x06,
};

/* One unit header of .debug_info (DWARF 5 §7.5.1), and what its unit
 * DIE says (filled by unit_prepare in dwarf_info.c). */
struct dw_unit {
	uint64_t off;            /* of the header */
	uint64_t end;            /* one past the unit */
	uint64_t die_off;        /* the unit DIE */
	uint64_t abbrev_off;
	uint8_t version;         /* 2 to 5 */
	uint8_t type;            /* DW_UT_*; version < 5: DW_UT_COMPILE */
	uint8_t addr_size;       /* 4 or 8 */
	uint8_t offsz;           /* 4 (32-bit DWARF) or 8 (64-bit) */
	uint8_t has_aranges;     /* .debug_aranges covers it */
	uint8_t prepared;
	int prep_err;            /* of unit_prepare, cached */
	uint64_t str_offsets_base, addr_base, rnglists_base;
	uint64_t base_addr;      /* DW_AT_low_pc of the unit DIE, or 0 */
	uint64_t stmt_list;
	int has_stmt_list;
	const char *comp_dir;
	int assembler;           /* DW_LANG_Mips_Assembler: its subprograms
	                          * are labels, aliases among them */
	struct dw_abbrevs *ab;   /* owned by the sp_dwarf */
	struct dw_cu *cu;        /* lines and functions, once loaded */
	int cu_err;              /* of loading them, cached */
};

/* An attribute's value as read; form 0 means absent. */
struct dw_val {
	uint32_t form;
	uint64_t u;              /* constants, offsets, indexes, addresses */
	const uint8_t *blk;      /* DW_FORM_string, blocks, data16 */
	size_t blen;
};

struct dw_spec {
	uint32_t name, form;
	int64_t implicit;        /* DW_FORM_implicit_const's value */
	uint8_t slot;            /* its DA_ index, DA_NUM for none kept */
};

struct dw_abbrev {
	uint64_t code;
	uint32_t tag;
	uint8_t children;
	size_t first, nspecs;    /* into dw_abbrevs.specs */
};

/* The abbreviation table at one offset of .debug_abbrev (§7.5.3). */
struct dw_abbrevs {
	uint64_t off;
	size_t bytes;            /* of .debug_abbrev read */
	struct dw_abbrev *a;     /* sorted by code */
	size_t n;
	struct dw_spec *specs;
	size_t nspecs;
};

/* The attributes of interest of one DIE (a null entry has ab NULL). */
enum {
	DA_NAME, DA_LINKAGE, DA_LOW, DA_HIGH, DA_RANGES, DA_ORIGIN, DA_SPEC,
	DA_CALL_FILE, DA_CALL_LINE, DA_CALL_COLUMN, DA_STMT_LIST, DA_COMP_DIR, DA_STROFF_BASE,
	DA_ADDR_BASE, DA_RNGL_BASE, DA_SIBLING, DA_LANGUAGE, DA_NUM
};

struct dw_die {
	uint64_t off;
	const struct dw_abbrev *ab;
	struct dw_val at[DA_NUM];
};

/*
 * A line table row in 16 bytes: file holds the file index (bits 0-19),
 * the column (bits 20-30; 0 unknown, or over DW_ROW_COL_MAX) and the end
 * of a sequence (bit 31).
 */
struct dw_row {
	uint64_t addr;
	uint32_t line;
	uint32_t file;
};
#define DW_ROW_END 0x80000000u
#define DW_ROW_FILE 0x000fffffu
#define DW_ROW_COL_SHIFT 20
#define DW_ROW_COL_MAX 0x7ffu

struct dw_file {
	const char *name;
	uint64_t dir;
	const char *path;        /* joined on first use (in the arena) */
};

/* A unit's line table (DWARF 5 §6.2), rows sorted by address. */
struct dw_lines {
	int version;
	const char *comp_dir;
	const char **dirs;
	size_t ndirs;
	struct dw_file *files;   /* indexed as the file register counts */
	size_t nfiles;
	struct dw_row *rows;
	size_t nrows;
	size_t bytes;            /* of .debug_line read */
};

/* A function-like DIE with code: a subprogram or inlined subroutine. */
struct dw_node {
	uint64_t die_off;
	uint64_t origin;         /* abstract_origin/specification, or 0 */
	const char *name;        /* DW_AT_name, or resolved */
	const char *linkage;
	int32_t parent;          /* enclosing node (a lower index), or -1 */
	uint32_t call_file, call_line, call_column;
	uint8_t inlined;
	uint8_t resolved;        /* name is final */
};

/* An address range [lo, hi) and what it belongs to. */
struct dw_span {
	uint64_t lo, hi;
	uint32_t idx;
};

/* Spans sorted by lo, with the running maximum of hi, so every span
 * containing an address is found by scanning back from a binary search. */
struct dw_spans {
	struct dw_span *v;
	uint64_t *maxhi;
	size_t n, cap;
	uint64_t limit, offered; /* ranges offered to spi_dw_spans_add, at most */
};

struct dw_cu {
	struct dw_node *nodes;
	size_t nnodes;
	struct dw_spans spans;   /* of the nodes (cap unused) */
	struct dw_lines lines;
};

/*
 * What units keep until spi_dwarf_free, in few large blocks: built arrays
 * are copied here at their final size, so malloc never copies, maps and
 * unmaps a unit's arrays as they grow.
 */
struct dw_arena {
	struct dw_chunk *head;
	size_t next;             /* size of the next block */
};

/* Arrays that every unit load reuses (grown, never shrunk): a unit's
 * rows, files, nodes and spans are built here, then copied. */
struct dw_scratch {
	struct dw_row *rows, *tmp;
	size_t rcap, tcap;
	struct dw_file *files;
	size_t fcap;
	const char **dirs;
	size_t dcap;
	struct dw_node *nodes;
	size_t ncap;
	struct dw_spans spans;
	struct dw_abbrev *ab;
	size_t acap;
	struct dw_spec *specs;
	size_t scap;
};

struct sp_dwarf {
	struct sp_dwarf_sections s;
	struct dw_unit *units;   /* in section order */
	size_t nunits;
	struct dw_abbr_slot {
		uint64_t off;
		struct dw_abbrevs *t;
	} *abbr;                 /* sorted by offset */
	size_t nabbr, abbrcap;
	struct dw_spans ix;      /* of the units */
	int ix_done;
	uint64_t work, work_max; /* SP_DWARF_WORK_MAX */
	struct dw_arena arena;
	struct dw_scratch scr;
};

/* dwarf_mem.c, the leaf under the others: the arena, the scratch
 * arrays, the work charged, span indexes. */
/* n bytes (aligned for any type) from a, valid until spi_dw_arena_free; NULL
 * when out of memory. */
void *spi_dw_arena_alloc(struct dw_arena *a, size_t n);
/* A copy of n elements of sz bytes in a; NULL when out of memory. */
void *spi_dw_arena_copy(struct dw_arena *a, const void *v, size_t n, size_t sz);
void spi_dw_arena_free(struct dw_arena *a);
void spi_dw_scratch_free(struct dw_scratch *s);
/* Charges d with bytes of work: 0, or -SP_ELIMIT past its budget. */
int spi_dw_charge(struct sp_dwarf *d, uint64_t bytes);
int spi_dw_spans_add(struct dw_spans *s, uint64_t lo, uint64_t hi, uint32_t idx);
int spi_dw_spans_sort(struct dw_spans *s);
/* Sorts v[0..n) by (lo, idx), in place. */
void spi_dw_span_sort(struct dw_span *v, size_t n);
/* Sorts s's spans and copies them, with their maxhi, to *out in a. */
int spi_dw_spans_pack(struct dw_spans *s, struct dw_arena *a,
    struct dw_spans *out);
size_t spi_dw_spans_upper(const struct dw_spans *s, uint64_t addr);
void spi_dw_spans_fini(struct dw_spans *s);

/* dwarf_die.c: forms, strings, abbreviations, DIEs. */
int spi_dw_read_form(struct sp_cur *c, const struct dw_unit *u, uint32_t form,
    int64_t implicit, struct dw_val *v);
const char *spi_dw_val_str(const struct sp_dwarf_sections *s,
    const struct dw_unit *u, const struct dw_val *v);
int spi_dw_val_addr(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    const struct dw_val *v, uint64_t *out);
int spi_dw_val_const(const struct dw_val *v, uint64_t *out);
int spi_dw_val_ref(const struct dw_unit *u, const struct dw_val *v,
    uint64_t *out);
int spi_dw_table_entry(const struct sp_dwarf_bytes *b, uint64_t base,
    uint64_t idx, unsigned size, uint64_t *out);
int spi_dw_addrx(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    uint64_t idx, uint64_t *out);
uint64_t spi_dw_rd_off(struct sp_cur *c, unsigned offsz);
uint64_t spi_dw_rd_addr(struct sp_cur *c, unsigned size);
/* The table at off, in d's arena (NULL: -SP_EFORMAT, -ENOMEM). */
int spi_dw_abbrevs_parse(struct sp_dwarf *d, uint64_t off,
    struct dw_abbrevs **out);
int spi_dw_die_read(struct sp_cur *c, const struct dw_unit *u,
    struct dw_die *die);

/* dwarf_ranges.c: address ranges of DIEs and units, .debug_aranges. */
int spi_dw_die_ranges(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    const struct dw_die *die,
    int (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx);
int spi_dw_aranges(const struct sp_dwarf_bytes *b,
    int (*fn)(void *ctx, uint64_t info_off, uint64_t lo, uint64_t hi),
    void *ctx);

/* dwarf_line.c: the line number program. */
/* u's line table into *l, its arrays in d's scratch (valid until the
 * next parse); spi_dw_lines_keep copies them to the arena a. */
int spi_dw_lines_parse(struct sp_dwarf *d, const struct dw_unit *u,
    struct dw_lines *l);
int spi_dw_lines_keep(struct dw_arena *a, struct dw_lines *l);
const struct dw_row *spi_dw_lines_find(const struct dw_lines *l, uint64_t addr);
int spi_dw_lines_path(struct dw_arena *a, struct dw_lines *l, uint64_t file,
    const char **out);

/* dwarf_info.c: units and their function trees. */
int spi_dw_units_scan(struct sp_dwarf *d);
int spi_dw_unit_ranges(struct sp_dwarf *d, struct dw_unit *u,
    int (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx);
int spi_dw_unit_load(struct sp_dwarf *d, struct dw_unit *u);
int spi_dw_node_name(struct sp_dwarf *d, struct dw_node *n);

#endif
