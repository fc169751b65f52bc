/* SPDX-License-Identifier: MIT */
/* An ELF file's CFI: its .eh_frame and .debug_frame, indexed by address.
 * The file is read through elf/elf_int.h, with its bounds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "elf/elf_int.h"
#include "elf/elfsym_int.h"
#include "unwind/cfi_table_int.h"
#include "unwind/machine_int.h"

/* FDEs indexed per file: 20 times libLLVM-14's (~100,000); the index
 * then takes 64 MiB at most. */
#define FDES_MAX 2000000u

struct fde_ix {
	uint64_t begin, end;
	size_t off;
	int dbg;
};

struct sp_cfi_table {
	struct sp_elf_file *file;  /* owned; holds the sections' bytes */
	struct sp_cfi_section eh, dbg, hdr_sec;
	const uint8_t *hdr;      /* .eh_frame_hdr's search table, or NULL */
	size_t hdr_count;
	uint64_t hdr_vaddr;
	struct fde_ix *ix;       /* sorted by begin: FDEs the table lacks */
	size_t n, cap;
	size_t bad_entries;      /* malformed entries skipped */
	size_t refused;          /* CFI sections past a bound, not read */
	struct { uint64_t lo, hi; int kind; } ends[SP_CFI_STACK_ENDS_MAX];
	size_t nends;            /* functions where the stack switches */
	uint64_t sig_lo, sig_hi; /* the kernel's signal trampoline, if any */
};

/*
 * Go's runtime runs these on a stack of its own (g0's, a signal stack) or
 * starts a stack in them: the frame above is on another stack, which the
 * sample did not copy, and their CFI, made from stack-pointer deltas,
 * leads into garbage there.  Go's own traceback stops at them too
 * (runtime/traceback.go: topofstack, and systemstack where it cannot
 * switch back).  Assembly functions carry ".abi0" in the symbol table
 * (Go 1.17 on); the plain name is then a wrapper that runs on the caller's
 * stack, and is no end.
 */
static const struct {
	const char *name;
	int kind;       /* SPI_END_ROOT or SPI_END_SWITCH */
} go_stack_ends[] = {
	{ "runtime.systemstack", SPI_END_SWITCH },
	{ "runtime.mcall", SPI_END_SWITCH },
	{ "runtime.morestack", SPI_END_SWITCH },
	{ "runtime.asmcgocall", SPI_END_SWITCH },
	{ "runtime.sigtramp", SPI_END_SWITCH },
	/* The vDSO's clock calls, on g0's stack (or a signal stack). */
	{ "runtime.nanotime1", SPI_END_SWITCH },
	{ "runtime.walltime", SPI_END_SWITCH },
	{ "runtime.walltime1", SPI_END_SWITCH },
	{ "time.now", SPI_END_SWITCH },
	{ "runtime.mstart", SPI_END_ROOT },
	{ "runtime.rt0_go", SPI_END_ROOT },
	{ "runtime.goexit", SPI_END_ROOT },
};

/* The ranges of go_stack_ends in a Go binary (it has a .note.go.buildid
 * or a .gopclntab), through its symbol table; none without one. */
static int
find_go_stack_ends(struct sp_cfi_table *t)
{
	struct sp_elf_syms *syms;
	char name[64];
	size_t i, k;
	int err;

	if (!spi_elf_file_has_section(t->file, ".note.go.buildid") &&
	    !spi_elf_file_has_section(t->file, ".gopclntab"))
		return 0;
	err = spi_elf_syms_load(t->file, &syms);
	if (err == -ENOMEM)
		return err;
	if (err)
		return 0; /* a table past a bound: no ends, as if stripped */
	for (i = 0; i < sizeof(go_stack_ends) / sizeof(go_stack_ends[0]) &&
	    t->nends < SP_CFI_STACK_ENDS_MAX; i++)
		for (k = 0; k < 2; k++) {
			(void)snprintf(name, sizeof(name), "%s%s",
			    go_stack_ends[i].name, k ? "" : ".abi0");
			if (spi_elf_syms_named(syms, name, &t->ends[t->nends].lo,
			    &t->ends[t->nends].hi) == 0) {
				t->ends[t->nends++].kind = go_stack_ends[i].kind;
				break;
			}
		}
	spi_elf_syms_free(syms);
	return 0;
}

static int
cmp_fde(const void *a, const void *b)
{
	const struct fde_ix *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Walks a section's entries into the index. */
static int
index_section(struct sp_cfi_table *t, const struct sp_cfi_section *s, int dbg)
{
	size_t off = 0, next;
	uint64_t b, e;
	int err;

	while (off < s->len) {
		next = 0;
		err = spi_cfi_fde_range(s, off, &b, &e, &next);
		if (err == 0 && e > b) {
			if (t->n == FDES_MAX)
				return -SP_ELIMIT;
			if (spi_grow_zeroed(&t->ix, &t->cap, t->n + 1,
			    sizeof(*t->ix)) != 0)
				return -ENOMEM;
			t->ix[t->n].begin = b;
			t->ix[t->n].end = e;
			t->ix[t->n].off = off;
			t->ix[t->n++].dbg = dbg;
		} else if (err != -SP_ENOTFOUND) {
			t->bad_entries++;
		}
		if (next <= off)
			break;
		off = next;
	}
	return 0;
}

/*
 * Section name of f into *s, with its address.  A section past a bound
 * of elf/elf_int.h (outside the file, larger than SP_ELF_SECTION_MAX, a
 * compressed one claiming more) is counted as refused; a malformed
 * compressed one too.  Returns -ENOMEM (the table cannot be made: the
 * caller must not take a file it could not read for one without CFI),
 * else 0, the section missing or not.
 */
static int
load(struct sp_cfi_table *t, const char *name, struct sp_cfi_section *s)
{
	int err = spi_elf_file_section(t->file, name, &s->data, &s->len);

	if (err == 0)
		err = spi_elf_file_section_addr(t->file, name, &s->vaddr);
	if (err) {
		s->data = NULL;
		s->len = 0;
	}
	if (err == -SP_ELIMIT || err == -SP_EFORMAT)
		t->refused++;
	return err == -ENOMEM ? err : 0;
}

/*
 * LSB 4.1 §10.6.2: .eh_frame_hdr holds a table of (initial location, FDE
 * address) sorted by location.  Used when it has the usual encoding
 * (datarel sdata4, 8 bytes an entry): then .eh_frame needs no index.
 */
static void
use_hdr(struct sp_cfi_table *t)
{
	const struct sp_cfi_section *h = &t->hdr_sec;
	uint64_t ptr, count;
	size_t pos = 4;

	if (h->len < 4 || h->data[0] != 1 || h->data[3] != 0x3b ||
	    t->eh.len == 0)
		return;
	if (spi_cfi_read_pointer(h->data, h->len, &pos, h->data[1], h->vaddr,
	    h->vaddr, &ptr) < 0 ||
	    spi_cfi_read_pointer(h->data, h->len, &pos, h->data[2], h->vaddr,
	    h->vaddr, &count) < 0 || count > (h->len - pos) / 8)
		return;
	t->hdr = h->data + pos;
	t->hdr_count = (size_t)count;
	t->hdr_vaddr = h->vaddr;
}

int
spi_cfi_table_open(struct sp_elf_file *f, struct sp_cfi_table **out)
{
	struct sp_cfi_table *t;
	uint64_t got = 0;
	int err;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		spi_elf_file_free(f);
		return -ENOMEM;
	}
	t->file = f;
	spi_elf_file_limit_sections(f, SP_CFI_SECTION_MAX);
	err = load(t, ".eh_frame_hdr", &t->hdr_sec);
	if (err == 0)
		err = load(t, ".eh_frame", &t->eh);
	if (err == 0)
		err = load(t, ".debug_frame", &t->dbg);
	if (err) {
		spi_cfi_table_free(t);
		return err;
	}
	t->dbg.debug_frame = 1;
	/* DW_EH_PE_datarel in .eh_frame is relative to the GOT (x86-64). */
	(void)spi_elf_file_section_addr(f, ".got", &got);
	t->eh.datarel_base = got;
	t->dbg.datarel_base = got;
	use_hdr(t);
	err = t->hdr == NULL ? index_section(t, &t->eh, 0) : 0;
	if (err == 0)
		err = index_section(t, &t->dbg, 1);
	if (err) {
		spi_cfi_table_free(t);
		return err;
	}
	if (t->n > 0)
		qsort(t->ix, t->n, sizeof(*t->ix), cmp_fde);
	err = find_go_stack_ends(t);
	if (err) {
		spi_cfi_table_free(t);
		return err;
	}
	*out = t;
	return 0;
}

int
spi_cfi_table_stack_end(const struct sp_cfi_table *t, uint64_t pc)
{
	size_t i;

	for (i = 0; i < t->nends; i++)
		if (pc >= t->ends[i].lo && pc < t->ends[i].hi)
			return t->ends[i].kind;
	return 0;
}

/* The vdso's signal trampolines, by name: arm64's (x86-64's vdso has
 * none; glibc's __restore_rt has CFI for every register). */
static const char *const sigreturns[] = { "__kernel_rt_sigreturn" };

void
spi_cfi_table_find_sigreturn(struct sp_cfi_table *t)
{
	struct sp_elf_syms *syms;
	size_t i;

	if (spi_elf_syms_load(t->file, &syms) != 0)
		return;
	for (i = 0; i < sizeof(sigreturns) / sizeof(sigreturns[0]); i++)
		if (spi_elf_syms_named(syms, sigreturns[i], &t->sig_lo,
		    &t->sig_hi) == 0)
			break;
	spi_elf_syms_free(syms);
}

int
spi_cfi_table_sigreturn(const struct sp_cfi_table *t, uint64_t pc)
{
	return pc >= t->sig_lo && pc < t->sig_hi;
}

int
spi_cfi_table_sigreturn_end(const struct sp_cfi_table *t, uint64_t pc)
{
	return t->sig_hi > t->sig_lo && pc == t->sig_hi;
}

void
spi_cfi_table_free(struct sp_cfi_table *t)
{
	if (t == NULL)
		return;
	spi_elf_file_free(t->file);
	free(t->ix);
	free(t);
}

const struct sp_elf_file *
spi_cfi_table_file(const struct sp_cfi_table *t)
{
	return t->file;
}

void
spi_cfi_table_stats(const struct sp_cfi_table *t,
    struct spi_cfi_table_stats *out)
{
	out->hdr_entries = t->hdr != NULL ? t->hdr_count : 0;
	out->indexed = t->n;
	out->eh_frame_bytes = t->eh.len;
	out->debug_frame_bytes = t->dbg.len;
	out->bad_entries = t->bad_entries;
	out->refused = t->refused;
}

int
spi_cfi_table_vaddr(const struct sp_cfi_table *t, uint64_t off, uint64_t *va)
{
	return spi_elf_file_exec_vaddr(t->file, off, va);
}

int
spi_cfi_table_empty(const struct sp_cfi_table *t)
{
	return t->hdr_count == 0 && t->n == 0;
}

/* The FDE for pc from .eh_frame_hdr's table (binary search). */
/* A row whose return address is not in this architecture's column is
 * none the walk can use (the parser leaves that check to its caller). */
static int
arch_row(int err, const struct sp_cfi_row *row)
{
	return err == 0 && row->ra != SPI_DW_RA ? -SP_EFORMAT : err;
}

static int
hdr_row(const struct sp_cfi_table *t, uint64_t pc, struct sp_cfi_row *row)
{
	size_t lo = 0, hi = t->hdr_count;
	uint64_t fde;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t loc = t->hdr_vaddr +
		    (uint64_t)(int64_t)(int32_t)sp_le32(t->hdr + mid * 8);

		if (loc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -SP_ENOTFOUND;
	fde = t->hdr_vaddr +
	    (uint64_t)(int64_t)(int32_t)sp_le32(t->hdr + (lo - 1) * 8 + 4);
	if (fde < t->eh.vaddr || fde - t->eh.vaddr >= t->eh.len)
		return -SP_EFORMAT;
	return arch_row(spi_cfi_row_at(&t->eh, (size_t)(fde - t->eh.vaddr), pc,
	    row, NULL, NULL), row);
}

int
spi_cfi_table_row(const struct sp_cfi_table *t, uint64_t pc,
    struct sp_cfi_row *row)
{
	size_t lo = 0, hi = t->n;

	if (t->hdr != NULL) {
		int err = hdr_row(t, pc, row);

		if (err != -SP_ENOTFOUND)
			return err;
	}
	/* The last FDE that begins at or before pc (FDEs do not overlap). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ix[mid].begin <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= t->ix[lo - 1].end)
		return -SP_ENOTFOUND;
	return arch_row(spi_cfi_row_at(t->ix[lo - 1].dbg ? &t->dbg : &t->eh,
	    t->ix[lo - 1].off, pc, row, NULL, NULL), row);
}
