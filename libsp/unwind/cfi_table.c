/* SPDX-License-Identifier: MIT */
/* An ELF file's CFI: its .eh_frame and .debug_frame, indexed by address,
 * and its PT_LOAD segments, to map file offsets to ELF addresses. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi_table_int.h"
#include "common/cursor_int.h"
#include "sp/elffile.h"

#define FDES_MAX 4000000u /* more FDEs than any real binary has */

struct fde_ix {
	uint64_t begin, end;
	size_t off;
	int dbg;
};

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
		err = sp_cfi_fde_range(s, off, &b, &e, &next);
		if (err == 0 && e > b) {
			if (t->n == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 256;
				struct fde_ix *p;

				if (cap > FDES_MAX)
					return -SP_ELIMIT;
				p = realloc(t->ix, cap * sizeof(*p));
				if (p == NULL)
					return -ENOMEM;
				t->ix = p;
				t->cap = cap;
			}
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
 * Whether libelf may read (and inflate) the section of sh: its bytes lie
 * inside the file, and a compressed one claims no more than
 * SP_ELF_SECTION_MAX nor more than deflate can give from its bytes
 * (RFC 1951: at most 1032 bytes from each), as sp/elffile.h allows.
 * Checked before elf_getdata and elf_compress, which allocate what the
 * headers say.
 */
static int
section_ok(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize)
{
	GElf_Chdr ch;

	if (sh->sh_offset > fsize || sh->sh_size > fsize - sh->sh_offset ||
	    sh->sh_size > SP_ELF_SECTION_MAX)
		return 0;
	if (!(sh->sh_flags & SHF_COMPRESSED))
		return 1;
	if (gelf_getchdr(scn, &ch) == NULL)
		return 0;
	return ch.ch_size <= SP_ELF_SECTION_MAX &&
	    ch.ch_size / 1032 <= sh->sh_size;
}

static void
section(Elf *e, size_t shstrndx, uint64_t fsize, struct sp_cfi_table *t)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		struct sp_cfi_section *s;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name == NULL)
			continue;
		if (strcmp(name, ".eh_frame_hdr") == 0)
			s = &t->hdr_sec;
		else if (strcmp(name, ".eh_frame") == 0)
			s = &t->eh;
		else if (strcmp(name, ".debug_frame") == 0)
			s = &t->dbg;
		else if (strcmp(name, ".got") == 0) {
			t->got = sh.sh_addr;
			continue;
		} else
			continue;
		if (!section_ok(scn, &sh, fsize)) {
			t->refused++;
			continue;
		}
		/* Compressed sections (SHF_COMPRESSED) are inflated by libelf. */
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (d == NULL || d->d_buf == NULL)
			continue;
		s->data = d->d_buf;
		s->len = d->d_size;
		s->vaddr = sh.sh_addr;
		s->debug_frame = s == &t->dbg;
	}
}

static void
loads(Elf *e, struct sp_cfi_table *t)
{
	size_t n, i;

	if (elf_getphdrnum(e, &n) != 0)
		return;
	for (i = 0; i < n && t->nloads < SP_CFI_LOADS_MAX; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		t->loads[t->nloads].offset = ph.p_offset;
		t->loads[t->nloads].vaddr = ph.p_vaddr;
		t->loads[t->nloads++].filesz = ph.p_filesz;
	}
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
	if (sp_cfi_read_pointer(h->data, h->len, &pos, h->data[1], h->vaddr,
	    h->vaddr, &ptr) < 0 ||
	    sp_cfi_read_pointer(h->data, h->len, &pos, h->data[2], h->vaddr,
	    h->vaddr, &count) < 0 || count > (h->len - pos) / 8)
		return;
	t->hdr = h->data + pos;
	t->hdr_count = (size_t)count;
	t->hdr_vaddr = h->vaddr;
}

static int
table_init(struct sp_cfi_table *t, struct sp_cfi_table **out)
{
	size_t shstrndx;
	int err = 0;

	if (t->elf == NULL || elf_kind(t->elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(t->elf, &shstrndx) != 0)
		err = -SP_EFORMAT;
	if (err == 0) {
		section(t->elf, shstrndx, t->fsize, t);
		loads(t->elf, t);
		t->eh.datarel_base = t->got;
		t->dbg.datarel_base = t->got;
		use_hdr(t);
		if (t->hdr == NULL)
			err = index_section(t, &t->eh, 0);
	}
	if (err == 0)
		err = index_section(t, &t->dbg, 1);
	if (err) {
		sp_cfi_table_free(t);
		return err;
	}
	if (t->n > 0)
		qsort(t->ix, t->n, sizeof(*t->ix), cmp_fde);
	*out = t;
	return 0;
}

int
sp_cfi_table_open(int fd, struct sp_cfi_table **out)
{
	struct sp_cfi_table *t;
	struct stat st;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		(void)close(fd);
		return -ENOMEM;
	}
	t->fd = fd;
	if (fstat(fd, &st) == 0)
		t->fsize = (uint64_t)st.st_size;
	(void)elf_version(EV_CURRENT);
	/* Read, not mapped: a file cut short under us is then an error of
	 * one read, not SIGBUS in the recorder. */
	t->elf = elf_begin(fd, ELF_C_READ, NULL);
	return table_init(t, out);
}

int
sp_cfi_table_open_mem(void *image, size_t len, struct sp_cfi_table **out)
{
	struct sp_cfi_table *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		free(image);
		return -ENOMEM;
	}
	t->fd = -1;
	t->image = image;
	t->fsize = len;
	(void)elf_version(EV_CURRENT);
	t->elf = elf_memory(image, len);
	return table_init(t, out);
}

void
sp_cfi_table_free(struct sp_cfi_table *t)
{
	if (t == NULL)
		return;
	if (t->elf != NULL)
		(void)elf_end(t->elf);
	if (t->fd >= 0)
		(void)close(t->fd);
	free(t->image);
	free(t->ix);
	free(t);
}

int
sp_cfi_table_vaddr(const struct sp_cfi_table *t, uint64_t off, uint64_t *va)
{
	size_t i;

	for (i = 0; i < t->nloads; i++)
		if (off >= t->loads[i].offset &&
		    off - t->loads[i].offset < t->loads[i].filesz) {
			*va = t->loads[i].vaddr + (off - t->loads[i].offset);
			return 0;
		}
	return -SP_ENOTFOUND;
}

int
sp_cfi_table_empty(const struct sp_cfi_table *t)
{
	return t->hdr_count == 0 && t->n == 0;
}

/* The FDE for pc from .eh_frame_hdr's table (binary search). */
static int
hdr_row(const struct sp_cfi_table *t, uint64_t pc, struct sp_cfi_row *row)
{
	size_t lo = 0, hi = t->hdr_count;
	uint64_t fde;
	const char *why;

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
	return sp_cfi_row_at(&t->eh, (size_t)(fde - t->eh.vaddr), pc, row, NULL,
	    &why);
}

int
sp_cfi_table_row(const struct sp_cfi_table *t, uint64_t pc,
    struct sp_cfi_row *row)
{
	size_t lo = 0, hi = t->n;
	const char *why;

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
	return sp_cfi_row_at(t->ix[lo - 1].dbg ? &t->dbg : &t->eh,
	    t->ix[lo - 1].off, pc, row, NULL, &why);
}
