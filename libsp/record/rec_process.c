/* SPDX-License-Identifier: MIT */
/* What each perf record means for the spool: samples become stacks of
 * interned frames, MMAP2 becomes modules, COMM/FORK/EXIT lifecycle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sp/cfi.h"
#include "sp/elffile.h"
#include "common/cursor_int.h"
#include "common/procfs_int.h"
#include "recorder_int.h"

/* perf_event_open(2): the sample_id_all trailer of non-sample records for
 * our sample_type (TID, TIME, CPU). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

#define SAMPLE_ID_LEN 24

/* With --off-cpu, PERF_SAMPLE_IDENTIFIER ends it (8 bytes more). */
static int
trailer(const struct sp_recorder *r, const uint8_t *rec, size_t len,
    struct sample_id *id)
{
	size_t idlen = SAMPLE_ID_LEN + spi_rec_id_len(r);

	if (len < sizeof(struct perf_event_header) + idlen)
		return -SP_EFORMAT;
	rec += len - idlen;
	id->pid = sp_le32(rec);
	id->tid = sp_le32(rec + 4);
	id->time = sp_le64(rec + 8);
	id->cpu = sp_le32(rec + 16);
	return 0;
}

static uid_t
proc_uid(uint32_t pid)
{
	char path[32];
	struct stat st;

	(void)snprintf(path, sizeof(path), "/proc/%u", pid);
	return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

struct rec_proc *
spi_rec_proc_get(struct sp_recorder *r, uint32_t pid, int make)
{
	struct rec_proc *p = spi_imap_get(&r->procs, pid);

	if (p != NULL || !make)
		return p;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pid = pid;
	p->uid = proc_uid(pid);
	if (spi_rec_start_time(pid, 0, &p->start_time) < 0)
		p->start_time = 0;
	if (spi_imap_put(&r->procs, pid, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

int
spi_rec_adopt_read(struct sp_recorder *r, uint32_t pid, struct rec_proc **out,
    char **buf, size_t *len)
{
	struct rec_proc *p = spi_rec_proc_get(r, pid, 1);
	int err;

	*out = NULL;
	*buf = NULL;
	if (p == NULL)
		return -ENOMEM;
	err = spi_rec_read_maps(&r->ctx, p, buf, len);
	if (err == -ENOMEM)
		return err;
	if (err == -ENOENT || err == -ESRCH) {
		/* Gone before it could be read: nothing to unwind with.  Kept
		 * untracked until its exit, so that its other samples are
		 * counted without asking /proc again. */
		p->tracked = 0;
		p->start_time = 0;
		return 0;
	}
	if (!p->tracked) {
		p->tracked = 1;
		r->ctx.c[C_PROCESSES]++;
	}
	p->last_rescan = r->ctx.now;
	*out = p; /* maps refused (*buf NULL): its samples are address-only */
	return 0;
}

int
spi_rec_adopt(struct sp_recorder *r, uint32_t pid, struct rec_proc **out)
{
	char *buf;
	size_t len;
	int err = spi_rec_adopt_read(r, pid, out, &buf, &len);

	/* Its mappings' errors are the writer's, or -ENOMEM. */
	if (err == 0 && buf != NULL)
		err = spi_rec_add_maps(&r->ctx, *out, buf, len);
	return err;
}

static int
put(struct sp_recorder *r, struct sp_record *rec, uint32_t *id)
{
	return sp_writer_put(r->ctx.w, rec, id);
}

/* A thread not known yet, unnamed; NULL when out of memory. */
static struct rec_thread *
new_thread(struct sp_recorder *r, uint32_t pid, uint32_t tid)
{
	struct rec_thread *t = calloc(1, sizeof(*t));

	if (t == NULL || spi_imap_put(&r->threads, tid, t) < 0) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->pid = pid;
	return t;
}

/* Thread tid as a new thread of pid (t, its entry so far, may be NULL),
 * unnamed; NULL when out of memory. */
static struct rec_thread *
renew_thread(struct sp_recorder *r, struct rec_thread *t, uint32_t pid,
    uint32_t tid)
{
	if (t == NULL && (t = new_thread(r, pid, tid)) == NULL)
		return NULL;
	t->pid = pid;
	t->id = 0;
	t->exited = 0;
	t->comm[0] = '\0';
	t->off.time = 0;
	return t;
}

int
spi_rec_name_thread(struct sp_recorder *r, uint32_t pid, uint32_t tid)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);

	if (t != NULL && t->pid == pid)
		return 0;
	if ((t = renew_thread(r, t, pid, tid)) == NULL)
		return -ENOMEM;
	(void)spi_proc_comm((pid_t)pid, (pid_t)tid, t->comm, sizeof(t->comm));
	return 0;
}

/* The THREAD id of (pid, tid), written on first use and after renames. */
static int
thread_id(struct sp_recorder *r, uint32_t pid, uint32_t tid, uint32_t *id)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);
	struct sp_record rec;
	int err;

	if (t == NULL || t->pid != pid) {
		if ((t = renew_thread(r, t, pid, tid)) == NULL)
			return -ENOMEM;
		(void)spi_proc_comm((pid_t)pid, (pid_t)tid, t->comm,
		    sizeof(t->comm));
	}
	if (t->id == 0) {
		memset(&rec, 0, sizeof(rec));
		rec.kind = SP_REC_THREAD;
		rec.u.thread.pid = pid;
		rec.u.thread.tid = tid;
		err = sp_writer_string(r->ctx.w, t->comm, strlen(t->comm),
		    &rec.u.thread.comm);
		if (err == 0)
			err = put(r, &rec, &t->id);
		if (err)
			return err;
	}
	*id = t->id;
	return 0;
}

static int
frame_id(struct sp_recorder *r, uint32_t module, uint32_t mode, uint64_t rel,
    uint64_t abs, uint32_t *id)
{
	struct sp_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_FRAME;
	rec.u.frame.module = module;
	rec.u.frame.mode = mode;
	rec.u.frame.rel_ip = rel;
	rec.u.frame.abs_ip = abs;
	return put(r, &rec, id);
}

static int
kernel_frame(struct sp_recorder *r, uint64_t ip, uint32_t *id)
{
	struct sp_record rec;
	int err;

	if (r->kernel_module == 0) {
		memset(&rec, 0, sizeof(rec));
		rec.kind = SP_REC_MODULE;
		rec.u.module.flags = SP_MOD_KERNEL;
		rec.u.module.start = 0xffff800000000000ull;
		rec.u.module.size = 0x7fffffffffffull;
		err = sp_writer_string(r->ctx.w, "[kernel.kallsyms]", 17,
		    &rec.u.module.path);
		if (err == 0)
			err = put(r, &rec, &r->kernel_module);
		if (err)
			return err;
	}
	/* Kernel addresses are symbolized by absolute address (kallsyms). */
	return frame_id(r, r->kernel_module, SP_FRAME_KERNEL, ip, ip, id);
}

/* How long after an exec a kernel sample may still carry the old
 * image's user registers: far more than the exec's tail takes. */
#define EXEC_WINDOW_NS 100000000ull

static struct frame_memo *
frame_memo(struct sp_recorder *r, uint32_t pid, uint64_t ip)
{
	uint64_t h = (ip ^ (uint64_t)pid << 40) * 0x9e3779b97f4a7c15ull;

	return &r->fmemo[(h >> 40) & (FRAME_MEMO - 1)];
}

/* A user frame: module-relative when a mapping covers ip. */
static int
user_frame(struct sp_recorder *r, struct rec_proc *p, uint64_t ip,
    uint32_t *id)
{
	struct frame_memo *fm = frame_memo(r, p->pid, ip);
	const struct rec_range *m;
	int err;

	if (fm->gen == r->ctx.maps_gen && fm->ip == ip && fm->pid == p->pid) {
		*id = fm->frame;
		return 0;
	}
	m = spi_rec_find_range(p, ip);

	/* A mapping we have not seen (missed MMAP, lost events): read
	 * /proc once per 100 ms at most. */
	if (m == NULL && r->ctx.now - p->last_rescan > 100000000ull) {
		p->last_rescan = r->ctx.now;
		(void)spi_rec_scan_maps(&r->ctx, p);
		m = spi_rec_find_range(p, ip);
	}
	if (m == NULL) {
		r->ctx.c[C_UNKNOWN_MODULE]++;
		return frame_id(r, 0, SP_FRAME_USER, ip, ip, id);
	}
	if (m->file != NULL && m->file->path != NULL)
		spi_rec_keep_binary(&r->ctx, p->pid, m);
	/* JIT code: its perf map, copied while the process lives (one in a
	 * PID namespace is reached through /proc/PID/root only then); the
	 * exit and the end copy it again, with what was appended. */
	if (m->file == NULL && m->cfi == NULL && r->ctx.bundle != NULL &&
	    !p->pmap_copied) {
		p->pmap_copied = 1;
		(void)sp_bundle_perf_map(r->ctx.bundle, (pid_t)p->pid, p->uid);
	}
	err = frame_id(r, m->module, SP_FRAME_USER, ip - m->start + m->offset,
	    ip, id);
	/* What was done once for the mapping above is done. */
	if (err == 0) {
		fm->ip = ip;
		fm->pid = p->pid;
		fm->gen = r->ctx.maps_gen;
		fm->frame = *id;
	}
	return err;
}

/* Adds the kernel callchain's frames; counts user frames it still has. */
static int
kernel_frames(struct sp_recorder *r, struct sp_cur *c, size_t *n)
{
	uint64_t nr = sp_rd_u64(c), i;
	int user = 0, err;

	if (c->err == 0 && nr > sp_cur_left(c) / 8)
		c->err = -SP_EFORMAT;
	for (i = 0; c->err == 0 && i < nr; i++) {
		uint64_t ip = sp_rd_u64(c);

		/* perf_event.h: context markers separate kernel and user. */
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (user) {
			r->ctx.c[C_IGNORED_USER_CALLCHAIN]++;
			continue;
		}
		if (*n >= r->o.max_frames)
			continue;
		err = kernel_frame(r, ip, &r->frames[(*n)++]);
		if (err)
			return err;
	}
	return 0;
}

static void
read_regs(struct sp_cur *c, struct sp_uregs *regs, int *has)
{
	uint64_t abi = sp_rd_u64(c);
	size_t i;

	*has = c->err == 0 && abi != PERF_SAMPLE_REGS_ABI_NONE;
	if (!*has)
		return;
	/* In mask order: AX..SS, then R8..R15, as enum sp_reg. */
	for (i = 0; i < SP_REG_COUNT; i++)
		regs->r[i] = sp_rd_u64(c);
}

static void
read_stack(struct sp_cur *c, struct sp_ustack *stk)
{
	uint64_t size = sp_rd_u64(c), dyn;

	stk->data = NULL;
	stk->len = 0;
	stk->whole = 0;
	if (c->err || size == 0)
		return;
	if (size > sp_cur_left(c)) {
		c->err = -SP_EFORMAT;
		return;
	}
	stk->data = sp_take(c, (size_t)size);
	dyn = sp_rd_u64(c);
	/* dyn_size: how much of the copy is real stack. */
	stk->len = (size_t)(dyn < size ? dyn : size);
	stk->whole = dyn < size;
}

/* The unwinder's context: the recorder's, and the sampled process. */
struct walk {
	struct rec_ctx *r;
	struct rec_proc *p;
};

/* The unwinder's test for JIT code: a mapping with no file. */
static int
in_jit(void *ctx, uint64_t pc)
{
	const struct walk *w = ctx;
	const struct rec_range *m = spi_rec_find_range(w->p, pc);

	return m != NULL && m->file == NULL && m->cfi == NULL;
}

/* The unwinder's lookup; a file's CFI is read the first time. */
static int
find_cfi(void *ctx, uint64_t pc, const struct sp_cfi_table **t,
    uint64_t *bias)
{
	const struct walk *w = ctx;
	const struct rec_range *m = spi_rec_find_range(w->p, pc);

	if (m == NULL)
		return -SP_ENOTFOUND;
	*t = spi_rec_range_cfi(w->r, m);
	*bias = m->bias;
	return 0;
}

/* Code bytes of the sampled process, for the leaf analysis: up to the
 * end of addr's page and then the next page, each read on its own so an
 * unmapped second page still leaves the first.  A sample read from the
 * ring after its process exited can still be analysed when its code is
 * file-backed: then the bytes come from the file; else from the bytes
 * read at that address before (struct code_memo). */
static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	struct rec_proc *p = ((const struct walk *)ctx)->p;
	struct code_memo *cm = &p->code[(addr ^ addr >> 4) % CODE_MEMO];
	const struct rec_range *m;
	const struct sp_elf_file *elf;
	uint64_t page_end = (addr | 4095) + 1;
	size_t first = page_end - addr < len ? (size_t)(page_end - addr) : len;
	struct iovec local[2], remote[2];
	ssize_t got;
	int n = 1;

	local[0].iov_base = buf;
	local[0].iov_len = first;
	/* An address in the other process, never dereferenced here. */
	/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
	remote[0].iov_base = (void *)(uintptr_t)addr;
	remote[0].iov_len = first;
	if (first < len) {
		local[1].iov_base = buf + first;
		local[1].iov_len = len - first;
		/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
		remote[1].iov_base = (void *)(uintptr_t)page_end;
		remote[1].iov_len = len - first;
		n = 2;
	}
	got = process_vm_readv((pid_t)p->pid, local, (unsigned long)n, remote,
	    (unsigned long)n, 0);
	m = spi_rec_find_range(p, addr);
	elf = m != NULL ? spi_rec_range_elf(m) : NULL;
	if (got > 0) {
		if (m != NULL && elf == NULL) {
			cm->addr = addr;
			cm->len = (size_t)got < sizeof(cm->b) ? (size_t)got :
			    sizeof(cm->b);
			memcpy(cm->b, buf, cm->len);
		}
		return (size_t)got;
	}
	if (m == NULL || elf == NULL) {
		if (cm->len == 0 || cm->addr != addr)
			return 0;
		if (len > cm->len)
			len = cm->len;
		memcpy(buf, cm->b, len);
		return len;
	}
	if (len > m->end - addr)
		len = (size_t)(m->end - addr);
	return sp_elf_file_read(elf, addr - m->start + m->offset, buf, len);
}

/* A walk that ended in code with no file and no CFI is a JIT's that
 * keeps no frame pointers: counted, and the process with the most such
 * walks names the runtime whose flag the summary gives. */
static void
jit_cut(struct sp_recorder *r, struct rec_proc *p, uint64_t ip)
{
	struct walk w = { &r->ctx, p };

	if (!in_jit(&w, ip))
		return;
	r->ctx.c[C_JIT_TRUNCATED]++;
	if (p->jit_cut++ == 0)
		(void)spi_proc_exe_name((pid_t)p->pid, p->exe, sizeof(p->exe));
	if (p->jit_cut > r->jit_top) {
		r->jit_top = p->jit_cut;
		memcpy(r->jit_runtime, p->exe, sizeof(r->jit_runtime));
	}
}

/*
 * Counts what a walk says of the stack copy's size, for recorder.c to
 * choose it (enum rec_adapt): learning, whether the small copy would have
 * held it with 256 bytes to spare (the last walks in a row that do: a
 * start in ld.so takes up to 5.6 KiB, a loop after it 1); on the small
 * copy, whether it ran off its end.
 */
static void
stack_walked(struct sp_recorder *r, const struct sp_unwind_result *res,
    const struct sp_ustack *stk)
{
	if (r->adapt == ADAPT_LEARN) {
		if (res->error == SP_UNW_STACK_BOUNDS ||
		    res->stack_used > SP_STACK_BYTES_SMALL - 256) {
			r->fit = 0;
			r->unfit++;
		} else if (res->complete)
			r->fit++;
	} else if (r->adapt == ADAPT_SMALL) {
		r->walks++;
		if (res->error == SP_UNW_STACK_BOUNDS && !stk->whole &&
		    stk->len == SP_STACK_BYTES_SMALL)
			r->cut++;
	}
}

/* User frames from the unwinder (return addresses come rewound into
 * their call instructions).  off: a switch off CPU's walk, whose cut
 * stacks are not counted among the CPU samples' (jit_cut). */
static int
user_frames(struct sp_recorder *r, struct rec_proc *p,
    const struct sp_uregs *regs, const struct sp_ustack *stk, size_t *n,
    int *complete, int off)
{
	struct walk w = { &r->ctx, p };
	struct sp_unwind_lookup lk = { find_cfi, &w, r->ctx.cache, read_code,
	    in_jit };
	struct sp_unwind_result res;
	struct sp_unwind_stats st;
	size_t i;
	int err;

	memset(&st, 0, sizeof(st));
	sp_unwind_dwarf(regs, stk, &lk, r->ips, r->o.max_frames - *n, &res,
	    &st);
	r->ctx.c[C_CFI_STEPS] += st.cfi_steps;
	r->ctx.c[C_CFI_CACHE_HITS] += st.cache_hits;
	r->ctx.c[C_LEAF_INSN] += st.leaf_insn;
	r->ctx.c[C_LEAF_INSN_UNKNOWN] += st.leaf_insn_unknown;
	r->ctx.c[C_SCANNED] += st.scanned;
	for (i = 0; i < SP_FB_KINDS_; i++)
		r->ctx.c[C_FALLBACK_FIRST_ + i] += st.fallbacks[i];
	for (i = 0; i < res.n; i++) {
		err = user_frame(r, p, r->ips[i], &r->frames[(*n)++]);
		if (err)
			return err;
	}
	*complete = res.complete;
	/* A switch's copy is always the whole -s: it says nothing of the
	 * CPU samples' copy size. */
	if (!off)
		stack_walked(r, &res, stk);
	if (res.complete) {
		size_t k = C_STACK_USED_FIRST_;

		while (k < C_STACK_USED_LAST_ &&
		    res.stack_used > (uint64_t)4096 << (k - C_STACK_USED_FIRST_))
			k++;
		r->ctx.c[k]++;
	} else {
		r->ctx.c[C_UNW(res.error)]++;
	}
	/* Not cut by a limit or a missing copy: in JIT code, a frame
	 * pointer that is none reads garbage, often past the copy. */
	if (!off && !res.complete && res.n > 0 && res.error != SP_UNW_DEPTH &&
	    res.error != SP_UNW_NO_STACK && res.error != SP_UNW_NO_REGS)
		jit_cut(r, p, r->ips[res.n - 1]);
	return 0;
}

/*
 * An off-CPU sample waits in its thread for the switch in that gives its
 * weight (on_switch).  One still waiting there lost its switch in.
 */
static int
hold_off_cpu(struct sp_recorder *r, uint32_t tid, const struct sp_sample *s)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);

	if (t == NULL)
		return 0;
	if (t->off.time != 0)
		r->ctx.c[C_OFF_CPU_UNMATCHED]++;
	t->off = *s;
	t->off.kind = SP_SAMPLE_OFF_CPU;
	return 0;
}

static int
write_off_cpu(struct sp_recorder *r, struct rec_thread *t, uint64_t in)
{
	struct sp_record rec;
	int err;

	/* Sampling was turned off meanwhile (its switch events too): the
	 * switch in that ended this wait may have gone unseen. */
	if (t->off.time < r->paused_at && in > r->paused_at) {
		t->off.time = 0;
		r->ctx.c[C_OFF_CPU_UNMATCHED]++;
		return 0;
	}
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_SAMPLE;
	rec.u.sample = t->off;
	rec.u.sample.weight = in - t->off.time;
	t->off.time = 0;
	if ((err = put(r, &rec, NULL)) != 0)
		return err;
	r->ctx.c[C_OFF_CPU]++;
	r->ctx.c[C_OFF_CPU_NS] += rec.u.sample.weight;
	return 0;
}

/*
 * PERF_RECORD_SWITCH(_CPU_WIDE): a switch in of id->tid ends the time off
 * CPU of its waiting sample; a switch out only says whether the thread
 * was preempted (still runnable) or blocked.
 */
static int
on_switch(struct sp_recorder *r, const struct sample_id *id, uint16_t misc)
{
	struct rec_thread *t;

	t = spi_imap_get(&r->threads, id->tid);
	/* Its switch's sample came first (the kernel writes it first):
	 * only the switches of threads recorded count (not the idle task
	 * or processes gone, with -a). */
	if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if ((misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) && t != NULL &&
		    t->off.time != 0)
			r->ctx.c[C_OFF_CPU_PREEMPTED]++;
		return 0;
	}
	if (t == NULL || t->off.time == 0 || id->time <= t->off.time)
		return 0;
	return write_off_cpu(r, t, id->time);
}

struct off_cpu_end {
	struct sp_recorder *r;
	uint64_t end;
	int err;
};

static void
end_off_cpu(void *val, void *ctx)
{
	struct rec_thread *t = val;
	struct off_cpu_end *e = ctx;
	const struct rec_proc *p;
	int err;

	if (t->off.time == 0 || t->exited || e->end <= t->off.time)
		return;
	/* Its process is gone, its exit among lost records (a sweep freed
	 * it): the thread never came back. */
	p = spi_rec_proc_get(e->r, t->pid, 0);
	if (p == NULL || !p->tracked) {
		e->r->ctx.c[C_OFF_CPU_UNMATCHED]++;
		return;
	}
	if ((err = write_off_cpu(e->r, t, e->end)) != 0 && e->err == 0)
		e->err = err;
}

int
spi_rec_off_cpu_end(struct sp_recorder *r, uint64_t end)
{
	struct off_cpu_end e = { r, end, 0 };

	spi_imap_each(&r->threads, end_off_cpu, &e);
	return e.err;
}

/* A sample, or with off (--off-cpu) a switch off CPU, which waits for its
 * thread's switch in (hold_off_cpu). */
static int
write_sample(struct sp_recorder *r, uint32_t pid, uint32_t tid, uint32_t cpu,
    size_t n, int complete, int off)
{
	struct sp_record rec;
	int err;

	/* Counted of CPU samples, the summary's share of whole stacks. */
	if (n == 0 && !off)
		r->ctx.c[C_EMPTY_STACKS]++;
	if (!complete) {
		if (r->truncated_frame == 0 &&
		    (err = frame_id(r, 0, SP_FRAME_TRUNCATED, 0, 0,
		    &r->truncated_frame)) != 0)
			return err;
		r->frames[n++] = r->truncated_frame;
		r->ctx.c[C_TRUNCATED_STACKS] += !off;
	}
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_SAMPLE;
	rec.u.sample.time = r->ctx.now;
	rec.u.sample.cpu = cpu;
	err = sp_writer_stack(r->ctx.w, r->frames, n, &rec.u.sample.stack);
	if (err == 0)
		err = thread_id(r, pid, tid, &rec.u.sample.thread);
	if (err == 0 && off)
		return hold_off_cpu(r, tid, &rec.u.sample);
	if (err == 0)
		err = put(r, &rec, NULL);
	if (err == 0)
		r->ctx.c[C_SAMPLES]++;
	return err;
}

/* perf_event_open(2): PERF_RECORD_SAMPLE with TID, TIME, CPU, CALLCHAIN
 * (with --kernel), REGS_USER and STACK_USER, in that order. */
/* What the unwinder saw, after the sample it belongs to. */
static int
write_rawstack(struct sp_recorder *r, const struct sp_uregs *regs,
    const struct sp_ustack *stk)
{
	uint8_t raw[SP_REG_COUNT * 8];
	struct sp_record rec;
	size_t i;

	for (i = 0; i < SP_REG_COUNT; i++)
		sp_put_le64(raw + 8 * i, regs->r[i]);
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_RAWSTACK;
	rec.u.rawstack.nregs = SP_REG_COUNT;
	rec.u.rawstack.regs = raw;
	rec.u.rawstack.stack = stk->data;
	rec.u.rawstack.stack_len = (uint32_t)stk->len;
	return put(r, &rec, NULL);
}

/* The leader of p exited. */
static void
exited(struct sp_recorder *r, const struct rec_proc *p)
{
	if (p->attached)
		spi_rec_log(&r->ctx, "pid %u exited; its recording ends there",
		    p->pid);
	/* The runtime's perf map is complete now; PID reuse can't mix in
	 * another process's map later. */
	if (r->ctx.bundle != NULL)
		(void)sp_bundle_perf_map(r->ctx.bundle, (pid_t)p->pid, p->uid);
}

/*
 * An EXIT record of the whole system: the thread, and with the leader
 * its process, are marked and queued, and freed EXIT_GRACE_NS later
 * (reap), when the samples of their end in the kernel have been read.
 */
static int
on_exit_system(struct sp_recorder *r, uint32_t pid, uint32_t tid,
    uint32_t ppid, uint32_t ptid)
{
	struct rec_thread *t = spi_imap_get(&r->threads, tid);
	struct rec_proc *p = spi_rec_proc_get(r, pid, 0);
	struct rec_exited *e;

	/* Sent twice (seen once in 10,000 exits). */
	if ((t != NULL && t->exited) || (pid == tid && p != NULL && p->exited))
		return 0;
	if (spi_grow_zeroed(&r->exited, &r->capexited, r->nexited + 1,
	    sizeof(*r->exited)) != 0)
		return -ENOMEM;
	e = &r->exited[r->nexited++];
	e->tid = tid;
	e->pid = pid;
	e->time = r->ctx.now;
	if (t != NULL)
		t->exited = e->time;
	if (p == NULL)
		return 0;
	if (pid == tid)
		p->exited = e->time;
	if (!p->tracked)
		return 0;
	if (pid == tid)
		exited(r, p);
	return spi_rec_write_proc(&r->ctx, SP_PROC_EXIT, pid, tid, ppid, ptid,
	    NULL);
}

/* Frees what exited before now - EXIT_GRACE_NS (on_exit_system). */
static void
reap(struct sp_recorder *r, uint64_t now)
{
	const struct rec_exited *e;
	struct rec_thread *t;
	struct rec_proc *p;

	for (; r->exited_head < r->nexited; r->exited_head++) {
		e = &r->exited[r->exited_head];
		if (e->time + EXIT_GRACE_NS > now)
			break;
		t = spi_imap_get(&r->threads, e->tid);
		if (t != NULL && t->exited == e->time)
			free(spi_imap_del(&r->threads, e->tid));
		p = spi_rec_proc_get(r, e->pid, 0);
		if (e->tid == e->pid && p != NULL && p->exited == e->time)
			spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs,
			    e->pid));
	}
	if (r->exited_head == r->nexited) {
		r->exited_head = 0;
		r->nexited = 0;
	} else if (r->exited_head > r->nexited / 2) {
		memmove(r->exited, r->exited + r->exited_head,
		    (r->nexited - r->exited_head) * sizeof(*r->exited));
		r->nexited -= r->exited_head;
		r->exited_head = 0;
	}
}

static int
on_sample(struct sp_recorder *r, const uint8_t *rec, size_t len)
{
	struct sp_cur c = sp_cur_make(rec + 8, len - 8);
	struct sp_uregs regs;
	struct sp_ustack stk;
	struct rec_proc *p;
	struct rec_thread *t;
	uint32_t pid, tid, cpu;
	uint64_t id;
	size_t n = 0;
	int has_regs, complete = 1, off = 0, err;
	int in_kernel = (sp_le16(rec + 4) & PERF_RECORD_MISC_CPUMODE_MASK) ==
	    PERF_RECORD_MISC_KERNEL;

	r->ctx.c[C_SAMPLE_EVENTS]++;
	if (r->o.off_cpu) {
		id = sp_rd_u64(&c);
		off = id <= UINT32_MAX &&
		    spi_imap_get(&r->switch_ids, (uint32_t)id) != NULL;
	}
	pid = sp_rd_u32(&c);
	tid = sp_rd_u32(&c);
	r->ctx.now = sp_rd_u64(&c);
	if (r->nexited > 0)
		reap(r, r->ctx.now);
	cpu = sp_rd_u32(&c);
	(void)sp_rd_u32(&c);
	if (c.err) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	if (tid == 0) {
		r->ctx.c[C_IDLE] += !off;
		return 0;
	}
	/* A thread's last switch, as it exits, is after its EXIT record:
	 * it never comes back. */
	t = off ? spi_imap_get(&r->threads, tid) : NULL;
	if (off && ((!r->system && spi_imap_get(&r->covered, tid) == NULL) ||
	    (t != NULL && t->exited)))
		return 0;
	if (pid == 0 || pid == UINT32_MAX || tid == UINT32_MAX) {
		r->ctx.c[C_MISSING_PID]++;
		return 0;
	}
	p = spi_rec_proc_get(r, pid, 0);
	if (p == NULL && r->system && (err = spi_rec_adopt(r, pid, &p)) != 0)
		return err;
	if (p == NULL || !p->tracked) {
		r->ctx.c[r->system ? C_GONE : C_UNTRACKED] += !off;
		return 0;
	}
	/* Every switch is taken in the kernel: CPU samples only. */
	if (in_kernel && !off)
		r->ctx.c[C_KERNEL_SAMPLES]++;
	if (r->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
		err = kernel_frames(r, &c, &n);
		if (err)
			return err;
	} else if (in_kernel) {
		/* Time in the kernel without its callchain: one frame,
		 * [kernel], on the user stack that entered it. */
		err = frame_id(r, 0, SP_FRAME_KERNEL, 0, 0, &r->frames[n++]);
		if (err)
			return err;
	}
	read_regs(&c, &regs, &has_regs);
	read_stack(&c, &stk);
	if (c.err) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	/* In the kernel's exec, from its COMM record until the new image
	 * starts, the user registers are still the old image's: an ip in
	 * none of the new one's mappings is no frame of it (seen 1 ms after
	 * the exec, in sp-record's own code). */
	if (has_regs && in_kernel && p->exec_time != 0 &&
	    r->ctx.now - p->exec_time < EXEC_WINDOW_NS &&
	    spi_rec_find_range(p, regs.r[SP_REG_IP]) == NULL) {
		has_regs = 0;
		complete = 0;
		r->ctx.c[C_UNW(SP_UNW_NO_REGS)]++;
	}
	if (has_regs) {
		err = user_frames(r, p, &regs, &stk, &n, &complete, off);
		if (err)
			return err;
	} else if (n == 0) {
		r->ctx.c[C_UNW(SP_UNW_NO_REGS)]++;
	}
	err = write_sample(r, pid, tid, cpu, n, complete, off);
	/* A RAWSTACK follows its SAMPLE: a switch's is written later, at its
	 * switch in, so the raw copy is of CPU samples only. */
	if (err == 0 && has_regs && r->o.raw_stacks && !off)
		err = write_rawstack(r, &regs, &stk);
	return err;
}

/*
 * perf_event_open(2): the bodies below are read through c, the record
 * between its header and its sample_id trailer (TID, TIME, CPU).  A body
 * too short for its fields is counted as a bad record and skipped.
 */

/* PERF_RECORD_MMAP2: pid, tid, addr, len, pgoff, maj, min, ino,
 * ino_generation, prot, flags, filename. */
static int
on_mmap2(struct sp_recorder *r, struct sp_cur *c)
{
	struct rec_proc *p;
	struct sp_map m;
	uint32_t pid, prot;
	uint64_t len;

	memset(&m, 0, sizeof(m));
	pid = sp_rd_u32(c);
	(void)sp_rd_u32(c);                /* tid */
	m.start = sp_rd_u64(c);
	len = sp_rd_u64(c);
	m.offset = sp_rd_u64(c);
	m.dev_major = sp_rd_u32(c);
	m.dev_minor = sp_rd_u32(c);
	m.inode = sp_rd_u64(c);
	(void)sp_rd_u64(c);                /* ino_generation */
	prot = sp_rd_u32(c);
	(void)sp_rd_u32(c);                /* flags */
	if (c->err) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	m.end = m.start + len;
	if (!(prot & PROT_EXEC) || len == 0 || m.end < m.start)
		return 0;
	p = spi_rec_proc_get(r, pid, 0);
	if (p == NULL || !p->tracked)
		return 0;
	m.path = (const char *)c->p + c->pos;
	m.path_len = strnlen(m.path, sp_cur_left(c));
	return spi_rec_add_mapping(&r->ctx, p, &m);
}

/* PERF_RECORD_COMM: pid, tid, comm; misc says whether it was an exec. */
static int
on_comm(struct sp_recorder *r, struct sp_cur *c, int exec)
{
	uint32_t pid, tid;
	char comm[16];
	struct rec_proc *p;
	struct rec_thread *t;
	size_t n;
	int err;

	pid = sp_rd_u32(c);
	tid = sp_rd_u32(c);
	if (c->err) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	n = strnlen((const char *)c->p + c->pos, sp_cur_left(c));
	if (n >= sizeof(comm))
		n = sizeof(comm) - 1;
	memcpy(comm, c->p + c->pos, n);
	comm[n] = '\0';
	p = spi_rec_proc_get(r, pid, 0);
	t = spi_imap_get(&r->threads, tid);
	/* Named now: a short-lived process's samples may be read after it
	 * exited, when /proc has no name left for them. */
	if (t == NULL && p != NULL && p->tracked &&
	    (t = new_thread(r, pid, tid)) == NULL)
		return -ENOMEM;
	if (t != NULL) {
		memcpy(t->comm, comm, n + 1);
		t->id = 0; /* a new THREAD identity at its next sample */
	}
	if (p == NULL || !p->tracked)
		return 0;
	if (exec) {
		spi_rec_drop_maps(&r->ctx, p); /* the old image's mappings are gone */
		p->exec_time = r->ctx.now;
		err = spi_rec_write_python(&r->ctx, p, 0, r->ctx.now);
		if (err)
			return err;
	}
	return spi_rec_write_proc(&r->ctx, exec ? SP_PROC_EXEC : SP_PROC_COMM,
	    pid, tid, 0, 0, comm);
}

/*
 * A new thread tid of pid, forked by ptid, has ptid's name until it
 * execs (its COMM record renames it): kept now, for samples read after
 * it exited, when /proc has no name left.
 */
static int
name_child(struct sp_recorder *r, uint32_t pid, uint32_t tid, uint32_t ptid)
{
	const struct rec_thread *pt = spi_imap_get(&r->threads, ptid);
	struct rec_thread *t = spi_imap_get(&r->threads, tid);

	/* Records come in time order: a switch off CPU held for tid is an
	 * earlier thread's, whose exit was lost. */
	if (t != NULL && t->pid == pid && !t->exited) {
		t->off.time = 0;
		return 0;
	}
	if ((t = renew_thread(r, t, pid, tid)) == NULL)
		return -ENOMEM;
	if (pt != NULL)
		memcpy(t->comm, pt->comm, sizeof(t->comm));
	else
		(void)spi_proc_comm((pid_t)pid, (pid_t)tid, t->comm,
		    sizeof(t->comm));
	return 0;
}

/* PERF_RECORD_FORK / EXIT: pid, ppid, tid, ptid, time. */
static int
on_task(struct sp_recorder *r, struct sp_cur *c, int fork)
{
	uint32_t pid, ppid, tid, ptid;
	struct rec_proc *p, *parent;
	struct rec_thread *t;
	int reused, covered, err;

	pid = sp_rd_u32(c);
	ppid = sp_rd_u32(c);
	tid = sp_rd_u32(c);
	ptid = sp_rd_u32(c);
	(void)sp_rd_u64(c);                /* time */
	if (c->err) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	if (fork) {
		/* Covered already: a sweep found it first (and counted it). */
		covered = spi_imap_get(&r->covered, tid) != NULL;
		(void)spi_imap_put(&r->covered, tid, &r->covered);
		parent = spi_rec_proc_get(r, ppid, 0);
		/* Its exit read a moment ago: the pid is another process's. */
		p = spi_rec_proc_get(r, pid, 0);
		if (p != NULL && p->exited && pid != ppid)
			spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
		p = spi_rec_proc_get(r, pid, pid != ppid && (r->system ||
		    (parent != NULL && parent->tracked && r->o.children)));
		/* A known pid forked anew: its old exit was lost. */
		reused = 0;
		if (p != NULL && pid != ppid && p->tracked && parent != NULL &&
		    (err = spi_rec_check_reuse(&r->ctx, p, &reused)) != 0)
			return err;
		if (reused)
			p->tracked = 0;
		if (p != NULL && pid != ppid && parent == NULL && r->system &&
		    p->nmaps == 0 && !p->tracked) {
			/* Its parent's start was not seen: /proc says. */
			if ((err = spi_rec_adopt(r, pid, &p)) != 0)
				return err;
		} else if (p != NULL && pid != ppid && parent != NULL &&
		    p->nmaps == 0 && !p->tracked) {
			p->tracked = 1;
			r->ctx.c[C_PROCESSES]++;
			p->last_rescan = r->ctx.now;
			if ((err = spi_rec_clone_maps(&r->ctx, p, parent)) != 0 ||
			    (err = spi_rec_write_python(&r->ctx, p, parent->python,
			    r->ctx.now)) != 0)
				return err;
		}
		if (p == NULL || !p->tracked)
			return 0;
		if ((err = name_child(r, pid, tid, ptid)) != 0)
			return err;
		r->ctx.c[C_THREADS] += !covered;
		return spi_rec_write_proc(&r->ctx, SP_PROC_FORK, pid, tid, ppid, ptid, NULL);
	}
	covered = spi_imap_del(&r->covered, tid) != NULL;
	if (r->system)
		return on_exit_system(r, pid, tid, ppid, ptid);
	t = spi_imap_del(&r->threads, tid);
	/* An exit of a thread neither covered nor seen: the kernel sent it
	 * twice (seen once in 10,000 exits), or its start was lost. */
	if (!covered && t == NULL)
		return 0;
	free(t);
	p = spi_rec_proc_get(r, pid, 0);
	if (p != NULL && !p->tracked && pid == tid)
		spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
	if (p == NULL || !p->tracked)
		return 0;
	err = spi_rec_write_proc(&r->ctx, SP_PROC_EXIT, pid, tid, ppid, ptid, NULL);
	if (pid == tid) {
		exited(r, p);
		spi_rec_proc_free(&r->ctx, spi_imap_del(&r->procs, pid));
	}
	return err;
}

int
spi_rec_process(struct sp_recorder *r, const uint8_t *rec, size_t len)
{
	struct perf_event_header h;
	struct sample_id id;
	struct sp_cur c;
	uint64_t lost;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE)
		return on_sample(r, rec, len);
	if (trailer(r, rec, len, &id) < 0) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	r->ctx.now = id.time;
	if (r->nexited > 0)
		reap(r, r->ctx.now);
	c = sp_cur_make(rec + sizeof(h), len - sizeof(h) - SAMPLE_ID_LEN -
	    spi_rec_id_len(r));
	switch (h.type) {
	case PERF_RECORD_MMAP2:
		return on_mmap2(r, &c);
	case PERF_RECORD_COMM:
		return on_comm(r, &c,
		    (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
	case PERF_RECORD_FORK:
		return on_task(r, &c, 1);
	case PERF_RECORD_EXIT:
		return on_task(r, &c, 0);
	case PERF_RECORD_LOST:
		(void)sp_rd_u64(&c);       /* id */
		lost = sp_rd_u64(&c);
		if (c.err) {
			r->ctx.c[C_BAD_RECORDS]++;
			return 0;
		}
		r->ctx.c[C_LOST_EVENTS] += lost;
		r->ctx.c[C_LOST_RECORDS]++;
		r->need_sweep = 1;
		return 0;
	case PERF_RECORD_THROTTLE:
		r->ctx.c[C_THROTTLES]++;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return on_switch(r, &id, h.misc);
	default:
		return 0;
	}
}
