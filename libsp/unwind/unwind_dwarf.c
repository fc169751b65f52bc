/* SPDX-License-Identifier: MIT */
/* The DWARF CFI unwinder: one CFA step per frame (DWARF 5 §6.4.4), the
 * frame pointer where there is no CFI. */
#include <stdlib.h>
#include <string.h>

#include "sp/cfi.h"
#include "common/cursor_int.h"
#include "sp/unwind.h"
#include "unwind_leaf_int.h"

static const char *const error_names[SP_UNW_ERRORS_] = {
	[SP_UNW_OK] = "unwind_ok",
	[SP_UNW_STACK_BOUNDS] = "unwind_stack_bounds",
	[SP_UNW_NO_PROGRESS] = "unwind_no_progress",
	[SP_UNW_BAD_FP] = "unwind_bad_fp",
	[SP_UNW_DEPTH] = "unwind_depth",
	[SP_UNW_NO_REGS] = "unwind_no_regs",
	[SP_UNW_BAD_RA] = "unwind_bad_ra",
	[SP_UNW_NO_STACK] = "unwind_no_stack",
};

const char *
sp_unwind_error_name(enum sp_unwind_error e)
{
	return (unsigned)e < SP_UNW_ERRORS_ ? error_names[e] : "unwind_unknown";
}

static const char *const fallback_names[SP_FB_KINDS_] = {
	[SP_FB_NO_MODULE] = "fp_fallback_no_module",
	[SP_FB_NO_CFI] = "fp_fallback_no_cfi",
	[SP_FB_NO_FDE] = "fp_fallback_no_fde",
	[SP_FB_BAD_CFI] = "fp_fallback_bad_cfi",
};

const char *
sp_unwind_fallback_name(enum sp_unwind_fallback f)
{
	return (unsigned)f < SP_FB_KINDS_ ? fallback_names[f] : "fp_fallback";
}

struct frame {
	uint64_t r[SP_DW_NREGS];
	uint32_t valid;
};

struct walk {
	const struct sp_ustack *stk;
	uint64_t sp0; /* address of the copy's first byte */
};

/* 8 bytes of the copied stack: -SP_ENOTFOUND below it, -SP_ETRUNC past its
 * end (where the stack goes on, uncopied). */
static int
load(void *ctx, uint64_t addr, uint64_t *v)
{
	const struct walk *w = ctx;
	uint64_t off;

	if (addr < w->sp0)
		return -SP_ENOTFOUND;
	off = addr - w->sp0;
	if (off > w->stk->len || w->stk->len - off < 8)
		return -SP_ETRUNC;
	*v = sp_le64(w->stk->data + off);
	return 0;
}

/* perf's register order to DWARF numbering (System V ABI fig. 3.36). */
static void
from_perf(const struct sp_uregs *in, struct frame *f)
{
	static const uint8_t map[SP_DW_NREGS] = {
		[SP_DW_RAX] = SP_REG_AX, [SP_DW_RDX] = SP_REG_DX,
		[SP_DW_RCX] = SP_REG_CX, [SP_DW_RBX] = SP_REG_BX,
		[SP_DW_RSI] = SP_REG_SI, [SP_DW_RDI] = SP_REG_DI,
		[SP_DW_RBP] = SP_REG_BP, [SP_DW_RSP] = SP_REG_SP,
		[SP_DW_R8] = SP_REG_R8, [SP_DW_R9] = SP_REG_R9,
		[SP_DW_R10] = SP_REG_R10, [SP_DW_R11] = SP_REG_R11,
		[SP_DW_R12] = SP_REG_R12, [SP_DW_R13] = SP_REG_R13,
		[SP_DW_R14] = SP_REG_R14, [SP_DW_R15] = SP_REG_R15,
		[SP_DW_RA] = SP_REG_IP,
	};
	int i;

	for (i = 0; i < SP_DW_NREGS; i++)
		f->r[i] = in->r[map[i]];
	f->valid = (1u << SP_DW_NREGS) - 1;
}

/* One register of the caller from its rule. */
static int
restore(struct walk *w, const struct frame *cur, const struct sp_cfi_rule *ru,
    uint64_t cfa, int i, struct frame *next)
{
	uint64_t v;
	int err = 0;

	switch (ru->kind) {
	case SP_RULE_SAME:
		if (!(cur->valid & (1u << i)))
			return 0;
		v = cur->r[i];
		break;
	case SP_RULE_UNDEF:
		return 0;
	case SP_RULE_OFFSET:
		err = load(w, cfa + (uint64_t)ru->off, &v);
		/* In an epilogue the rows keep the save slots of registers
		 * already popped: below the stack pointer, where the kernel
		 * copied nothing.  The register holds that value again.
		 * (Saving into the red zone instead, System V ABI §3.2.2,
		 * would break this; gcc and clang save with push.) */
		if (err && cfa + (uint64_t)ru->off < w->sp0 && i != SP_DW_RA &&
		    (cur->valid & (1u << i))) {
			v = cur->r[i];
			err = 0;
		}
		break;
	case SP_RULE_VAL_OFFSET:
		v = cfa + (uint64_t)ru->off;
		break;
	case SP_RULE_REG:
		if (!(cur->valid & (1u << ru->reg)))
			return 0;
		v = cur->r[ru->reg];
		break;
	case SP_RULE_EXPR:
	case SP_RULE_VAL_EXPR:
		err = sp_dwarf_expr(ru->expr, ru->expr_len, cur->r, cur->valid,
		    cfa, 1, load, w, &v);
		if (err == 0 && ru->kind == SP_RULE_EXPR)
			err = load(w, v, &v);
		break;
	default:
		return -SP_EFORMAT;
	}
	if (err)
		return err;
	next->r[i] = v;
	next->valid |= 1u << i;
	return 0;
}

/* DWARF 5 §6.4.4: the caller's registers from a row. */
static int
cfi_step(struct walk *w, const struct frame *cur, const struct sp_cfi_row *row,
    struct frame *next)
{
	uint64_t cfa;
	int i, err;

	if (row->cfa_expr != NULL) {
		err = sp_dwarf_expr(row->cfa_expr, row->cfa_expr_len, cur->r,
		    cur->valid, 0, 0, load, w, &cfa);
		if (err)
			return err;
	} else {
		if (!(cur->valid & (1u << row->cfa_reg)))
			return -SP_EFORMAT;
		cfa = cur->r[row->cfa_reg] + (uint64_t)row->cfa_off;
	}
	memset(next, 0, sizeof(*next));
	for (i = 0; i < SP_DW_NREGS; i++)
		if ((err = restore(w, cur, &row->regs[i], cfa, i, next)) != 0)
			return err;
	/* The CFA is the caller's stack pointer unless a rule says else. */
	if (row->regs[SP_DW_RSP].kind == SP_RULE_SAME) {
		next->r[SP_DW_RSP] = cfa;
		next->valid |= 1u << SP_DW_RSP;
	}
	return 0;
}

/*
 * A row in the form nearly every row has (CFA = register + offset, the
 * caller's stack pointer the CFA, each other register the same, undefined
 * or saved at CFA + a small offset): what the cache keeps per pc, 64
 * bytes instead of a whole row, and applied without a switch per
 * register.  Any other row (an expression, a register in another) is
 * applied by cfi_step.
 */
struct step {
	uint32_t saved;            /* bit i: register i at CFA + off[i] */
	uint32_t undef;            /* bit i: undefined in the caller */
	int32_t cfa_off;
	uint8_t cfa_reg;
	uint8_t simple;            /* 0: not in this form */
	uint8_t signal_frame;
	int16_t off[SP_DW_NREGS];
};

static void
compile(const struct sp_cfi_row *row, struct step *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	st->signal_frame = row->signal_frame != 0;
	if (row->cfa_expr != NULL || row->cfa_reg >= SP_DW_NREGS ||
	    row->cfa_off != (int32_t)row->cfa_off ||
	    row->regs[SP_DW_RSP].kind != SP_RULE_SAME)
		return;
	st->cfa_reg = row->cfa_reg;
	st->cfa_off = (int32_t)row->cfa_off;
	for (i = 0; i < SP_DW_NREGS; i++) {
		const struct sp_cfi_rule *ru = &row->regs[i];

		if (ru->kind == SP_RULE_UNDEF) {
			st->undef |= 1u << i;
		} else if (ru->kind == SP_RULE_OFFSET &&
		    ru->off == (int16_t)ru->off) {
			st->saved |= 1u << i;
			st->off[i] = (int16_t)ru->off;
		} else if (ru->kind != SP_RULE_SAME) {
			return;
		}
	}
	st->simple = 1;
}

/* cfi_step for a simple row: the same registers, errors and order. */
static int
simple_step(struct walk *w, const struct frame *cur, const struct step *st,
    struct frame *next)
{
	uint64_t cfa;
	uint32_t left;

	if (!(cur->valid & (1u << st->cfa_reg)))
		return -SP_EFORMAT;
	cfa = cur->r[st->cfa_reg] + (uint64_t)(int64_t)st->cfa_off;
	memcpy(next->r, cur->r, sizeof(next->r));
	next->valid = cur->valid & ~(st->undef | st->saved);
	for (left = st->saved; left != 0; left &= left - 1) {
		int i = __builtin_ctz(left);
		uint64_t at = cfa + (uint64_t)(int64_t)st->off[i];

		if (load(w, at, &next->r[i]) != 0) {
			/* As restore: a slot below the copy in an epilogue. */
			if (!(at < w->sp0 && i != SP_DW_RA &&
			    (cur->valid & (1u << i))))
				return load(w, at, &next->r[i]);
			next->r[i] = cur->r[i];
		}
		next->valid |= 1u << i;
	}
	next->r[SP_DW_RSP] = cfa;
	next->valid |= 1u << SP_DW_RSP;
	return 0;
}

/* The System V frame-pointer convention: [rbp] is the caller's rbp,
 * [rbp + 8] the return address. */
static int
fp_step(struct walk *w, const struct frame *cur, struct frame *next)
{
	uint64_t fp = cur->r[SP_DW_RBP], nfp, ra;

	/* Misaligned, or below the frame it would be the caller's of: not
	 * a frame pointer (code that keeps none uses rbp for data). */
	if (!(cur->valid & (1u << SP_DW_RBP)) || (fp & 7) ||
	    ((cur->valid & (1u << SP_DW_RSP)) && fp < cur->r[SP_DW_RSP]))
		return -SP_EFORMAT;
	if (load(w, fp, &nfp) < 0 || load(w, fp + 8, &ra) < 0)
		return -SP_ETRUNC; /* beyond the copy: above, as fp >= rsp */
	memset(next, 0, sizeof(*next));
	next->r[SP_DW_RBP] = nfp;
	next->r[SP_DW_RSP] = fp + 16;
	next->r[SP_DW_RA] = ra;
	next->valid = 1u << SP_DW_RBP | 1u << SP_DW_RSP | 1u << SP_DW_RA;
	return 0;
}

/*
 * Whether sp is the stack the kernel gives a new process (System V ABI
 * x86-64, 3.4.1): argc, argc pointers into the stack above, a NULL.
 */
static int
entry_stack(struct walk *w, uint64_t sp)
{
	uint64_t argc, v, i;

	if (load(w, sp, &argc) < 0 || argc == 0 || argc > 65536 ||
	    load(w, sp + 8 * (argc + 1), &v) < 0 || v != 0)
		return 0;
	for (i = 1; i <= argc; i++)
		if (load(w, sp + 8 * i, &v) < 0 || v <= sp ||
		    v - w->sp0 >= w->stk->len)
			return 0;
	return 1;
}

/* Stack words a scan looks through for a return address. */
#define SCAN_WORDS 64

/*
 * Whether the bytes before ra end with a call instruction (x86-64 FF /2
 * through a register or memory, with or without REX, or E8 rel32): a
 * return address, not a number that happens to point into code.
 */
static int
after_call(const struct sp_unwind_lookup *lk, uint64_t ra)
{
	uint8_t b[7]; /* b[7 - k]: the k-th byte before ra */

	if (ra < sizeof(b) || lk->read_code(lk->ctx, ra - sizeof(b), b,
	    sizeof(b)) != sizeof(b))
		return 0;
	return b[2] == 0xe8 ||                                 /* rel32 */
	    (b[5] == 0xff && (b[6] & 0xf8) == 0xd0) ||         /* reg */
	    (b[4] >= 0x40 && b[4] <= 0x4f && b[5] == 0xff &&
	    (b[6] & 0xf8) == 0xd0) ||                          /* REX reg */
	    (b[5] == 0xff && (b[6] & 0xf8) == 0x10 && (b[6] & 7) != 4 &&
	    (b[6] & 7) != 5) ||                                /* [reg] */
	    (b[4] == 0xff && (b[5] & 0xf8) == 0x50 && (b[5] & 7) != 4) ||
	    (b[1] == 0xff && ((b[2] & 0xf8) == 0x90 || b[2] == 0x15) &&
	    (b[2] & 7) != 4);                   /* [reg+disp8/32], [rip+d] */
}

/*
 * JIT code whose frame neither the analysis nor the frame pointer unwinds
 * (a compiled method that keeps no frame pointer, its OSR frame): a word
 * above rsp that points into known code right after a call is the return
 * address, as crash reporters scan.  Of those in SCAN_WORDS, the first
 * with its caller's frame pointer saved just below it (push rbp first: a
 * word above it in the copy) is taken, else the first: a stale return
 * address left in a frame has seldom one.  0, or -SP_ENOTFOUND.
 */
static int
scan_step(struct walk *w, const struct frame *cur,
    const struct sp_unwind_lookup *lk, struct frame *next)
{
	uint64_t sp = cur->r[SP_DW_RSP], v, bp, bias, first = 0, found = 0;
	const struct sp_cfi_table *t;
	int i;

	if (lk->read_code == NULL || lk->jit == NULL ||
	    !(cur->valid & (1u << SP_DW_RSP)) ||
	    !lk->jit(lk->ctx, cur->r[SP_DW_RA]))
		return -SP_ENOTFOUND;
	for (i = 0; i < SCAN_WORDS && found == 0; i++) {
		uint64_t slot = sp + 8 * (uint64_t)i;

		if (load(w, slot, &v) < 0)
			break;
		if (v < 4096 || lk->find(lk->ctx, v - 1, &t, &bias) != 0 ||
		    !after_call(lk, v))
			continue;
		if (first == 0)
			first = slot;
		if (i > 0 && load(w, slot - 8, &bp) == 0 && (bp & 7) == 0 &&
		    bp > slot && bp - w->sp0 < w->stk->len)
			found = slot;
	}
	if (found == 0)
		found = first;
	if (found == 0 || load(w, found, &v) < 0)
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	next->r[SP_DW_RA] = v;
	next->r[SP_DW_RSP] = found + 8;
	next->valid = 1u << SP_DW_RA | 1u << SP_DW_RSP;
	if (found > sp && load(w, found - 8, &bp) == 0 && (bp & 7) == 0 &&
	    bp > found && bp - w->sp0 < w->stk->len) {
		next->r[SP_DW_RBP] = bp;
		next->valid |= 1u << SP_DW_RBP;
	} else if (cur->valid & (1u << SP_DW_RBP)) {
		next->r[SP_DW_RBP] = cur->r[SP_DW_RBP];
		next->valid |= 1u << SP_DW_RBP;
	}
	return 0;
}

/*
 * A leaf frame without CFI: where instruction analysis finds the return
 * address, the caller's rsp is just above it and rbp is either untouched
 * or saved below it.  Returns 0 with next filled, or -SP_ENOTFOUND to walk
 * the frame pointer instead.
 */
static int
leaf_step(struct walk *w, const struct frame *cur,
    const struct sp_unwind_lookup *lk, uint64_t pc, struct frame *next,
    struct sp_unwind_stats *stats)
{
	uint64_t sp = cur->r[SP_DW_RSP], bp = cur->r[SP_DW_RBP], ra;
	struct sp_leaf lf;

	if (spi_unwind_leaf(pc, lk->read_code, lk->ctx, &lf) != 0 ||
	    lf.kind == SP_LEAF_UNKNOWN) {
		stats->leaf_insn_unknown++;
		return -SP_ENOTFOUND;
	}
	stats->leaf_insn++;
	if (lf.kind == SP_LEAF_FRAME)
		return -SP_ENOTFOUND;
	if (load(w, sp + (uint64_t)lf.ra_off, &ra) < 0 ||
	    (lf.bp_saved && load(w, sp + (uint64_t)lf.bp_off, &bp) < 0))
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	next->r[SP_DW_RA] = ra;
	next->r[SP_DW_RSP] = sp + (uint64_t)lf.ra_off + 8;
	next->r[SP_DW_RBP] = bp;
	next->valid = 1u << SP_DW_RA | 1u << SP_DW_RSP |
	    (cur->valid & 1u << SP_DW_RBP) | (uint32_t)lf.bp_saved << SP_DW_RBP;
	return 0;
}

#define CACHE_SLOTS 2048u /* power of two */

struct cache_slot {
	const struct sp_cfi_table *table; /* NULL: empty */
	uint64_t pc;                      /* ELF address */
	struct step step;                 /* simple: only those are kept */
};

struct sp_unwind_cache {
	struct cache_slot slot[CACHE_SLOTS];
};

struct sp_unwind_cache *
sp_unwind_cache_new(void)
{
	return calloc(1, sizeof(struct sp_unwind_cache));
}

void
sp_unwind_cache_free(struct sp_unwind_cache *c)
{
	free(c);
}

void
sp_unwind_cache_forget(struct sp_unwind_cache *c,
    const struct sp_cfi_table *t)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < CACHE_SLOTS; i++)
		if (c->slot[i].table == t)
			c->slot[i].table = NULL;
}

static struct cache_slot *
cache_slot(struct sp_unwind_cache *c, const struct sp_cfi_table *t,
    uint64_t pc)
{
	uint64_t h = (pc ^ (uint64_t)(uintptr_t)t) * 0x9e3779b97f4a7c15ull;

	return &c->slot[(h >> 40) & (CACHE_SLOTS - 1)];
}

/* Finds the row for pc, as a simple step (from the cache when it is
 * there) or else a whole row; on failure says which fallback it is.
 * *end: whether pc is in a function where the stack began or switched. */
static int
row_for(const struct sp_unwind_lookup *lk, uint64_t pc, struct step *st,
    struct sp_cfi_row *row, enum sp_unwind_fallback *why, int *end,
    struct sp_unwind_stats *stats)
{
	const struct sp_cfi_table *t = NULL;
	struct cache_slot *cs = NULL;
	uint64_t bias = 0;
	int err = lk->find(lk->ctx, pc, &t, &bias);

	*end = 0;
	if (err) {
		*why = SP_FB_NO_MODULE;
		return err;
	}
	if (t != NULL)
		*end = sp_cfi_table_stack_end(t, pc - bias);
	if (t == NULL || sp_cfi_table_empty(t)) {
		*why = SP_FB_NO_CFI;
		return -SP_ENOTFOUND;
	}
	if (lk->cache != NULL) {
		cs = cache_slot(lk->cache, t, pc - bias);
		if (cs->table == t && cs->pc == pc - bias &&
		    cs->step.simple) {
			*st = cs->step;
			stats->cache_hits++;
			return 0;
		}
	}
	err = sp_cfi_table_row(t, pc - bias, row);
	*why = err == -SP_ENOTFOUND ? SP_FB_NO_FDE : SP_FB_BAD_CFI;
	if (err == 0) {
		compile(row, st);
		if (cs != NULL && st->simple) {
			cs->table = t;
			cs->pc = pc - bias;
			cs->step = *st;
		}
	}
	return err;
}

/*
 * Whether the instruction before pc is a syscall (0f 05).  A sample taken
 * in a system call has the user pc after it, which is past the function's
 * CFI when the call ends it: glibc's __restore_rt (rt_sigreturn does not
 * return) is "mov $15, %eax; syscall" and its FDE ends there.
 */
static int
after_syscall(const struct sp_unwind_lookup *lk, uint64_t pc)
{
	uint8_t b[2];

	return lk->read_code != NULL && pc >= 2 &&
	    lk->read_code(lk->ctx, pc - 2, b, 2) == 2 && b[0] == 0x0f &&
	    b[1] == 0x05;
}

void
sp_unwind_dwarf(const struct sp_uregs *regs, const struct sp_ustack *stk,
    const struct sp_unwind_lookup *lookup, uint64_t *ips, size_t max,
    struct sp_unwind_result *res, struct sp_unwind_stats *stats)
{
	struct walk w = { stk, regs->r[SP_REG_SP] };
	struct frame cur, next;
	struct sp_cfi_row row;
	struct step st;
	int exact = 1, cut = 0;

	memset(res, 0, sizeof(*res));
	from_perf(regs, &cur);
	for (;;) {
		uint64_t pc = cur.r[SP_DW_RA] - (exact ? 0 : 1);
		enum sp_unwind_fallback why = SP_FB_BAD_CFI;
		int own_regs = exact, by_cfi = 0, end, err;

		if (res->n == max) {
			res->error = SP_UNW_DEPTH;
			return;
		}
		err = row_for(lookup, pc, &st, &row, &why, &end, stats);
		/* The sample's pc after a syscall that ends its FDE: the
		 * syscall's row (it moves no register the CFI tracks). */
		if (err && why == SP_FB_NO_FDE && res->n == 0 &&
		    after_syscall(lookup, pc) &&
		    row_for(lookup, pc - 1, &st, &row, &why, &end, stats) == 0)
			err = 0;
		/* A return address in no executable mapping is no frame: a
		 * step read garbage.  (The leaf's pc is one: a JIT's code
		 * before its mapping is known.) */
		if (err && why == SP_FB_NO_MODULE && res->n > 0) {
			res->error = SP_UNW_BAD_RA;
			return;
		}
		ips[res->n++] = pc;
		/* A signal trampoline (glibc's __restore_rt) is returned
		 * into, not called: its frame is the return address itself,
		 * which names it (the byte before, found for its CFI, is a
		 * nop before its symbol). */
		if (err == 0 && !exact && st.signal_frame)
			ips[res->n - 1] = pc + 1;
		/* Its caller is on another stack (Go's g0): the end of this
		 * one, unless the sample is in it (still on the first). */
		if (end && res->n > 1) {
			res->complete = 1;
			return;
		}
		if (err == 0) {
			err = st.simple ? simple_step(&w, &cur, &st, &next) :
			    cfi_step(&w, &cur, &row, &next);
			/* The row is right; the copy ends before its slots. */
			cut = err == -SP_ETRUNC;
			stats->cfi_steps++;
			by_cfi = err == 0;
			exact = st.signal_frame;
			if (err == 0 && !(next.valid & (1u << SP_DW_RA))) {
				res->complete = 1; /* RA undefined: outermost */
				return;
			}
		}
		if (err) {
			stats->fallbacks[why]++;
			/* Instruction analysis where the registers are the
			 * frame's own, and in code with no CFI at all (a JIT's,
			 * CPython's perf trampolines): its stack pointer came
			 * from a step, and from the return address (not the
			 * rewound pc, inside the call) the stack is as it was
			 * before the call. */
			if (lookup->read_code != NULL && (own_regs ||
			    (why == SP_FB_NO_CFI &&
			    (cur.valid & (1u << SP_DW_RSP)))))
				err = leaf_step(&w, &cur, lookup,
				    cur.r[SP_DW_RA], &next, stats);
			exact = 0;
		}
		if (err) {
			/* _start clears rbp: a zero frame pointer is the end
			 * of a walk that got there.  At the sample's own frame
			 * only on the process's first stack (a sample at the
			 * entry point): code with no frame pointer (musl's,
			 * built static) keeps _start's 0 all along, and a leaf
			 * in it the analysis cannot tell (_Exit's syscall
			 * loop) is no outermost frame. */
			if ((cur.valid & (1u << SP_DW_RBP)) &&
			    cur.r[SP_DW_RBP] == 0 && (!own_regs ||
			    entry_stack(&w, cur.r[SP_DW_RSP]))) {
				res->complete = 1;
				return;
			}
			err = fp_step(&w, &cur, &next);
			/* Past a copy that holds the whole stack: garbage. */
			if (err == -SP_ETRUNC && stk->whole && stk->len > 0 &&
			    !cut)
				err = -SP_EFORMAT;
			/* In code with no CFI, the frame pointer is no more
			 * than data: look for the return address. */
			if (err && why == SP_FB_NO_CFI && !cut &&
			    scan_step(&w, &cur, lookup, &next) == 0) {
				err = 0;
				stats->scanned++;
			}
			if (err) {
				res->error = err == -SP_EFORMAT && !cut ?
				    SP_UNW_BAD_FP : stk->len == 0 ?
				    SP_UNW_NO_STACK : SP_UNW_STACK_BOUNDS;
				return;
			}
		}
		/* A zero return address ends the stack where CFI put it
		 * there; found by a frame pointer or a guess, it is garbage. */
		if (next.r[SP_DW_RA] == 0) {
			res->complete = by_cfi;
			res->error = by_cfi ? SP_UNW_OK : SP_UNW_BAD_RA;
			return;
		}
		if (!(next.valid & (1u << SP_DW_RSP)) ||
		    next.r[SP_DW_RSP] <= cur.r[SP_DW_RSP]) {
			res->error = SP_UNW_NO_PROGRESS;
			return;
		}
		res->stack_used = next.r[SP_DW_RSP] - w.sp0;
		cur = next;
	}
}
