/* SPDX-License-Identifier: MIT */
/*
 * Which mapped files go into a bundle, and into which one.  With a
 * bundle that keeps binaries, every file a sample touches.  Otherwise,
 * by default, the files sp-sym could not find on this host by the path
 * the process mapped them by: a binary in a container's mount namespace
 * (the host has no such path, or another file there), one deleted or
 * replaced since.  perf names them because it fills its build-id cache
 * while it records; these go, by build-id, into the caller's bundle or
 * the one beside the spool (SPOOL.bundle), within a budget of bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_int.h"
#include "rec_ctx_int.h"

int
spi_rec_same_build(struct sp_elf_file *e, const struct rec_file *f)
{
	const uint8_t *id;
	size_t len;
	int same = e != NULL && spi_elf_file_build_id(e, &id, &len) == 0 &&
	    len == f->build_id_len && memcmp(id, f->build_id, len) == 0;

	spi_elf_file_free(e);
	return same;
}

int
spi_rec_unreachable(const char *path, const struct rec_file *f)
{
	struct sp_elf_file *e = NULL;
	struct stat st;

	/* No path (anonymous, [vdso]): no file for sp-sym to look for. */
	if (path[0] != '/' || f->build_id_len == 0)
		return 0;
	if (stat(path, &st) < 0)
		return 1;
	if ((uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino)
		return 0;
	/* Another inode: the host's own copy of the same build (a
	 * container's image that is the host's libc) serves sp-sym as
	 * well; another build would be refused by it. */
	if (spi_elf_file_open(path, &e, NULL) != 0)
		e = NULL;
	return !spi_rec_same_build(e, f);
}

/* The bundle beside the spool, made at the first file kept in it; NULL
 * when there is none to make (said once). */
static struct sp_bundle *
own_bundle(struct rec_ctx *r)
{
	struct rec_keep *k = &r->keep;
	struct sp_diag diag;

	if (k->own != NULL || k->failed)
		return k->own;
	k->failed = 1;
	if (k->dir == NULL) {
		spi_rec_log(r, "files only the targets' mount namespaces reach "
		    "are not kept: no bundle (the spool goes to standard "
		    "output; --bundle DIR keeps them)");
		return NULL;
	}
	diag.msg[0] = '\0';
	if (sp_bundle_open(k->dir, 0, &k->own, &diag) < 0) {
		spi_rec_log(r, "%s; files only the targets' mount namespaces "
		    "reach are not kept", diag.msg);
		return NULL;
	}
	k->failed = 0;
	return k->own;
}

int
spi_rec_keep(struct rec_ctx *r, const struct rec_file *f, int fd,
    const char *origin, int debug)
{
	struct rec_keep *k = &r->keep;
	struct sp_bundle *b = NULL;
	struct stat st;
	uint64_t size = 0;
	int err;

	if (!sp_bundle_keeps_binaries(r->bundle) && !f->unreachable)
		return 0;
	if (f->unreachable) {
		if (fstat(fd, &st) < 0)
			return -errno;
		size = (uint64_t)st.st_size;
		if (size <= k->max - k->used)
			b = r->bundle != NULL ? r->bundle : own_bundle(r);
		if (b == NULL) {
			r->c[C_UNREACHABLE_SKIPPED]++;
			r->c[C_UNREACHABLE_SKIPPED_BYTES] += size;
			return 0;
		}
	} else
		b = r->bundle;
	err = debug ? sp_bundle_debug(b, fd, f->build_id, f->build_id_len,
	    origin) : sp_bundle_binary(b, fd, f->build_id, f->build_id_len,
	    origin);
	if (err == 0 && f->unreachable) {
		k->used += size;
		r->c[C_UNREACHABLE_KEPT]++;
		r->c[C_UNREACHABLE_KEPT_BYTES] += size;
	}
	return err;
}

int
spi_rec_keep_finish(struct rec_ctx *r)
{
	return r->keep.own != NULL ? sp_bundle_finish(r->keep.own) : 0;
}

void
spi_rec_keep_fini(struct rec_ctx *r)
{
	sp_bundle_free(r->keep.own);
	r->keep.own = NULL;
}
