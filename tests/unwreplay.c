/* SPDX-License-Identifier: MIT */
/*
 * unwreplay [-v] [-p PASSES] [-s DIR -n N] SPOOL: replays the unwinder offline
 * over the RAWSTACK records of a spool made with `sp-record --raw-stacks`.
 *
 * For every sample with a raw stack it rebuilds the process's mappings
 * from the MODULE records, opens each module's file on this host (its
 * build-id must equal the recorded one), unwinds the registers and stack
 * bytes with spi_unwind_dwarf exactly as the recorder does, and compares
 * the user frames with those the recorder stored.  It prints key=value
 * lines: how many replays matched, the complete-stack share (and how
 * many samples the kernel copied no stack for), and the cost
 * per sample and per frame (median and p99, ns) of the last pass.  -v
 * shows the first differences.
 *
 * With -s DIR it also writes up to N inputs for fuzz/fuzz_unwind.c: the
 * leaf module's ELF image, its load bias, the registers and the stack.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_int.h"
#include "sp/spool/replay.h"
#include "unwind/cfi_table_int.h"
#include "unwind/unwind_int.h"

#define MAX_FRAMES 1024

struct map {
	uint32_t pid;
	uint64_t start, end, offset, bias;
	struct sp_cfi_table *cfi;    /* NULL: no file here */
	const char *path;            /* for seeds */
};

struct file {
	char *path;
	uint8_t id[SP_BUILD_ID_MAX];
	size_t idlen;
	struct sp_cfi_table *cfi;
	struct file *next;
};

struct replay {
	struct map *maps;
	size_t nmaps, cap;
	int sorted;
	struct file *files;
	struct sp_cfi_table *vdso;
	int vdso_tried;
	struct sp_unwind_cache *cache;
	uint32_t pid;                /* of the sample being replayed */
	/* results */
	uint64_t samples, equal, differ, complete, frames, no_file, no_stack;
	struct sp_unwind_stats st;
	uint64_t *ns_sample, *ns_frame;
	size_t nns, capns;
	/* seeds */
	const char *seed_dir;
	unsigned seeds, seeds_max;
	unsigned show;               /* differences to print */
};

static int
cmp_map(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The CFI of a module's file, opened once; NULL when it cannot be used. */
static struct sp_cfi_table *
file_cfi(struct replay *r, const char *path, const struct sp_module *m)
{
	struct sp_elf_file *ef;
	const uint8_t *id;
	struct file *f;
	size_t n;

	for (f = r->files; f != NULL; f = f->next)
		if (strcmp(f->path, path) == 0 && f->idlen == m->build_id_len &&
		    memcmp(f->id, m->build_id, f->idlen) == 0)
			return f->cfi;
	f = calloc(1, sizeof(*f));
	if (f == NULL || (f->path = strdup(path)) == NULL) {
		free(f);
		return NULL;
	}
	f->idlen = m->build_id_len;
	memcpy(f->id, m->build_id, f->idlen);
	f->next = r->files;
	r->files = f;
	if (spi_elf_file_open(path, &ef, NULL) == 0) {
		/* A rebuilt file would unwind the wrong code: same id only. */
		if (spi_elf_file_build_id(ef, &id, &n) != 0 ||
		    n != f->idlen || memcmp(id, f->id, n) != 0)
			spi_elf_file_free(ef);
		else if (spi_cfi_table_open(ef, &f->cfi) != 0)
			f->cfi = NULL;
	}
	return f->cfi;
}

/*
 * The [vdso] has no file: this process's own stands in for it, which is
 * the recorded one when the spool was made on this host (same kernel).
 */
static struct sp_cfi_table *
vdso_cfi(struct replay *r)
{
	unsigned long a, b;
	char line[512];
	struct sp_elf_file *ef;
	FILE *maps;

	if (r->vdso_tried)
		return r->vdso;
	r->vdso_tried = 1;
	if ((maps = fopen("/proc/self/maps", "r")) == NULL)
		return NULL;
	while (fgets(line, sizeof(line), maps) != NULL) {
		if (strstr(line, "[vdso]") == NULL ||
		    sscanf(line, "%lx-%lx", &a, &b) != 2 || b <= a)
			continue;
		/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
		if (spi_elf_file_open_mem((const void *)a, b - a, &ef, NULL) != 0 ||
		    spi_cfi_table_open(ef, &r->vdso) != 0)
			r->vdso = NULL;
		break;
	}
	(void)fclose(maps);
	return r->vdso;
}

static void
add_module(struct replay *r, const struct sp_defs *defs,
    const struct sp_module *m)
{
	const struct sp_str *path = sp_defs_string(defs, m->path);
	struct map *mp;
	uint64_t vaddr;
	size_t i, j;

	if (m->flags & SP_MOD_KERNEL)
		return;
	/* A later module replaces what it overlaps in its process. */
	for (i = j = 0; i < r->nmaps; i++)
		if (r->maps[i].pid != m->pid || r->maps[i].end <= m->start ||
		    r->maps[i].start >= m->start + m->size)
			r->maps[j++] = r->maps[i];
	r->nmaps = j;
	if (r->nmaps == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct map *p = realloc(r->maps, cap * sizeof(*p));

		if (p == NULL)
			return;
		r->maps = p;
		r->cap = cap;
	}
	mp = &r->maps[r->nmaps++];
	memset(mp, 0, sizeof(*mp));
	mp->pid = m->pid;
	mp->start = m->start;
	mp->end = m->start + m->size;
	mp->offset = m->file_offset;
	if (path != NULL && path->len > 0 && path->s[0] == '/' &&
	    !(m->flags & (SP_MOD_ANON | SP_MOD_DELETED | SP_MOD_MEMFD))) {
		mp->cfi = file_cfi(r, path->s, m);
		mp->path = path->s;
	} else if (m->flags & SP_MOD_VDSO) {
		mp->cfi = vdso_cfi(r);
	}
	if (mp->cfi != NULL &&
	    spi_cfi_table_vaddr(mp->cfi, mp->offset, &vaddr) == 0)
		mp->bias = mp->start - vaddr;
	else if (mp->cfi != NULL)
		mp->cfi = NULL;
	if (mp->cfi == NULL && !(m->flags & (SP_MOD_ANON | SP_MOD_VDSO)))
		r->no_file++;
	r->sorted = 0;
}

static const struct map *
find_map(struct replay *r, uint64_t pc)
{
	size_t lo = 0, hi;

	if (!r->sorted) {
		qsort(r->maps, r->nmaps, sizeof(*r->maps), cmp_map);
		r->sorted = 1;
	}
	hi = r->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map *m = &r->maps[mid];

		if (m->pid < r->pid || (m->pid == r->pid && m->end <= pc))
			lo = mid + 1;
		else if (m->pid > r->pid || pc < m->start)
			hi = mid;
		else
			return m;
	}
	return NULL;
}

static int
find_cfi(void *ctx, uint64_t pc, const struct sp_cfi_table **t,
    uint64_t *bias)
{
	const struct map *m = find_map(ctx, pc);

	if (m == NULL)
		return -SP_ENOTFOUND;
	*t = m->cfi;
	*bias = m->bias;
	return 0;
}

/* Offline, code comes from the module's file. */
static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct map *m = find_map(ctx, addr);

	if (m == NULL || m->cfi == NULL)
		return 0;
	if (len > m->end - addr)
		len = (size_t)(m->end - addr);
	/* The [vdso]'s image is an ELF file of its own, from offset 0. */
	return spi_elf_file_read(spi_cfi_table_file(m->cfi), addr - m->start +
	    m->offset, buf, len);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
keep_ns(struct replay *r, uint64_t sample, uint64_t frame)
{
	if (r->nns == r->capns) {
		size_t cap = r->capns ? 2 * r->capns : 4096;
		uint64_t *a = realloc(r->ns_sample, cap * sizeof(*a));
		uint64_t *b = a ? realloc(r->ns_frame, cap * sizeof(*b)) : NULL;

		if (a != NULL)
			r->ns_sample = a;
		if (b == NULL)
			return;
		r->ns_frame = b;
		r->capns = cap;
	}
	r->ns_sample[r->nns] = sample;
	r->ns_frame[r->nns++] = frame;
}

/* v as n little-endian bytes (n <= 8) at b, and back: the order of the
 * spool's registers and of the seeds. */
static void
put_le(uint8_t *b, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t
get_le(const uint8_t *b, size_t n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | b[n];
	return v;
}

/* fuzz_unwind's input: bias u64, image length u32, image, registers,
 * stack bytes. */
static void
write_seed(struct replay *r, const struct map *m, const uint8_t *regs,
    size_t nregs, const uint8_t *stack, size_t len)
{
	char path[4096];
	uint8_t hdr[12];
	FILE *in, *out;
	int c;

	(void)snprintf(path, sizeof(path), "%s/raw-%u", r->seed_dir, r->seeds);
	in = fopen(m->path, "rb");
	out = fopen(path, "wb");
	if (in != NULL && out != NULL) {
		struct stat sb;

		/* Small images only: a seed corpus stays small. */
		if (fstat(fileno(in), &sb) == 0 && sb.st_size <= 65536) {
			put_le(hdr, m->bias, 8);
			put_le(hdr + 8, (uint64_t)sb.st_size, 4);
			(void)fwrite(hdr, 1, sizeof(hdr), out);
			while ((c = getc(in)) != EOF)
				(void)putc(c, out);
			(void)fwrite(regs, 8, nregs, out);
			(void)fwrite(stack, 1, len, out);
			r->seeds++;
		}
	}
	if (in != NULL)
		(void)fclose(in);
	if (out != NULL)
		(void)fclose(out);
}

/* -v: what the recorder stored and what the replay found. */
static void
show_differ(const struct sp_defs *defs, const uint32_t *ids, size_t depth,
    const uint64_t *ips, const struct sp_unwind_result *res)
{
	size_t i;

	fprintf(stderr, "differ: recorded");
	for (i = 0; i < depth; i++) {
		const struct sp_frame *f = sp_defs_frame(defs, ids[i]);

		if (f != NULL)
			fprintf(stderr, " %s%" PRIx64, f->mode ? "k/t:" : "",
			    f->abs_ip);
	}
	fprintf(stderr, "\n        replayed");
	for (i = 0; i < res->n; i++)
		fprintf(stderr, " %" PRIx64, ips[i]);
	fprintf(stderr, " (complete %d, error %d)\n", res->complete,
	    (int)res->error);
}

static void
replay_one(struct replay *r, const struct sp_defs *defs, uint32_t stack,
    const struct sp_rawstack *raw)
{
	struct sp_unwind_lookup lk = { .find = find_cfi, .ctx = r,
	    .cache = r->cache, .read_code = read_code };
	uint32_t ids[MAX_FRAMES + 64];
	uint64_t ips[MAX_FRAMES], t0, dt;
	struct sp_unwind_result res;
	struct sp_uregs regs;
	struct sp_ustack stk = { raw->stack, raw->stack_len, 0 };
	size_t depth = 0, i, k;
	int same = 1, trunc = 0;

	memset(&regs, 0, sizeof(regs));
	for (i = 0; i < SPI_PERF_NREGS && i < raw->nregs; i++)
		regs.r[i] = get_le(raw->regs + 8 * i, 8);
	t0 = now_ns();
	spi_unwind_dwarf(&regs, &stk, &lk, ips, MAX_FRAMES, &res, &r->st);
	dt = now_ns() - t0;
	r->samples++;
	r->frames += res.n;
	r->complete += res.complete != 0;
	r->no_stack += res.error == SP_UNW_NO_STACK;
	keep_ns(r, dt, res.n ? dt / res.n : dt);
	/* The recorded user frames, leaf first, after any kernel frames. */
	if (sp_defs_stack(defs, stack, ids, MAX_FRAMES + 64, &depth) != 0)
		same = 0;
	for (i = 0, k = 0; same && i < depth; i++) {
		const struct sp_frame *f = sp_defs_frame(defs, ids[i]);

		if (f == NULL || f->mode == SP_FRAME_KERNEL)
			continue;
		if (f->mode == SP_FRAME_TRUNCATED) {
			trunc = 1;
			continue;
		}
		if (k >= res.n || f->abs_ip != ips[k])
			same = 0;
		k++;
	}
	if (same && (k != res.n || trunc == res.complete))
		same = 0;
	if (same)
		r->equal++;
	else if (r->differ++ < r->show)
		show_differ(defs, ids, depth, ips, &res);
	if (r->seed_dir != NULL && r->seeds < r->seeds_max) {
		const struct map *m = find_map(r, regs.r[X86_64_REG_IP]);

		if (m != NULL && m->cfi != NULL && m->path != NULL)
			write_seed(r, m, raw->regs, raw->nregs, raw->stack,
			    raw->stack_len);
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t
pct(uint64_t *v, size_t n, unsigned p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) * p / 100];
}

static int
one_pass(struct replay *r, const char *path)
{
	struct sp_replay *rd = NULL;
	struct sp_record rec;
	struct sp_diag diag;
	uint32_t stack = 0;
	int have = 0, st;

	if (sp_replay_open(path, &rd, &diag) < 0) {
		fprintf(stderr, "unwreplay: %s: %s\n", path, diag.msg);
		return -1;
	}
	while ((st = sp_replay_next(rd, &rec)) == 1) {
		const struct sp_defs *defs = sp_replay_defs(rd);

		if (rec.kind == SP_REC_MODULE) {
			add_module(r, defs, &rec.u.module);
		} else if (rec.kind == SP_REC_SAMPLE) {
			const struct sp_thread *t =
			    sp_defs_thread(defs, rec.u.sample.thread);

			stack = rec.u.sample.stack;
			r->pid = t != NULL ? t->pid : 0;
			have = 1;
		} else if (rec.kind == SP_REC_RAWSTACK && have) {
			replay_one(r, defs, stack, &rec.u.rawstack);
			have = 0;
		}
	}
	if (st < 0)
		fprintf(stderr, "unwreplay: %s: offset %llu: %s\n", path,
		    (unsigned long long)sp_replay_diag(rd)->offset,
		    sp_replay_diag(rd)->msg);
	sp_replay_free(rd);
	return st < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct replay r;
	uint64_t pass_cpu = 0, first_hits = 0;
	unsigned passes = 1, p;
	int ch;

	memset(&r, 0, sizeof(r));
	while ((ch = getopt(argc, argv, "n:p:s:v")) != -1) {
		switch (ch) {
		case 'n':
			r.seeds_max = (unsigned)atoi(optarg);
			break;
		case 'p':
			passes = (unsigned)atoi(optarg);
			break;
		case 's':
			r.seed_dir = optarg;
			break;
		case 'v':
			r.show = 10;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || passes == 0) {
usage:
		fprintf(stderr, "usage: unwreplay [-v] [-p PASSES] [-s DIR -n N] "
		    "SPOOL\n");
		return 2;
	}
	r.cache = spi_unwind_cache_new();
	for (p = 0; p < passes; p++) {
		/* Each pass starts from the spool's first mapping; the CFI
		 * tables and the row cache stay warm, as in a recorder. */
		r.nmaps = 0;
		r.samples = r.equal = r.differ = r.complete = r.frames = 0;
		r.no_file = r.no_stack = 0;
		r.nns = 0;
		memset(&r.st, 0, sizeof(r.st));
		pass_cpu = cpu_ns();
		if (one_pass(&r, argv[optind]) < 0)
			return 1;
		pass_cpu = cpu_ns() - pass_cpu;
		if (p == 0) {
			r.seed_dir = NULL;
			first_hits = r.st.cache_hits;
		}
	}
	printf("samples=%" PRIu64 "\nequal=%" PRIu64 "\ndiffer=%" PRIu64
	    "\ncomplete=%" PRIu64 "\nframes=%" PRIu64 "\n", r.samples, r.equal,
	    r.differ, r.complete, r.frames);
	printf("no_stack=%" PRIu64 "\n", r.no_stack);
	printf("modules_without_file=%" PRIu64 "\ncfi_steps=%" PRIu64
	    "\ncache_hits=%" PRIu64 "\nleaf_insn=%" PRIu64 "\n", r.no_file,
	    r.st.cfi_steps, r.st.cache_hits, r.st.leaf_insn);
	printf("first_pass_cache_hits=%" PRIu64 "\n", first_hits);
	printf("ns_per_sample_median=%" PRIu64 "\nns_per_sample_p99=%" PRIu64
	    "\n", pct(r.ns_sample, r.nns, 50), pct(r.ns_sample, r.nns, 99));
	/* The last pass's CPU (spool decoding included) per sample, to
	 * compare with perf script's: immune to preemption, unlike the
	 * per-sample clock above. */
	printf("pass_cpu_ns_per_sample=%" PRIu64 "\n", r.samples ?
	    pass_cpu / r.samples : 0);
	printf("ns_per_frame_median=%" PRIu64 "\nns_per_frame_p99=%" PRIu64
	    "\nseeds=%u\n", pct(r.ns_frame, r.nns, 50), pct(r.ns_frame, r.nns,
	    99), r.seeds);
	return 0;
}
