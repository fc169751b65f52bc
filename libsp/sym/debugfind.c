/* SPDX-License-Identifier: MIT */
/* Finding a module's binary and separate debug file, each verified. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/auxv.h>

#include "common/hex_int.h"
#include "sp/common/bundle.h"
#include "sp/sym/debuginfod.h"
#include "sym/debugfind_int.h"

/* One search: its inputs and what it found so far. */
struct search {
	const struct sp_debug_search *s;
	const char *const *dirs;
	size_t ndirs;
	const char *roots[2];  /* the sysroot (when set), then "" */
	size_t nroots;
	const char *path;
	const uint8_t *id;     /* the build-id to match, or NULL */
	size_t id_len;
	struct sp_debug_found *out;
	int full;              /* tried is full: nothing more is added */
};

/* Appends "path (what)" to out->tried, or "..." once it is full. */
static void
note(struct search *r, const char *path, const char *what)
{
	char *t = r->out->tried;
	size_t used = strlen(t), room = sizeof(r->out->tried) - used;
	int n;

	if (r->full)
		return;
	n = snprintf(t + used, room, "%s%s (%s)", used > 0 ? "; " : "", path,
	    what);
	if (n < 0 || (size_t)n >= room) {
		/* Cut back to the last whole entry and mark the cut. */
		t[used] = '\0';
		if (used + 4 >= sizeof(r->out->tried))
			used = sizeof(r->out->tried) - 4;
		memcpy(t + used, "...", 4);
		r->full = 1;
	}
}

/* Whether f's build-id is r's: 1 yes, 0 it has none or another. */
static int
id_matches(const struct search *r, const struct sp_elf_file *f)
{
	const uint8_t *id;
	size_t len;

	return spi_elf_file_build_id(f, &id, &len) == 0 && len == r->id_len &&
	    memcmp(id, r->id, len) == 0;
}

/* Opens path; 0 with *f, 1 when it cannot be used, -ENOMEM. */
static int
try_open(struct search *r, const char *path, struct sp_elf_file **f)
{
	struct sp_diag d;
	int err;

	d.msg[0] = '\0';
	err = spi_elf_file_open(path, f, &d);
	if (err == -ENOMEM)
		return err;
	if (err == -ENOENT || err == -ENOTDIR)
		note(r, path, "absent");
	else if ((err == -SP_EFORMAT || err == -SP_ELIMIT) && d.msg[0] != '\0')
		note(r, path, d.msg);	/* what is wrong with the ELF file */
	else if (err)
		note(r, path, sp_strerror(err));
	return err ? 1 : 0;
}

/* Joins up to three parts; 0, or -ENAMETOOLONG. */
static int
join(char *buf, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf, PATH_MAX, "%s%s%s", a, b, c);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* A binary candidate: 0 (taken or not), or -ENOMEM. */
static int
binary_at(struct search *r, const char *path)
{
	struct sp_elf_file *f;
	int err;

	if (r->out->binary != NULL)
		return 0;
	err = try_open(r, path, &f);
	if (err)
		return err < 0 ? err : 0;
	if (r->id != NULL && !id_matches(r, f)) {
		note(r, path, "build-id differs");
		r->out->mismatches++;
		spi_elf_file_free(f);
		return 0;
	}
	note(r, path, r->id != NULL ? "used" : "used, build-id unknown");
	r->out->unverified = r->id == NULL;
	r->out->binary = f;
	return 0;
}

/* The bundle's copy, only if it is inside the bundle (sp_bundle_check). */
static int
bundle_binary(struct search *r, const char *path, const char *idhex)
{
	char rel[sizeof("binaries/") + 2 * (size_t)SP_ELF_BUILD_ID_MAX];
	int err;

	(void)snprintf(rel, sizeof(rel), "binaries/%s", idhex);
	err = sp_bundle_check(r->s->bundle, rel);
	if (err == -ENOENT || err == -ENOTDIR)
		note(r, path, "absent");
	else if (err < 0)
		note(r, path, err == -ELOOP ? "a symlink: not read outside "
		    "the bundle" : sp_strerror(err));
	return err < 0 ? 0 : binary_at(r, path);
}

/*
 * The [vdso] of this process, which is the recorded one when this host
 * runs the same kernel build (the build-ids are equal): its image is an
 * ELF file in memory, from the ELF header to the section headers' end.
 */
static int
own_vdso(struct search *r)
{
	/* The auxiliary vector gives the image's address as a number. */
	/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
	const Elf64_Ehdr *e = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct sp_elf_file *f;
	size_t len;
	int err;

	if (e == NULL || r->id == NULL || r->out->binary != NULL ||
	    memcmp(e->e_ident, ELFMAG, SELFMAG) != 0 ||
	    e->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	len = (size_t)e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
	if (len > ((size_t)1 << 20))
		return 0;
	err = spi_elf_file_open_mem(e, len, &f, NULL);
	if (err)
		return err == -ENOMEM ? err : 0;
	if (!id_matches(r, f)) {
		note(r, "this host's vdso", "build-id differs (another kernel)");
		spi_elf_file_free(f);
		return 0;
	}
	note(r, "this host's vdso", "used");
	r->out->binary = f;
	return 0;
}

static int
find_binary(struct search *r)
{
	char buf[PATH_MAX], idhex[2 * SP_ELF_BUILD_ID_MAX + 1];
	size_t i;
	int err = 0;

	if (r->s->bundle != NULL && r->id != NULL &&
	    r->id_len <= SP_ELF_BUILD_ID_MAX) {
		sp_hex(idhex, r->id, r->id_len);
		if (join(buf, r->s->bundle, "/binaries/", idhex) == 0)
			err = bundle_binary(r, buf, idhex);
	}
	/* [vdso] is no file: a path relative to here would be another. */
	if (strcmp(r->path, "[vdso]") == 0)
		return err == 0 ? own_vdso(r) : err;
	if (err == 0 && r->s->image != NULL)
		err = binary_at(r, r->s->image);
	for (i = 0; i < r->nroots && err == 0; i++)
		if (join(buf, r->roots[i], r->path, "") == 0)
			err = binary_at(r, buf);
	return err;
}

/* A debug file candidate; crc NULL: matched by build-id only. */
static int
debug_at(struct search *r, const char *path, const uint32_t *crc)
{
	struct sp_elf_file *f;
	const uint8_t *id;
	size_t len;
	uint32_t c;
	int err;

	if (r->out->debug != NULL)
		return 0;
	err = try_open(r, path, &f);
	if (err)
		return err < 0 ? err : 0;
	if (r->out->binary != NULL && spi_elf_file_same(f, r->out->binary)) {
		note(r, path, "the binary itself");
		spi_elf_file_free(f);
		return 0;
	}
	if (crc != NULL && (err = spi_elf_file_crc32(f, &c)) != 0) {
		note(r, path, sp_strerror(err));
		spi_elf_file_free(f);
		return err == -ENOMEM ? err : 0;
	}
	if ((crc == NULL && !id_matches(r, f)) || (crc != NULL && (c != *crc ||
	    (r->id != NULL && spi_elf_file_build_id(f, &id, &len) == 0 &&
	    !id_matches(r, f))))) {
		note(r, path, crc != NULL && c != *crc ? "CRC differs" :
		    "build-id differs");
		r->out->mismatches++;
		spi_elf_file_free(f);
		return 0;
	}
	note(r, path, "used");
	r->out->debug = f;
	return 0;
}

/* The bundle's debug/HEXID, kept by the recorder from its host. */
static int
bundle_debug(struct search *r)
{
	char buf[PATH_MAX], rel[sizeof("debug/") + 2 * (size_t)SP_ELF_BUILD_ID_MAX];
	int err;

	memcpy(rel, "debug/", sizeof("debug/"));
	sp_hex(rel + strlen("debug/"), r->id, r->id_len);
	if (join(buf, r->s->bundle, "/", rel) != 0)
		return 0;
	err = sp_bundle_check(r->s->bundle, rel);
	if (err == -ENOENT || err == -ENOTDIR) {
		note(r, buf, "absent");
		return 0;
	}
	if (err < 0) {
		note(r, buf, err == -ELOOP ? "a symlink: not read outside "
		    "the bundle" : sp_strerror(err));
		return 0;
	}
	return debug_at(r, buf, NULL);
}

/* The bundle's copy, then DIR/.build-id/xx/rest.debug (GDB: "Debugging
 * Information in Separate Files") under each root. */
static int
by_build_id(struct search *r)
{
	char buf[PATH_MAX], rest[2 * SP_ELF_BUILD_ID_MAX + 8], xx[3];
	size_t i, j;
	int err = 0;

	if (r->id == NULL || r->id_len < 2 || r->id_len > SP_ELF_BUILD_ID_MAX)
		return 0;
	if (r->s->bundle != NULL && (err = bundle_debug(r)) != 0)
		return err;
	sp_hex(xx, r->id, 1);
	sp_hex(rest, r->id + 1, r->id_len - 1);
	memcpy(rest + 2 * (r->id_len - 1), ".debug", sizeof(".debug"));
	for (i = 0; i < r->nroots && err == 0; i++)
		for (j = 0; j < r->ndirs && err == 0; j++) {
			char dir[PATH_MAX];

			if (join(dir, r->roots[i], r->dirs[j], "/.build-id/") ||
			    join(buf, dir, xx, "/") ||
			    join(dir, buf, rest, ""))
				continue;
			err = debug_at(r, dir, NULL);
		}
	return err;
}

/* The directory part of the recorded path, with its trailing '/'. */
static void
dir_of(const char *path, char *dir)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash != NULL ? (size_t)(slash - path) + 1 : 0;

	memcpy(dir, path, n);
	dir[n] = '\0';
}

static int
by_debuglink(struct search *r)
{
	char buf[PATH_MAX], base[PATH_MAX], dir[PATH_MAX];
	const char *name;
	uint32_t crc;
	size_t i, j;
	int err = 0;

	if (r->out->binary == NULL || strlen(r->path) >= PATH_MAX ||
	    spi_elf_file_debuglink(r->out->binary, &name, &crc) != 0)
		return 0;
	dir_of(r->path, dir);
	for (i = 0; i < r->nroots && err == 0; i++) {
		if (join(base, r->roots[i], dir, "") != 0)
			continue;
		if (join(buf, base, name, "") == 0)
			err = debug_at(r, buf, &crc);
		if (err == 0 && join(buf, base, ".debug/", name) == 0)
			err = debug_at(r, buf, &crc);
		for (j = 0; j < r->ndirs && err == 0 && dir[0] == '/'; j++)
			if (join(base, r->roots[i], r->dirs[j], dir) == 0 &&
			    join(buf, base, name, "") == 0)
				err = debug_at(r, buf, &crc);
	}
	return err;
}

/* Last: a debuginfod server, for a module nothing here names in full. */
static int
by_debuginfod(struct search *r)
{
	char path[PATH_MAX];
	struct sp_diag said;
	uint64_t fetched;
	int err;

	if (r->s->debuginfod == NULL || r->id == NULL || r->out->debug != NULL ||
	    (r->out->binary != NULL &&
	    spi_elf_file_has_section(r->out->binary, ".debug_info")))
		return 0;
	err = sp_debuginfod_find(r->s->debuginfod, r->id, r->id_len, path,
	    sizeof(path), &fetched, &said);
	if (err < 0)
		return err;
	(void)snprintf(r->out->debuginfod_said,
	    sizeof(r->out->debuginfod_said), "%s", said.msg);
	if (err > 0) {
		if (said.msg[0] != '\0')
			note(r, "debuginfod", said.msg);
		return 0;
	}
	if ((err = debug_at(r, path, NULL)) != 0)
		return err;
	if (r->out->debug != NULL) {
		r->out->debuginfod = 1;
		r->out->fetched = fetched;
	}
	return 0;
}

int
spi_debug_find(const struct sp_debug_search *s, const char *path,
    const uint8_t *build_id, size_t id_len, struct sp_debug_found *out)
{
	static const char *const dflt[] = { SP_DEBUG_DIR_DEFAULT };
	struct search r;
	const uint8_t *id;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (s->ndebug_dirs > SP_DEBUG_DIRS_MAX)
		return -SP_EUSAGE;
	r.s = s;
	r.dirs = s->ndebug_dirs > 0 ? s->debug_dirs : dflt;
	r.ndirs = s->ndebug_dirs > 0 ? s->ndebug_dirs : 1;
	/* A sysroot holds absolute paths only; "[vdso]" is nowhere. */
	if (s->sysroot != NULL && path[0] == '/')
		r.roots[r.nroots++] = s->sysroot;
	r.roots[r.nroots++] = "";
	r.path = path;
	r.out = out;
	if (id_len > 0) {
		r.id = build_id;
		r.id_len = id_len;
	}
	err = find_binary(&r);
	/* Without a recorded id, the binary found names its debug file. */
	if (err == 0 && r.id == NULL && out->binary != NULL &&
	    spi_elf_file_build_id(out->binary, &id, &len) == 0) {
		r.id = id;
		r.id_len = len;
	}
	if (err == 0)
		err = by_build_id(&r);
	if (err == 0)
		err = by_debuglink(&r);
	if (err == 0)
		err = by_debuginfod(&r);
	return err;
}

void
spi_debug_found_fini(struct sp_debug_found *f)
{
	spi_elf_file_free(f->binary);
	spi_elf_file_free(f->debug);
	memset(f, 0, sizeof(*f));
}

int
sp_debug_dirs_parse(const char *spec, struct sp_debug_dirs *out)
{
	char *p, *save = NULL, *tok;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (spec == NULL || spec[strspn(spec, ":")] == '\0')
		spec = SP_DEBUG_DIR_DEFAULT;
	out->buf = strdup(spec);
	out->dirs = calloc(SP_DEBUG_DIRS_MAX, sizeof(*out->dirs));
	if (out->buf == NULL || out->dirs == NULL) {
		sp_debug_dirs_fini(out);
		return -ENOMEM;
	}
	for (p = out->buf; (tok = strtok_r(p, ":", &save)) != NULL; p = NULL) {
		if (n == SP_DEBUG_DIRS_MAX) {
			sp_debug_dirs_fini(out);
			return -SP_ELIMIT;
		}
		out->dirs[n++] = tok;
	}
	out->n = n;
	return 0;
}

int
sp_debug_dirs_from_env(struct sp_debug_dirs *out)
{
	/* The caller's environment, read once; libsp never changes it. */
	/* NOLINTNEXTLINE(concurrency-mt-unsafe) */
	return sp_debug_dirs_parse(getenv(SP_DEBUG_DIRS_ENV), out);
}

void
sp_debug_dirs_fini(struct sp_debug_dirs *d)
{
	free(d->dirs);
	free(d->buf);
	memset(d, 0, sizeof(*d));
}
