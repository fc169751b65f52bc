/* SPDX-License-Identifier: MIT */
/*
 * PLT stubs named SYMBOL@plt from the relocations of their GOT slots.
 * What depends on the machine (relocation types, stub forms) is in a
 * folder per machine, chosen by the file's e_machine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor_int.h"
#include "elf/elfsym_int.h"
#include "elfplt_int.h"

#define RELA_SIZE sizeof(Elf64_Rela)
#define SYM_SIZE sizeof(Elf64_Sym)

/* A dynamic relocation of a GOT slot (gABI "Relocation": Elf64_Rela is
 * r_offset, r_info, r_addend). */
struct slot {
	uint64_t off;           /* the slot's address */
	uint64_t addend;
	uint32_t sym;
	uint32_t type;
	uint32_t rela;          /* the relocation section's index */
};

static const struct spi_plt_arch *const arches[] = {
	&spi_x86_64_plt, &spi_aarch64_plt,
};

struct plt {
	const struct spi_plt_arch *arch;
	struct sp_elf_file *f;
	const char *(*at)(void *ctx, uint64_t addr);
	void *ctx;
	struct slot *slots;     /* sorted by off */
	size_t nslots, cap;
	uint64_t strtab;        /* the largest string table they name from */
	size_t jmprel;          /* .rela.plt's index, or f->shnum */
	struct spi_plt *out;
	uint64_t budget;
};

static int
cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->rela != y->rela)
		return x->rela < y->rela ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static void
read_rela(const uint8_t *b, uint32_t sec, struct slot *s)
{
	uint64_t info = sp_le64(b + 8);

	s->off = sp_le64(b);
	s->sym = (uint32_t)(info >> 32);
	s->type = (uint32_t)info;
	s->addend = sp_le64(b + 16);
	s->rela = sec;
}

/* The string table behind relocation section i's symbol table. */
static uint64_t
strtab_size(const struct sp_elf_file *f, size_t i)
{
	size_t sym = f->sh[i].sh_link, str;

	if (sym == 0 || sym >= f->shnum)
		return 0;
	str = f->sh[sym].sh_link;
	return str != 0 && str < f->shnum ? f->sh[str].sh_size : 0;
}

/* The GOT slot relocations of every allocated SHT_RELA section. */
static int
read_slots(struct plt *p)
{
	struct sp_elf_file *f = p->f;
	const uint8_t *b;
	size_t i, k, len;
	int err;

	for (i = 0; i < f->shnum; i++) {
		const GElf_Shdr *h = &f->sh[i];
		struct slot s;

		if (h->sh_type != SHT_RELA || !(h->sh_flags & SHF_ALLOC) ||
		    h->sh_entsize != RELA_SIZE)
			continue;
		err = spi_elf_section_at(f, i, &b, &len);
		if (err == -SP_ENOTFOUND)
			continue;
		if (err)
			return err;
		if (strtab_size(f, i) > p->strtab)
			p->strtab = strtab_size(f, i);
		if (p->strtab > SP_ELF_SECTION_MAX)
			p->strtab = SP_ELF_SECTION_MAX;
		for (k = 0; k + RELA_SIZE <= len; k += RELA_SIZE) {
			read_rela(b + k, (uint32_t)i, &s);
			if (!p->arch->wanted(s.type))
				continue;
			if (p->nslots == SP_ELF_SYMS_MAX)
				return -SP_ELIMIT;
			if (spi_grow_zeroed(&p->slots, &p->cap, p->nslots + 1,
			    sizeof(*p->slots)) != 0)
				return -ENOMEM;
			p->slots[p->nslots++] = s;
		}
	}
	if (p->nslots > 1)
		qsort(p->slots, p->nslots, sizeof(*p->slots), cmp_slot);
	return 0;
}

static const struct slot *
find_slot(const struct plt *p, uint64_t off)
{
	size_t lo = 0, hi = p->nslots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->slots[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nslots && p->slots[lo].off == off ? &p->slots[lo] :
	    NULL;
}

/* The name of symbol sym of the table relocation section rela links to:
 * NUL-terminated inside its string table and not empty, else NULL. */
static const char *
sym_name(struct sp_elf_file *f, uint32_t rela, uint32_t sym)
{
	size_t tab = f->sh[rela].sh_link, str, len, slen;
	const uint8_t *b, *s;
	uint32_t name;

	if (sym == 0 || tab == 0 || tab >= f->shnum ||
	    (f->sh[tab].sh_type != SHT_DYNSYM &&
	    f->sh[tab].sh_type != SHT_SYMTAB) ||
	    spi_elf_section_at(f, tab, &b, &len) != 0 ||
	    sym >= len / SYM_SIZE)
		return NULL;
	name = sp_le32(b + (size_t)sym * SYM_SIZE);
	str = f->sh[tab].sh_link;
	if (str == 0 || str >= f->shnum ||
	    spi_elf_section_at(f, str, &s, &slen) != 0 || name >= slen ||
	    s[name] == 0 || memchr(s + name, 0, slen - name) == NULL)
		return NULL;
	return (const char *)s + name;
}

/* The symbol a slot's relocation names. */
static const char *
slot_name(const struct plt *p, const struct slot *s)
{
	if (s->type == p->arch->irelative)
		return p->at(p->ctx, s->addend);
	return sym_name(p->f, s->rela, s->sym);
}

/* Adds stub [start, start + size) of section shndx as name + suffix,
 * within the budget. */
static int
add_stub(struct plt *p, uint64_t start, uint64_t size, uint16_t shndx,
    const char *name, const char *suffix)
{
	struct spi_plt *o = p->out;
	size_t len = strlen(name), slen = strlen(suffix);

	if (o->n == SP_ELF_SYMS_MAX)
		return -SP_ELIMIT;
	if (len + slen + 1 > p->budget - o->names.len) {
		o->budget_hit = 1;
		return 0;
	}
	if (spi_grow_zeroed(&o->v, &o->cap, o->n + 1, sizeof(*o->v)) != 0)
		return -ENOMEM;
	o->v[o->n].start = start;
	o->v[o->n].size = size;
	o->v[o->n].shndx = shndx;
	o->v[o->n].name = o->names.len;
	spi_buf_put(&o->names, name, len);
	spi_buf_put(&o->names, suffix, slen + 1);
	if (o->names.err)
		return o->names.err;
	o->n++;
	return 0;
}

/* The slot relocation a stub leads to (what its machine's forms
 * decoded it to: kind and to), or NULL. */
static const struct slot *
stub_slot(const struct plt *p, enum spi_plt_to kind, uint64_t to,
    struct slot *tmp)
{
	const uint8_t *r;
	size_t len;

	switch (kind) {
	case SPI_PLT_SLOT:
		return find_slot(p, to);
	case SPI_PLT_INDEX:
		if (p->jmprel == p->f->shnum ||
		    spi_elf_section_at(p->f, p->jmprel, &r, &len) != 0 ||
		    to >= len / RELA_SIZE)
			return NULL;
		read_rela(r + (size_t)to * RELA_SIZE, (uint32_t)p->jmprel, tmp);
		return p->arch->wanted(tmp->type) ? tmp : NULL;
	default:
		return NULL;
	}
}

/* Names the stubs of section name. */
static int
name_section(struct plt *p, const char *name)
{
	struct sp_elf_file *f = p->f;
	size_t i = spi_elf_section_find(f, name), k, len;
	int lazy = strcmp(name, ".plt") == 0, err;
	const struct slot *s;
	const GElf_Shdr *h;
	const uint8_t *b;
	const char *sym;
	struct slot tmp;
	uint64_t es;

	if (i == f->shnum || i > UINT16_MAX)
		return 0;
	h = &f->sh[i];
	if (h->sh_type != SHT_PROGBITS || !(h->sh_flags & SHF_EXECINSTR))
		return 0;
	err = spi_elf_section_at(f, i, &b, &len);
	if (err)
		return err == -SP_ENOTFOUND ? 0 : err;
	es = h->sh_entsize == 8 || h->sh_entsize == 16 ? h->sh_entsize : 16;
	for (k = 0; k + es <= len; k += es) {
		uint64_t addr = h->sh_addr + k, to = 0;
		enum spi_plt_to kind = p->arch->stub(b + k, es, addr, lazy,
		    k == 0, &to);

		/* PLT0, the lazy binding code. */
		if (kind == SPI_PLT_HEAD) {
			err = add_stub(p, addr, es, (uint16_t)i, ".plt", "");
		} else {
			s = stub_slot(p, kind, to, &tmp);
			sym = s != NULL ? slot_name(p, s) : NULL;
			err = sym != NULL ? add_stub(p, addr, es, (uint16_t)i,
			    sym, "@plt") : 0;
		}
		if (err)
			return err;
	}
	return 0;
}

int
spi_elf_plt_read(struct sp_elf_file *f,
    const char *(*at)(void *ctx, uint64_t addr), void *ctx,
    struct spi_plt *out)
{
	static const char *const secs[] = { ".plt", ".plt.sec", ".plt.got" };
	struct plt p;
	GElf_Ehdr eh;
	size_t i, stubs = 0;
	int err;

	if (gelf_getehdr(f->elf, &eh) == NULL)
		return 0;
	memset(&p, 0, sizeof(p));
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i]->machine == eh.e_machine)
			p.arch = arches[i];
	if (p.arch == NULL)
		return 0;
	p.f = f;
	p.at = at;
	p.ctx = ctx;
	p.out = out;
	p.jmprel = spi_elf_section_find(f, ".rela.plt");
	err = read_slots(&p);
	for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		size_t k = spi_elf_section_find(f, secs[i]);

		/* Sections over the limit are not read: no stubs. */
		if (k < f->shnum && f->sh[k].sh_size <= SP_ELF_SECTION_MAX)
			stubs += f->sh[k].sh_size / 8;
	}
	p.budget = SPI_ELF_PLT_NAMES_MAX(p.strtab, stubs);
	for (i = 0; err == 0 && i < sizeof(secs) / sizeof(secs[0]); i++)
		err = name_section(&p, secs[i]);
	free(p.slots);
	return err;
}

void
spi_elf_plt_fini(struct spi_plt *p)
{
	free(p->v);
	spi_buf_fini(&p->names);
	memset(p, 0, sizeof(*p));
}
