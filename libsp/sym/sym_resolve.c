/* SPDX-License-Identifier: MIT */
/*
 * One frame's symbol: perf map, ELF (sym_elf.c), kallsyms, or the address
 * alone, in that order; and why it stayed address-only (sym_report.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "sp/common/bundle.h"
#include "sp/spool/format.h"
#include "sym_int.h"

int
spi_sym_set_python(struct sym_ctx *c, uint32_t host, uint32_t pid,
    int is_python)
{
	size_t i;

	for (i = 0; i < c->npids; i++)
		if (c->pids[i].host == host && c->pids[i].pid == pid) {
			c->pids[i].python = is_python;
			return 0;
		}
	if (spi_grow_zeroed(&c->pids, &c->cappids, c->npids + 1,
	    sizeof(*c->pids)) != 0)
		return -ENOMEM;
	c->pids[c->npids].host = host;
	c->pids[c->npids].pid = pid;
	c->pids[c->npids++].python = is_python;
	return 0;
}

static int
str_is(const struct sp_str *s, const char *z)
{
	size_t n = strlen(z);

	return s->len == n && memcmp(s->s, z, n) == 0;
}

/*
 * Whether host is the one the header describes: host 0, or a HOST record
 * equal to the header (name, release, machine, page size, boot id).
 * sp-merge writes every input's header as such a record, the first
 * input's (whose header the output takes) too: its kernel frames and
 * perf maps are still the header host's, named by its kallsyms.
 */
static int
header_host(const struct sym_ctx *c, uint32_t host)
{
	static const uint8_t zero[16];
	const struct sp_header *hd = c->hdr;
	const struct sp_host *h;

	if (host == 0)
		return 1;
	h = sp_defs_host(c->defs, host);
	if (h == NULL || !str_is(&h->hostname, hd->hostname) ||
	    !str_is(&h->release, hd->release) ||
	    !str_is(&h->machine, hd->machine) || h->page_size != hd->page_size)
		return 0;
	return memcmp(hd->boot_id, h->has_boot_id ? h->boot_id : zero,
	    16) == 0;
}

/* Perf maps are read for Python runtimes and for what the user allows. */
static int
perf_map_allowed(const struct sym_ctx *c, uint32_t host, uint32_t pid)
{
	size_t i;

	if (c->o->perf_maps_none)
		return 0;
	if (c->o->perf_maps_all)
		return 1;
	for (i = 0; i < c->o->nperf_map_pids; i++)
		if (c->o->perf_map_pids[i] == pid && header_host(c, host))
			return 1;
	for (i = 0; i < c->npids; i++)
		if (c->pids[i].host == host && c->pids[i].pid == pid)
			return c->pids[i].python;
	return 0;
}

/* DIR/perf-PID.map of the perf map directory (default /tmp) into path;
 * 0, or -1 when it does not fit. */
static int
pmap_path(const struct sym_ctx *c, uint32_t pid, char *path, size_t cap)
{
	int n = snprintf(path, cap, "%s/perf-%u.map",
	    c->o->perf_map_dir != NULL ? c->o->perf_map_dir : "/tmp", pid);

	return n > 0 && (size_t)n < cap ? 0 : -1;
}

/*
 * The bundle's copy first (the recorder checked its owner when it copied
 * it), then DIR/perf-PID.map, which must belong to the process's uid as
 * the spool records it (uid_plus1).  Spools from before the uid was
 * recorded: the map must belong to the user running sp-sym, or, run as
 * root, to anyone.  Never through a symlink.
 */
static struct sp_perf_map *
pmap_read(const struct sym_ctx *c, uint32_t pid, uint32_t uid_plus1)
{
	struct sp_perf_map *m = NULL;
	char path[4096];
	uid_t uid = geteuid() == 0 ? (uid_t)-1 : geteuid();
	struct stat st;
	int n;

	if (c->o->bundle != NULL) {
		n = snprintf(path, sizeof(path), "%s/perf-maps/perf-%u.map",
		    c->o->bundle, pid);
		if (n > 0 && (size_t)n < sizeof(path) &&
		    sp_bundle_check(c->o->bundle, path + strlen(c->o->bundle) +
		    1) == 0 && spi_perf_map_open(path, uid, &m, NULL) == 0)
			return m;
	}
	if (uid_plus1 != 0)
		uid = (uid_t)(uid_plus1 - 1);
	if (pmap_path(c, pid, path, sizeof(path)) < 0)
		return NULL;
	/* Written after the recording: the pid's next process's. */
	if (c->o->perf_map_before != 0 && lstat(path, &st) == 0 &&
	    (int64_t)st.st_mtime > c->o->perf_map_before) {
		c->rep->perf_maps_late++;
		return NULL;
	}
	if (spi_perf_map_open(path, uid, &m, NULL) == 0)
		return m;
	return NULL;
}

/* The size and mtime of pid's map in the perf map directory (-1: none). */
static void
pmap_stat(const struct sym_ctx *c, uint32_t pid, int64_t *size,
    int64_t *mtime_ns)
{
	char path[4096];
	struct stat st;

	*size = -1;
	*mtime_ns = 0;
	if (pmap_path(c, pid, path, sizeof(path)) == 0 &&
	    lstat(path, &st) == 0) {
		*size = (int64_t)st.st_size;
		*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		    st.st_mtim.tv_nsec;
	}
}

size_t
spi_sym_pmaps_refresh(struct sym_ctx *c, uint32_t *pids, size_t cap)
{
	size_t i = 0, n = 0;
	int64_t size, mtime_ns;

	while (i < c->npmaps) {
		struct sym_pmap *v = &c->pmaps[i];

		pmap_stat(c, v->pid, &size, &mtime_ns);
		if (size == v->size && mtime_ns == v->mtime_ns) {
			i++;
			continue;
		}
		if (n < cap)
			pids[n] = v->pid;
		n++;
		spi_perf_map_free(v->map);
		*v = c->pmaps[--c->npmaps];
	}
	return n;
}

static int
pmap_get(struct sym_ctx *c, const struct sp_module *m,
    const struct sp_perf_map **out)
{
	uint32_t host = m->host, pid = m->pid;
	struct sym_pmap *v;
	size_t i;

	*out = NULL;
	for (i = 0; i < c->npmaps; i++)
		if (c->pmaps[i].host == host && c->pmaps[i].pid == pid) {
			*out = c->pmaps[i].map;
			return 0;
		}
	if (spi_grow_zeroed(&c->pmaps, &c->cappmaps, c->npmaps + 1,
	    sizeof(*c->pmaps)) != 0)
		return -ENOMEM;
	v = &c->pmaps[c->npmaps++];
	v->host = host;
	v->pid = pid;
	pmap_stat(c, pid, &v->size, &v->mtime_ns);
	/* Other hosts' maps are not on this machine. */
	v->map = header_host(c, host) ? pmap_read(c, pid, m->uid_plus1) :
	    NULL;
	if (v->map != NULL)
		c->rep->perf_maps++;
	*out = v->map;
	return 0;
}

/*
 * The entry naming ip, a frame's address: a caller's comes rewound by 1
 * into its call.  A runtime that pushes a return address of its own (the
 * root of a BEAM process's stack returns to normal_exit/0) was never
 * called from the byte before: that byte is in no entry, or in the code
 * info header the Erlang JIT writes before each function
 * (NAME-CodeInfoPrologue, data after a call of its own), so the entry
 * that begins at ip + 1 is the frame's, as perf names it.  A call that
 * ends a function stays in it.
 */
static const struct spi_perf_map_entry *
pushed_entry(const struct sp_perf_map *map, uint64_t ip)
{
	static const char info[] = "-CodeInfoPrologue";
	const struct spi_perf_map_entry *e = spi_perf_map_find(map, ip), *n;
	size_t k = sizeof(info) - 1;

	if (e != NULL && !(e->name_len > k &&
	    memcmp(e->name + e->name_len - k, info, k) == 0))
		return e;
	n = ip < UINT64_MAX ? spi_perf_map_find(map, ip + 1) : NULL;
	return n != NULL && n->start == ip + 1 ? n : e;
}

int
spi_sym_pmap_frame(struct sym_ctx *c, const struct sp_module *m, uint64_t ip)
{
	const struct sp_perf_map *map;
	const struct spi_perf_map_entry *e;
	const char *fn, *file;
	size_t fnlen, filelen;
	int err;

	if (m->pid == 0 || !perf_map_allowed(c, m->host, m->pid))
		return 0;
	err = pmap_get(c, m, &map);
	if (err < 0 || map == NULL)
		return err;
	e = pushed_entry(map, ip);
	if (e == NULL)
		return 0;
	c->sym.origin = SP_ORIGIN_PERF_MAP;
	if (spi_perf_map_python(e->name, e->name_len, &fn, &fnlen, &file,
	    &filelen) && fnlen > 0) {
		c->sym.flags |= SP_SYM_PYTHON_FRAME;
		err = spi_sym_add_line(c, fn, fnlen, file, filelen, 0);
	} else {
		c->sym.flags |= SP_SYM_JIT;
		err = spi_sym_add_line(c, e->name, e->name_len, NULL, 0, 0);
	}
	return err < 0 ? err : 1;
}

/*
 * This host's /proc/kallsyms names the spool's kernel frames only when
 * the spool was recorded in this boot: KASLR moves the kernel at every
 * boot, so the same release is not enough.  Without a recorded boot id,
 * the host name and release must match.
 */
static int
same_boot(const struct sp_header *h, const struct sp_header *me)
{
	static const uint8_t zero[16];

	if (memcmp(h->boot_id, zero, 16) != 0)
		return memcmp(h->boot_id, me->boot_id, 16) == 0;
	return strcmp(h->release, me->release) == 0 &&
	    strcmp(h->hostname, me->hostname) == 0;
}

static void
kallsyms_load(struct sym_ctx *c)
{
	char *k = c->rep->kernel, path[4096];
	size_t cap = sizeof(c->rep->kernel);
	struct sp_header me;
	const char *src = c->o->kallsyms;
	int err;

	c->ktried = 1;
	if (c->o->kernel_none) {
		(void)snprintf(k, cap, "none asked for");
		return;
	}
	if (src == NULL && c->o->bundle != NULL) {
		(void)snprintf(path, sizeof(path), "%s/kallsyms", c->o->bundle);
		err = sp_bundle_check(c->o->bundle, "kallsyms");
		if (err == -ELOOP || err == -EPERM || err == -EINVAL) {
			(void)snprintf(k, cap, "%.200s: %s: not read", path,
			    err == -ELOOP ? "a symlink" : "not a regular file");
			return;
		}
		if (err == 0)
			src = path;
	}
	if (src == NULL) {
		if (sp_header_init_host(&me) < 0 || !same_boot(c->hdr, &me)) {
			(void)snprintf(k, cap, "the spool was recorded on %s "
			    "(kernel %s) in another boot: give its kallsyms or "
			    "bundle (the kallsyms or bundle option: sp-sym's "
			    "--kallsyms FILE, --bundle DIR)", c->hdr->hostname,
			    c->hdr->release);
			return;
		}
		src = "/proc/kallsyms";
	}
	err = spi_kallsyms_open(src, &c->ksyms, NULL);
	if (err < 0)
		(void)snprintf(k, cap, "%.200s: %s", src, sp_strerror(err));
	else if (spi_kallsyms_count(c->ksyms) == 0)
		(void)snprintf(k, cap, "%.200s: %s", src,
		    spi_kallsyms_hidden(c->ksyms) ? "addresses hidden "
		    "(kptr_restrict): read it as root, or record with --bundle" :
		    "no text symbols");
	else
		(void)snprintf(k, cap, "%.300s", src);
}

static int
kernel_frame(struct sym_ctx *c, const struct sp_module *m, uint64_t ip)
{
	const char *name, *mod = NULL;
	char modname[256];
	int err;

	/* Time in the kernel recorded without its callchain: one frame
	 * with no address, named as such. */
	if (m == NULL && ip == 0) {
		c->sym.origin = SP_ORIGIN_KERNEL;
		err = spi_sym_add_line(c, SP_KERNEL_FRAME_NAME,
		    strlen(SP_KERNEL_FRAME_NAME), NULL, 0, 0);
		return err < 0 ? err : 1;
	}
	/* kallsyms (this boot's, --kallsyms, the bundle's) is the
	 * header host's kernel. */
	if (m != NULL && !header_host(c, m->host))
		return 0;
	if (!c->ktried)
		kallsyms_load(c);
	if (c->ksyms == NULL ||
	    (name = spi_kallsyms_find(c->ksyms, ip, NULL, &mod)) == NULL)
		return 0;
	c->sym.origin = SP_ORIGIN_KERNEL;
	if (mod != NULL) {
		/* Loadable modules keep their kallsyms name, as [ext4]. */
		(void)snprintf(modname, sizeof(modname), "[%s]", mod);
		err = spi_sym_string(c, modname, strlen(modname),
		    &c->sym.module_name);
		if (err < 0)
			return err;
	}
	err = spi_sym_add_line(c, name, strlen(name), NULL, 0, 0);
	return err < 0 ? err : 1;
}

static int
address_only(struct sym_ctx *c, const struct sp_frame *f, uint32_t frame)
{
	const struct sp_module *m = sp_defs_module(c->defs, f->module);
	char buf[512];
	size_t n;

	c->sym.origin = SP_ORIGIN_ADDRESS;
	c->sym.count = 0;
	c->func_offset_plus1 = 0;
	if (frame != 0)
		n = sp_format_frame(c->defs, frame, buf, sizeof(buf));
	/* A kernel module's offsets are addresses (as sp_format_frame). */
	else if (m != NULL && !(m->flags & SP_MOD_KERNEL))
		n = (size_t)snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
		    sp_module_basename(c->defs, f->module), f->rel_ip);
	else
		n = (size_t)snprintf(buf, sizeof(buf), "0x%" PRIx64, f->abs_ip);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return spi_sym_add_line(c, buf, n, NULL, 0, 0);
}

/* The name of input module id module (not 0), interned once. */
static int
module_name(struct sym_ctx *c, uint32_t module)
{
	const char *base;
	int err;

	if (module <= c->capmodname_of && c->modname_of[module - 1] != 0) {
		c->sym.module_name = c->modname_of[module - 1];
		return 0;
	}
	base = sp_module_basename(c->defs, module);
	err = spi_sym_string(c, base, strlen(base), &c->sym.module_name);
	if (err == 0 && spi_grow_zeroed(&c->modname_of, &c->capmodname_of,
	    module, sizeof(*c->modname_of)) == 0)
		c->modname_of[module - 1] = c->sym.module_name;
	return err;
}

static int
is_kernel(const struct sp_frame *f, const struct sp_module *m)
{
	return f->mode == SP_FRAME_KERNEL ||
	    (m != NULL && (m->flags & SP_MOD_KERNEL));
}

/* Why kernel frame f of m stayed address-only (kernel_frame named none). */
static void
kernel_why(const struct sym_ctx *c, const struct sp_module *m, char *why,
    size_t cap)
{
	if (m != NULL && !header_host(c, m->host))
		(void)snprintf(why, cap, "kernel of another host than the "
		    "spool header's, whose kallsyms are the only ones read");
	else if (c->ksyms == NULL || spi_kallsyms_count(c->ksyms) == 0)
		(void)snprintf(why, cap, "no kernel symbols: %.200s",
		    c->rep->kernel);
	else
		(void)snprintf(why, cap, "not in kallsyms (code loaded after "
		    "it was read, or another kernel's)");
}

/*
 * Why frame f of m (or of no module) stayed address-only when no file
 * was read for it: for the report, which groups frames by module and
 * reason.
 */
static int
unnamed_why(struct sym_ctx *c, const struct sp_frame *f,
    const struct sp_module *m, char *why, size_t cap)
{
	const struct sp_perf_map *map = NULL;
	int err;

	if (is_kernel(f, m))
		kernel_why(c, m, why, cap);
	else if (m == NULL)
		(void)snprintf(why, cap, "no module was mapped there");
	else if ((m->flags & SP_MOD_VDSO) && m->build_id_len == 0)
		(void)snprintf(why, cap, "the vDSO's build-id was not recorded "
		    "(an older sp-record)");
	else if (!(m->flags & SP_MOD_ANON))
		(void)snprintf(why, cap, "no file to read: the recorded path "
		    "is not an absolute file path");
	else if (m->pid == 0 || !perf_map_allowed(c, m->host, m->pid))
		/* Said for the library's options and sp-sym's flags alike. */
		(void)snprintf(why, cap, "anonymous memory (JIT code?): its "
		    "perf map was not asked for (its pid in perf_map_pids, or "
		    "perf_maps_all: sp-sym's --perf-maps-for PID, --perf-maps "
		    "all)");
	else if ((err = pmap_get(c, m, &map)) < 0)
		return err;
	else
		(void)snprintf(why, cap, map == NULL ? "anonymous memory: no "
		    "perf map of its process was found" : "anonymous memory: "
		    "not in its process's perf map");
	return 0;
}

/*
 * One rule for a frame in a file: its own symbols name it, its process's
 * perf map only what they do not, as perf does.  node's map names some
 * of its builtins (Builtin:JSEntry), its .symtab all of them
 * (Builtins_JSEntry).  JIT code in anonymous memory has only the map.
 * As spi_sym_elf_frame returns.
 */
int
spi_sym_file_frame(struct sym_ctx *c, const struct sp_frame *f,
    const struct sp_module *m)
{
	int r = spi_sym_elf_frame(c, f->module, m, f->rel_ip);

	if (r == 2 && (r = spi_sym_pmap_frame(c, m, f->abs_ip)) == 0)
		r = spi_sym_elf_unnamed(c, f->module, m);
	return r;
}

int
spi_sym_resolve_frame(struct sym_ctx *c, const struct sp_frame *f,
    uint32_t frame)
{
	const struct sp_module *m;
	char why[256];
	int r = 0;

	c->func_offset_plus1 = 0;
	if (f->mode == SP_FRAME_TRUNCATED) {
		c->sym.flags |= SP_SYM_TRUNCATED;
		return address_only(c, f, frame);
	}
	m = sp_defs_module(c->defs, f->module);
	if (m != NULL && (r = module_name(c, f->module)) < 0)
		return r;
	if (is_kernel(f, m))
		r = kernel_frame(c, m, f->abs_ip);
	else if (m != NULL && f->mode == SP_FRAME_USER &&
	    !(m->flags & (SP_MOD_KERNEL | SP_MOD_ANON)))
		r = c->native != NULL ? c->native(c, f->module, m, f) :
		    spi_sym_file_frame(c, f, m);
	if (r == 0 && m != NULL && !is_kernel(f, m))
		r = spi_sym_pmap_frame(c, m, f->abs_ip);
	if (r < 0 || r == 3)
		return r;
	if (r == 1)
		return 0;
	/* 2: spi_sym_elf_frame counted it under its file. */
	if (r == 0 && ((r = unnamed_why(c, f, m, why, sizeof(why))) < 0 ||
	    (r = spi_sym_report_frame(c, f->module, m, why)) < 0))
		return r;
	return address_only(c, f, frame);
}

int
spi_sym_resolve(struct sym_ctx *c, uint32_t frame)
{
	const struct sp_frame *f = sp_defs_frame(c->defs, frame);

	if (f == NULL)
		return -SP_EREF;
	return spi_sym_resolve_frame(c, f, frame);
}

void
spi_sym_ctx_fini(struct sym_ctx *c)
{
	size_t i;

	spi_sym_files_free(c);
	free(c->unnamed_of);
	free(c->modname_of);
	for (i = 0; i < c->npmaps; i++)
		spi_perf_map_free(c->pmaps[i].map);
	free(c->pmaps);
	free(c->pids);
	spi_kallsyms_free(c->ksyms);
}
