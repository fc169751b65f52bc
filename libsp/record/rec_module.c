/* SPDX-License-Identifier: MIT */
/* Executable mappings become MODULE records and address ranges with
 * their file's CFI: from PERF_RECORD_MMAP2 and from /proc/PID/maps. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/procfs_int.h"
#include "elf/elf_int.h"
#include "rec_ctx_int.h"
#include "sp/spool/format.h"
#include "unwind/cfi_table_int.h"

_Static_assert(SP_ELF_BUILD_ID_MAX <= SP_BUILD_ID_MAX,
    "a build-id the ELF layer reads fits a MODULE record");

/* A CFI table read: counted, with the sections it refused. */
static void
count_cfi(struct rec_ctx *r, const struct sp_cfi_table *t)
{
	struct spi_cfi_table_stats st;

	spi_cfi_table_stats(t, &st);
	r->c[C_CFI_FILES]++;
	r->c[C_CFI_REFUSED] += st.refused;
}

/* Out of memory or descriptors: this attempt failed, not the file. */
static int
transient(int err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE;
}

/*
 * The file open on fd (st its stat), read once per file (dev, inode)
 * while some mapping uses it: its build-id and CFI.  fd stays ours.
 * NULL when that could not be tried now (out of memory or descriptors):
 * nothing is remembered, so a later mapping of the file tries again.
 */
static struct rec_file *
file_of(struct rec_ctx *r, int fd, const struct stat *st)
{
	struct sp_elf_file *ef = NULL;
	struct rec_file *f;
	const uint8_t *id;
	size_t n;
	int dfd, err;

	for (f = r->files; f != NULL; f = f->next)
		if (f->dev == (uint64_t)st->st_dev && f->ino == (uint64_t)st->st_ino)
			return f;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->dev = (uint64_t)st->st_dev;
	f->ino = (uint64_t)st->st_ino;
	f->keep_fd = -1;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	err = dfd < 0 ? -errno : spi_elf_file_open_fd(dfd, &ef, NULL);
	/* A file that is not ELF is remembered too, with no ELF. */
	if (err == 0 && ef != NULL) {
		if (spi_elf_file_build_id(ef, &id, &n) == 0) {
			memcpy(f->build_id, id, n);
			f->build_id_len = (uint8_t)n;
		}
		f->elf = ef;
	}
	if (transient(err)) {
		free(f);
		return NULL;
	}
	f->next = r->files;
	r->files = f;
	return f;
}

/* f's ELF: its own until the CFI is read, then the table's. */
static const struct sp_elf_file *
file_elf(const struct rec_file *f)
{
	return f->cfi != NULL ? spi_cfi_table_file(f->cfi) : f->elf;
}

const struct sp_cfi_table *
spi_rec_range_cfi(struct rec_ctx *r, const struct rec_range *m)
{
	struct rec_file *f = m->file;

	if (m->cfi != NULL || f == NULL || !m->has_bias)
		return m->cfi;
	if (!f->cfi_read && f->elf != NULL) {
		f->cfi_read = 1;
		/* The table takes the file, even when it fails. */
		if (spi_cfi_table_open(f->elf, &f->cfi) == 0)
			count_cfi(r, f->cfi);
		f->elf = NULL;
	}
	return f->cfi;
}

const struct sp_elf_file *
spi_rec_range_elf(const struct rec_range *m)
{
	if (m->cfi != NULL)
		return spi_cfi_table_file(m->cfi);
	return m->file != NULL ? file_elf(m->file) : NULL;
}

/* Is fd the file (inode, maj:min) that mapping m named?  Fills st. */
static int
same_file(int fd, struct stat *st, const struct sp_map *m)
{
	return fstat(fd, st) == 0 && (uint64_t)st->st_ino == m->inode &&
	    major(st->st_dev) == m->dev_major &&
	    minor(st->st_dev) == m->dev_minor;
}

/*
 * Opens the file of mapping map in pid (path: its name, unescaped)
 * through /proc, so that containers and deleted files resolve to the
 * image the process mapped, and checks it is that inode (filling st).
 * -1 when it cannot.
 */
static int
open_mapped(uint32_t pid, const struct sp_map *map, const char *path,
    struct stat *st)
{
	char proc[4200];
	int fd;

	(void)snprintf(proc, sizeof(proc), "/proc/%u/map_files/%" PRIx64 "-%"
	    PRIx64, pid, map->start, map->end);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	/* By the time the MMAP2 record is read the mapping may be gone, or
	 * (dlclose, then dlopen of another library in the hole) be another
	 * file's: then the file is taken by its path, if it is the same. */
	if (fd >= 0 && !same_file(fd, st, map)) {
		(void)close(fd);
		fd = -1;
	}
	if (fd < 0 && path[0] == '/') {
		(void)snprintf(proc, sizeof(proc), "/proc/%u/root%s", pid, path);
		fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		/* The process has exited (its records are read late): the
		 * path as this process sees it, if it is the same file. */
		if (fd < 0 && errno == ENOENT)
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd >= 0 && !same_file(fd, st, map)) {
		(void)close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The debug file of f, with f's build-id, at root + SP_BUNDLE_DEBUG_DIR's
 * .build-id/xx/rest.debug (where GDB and Debian's -dbg and -dbgsym
 * packages put it): kept beside its binary.  A container's own (root
 * /proc/PID/root) may be a link anywhere, or no regular file: it is
 * opened without blocking and kept only when its build-id is f's.
 * 1 when it was found, else 0.
 */
static int
keep_debug_at(struct rec_ctx *r, const struct rec_file *f, const char *root)
{
	char path[128 + 2 * SP_BUILD_ID_MAX];
	struct sp_elf_file *e = NULL;
	struct stat st;
	size_t i, n;
	int fd, err, same;

	n = (size_t)snprintf(path, sizeof(path), "%s%s/.build-id/%02x/", root,
	    SP_BUNDLE_DEBUG_DIR, f->build_id[0]);
	for (i = 1; i < f->build_id_len && n + 3 < sizeof(path); i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x",
		    f->build_id[i]);
	(void)snprintf(path + n, sizeof(path) - n, ".debug");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return 0;
	}
	err = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (err < 0 || spi_elf_file_open_fd(err, &e, NULL) != 0)
		e = NULL;
	same = spi_rec_same_build(e, f);
	err = same ? spi_rec_keep(r, f, fd, path, 1) : 0;
	if (err < 0)
		spi_rec_log(r, "bundle: could not keep %s: %s", path,
		    sp_strerror(err));
	(void)close(fd);
	return same;
}

/* The module's debug file: for a file only pid's namespace reaches, its
 * own debug directory's first; then this host's. */
static void
keep_debug(struct rec_ctx *r, uint32_t pid, const struct rec_file *f)
{
	char root[32];

	if (f->build_id_len < 2)
		return;
	(void)snprintf(root, sizeof(root), "/proc/%u/root", pid);
	if (f->unreachable && keep_debug_at(r, f, root))
		return;
	(void)keep_debug_at(r, f, "");
}

void
spi_rec_keep_binary(struct rec_ctx *r, uint32_t pid, const struct rec_range *m)
{
	struct rec_file *f = m->file;
	struct sp_map map;
	struct stat st;
	int fd = f->keep_fd, err;

	f->keep_fd = -1;
	if (fd < 0) {
		memset(&map, 0, sizeof(map));
		map.start = m->start;
		map.end = m->end;
		map.inode = f->ino;
		map.dev_major = major((dev_t)f->dev);
		map.dev_minor = minor((dev_t)f->dev);
		fd = open_mapped(pid, &map, f->path, &st);
	}
	err = fd < 0 ? -ENOENT : spi_rec_keep(r, f, fd, f->path, 0);
	if (err < 0)
		spi_rec_log(r, "bundle: could not keep %s: %s", f->path,
		    sp_strerror(err));
	if (fd >= 0) {
		keep_debug(r, pid, f);
		(void)close(fd);
	}
	free(f->path); /* once, kept or not */
	f->path = NULL;
	f->kept = 1;
}

/*
 * Whether f, mapped from fd by path, is to be kept once a sample touches
 * it: every file for a bundle that keeps binaries; else one this host's
 * path does not lead to (decided once per file), which keeps fd open
 * meanwhile.
 */
static int
to_keep(struct rec_ctx *r, struct rec_file *f, int fd, const char *path)
{
	if (f->build_id_len == 0 || f->kept)
		return 0;
	if (sp_bundle_keeps_binaries(r->bundle))
		return 1;
	if (!f->judged) {
		f->judged = 1;
		f->unreachable = r->keep.max > 0 &&
		    spi_rec_unreachable(path, f);
		if (f->unreachable)
			f->keep_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	}
	return f->unreachable;
}

/*
 * The file of mapping map in pid (path: its name, unescaped): its
 * build-id into m and its CFI into range; with a bundle, its path, for
 * keeping it once a sample touches it.
 */
static void
map_file(struct rec_ctx *r, uint32_t pid, const struct sp_map *map,
    const char *path, struct sp_module *m, struct rec_range *range)
{
	struct stat st;
	int fd = open_mapped(pid, map, path, &st);

	if (fd < 0)
		return;
	if ((range->file = file_of(r, fd, &st)) != NULL) {
		struct rec_file *f = range->file;
		const struct sp_elf_file *elf = file_elf(f);
		uint64_t vaddr;

		/* The file may be another mapping's whose CFI a walk has read
		 * already (a second process, a rescan after lost events):
		 * then the table holds the ELF. */
		if (elf != NULL &&
		    spi_elf_file_exec_vaddr(elf, range->offset, &vaddr) == 0) {
			range->has_bias = 1;
			range->bias = range->start - vaddr;
			if (vaddr != UINT64_MAX)
				m->elf_vaddr_plus1 = vaddr + 1;
		}
		if (f->build_id_len > 0) {
			memcpy(m->build_id, f->build_id, f->build_id_len);
			m->build_id_len = f->build_id_len;
		}
		/* Not kept yet: no sample may touch it (PostgreSQL maps
		 * 31 MB of libicudata and runs none of it). */
		if (f->path == NULL && to_keep(r, range->file, fd, path))
			range->file->path = strdup(path);
	}
	(void)close(fd);
}

static uint32_t
module_flags(const char *path, size_t *len)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;
	uint32_t f = 0;

	if (*len >= dl && memcmp(path + *len - dl, deleted, dl) == 0) {
		f |= SP_MOD_DELETED;
		*len -= dl;
	}
	if (*len == 6 && memcmp(path, "[vdso]", 6) == 0)
		f |= SP_MOD_VDSO;
	if (*len == 0 || (*len >= 6 && memcmp(path, "//anon", 6) == 0) ||
	    (path[0] == '[' && !(f & SP_MOD_VDSO)))
		f |= SP_MOD_ANON;
	if (*len >= 7 && memcmp(path, "/memfd:", 7) == 0)
		f |= SP_MOD_MEMFD;
	return f;
}

/* With a bundle, keeps the vdso image (len bytes) by its build-id, so
 * that sp-sym can name its functions on another machine. */
static void
keep_vdso(struct rec_ctx *r, const uint8_t *image, size_t len)
{
	int fd = memfd_create("vdso", MFD_CLOEXEC), err;

	if (fd < 0)
		err = -errno;
	else if (write(fd, image, len) != (ssize_t)len)
		err = -EIO;
	else
		err = sp_bundle_binary(r->bundle, fd, r->vdso_id,
		    r->vdso_id_len, "[vdso]");
	if (err < 0)
		spi_rec_log(r, "bundle: could not keep the [vdso]: %s",
		    sp_strerror(err));
	if (fd >= 0)
		(void)close(fd);
}

/*
 * The [vdso] has no file: read its image out of the process
 * (/proc/PID/mem) once per recorder (one kernel, one vdso), unwind with
 * its own .eh_frame, and record its build-id (sp-sym finds the image by
 * it: in a bundle, or its own when it runs on the same kernel).
 */
static void
vdso_cfi(struct rec_ctx *r, uint32_t pid, struct rec_range *range,
    struct sp_module *m)
{
	char path[64];
	struct sp_elf_file *ef;
	const uint8_t *id;
	uint8_t *image;
	size_t len = (size_t)(range->end - range->start), n;
	uint64_t vaddr;
	int fd;

	if (r->vdso == NULL && !r->vdso_tried && len <= ((size_t)1 << 20)) {
		r->vdso_tried = 1;
		(void)snprintf(path, sizeof(path), "/proc/%u/mem", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		image = malloc(len);
		if (fd >= 0 && image != NULL &&
		    pread(fd, image, len, (off_t)range->start) == (ssize_t)len &&
		    spi_elf_file_open_mem(image, len, &ef, NULL) == 0) {
			if (spi_elf_file_build_id(ef, &id, &n) == 0) {
				memcpy(r->vdso_id, id, n);
				r->vdso_id_len = (uint8_t)n;
			}
			if (spi_cfi_table_open(ef, &r->vdso) == 0) {
				spi_cfi_table_find_sigreturn(r->vdso);
				count_cfi(r, r->vdso);
			}
			if (sp_bundle_keeps_binaries(r->bundle) &&
			    r->vdso_id_len > 0)
				keep_vdso(r, image, len);
		}
		free(image);
		if (fd >= 0)
			(void)close(fd);
	}
	m->build_id_len = r->vdso_id_len;
	memcpy(m->build_id, r->vdso_id, r->vdso_id_len);
	if (r->vdso != NULL && spi_cfi_table_vaddr(r->vdso, 0, &vaddr) == 0) {
		range->cfi = r->vdso;
		range->bias = range->start - vaddr;
	}
}

int
spi_rec_add_mapping(struct rec_ctx *r, struct rec_proc *p,
    const struct sp_map *m)
{
	struct sp_record rec;
	struct rec_range nr;
	size_t path_len = m->path_len;
	char cpath[4097];
	int err;

	if (m->end <= m->start)
		return 0;
	memset(&rec, 0, sizeof(rec));
	memset(&nr, 0, sizeof(nr));
	nr.start = m->start;
	nr.end = m->end;
	nr.offset = m->offset;
	rec.kind = SP_REC_MODULE;
	rec.u.module.flags = module_flags(m->path, &path_len);
	/* Anonymous memory (JIT code): no file, so no path and no file
	 * offset, whether it came from MMAP2 ("//anon", pgoff = address) or
	 * /proc/PID/maps (no name).  Frames are offsets from its start. */
	if ((rec.u.module.flags & SP_MOD_ANON) && m->inode == 0 &&
	    m->path[0] != '[') {
		path_len = 0;
		nr.offset = 0;
	}
	if (path_len >= sizeof(cpath))
		path_len = sizeof(cpath) - 1;
	memcpy(cpath, m->path, path_len);
	cpath[path_len] = '\0';
	if (path_len > 0) {
		err = sp_writer_string(r->w, cpath, path_len, &rec.u.module.path);
		if (err)
			return err;
	}
	rec.u.module.pid = p->pid;
	/* sp-sym reads the process's perf map only if this uid owns it. */
	if (p->uid != (uid_t)-1)
		rec.u.module.uid_plus1 = (uint32_t)p->uid + 1;
	rec.u.module.start = m->start;
	rec.u.module.size = m->end - m->start;
	rec.u.module.file_offset = nr.offset;
	rec.u.module.inode = m->inode;
	rec.u.module.dev = (uint64_t)m->dev_major << 32 | m->dev_minor;
	if (m->inode != 0 && !(rec.u.module.flags & SP_MOD_ANON))
		map_file(r, p->pid, m, cpath, &rec.u.module, &nr);
	if (rec.u.module.flags & SP_MOD_VDSO)
		vdso_cfi(r, p->pid, &nr, &rec.u.module);
	err = sp_writer_put(r->w, &rec, &nr.module);
	if (err)
		return err;
	err = spi_rec_insert_range(r, p, &nr);
	if (err == 0 && sp_python_runtime_path(cpath, path_len))
		err = spi_rec_write_python(r, p, 1, r->now);
	return err;
}

int
spi_rec_read_maps(struct rec_ctx *r, struct rec_proc *p, char **buf,
    size_t *len)
{
	char path[64];
	int reused, err;

	*buf = NULL;
	err = spi_rec_check_reuse(r, p, &reused);
	if (err)
		return err;
	(void)snprintf(path, sizeof(path), "/proc/%u/maps", p->pid);
	return spi_read_file(path, SP_PROC_FILE_MAX, buf, len);
}

int
spi_rec_scan_maps(struct rec_ctx *r, struct rec_proc *p)
{
	char *buf;
	size_t len;
	int err = spi_rec_read_maps(r, p, &buf, &len);

	return err ? err : spi_rec_add_maps(r, p, buf, len);
}

int
spi_rec_add_maps(struct rec_ctx *r, struct rec_proc *p, char *buf, size_t len)
{
	char *line, *nl;
	struct sp_map m;
	int err = 0;

	r->c[C_MAPS_RESCANS]++;
	for (line = buf; line < buf + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		if (nl == NULL)
			nl = buf + len;
		if (spi_parse_maps_line(line, (size_t)(nl - line), &m) < 0 ||
		    !m.exec)
			continue;
		/* m.path points into buf, which is ours to change. */
		m.path_len = spi_maps_path_unescape(buf + (m.path - buf),
		    m.path_len);
		err = spi_rec_add_mapping(r, p, &m);
		if (err)
			break;
	}
	free(buf);
	return err;
}

