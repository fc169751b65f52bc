/* SPDX-License-Identifier: MIT */
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "sp/elfid.h"
#include "sp/error.h"

#define NOTES_MAX ((size_t)1 << 20) /* larger note areas are not looked at */

/* Finds NT_GNU_BUILD_ID in one note area. */
static int
scan_notes(Elf_Data *d, uint8_t *out, size_t cap, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (d == NULL)
		return -SP_ENOTFOUND;
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0) {
			*len = nh.n_descsz < cap ? nh.n_descsz : cap;
			memcpy(out, (const char *)d->d_buf + desc_off, *len);
			return 0;
		}
		off = next;
	}
	return -SP_ENOTFOUND;
}

static int
from_segments(Elf *e, uint8_t *out, size_t cap, size_t *len)
{
	size_t i, n;

	if (elf_getphdrnum(e, &n) != 0)
		return -SP_ENOTFOUND;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) == NULL ||
		    ph.p_type != PT_NOTE || ph.p_filesz > NOTES_MAX)
			continue;
		if (scan_notes(elf_getdata_rawchunk(e, (int64_t)ph.p_offset,
		    ph.p_filesz, ELF_T_NHDR), out, cap, len) == 0)
			return 0;
	}
	return -SP_ENOTFOUND;
}

static int
from_sections(Elf *e, uint8_t *out, size_t cap, size_t *len)
{
	Elf_Scn *s = NULL;

	while ((s = elf_nextscn(e, s)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(s, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    sh.sh_size > NOTES_MAX)
			continue;
		if (scan_notes(elf_getdata(s, NULL), out, cap, len) == 0)
			return 0;
	}
	return -SP_ENOTFOUND;
}

int
sp_elf_build_id(int fd, uint8_t *out, size_t cap, size_t *len)
{
	Elf *e;
	int err;

	*len = 0;
	(void)elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);	/* read, never mapped: no SIGBUS */
	if (e == NULL)
		return -SP_EFORMAT;
	if (elf_kind(e) != ELF_K_ELF) {
		(void)elf_end(e);
		return -SP_EFORMAT;
	}
	err = from_segments(e, out, cap, len);
	if (err)
		err = from_sections(e, out, cap, len);
	(void)elf_end(e);
	return err;
}
