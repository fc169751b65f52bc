/* SPDX-License-Identifier: MIT */
/* Executable mappings become MODULE records and address ranges with
 * their file's CFI: from PERF_RECORD_MMAP2 and from /proc/PID/maps. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "unwind/cfi_table_int.h"
#include "common/procfs_int.h"
#include "recorder_int.h"
#include "sp/elfid.h"

/* Is this the path of a CPython runtime (python3.N, libpython3.N...)? */
static int
is_python_path(const char *path, size_t len)
{
	const char *base = path, *p;

	for (p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	len -= (size_t)(base - path);
	return (len >= 8 && memcmp(base, "python3.", 8) == 0) ||
	    (len >= 11 && memcmp(base, "libpython3.", 11) == 0);
}

/* The CFI of the file open on fd, read once per file (dev, inode) while
 * some mapping uses it. */
static struct rec_file *
file_cfi(struct sp_recorder *r, int fd, const struct stat *st)
{
	struct rec_file *f;
	int dfd;

	for (f = r->files; f != NULL; f = f->next)
		if (f->dev == (uint64_t)st->st_dev && f->ino == (uint64_t)st->st_ino)
			return f;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->dev = (uint64_t)st->st_dev;
	f->ino = (uint64_t)st->st_ino;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	/* A file without usable CFI is remembered too, as a NULL table. */
	if (dfd >= 0 && sp_cfi_table_open(dfd, &f->cfi) == 0) {
		r->c[C_CFI_FILES]++;
		r->c[C_CFI_REFUSED] += f->cfi->refused;
	}
	f->next = r->files;
	r->files = f;
	return f;
}

/* Is fd the file (inode, maj:min) that a mapping named?  Fills st. */
static int
same_file(int fd, struct stat *st, uint64_t inode, uint32_t maj,
    uint32_t min)
{
	return fstat(fd, st) == 0 && (uint64_t)st->st_ino == inode &&
	    major(st->st_dev) == maj && minor(st->st_dev) == min;
}

/*
 * Reads the build-id of the file mapped at [start, start+len) in pid,
 * opened through /proc so that containers and deleted files resolve to
 * the image the process mapped; checks it is that inode.
 */
static void
read_build_id(struct sp_recorder *r, uint32_t pid, uint64_t start,
    uint64_t len, uint64_t inode, uint32_t maj, uint32_t min,
    const char *path, struct sp_module *m, struct rec_range *range)
{
	char proc[4200];
	struct stat st;
	size_t n = 0;
	int fd;
	uint64_t end = start + len;

	(void)snprintf(proc, sizeof(proc), "/proc/%u/map_files/%" PRIx64 "-%"
	    PRIx64, pid, start, end);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	/* By the time the MMAP2 record is read the mapping may be gone, or
	 * (dlclose, then dlopen of another library in the hole) be another
	 * file's: then the file is taken by its path, if it is the same. */
	if (fd >= 0 && !same_file(fd, &st, inode, maj, min)) {
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
	if (fd < 0)
		return;
	if (same_file(fd, &st, inode, maj, min)) {
		uint64_t vaddr;

		range->file = file_cfi(r, fd, &st);
		range->cfi = range->file != NULL ? range->file->cfi : NULL;
		if (range->cfi != NULL &&
		    sp_cfi_table_vaddr(range->cfi, range->offset, &vaddr) == 0)
			range->bias = range->start - vaddr;
		else
			range->cfi = NULL;
		if (sp_elf_build_id(fd, m->build_id, SP_BUILD_ID_MAX, &n) == 0) {
			int err = 0;

			m->build_id_len = (uint8_t)n;
			if (r->o.bundle != NULL)
				err = sp_bundle_binary(r->o.bundle, fd,
				    m->build_id, n, path);
			if (err < 0)
				spi_rec_log(r, "bundle: could not keep %s: %s", path,
				    sp_strerror(err));
		}
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

/*
 * The [vdso] has no file: read its image out of the process
 * (/proc/PID/mem) once per recorder (one kernel, one vdso) and unwind
 * with its own .eh_frame.
 */
static void
vdso_cfi(struct sp_recorder *r, uint32_t pid, struct rec_range *range)
{
	char path[64];
	uint8_t *image;
	size_t len = (size_t)(range->end - range->start);
	uint64_t vaddr;
	int fd;

	if (r->vdso == NULL && !r->vdso_tried && len <= ((size_t)1 << 20)) {
		r->vdso_tried = 1;
		(void)snprintf(path, sizeof(path), "/proc/%u/mem", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		image = malloc(len);
		if (fd >= 0 && image != NULL &&
		    pread(fd, image, len, (off_t)range->start) == (ssize_t)len) {
			if (sp_cfi_table_open_mem(image, len, &r->vdso) == 0) {
				r->c[C_CFI_FILES]++;
				r->c[C_CFI_REFUSED] += r->vdso->refused;
			}
		} else {
			free(image);
		}
		if (fd >= 0)
			(void)close(fd);
	}
	if (r->vdso != NULL && sp_cfi_table_vaddr(r->vdso, 0, &vaddr) == 0) {
		range->cfi = r->vdso;
		range->bias = range->start - vaddr;
	}
}

int
spi_rec_add_mapping(struct sp_recorder *r, struct rec_proc *p, uint64_t start,
    uint64_t len, uint64_t pgoff, uint64_t inode, uint32_t maj, uint32_t min,
    const char *path, size_t path_len)
{
	struct sp_record rec;
	struct rec_range nr;
	char cpath[4097];
	int err;

	if (len == 0 || start + len < start)
		return 0;
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_MODULE;
	rec.u.module.flags = module_flags(path, &path_len);
	/* Anonymous memory (JIT code): no file, so no path and no file
	 * offset, whether it came from MMAP2 ("//anon", pgoff = address) or
	 * /proc/PID/maps (no name).  Frames are offsets from its start. */
	if ((rec.u.module.flags & SP_MOD_ANON) && inode == 0 && path[0] != '[') {
		path_len = 0;
		pgoff = 0;
	}
	if (path_len >= sizeof(cpath))
		path_len = sizeof(cpath) - 1;
	memcpy(cpath, path, path_len);
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
	rec.u.module.start = start;
	rec.u.module.size = len;
	rec.u.module.file_offset = pgoff;
	rec.u.module.inode = inode;
	rec.u.module.dev = (uint64_t)maj << 32 | min;
	memset(&nr, 0, sizeof(nr));
	nr.start = start;
	nr.end = start + len;
	nr.offset = pgoff;
	if (inode != 0 && !(rec.u.module.flags & SP_MOD_ANON))
		read_build_id(r, p->pid, start, len, inode, maj, min, cpath,
		    &rec.u.module, &nr);
	if (rec.u.module.flags & SP_MOD_VDSO)
		vdso_cfi(r, p->pid, &nr);
	err = sp_writer_put(r->w, &rec, &nr.module);
	if (err)
		return err;
	err = spi_rec_insert_range(r, p, &nr);
	if (err == 0 && is_python_path(cpath, path_len))
		err = spi_rec_write_python(r, p, 1, r->now);
	return err;
}

int
spi_rec_scan_maps(struct sp_recorder *r, struct rec_proc *p)
{
	char path[64], *buf, *line, *nl;
	size_t len;
	struct sp_map m;
	int reused, err;

	err = spi_rec_check_reuse(r, p, &reused);
	if (err)
		return err;
	(void)snprintf(path, sizeof(path), "/proc/%u/maps", p->pid);
	err = sp_read_file(path, SP_PROC_FILE_MAX, &buf, &len);
	if (err)
		return err;
	r->c[C_MAPS_RESCANS]++;
	for (line = buf; line < buf + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		if (nl == NULL)
			nl = buf + len;
		if (sp_parse_maps_line(line, (size_t)(nl - line), &m) < 0 ||
		    !m.exec)
			continue;
		/* m.path points into buf, which is ours to change. */
		m.path_len = sp_maps_path_unescape(buf + (m.path - buf),
		    m.path_len);
		err = spi_rec_add_mapping(r, p, m.start, m.end - m.start, m.offset,
		    m.inode, m.dev_major, m.dev_minor, m.path, m.path_len);
		if (err)
			break;
	}
	free(buf);
	return err;
}

