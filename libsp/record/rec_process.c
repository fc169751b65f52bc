/* SPDX-License-Identifier: MIT */
/*
 * What each perf record means for the spool: decoded first
 * (rec_decode.c), then a sample becomes a stack of interned frames,
 * unwound here; the lifecycle records go to rec_threads.c, the switches
 * to rec_offcpu.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "common/procfs_int.h"
#include "dwarf/cfi_int.h"
#include "elf/elf_int.h"
#include "rec_decode_int.h"
#include "recorder_int.h"
#include "unwind/arch_int.h"

static int
put(struct sp_recorder *r, struct sp_record *rec, uint32_t *id)
{
	return sp_writer_put(r->ctx.w, rec, id);
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
		rec.u.module.start = SPI_ARCH_KERNEL_START;
		rec.u.module.size = SPI_ARCH_KERNEL_SIZE;
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

/* Adds the kernel callchain's frames; keeps its user frames where they
 * were asked for (after r->nuchain, which the caller zeroes), else
 * counts those it still has. */
static int
kernel_frames(struct sp_recorder *r, const struct rec_sample *smp, size_t *n)
{
	uint64_t i;
	int user = 0, err;

	for (i = 0; i < smp->nchain; i++) {
		uint64_t ip = sp_le64(smp->chain + 8 * i);

		/* perf_event.h: context markers separate kernel and user. */
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (user && r->ev.user_chains) {
			if (r->nuchain < r->o.max_frames)
				r->uchain[r->nuchain++] = ip;
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

/* The page of code at page (4 KiB aligned) of process p, read in this
 * drain (rec_ctx_int.h): NULL when it cannot be read. */
static const struct rec_code_page *
code_page(struct rec_ctx *r, const struct rec_proc *p, uint64_t page)
{
	struct rec_code_page *cp;
	struct iovec local, remote;
	ssize_t got;

	if (r->code == NULL &&
	    (r->code = calloc(REC_CODE_PAGES, sizeof(*r->code))) == NULL)
		return NULL;
	cp = &r->code[((page >> 12) ^ (uint64_t)p->pid * 0x9e3779b1u) %
	    REC_CODE_PAGES];
	if (cp->gen == r->drain_gen && cp->page == page && cp->pid == p->pid) {
		r->c[C_CODE_READ_HITS]++;
		return cp->len > 0 ? cp : NULL;
	}
	local.iov_base = cp->b;
	local.iov_len = sizeof(cp->b);
	/* An address in the other process, never dereferenced here. */
	/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
	remote.iov_base = (void *)(uintptr_t)page;
	remote.iov_len = sizeof(cp->b);
	got = process_vm_readv((pid_t)p->pid, &local, 1, &remote, 1, 0);
	cp->page = page;
	cp->pid = p->pid;
	cp->gen = r->drain_gen;
	cp->len = got > 0 ? (uint32_t)got : 0;
	r->c[C_CODE_READS]++;
	return cp->len > 0 ? cp : NULL;
}

/* Code bytes of the sampled process, for the leaf analysis: from the
 * pages read in this drain, up to the first that cannot be read.  A
 * sample read from the ring after its process exited can still be
 * analysed when its code is file-backed: then the bytes come from the
 * file; else from the bytes read at that address before (struct
 * code_memo). */
static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct walk *w = ctx;
	struct rec_proc *p = w->p;
	struct code_memo *cm = &p->code[(addr ^ addr >> 4) % CODE_MEMO];
	const struct rec_range *m;
	const struct sp_elf_file *elf;
	size_t got = 0;

	while (got < len) {
		uint64_t a = addr + got, page = a & ~(uint64_t)4095;
		const struct rec_code_page *cp = code_page(w->r, p, page);
		size_t off = (size_t)(a - page), k;

		if (cp == NULL || cp->len <= off)
			break;
		k = cp->len - off < len - got ? cp->len - off : len - got;
		memcpy(buf + got, cp->b + off, k);
		got += k;
		if (off + k < sizeof(cp->b))
			break;
	}
	m = spi_rec_find_range(p, addr);
	elf = m != NULL ? spi_rec_range_elf(m) : NULL;
	if (got > 0) {
		if (m != NULL && elf == NULL) {
			cm->addr = addr;
			cm->len = got < sizeof(cm->b) ? got : sizeof(cm->b);
			memcpy(cm->b, buf, cm->len);
		}
		return got;
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
	return spi_elf_file_read(elf, addr - m->start + m->offset, buf, len);
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
		if (r->jit_pid != p->pid) {
			r->jit_pid = p->pid;
			(void)spi_proc_args((pid_t)p->pid, r->jit_args,
			    sizeof(r->jit_args));
		}
	}
}

/* JIT code moved or replaced in place shows in the perf map its runtime
 * appends to (node --perf-basic-prof): a map that changed size gives the
 * process's code a new epoch, and the leaf memo forgets it.  Looked at
 * every 100 ms at most, for samples in code with no file.  (A process in
 * a PID namespace names its map by another pid: there the memo relies on
 * the code bytes it checks.) */
static void
perf_map_check(struct rec_ctx *r, struct rec_proc *p)
{
	char path[64];
	struct stat st;
	int64_t size;

	if (p->pmap_checked != 0 && r->now - p->pmap_checked < 100000000ull)
		return;
	p->pmap_checked = r->now;
	(void)snprintf(path, sizeof(path), "/proc/%u/root/tmp/perf-%u.map",
	    p->pid, p->pid);
	size = stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
	if (size != p->pmap_size) {
		p->pmap_size = size;
		p->code_epoch = ++r->epochs;
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
	struct sp_unwind_lookup lk = { .find = find_cfi, .ctx = &w,
	    .cache = r->ctx.cache, .read_code = read_code, .jit = in_jit,
	    .memo = r->ctx.leaf_memo };
	struct sp_unwind_result res;
	struct sp_unwind_stats st;
	size_t i;
	int err;

	memset(&st, 0, sizeof(st));
	if (in_jit(&w, regs->r[SPI_PERF_PC]))
		perf_map_check(&r->ctx, p);
	lk.epoch = p->code_epoch;
	spi_unwind_dwarf(regs, stk, &lk, r->ips, r->o.max_frames - *n, &res,
	    &st);
	/* A Go stack switch: on along the kernel's chain, where it came. */
	if (res.error == SP_UNW_SWITCH && r->nuchain > 0)
		(void)spi_unwind_splice(&lk, r->uchain, r->nuchain, r->ips,
		    r->o.max_frames - *n, &res);
	r->ctx.c[C_CFI_STEPS] += st.cfi_steps;
	r->ctx.c[C_CFI_CACHE_HITS] += st.cache_hits;
	r->ctx.c[C_LEAF_INSN] += st.leaf_insn;
	r->ctx.c[C_LEAF_INSN_UNKNOWN] += st.leaf_insn_unknown;
	r->ctx.c[C_LEAF_MEMO_HITS] += st.leaf_memo_hits;
	r->ctx.c[C_SCANNED] += st.scanned;
	r->ctx.c[C_SIGNAL_FRAMES] += st.signal_frames;
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
		spi_adapt_observe(&r->adapt, &res, stk);
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

/* By frame pointers (--call-graph fp): the kernel's user chain
 * (r->uchain) is the stack, as the unwinder would give it. */
static int
chain_frames(struct sp_recorder *r, struct rec_proc *p, size_t *n,
    int *complete)
{
	struct walk w = { &r->ctx, p };
	struct sp_unwind_lookup lk = { .find = find_cfi, .ctx = &w };
	struct sp_unwind_result res;
	size_t i;
	int err;

	spi_unwind_chain(&lk, r->uchain, r->nuchain, r->ips,
	    r->o.max_frames - *n, &res);
	for (i = 0; i < res.n; i++) {
		err = user_frame(r, p, r->ips[i], &r->frames[(*n)++]);
		if (err)
			return err;
	}
	*complete = res.complete;
	if (!res.complete)
		r->ctx.c[C_UNW(res.error)]++;
	return 0;
}

/* A sample, or with off (--off-cpu) a switch off CPU, which waits for its
 * thread's switch in (hold_off_cpu). */
static int
write_sample(struct sp_recorder *r, const struct rec_decoded *d, size_t n,
    int complete, int off)
{
	uint32_t pid = d->pid, tid = d->tid;
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
	rec.u.sample.cpu = d->cpu;
	/* An event that counts: the events since its last sample, the
	 * sample's own by frequency, else the period. */
	rec.u.sample.weight = r->ev.sel.clock || off ? 1 :
	    d->u.sample.period > 0 ? d->u.sample.period :
	    r->o.period > 0 ? r->o.period : 1;
	err = sp_writer_stack(r->ctx.w, r->frames, n, &rec.u.sample.stack);
	if (err == 0)
		err = spi_rec_thread_id(r, pid, tid, &rec.u.sample.thread);
	if (err == 0 && off)
		return spi_rec_hold_off_cpu(r, tid, &rec.u.sample);
	if (err == 0)
		err = put(r, &rec, NULL);
	if (err == 0) {
		r->ctx.c[C_SAMPLES]++;
		r->ctx.c[C_EVENT_COUNT] += r->ev.sel.clock ? 0 : rec.u.sample.weight;
	}
	return err;
}

/* perf_event_open(2): PERF_RECORD_SAMPLE with TID, TIME, CPU, CALLCHAIN
 * (with --kernel), REGS_USER and STACK_USER, in that order. */
/* What the unwinder saw, after the sample it belongs to. */
static int
write_rawstack(struct sp_recorder *r, const struct sp_uregs *regs,
    const struct sp_ustack *stk)
{
	uint8_t raw[SPI_PERF_NREGS * 8];
	struct sp_record rec;
	size_t i;

	for (i = 0; i < SPI_PERF_NREGS; i++)
		sp_put_le64(raw + 8 * i, regs->r[i]);
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_RAWSTACK;
	rec.u.rawstack.nregs = SPI_PERF_NREGS;
	rec.u.rawstack.regs = raw;
	rec.u.rawstack.stack = stk->data;
	rec.u.rawstack.stack_len = (uint32_t)stk->len;
	return put(r, &rec, NULL);
}

static int
on_sample(struct sp_recorder *r, const struct rec_decoded *d)
{
	const struct rec_sample *smp = &d->u.sample;
	const struct sp_uregs *regs = &smp->regs;
	struct rec_proc *p;
	struct rec_thread *t;
	uint32_t pid = d->pid, tid = d->tid;
	size_t n = 0;
	int has_regs = smp->has_regs, complete = 1, err;
	int off = r->o.off_cpu && spi_events_is_switch(&r->ev, smp->id);
	uint64_t upc = regs->r[SPI_PERF_PC];

	/* Jittered, a sample is kept by its event's interval: dropped, it
	 * is as if the kernel had not taken it (rec_jitter_int.h). */
	if (!off && !spi_events_keep(&r->ev, smp->id)) {
		r->ctx.c[C_JITTER_DROPPED]++;
		return 0;
	}
	r->ctx.now = d->time;
	if (r->nexited > 0)
		spi_rec_reap(r, r->ctx.now);
	if (tid == 0) {
		r->ctx.c[C_IDLE] += !off;
		return 0;
	}
	/* A thread's last switch, as it exits, is after its EXIT record:
	 * it never comes back. */
	t = off ? spi_imap_get(&r->threads, tid) : NULL;
	if (off && ((!r->tg.system && spi_imap_get(&r->tg.covered, tid) == NULL) ||
	    (t != NULL && t->exited)))
		return 0;
	if (pid == 0 || pid == UINT32_MAX || tid == UINT32_MAX) {
		r->ctx.c[C_MISSING_PID]++;
		return 0;
	}
	p = spi_rec_proc_get(r, pid, 0);
	if (p == NULL && r->tg.system && (err = spi_rec_adopt(r, pid, &p)) != 0)
		return err;
	if (p == NULL || !p->tracked) {
		r->ctx.c[r->tg.system ? C_GONE : C_UNTRACKED] += !off;
		return 0;
	}
	/* Every switch is taken in the kernel: CPU samples only. */
	if (smp->in_kernel && !off)
		r->ctx.c[C_KERNEL_SAMPLES]++;
	r->nuchain = 0;
	if (smp->chain != NULL) {
		err = kernel_frames(r, smp, &n);
		if (err)
			return err;
	}
	if (smp->in_kernel && !spi_events_kernel_chains(&r->ev)) {
		/* Time in the kernel without its callchain: one frame,
		 * [kernel], on the user stack that entered it. */
		err = frame_id(r, 0, SP_FRAME_KERNEL, 0, 0, &r->frames[n++]);
		if (err)
			return err;
	}
	/* In the kernel's exec the user registers are the old image's, or
	 * none: before the COMM record in a command sp-record spawned, whose
	 * events the exec itself turned on (a hardware event in frequency
	 * mode starts at a period of 1: a burst of them), and from the COMM
	 * record until the new image starts, where an ip in none of the new
	 * image's mappings is no frame of it (seen 1 ms after the exec, in
	 * sp-record's own code).  The process has no user stack yet: the
	 * kernel's is the whole stack, counted as exec_samples. */
	if (r->ev.fp) {
		/* By frame pointers: the user chain instead (the same
		 * exec's chain is the old image's). */
		has_regs = r->nuchain > 0;
		upc = has_regs ? r->uchain[0] : 0;
	}
	if (smp->in_kernel && (p->awaiting_exec || (p->exec_time != 0 &&
	    r->ctx.now - p->exec_time < EXEC_WINDOW_NS && (!has_regs ||
	    spi_rec_find_range(p, upc) == NULL)))) {
		has_regs = 0;
		r->ctx.c[C_EXEC_SAMPLES] += !off;
	}
	if (has_regs && r->ev.fp) {
		err = chain_frames(r, p, &n, &complete);
		if (err)
			return err;
	} else if (has_regs) {
		err = user_frames(r, p, regs, &smp->stk, &n, &complete, off);
		if (err)
			return err;
	} else if (n == 0) {
		r->ctx.c[C_UNW(SP_UNW_NO_REGS)]++;
	}
	err = write_sample(r, d, n, complete, off);
	/* A RAWSTACK follows its SAMPLE: a switch's is written later, at its
	 * switch in, so the raw copy is of CPU samples only. */
	if (err == 0 && has_regs && r->o.raw_stacks && !off)
		err = write_rawstack(r, regs, &smp->stk);
	return err;
}

int
spi_rec_process(struct sp_recorder *r, const uint8_t *rec, size_t len)
{
	struct rec_format f = { spi_events_id_len(&r->ev),
		(r->ev.attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0,
		(r->ev.attr.sample_type & PERF_SAMPLE_PERIOD) != 0,
		(r->ev.attr.sample_type & PERF_SAMPLE_STACK_USER) == 0 };
	struct rec_decoded d;
	int bad = spi_rec_decode(&f, rec, len, &d) < 0;

	r->ctx.c[C_SAMPLE_EVENTS] += d.kind == REC_SAMPLE;
	if (bad) {
		r->ctx.c[C_BAD_RECORDS]++;
		return 0;
	}
	if (d.kind == REC_SAMPLE)
		return on_sample(r, &d);
	r->ctx.now = d.time;
	if (r->nexited > 0)
		spi_rec_reap(r, r->ctx.now);
	switch (d.kind) {
	case REC_MMAP2:
		return spi_rec_on_mmap2(r, &d);
	case REC_COMM:
		return spi_rec_on_comm(r, &d);
	case REC_FORK:
		return spi_rec_on_task(r, &d, 1);
	case REC_EXIT:
		return spi_rec_on_task(r, &d, 0);
	case REC_LOST:
		r->ctx.c[C_LOST_EVENTS] += d.u.lost;
		r->ctx.c[C_LOST_RECORDS]++;
		r->need_sweep = 1;
		return 0;
	case REC_THROTTLE:
		r->ctx.c[C_THROTTLES]++;
		return 0;
	case REC_SWITCH:
		return spi_rec_on_switch(r, &d, d.misc);
	default:
		return 0;
	}
}
