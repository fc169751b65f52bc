/* SPDX-License-Identifier: MIT */
/* The DWARF CFI unwinder: one CFA step per frame (DWARF 5 §6.4.4), the
 * frame pointer where there is no CFI; what depends on the architecture
 * (its registers, frame pointers, instructions) is arch_int.h's. */
#include <stdlib.h>
#include <string.h>

#include "arch_int.h"
#include "unwind/cfi_table_int.h"
#include "unwind/unwind_int.h"
#include "unwind/walk_int.h"

static const char *const error_names[SP_UNW_ERRORS_] = {
	[SP_UNW_OK] = "unwind_ok",
	[SP_UNW_STACK_BOUNDS] = "unwind_stack_bounds",
	[SP_UNW_NO_PROGRESS] = "unwind_no_progress",
	[SP_UNW_BAD_FP] = "unwind_bad_fp",
	[SP_UNW_DEPTH] = "unwind_depth",
	[SP_UNW_NO_REGS] = "unwind_no_regs",
	[SP_UNW_BAD_RA] = "unwind_bad_ra",
	[SP_UNW_NO_STACK] = "unwind_no_stack",
	[SP_UNW_SWITCH] = "unwind_stack_switch",
	[SP_UNW_FP_END] = "unwind_fp_end",
};

const char *
spi_unwind_error_name(enum sp_unwind_error e)
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
spi_unwind_fallback_name(enum sp_unwind_fallback f)
{
	return (unsigned)f < SP_FB_KINDS_ ? fallback_names[f] : "fp_fallback";
}

/* spi_dwarf_expr's reader of stack words. */
static int
load(void *ctx, uint64_t addr, uint64_t *v)
{
	return spi_unwind_load(ctx, addr, v);
}

/* One register of the caller from its rule. */
static int
restore(struct spi_walk *w, const struct spi_frame *cur, const struct sp_cfi_rule *ru,
    uint64_t cfa, int i, struct spi_frame *next)
{
	uint64_t v;
	int err = 0;

	switch (ru->kind) {
	case SP_RULE_SAME:
		if (!(cur->valid & SPI_BIT(i)))
			return 0;
		v = cur->r[i];
		break;
	case SP_RULE_UNDEF:
		return 0;
	case SP_RULE_OFFSET:
		err = spi_unwind_load(w, cfa + (uint64_t)ru->off, &v);
		/* In an epilogue the rows keep the save slots of registers
		 * already popped: below the stack pointer, where the kernel
		 * copied nothing.  The register holds that value again.
		 * (Saving into the red zone instead, System V ABI §3.2.2,
		 * would break this; gcc and clang save with push.) */
		if (err && cfa + (uint64_t)ru->off < w->sp0 && i != SPI_DW_RA &&
		    (cur->valid & SPI_BIT(i))) {
			v = cur->r[i];
			err = 0;
		}
		break;
	case SP_RULE_VAL_OFFSET:
		v = cfa + (uint64_t)ru->off;
		break;
	case SP_RULE_REG:
		if (!(cur->valid & SPI_BIT(ru->reg)))
			return 0;
		v = cur->r[ru->reg];
		break;
	case SP_RULE_EXPR:
	case SP_RULE_VAL_EXPR:
		err = spi_dwarf_expr(ru->expr, ru->expr_len, cur->r, cur->valid,
		    cfa, 1, load, w, &v);
		if (err == 0 && ru->kind == SP_RULE_EXPR)
			err = spi_unwind_load(w, v, &v);
		break;
	default:
		return -SP_EFORMAT;
	}
	if (err)
		return err;
	next->r[i] = v;
	next->valid |= SPI_BIT(i);
	return 0;
}

/*
 * A frame whose stack pointer is a frame pointer's guess (sp_guess: the
 * frame record below the caller's stack pointer, as on AArch64), about to
 * step by a row whose CFA is the stack pointer's: where the row saves the
 * frame pointer at CFA + off, the frame pointer, which a frame record's
 * code sets to that very slot (stp x29, x30, [sp, #-n]!; mov x29, sp),
 * gives the CFA, and so the stack pointer.  Where it cannot, the guess
 * stands, as in other unwinders.
 */
static void
anchor_sp(struct spi_frame *cur, int cfa_reg, int64_t cfa_off, int fp_saved,
    int64_t fp_off)
{
	uint64_t sp;

	if (!cur->sp_guess || cfa_reg != SPI_DW_SP || !fp_saved ||
	    !(cur->valid & SPI_BIT(SPI_DW_FP)))
		return;
	sp = cur->r[SPI_DW_FP] - (uint64_t)fp_off - (uint64_t)cfa_off;
	if (sp >= cur->r[SPI_DW_SP] && sp <= cur->r[SPI_DW_FP])
		cur->r[SPI_DW_SP] = sp;
}

/*
 * How far above the CFA the caller's stack pointer is: 0, but where the
 * return address is saved at the CFA or above it, past its slot.  A
 * register saved above the CFA is below the caller's frame, so the CFA
 * understates it: glibc's arm64 _dl_runtime_resolve is entered after the
 * PLT's "stp x16, x30, [sp, #-16]!" and says x30 is at CFA + 8, its CFA
 * the stack pointer before that push (dl-trampoline.S adds no 16).  The
 * walk read the caller's frame 16 bytes low (the signal frame check in
 * the arm64 VM: 15 of 989 stacks cut, all of them in lazy binding).
 */
static uint64_t
ra_above(const struct sp_cfi_row *row)
{
	const struct sp_cfi_rule *ra = &row->regs[SPI_DW_RA];

	return ra->kind == SP_RULE_OFFSET && ra->off >= 0 && ra->off < 256 ?
	    (uint64_t)ra->off + 8 : 0;
}

/* DWARF 5 §6.4.4: the caller's registers from a row. */
static int
cfi_step(struct spi_walk *w, struct spi_frame *cur, const struct sp_cfi_row *row,
    struct spi_frame *next)
{
	uint64_t cfa;
	int i, err;

	if (row->cfa_expr != NULL) {
		err = spi_dwarf_expr(row->cfa_expr, row->cfa_expr_len, cur->r,
		    cur->valid, 0, 0, load, w, &cfa);
		if (err)
			return err;
	} else {
		anchor_sp(cur, row->cfa_reg, row->cfa_off,
		    row->regs[SPI_DW_FP].kind == SP_RULE_OFFSET,
		    row->regs[SPI_DW_FP].off);
		if (!(cur->valid & SPI_BIT(row->cfa_reg)))
			return -SP_EFORMAT;
		cfa = cur->r[row->cfa_reg] + (uint64_t)row->cfa_off;
	}
	memset(next, 0, sizeof(*next));
	for (i = 0; i < SPI_WALK_NREGS; i++)
		if ((err = restore(w, cur, &row->regs[i], cfa, i, next)) != 0)
			return err;
	/* The CFA is the caller's stack pointer unless a rule says else. */
	if (row->regs[SPI_DW_SP].kind == SP_RULE_SAME) {
		next->r[SPI_DW_SP] = cfa + ra_above(row);
		next->valid |= SPI_BIT(SPI_DW_SP);
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
	uint64_t saved;            /* bit i: register i at CFA + off[i] */
	uint64_t undef;            /* bit i: undefined in the caller */
	uint32_t sp_off;           /* the caller's stack pointer: CFA + this
	                            * (ra_above) */
	int32_t cfa_off;
	uint8_t cfa_reg;
	uint8_t simple;            /* 0: not in this form */
	uint8_t signal_frame;
	int16_t off[SPI_WALK_NREGS];
};

/* Whether the row's caller's stack pointer is the CFA: by default, or
 * said so (Go's arm64 CIE: DW_CFA_val_offset sp, 0). */
static int
sp_is_cfa(const struct sp_cfi_row *row)
{
	const struct sp_cfi_rule *sp = &row->regs[SPI_DW_SP];

	return sp->kind == SP_RULE_SAME ||
	    (sp->kind == SP_RULE_VAL_OFFSET && sp->off == 0);
}

static void
compile(const struct sp_cfi_row *row, struct step *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	st->signal_frame = row->signal_frame != 0;
	if (row->cfa_expr != NULL || row->cfa_reg >= SPI_WALK_NREGS ||
	    row->cfa_off != (int32_t)row->cfa_off || !sp_is_cfa(row))
		return;
	st->cfa_reg = row->cfa_reg;
	st->cfa_off = (int32_t)row->cfa_off;
	st->sp_off = (uint32_t)ra_above(row);
	for (i = 0; i < SPI_WALK_NREGS; i++) {
		const struct sp_cfi_rule *ru = &row->regs[i];

		if (i == SPI_DW_SP) {
			continue;
		} else if (ru->kind == SP_RULE_UNDEF) {
			st->undef |= SPI_BIT(i);
		} else if (ru->kind == SP_RULE_OFFSET &&
		    ru->off == (int16_t)ru->off) {
			st->saved |= SPI_BIT(i);
			st->off[i] = (int16_t)ru->off;
		} else if (ru->kind != SP_RULE_SAME) {
			return;
		}
	}
	st->simple = 1;
}

/* cfi_step for a simple row: the same registers, errors and order. */
static int
simple_step(struct spi_walk *w, const struct spi_frame *cur, const struct step *st,
    struct spi_frame *next)
{
	uint64_t cfa;
	uint64_t left;

	if (!(cur->valid & SPI_BIT(st->cfa_reg)))
		return -SP_EFORMAT;
	cfa = cur->r[st->cfa_reg] + (uint64_t)(int64_t)st->cfa_off;
	memcpy(next->r, cur->r, sizeof(next->r));
	next->valid = cur->valid & ~(st->undef | st->saved);
	for (left = st->saved; left != 0; left &= left - 1) {
		int i = __builtin_ctzll(left);
		uint64_t at = cfa + (uint64_t)(int64_t)st->off[i];

		if (spi_unwind_load(w, at, &next->r[i]) != 0) {
			/* As restore: a slot below the copy in an epilogue. */
			if (!(at < w->sp0 && i != SPI_DW_RA &&
			    (cur->valid & SPI_BIT(i))))
				return spi_unwind_load(w, at, &next->r[i]);
			next->r[i] = cur->r[i];
		}
		next->valid |= SPI_BIT(i);
	}
	next->r[SPI_DW_SP] = cfa + st->sp_off;
	next->valid |= SPI_BIT(SPI_DW_SP);
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
spi_unwind_cache_new(void)
{
	return calloc(1, sizeof(struct sp_unwind_cache));
}

void
spi_unwind_cache_free(struct sp_unwind_cache *c)
{
	free(c);
}

void
spi_unwind_cache_forget(struct sp_unwind_cache *c,
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

/* row_for's *end beyond cfi_table_int.h's SPI_END_ROOT and
 * SPI_END_SWITCH: the frame's own pc in the kernel's signal trampoline;
 * the sample's own pc right after the trampoline's svc. */
#define END_SIGNAL 2
#define END_SIGRETURN 4
_Static_assert(END_SIGNAL != SPI_END_ROOT && END_SIGNAL != SPI_END_SWITCH &&
    END_SIGRETURN != SPI_END_ROOT && END_SIGRETURN != SPI_END_SWITCH,
    "row_for's end kinds are distinct");

/* Finds the row for pc, as a simple step (from the cache when it is
 * there) or else a whole row; on failure says which fallback it is.
 * *end: whether pc is in a function where the stack began or switched
 * (SPI_END_ROOT, SPI_END_SWITCH), or the frame's own pc, at, is in the
 * kernel's signal trampoline (END_SIGNAL); or, for the sample's own pc
 * (leaf), right after the trampoline's svc (END_SIGRETURN): a sample in
 * rt_sigreturn, on the signal frame until the kernel restores the
 * interrupted registers, the pc last. */
static int
row_for(const struct sp_unwind_lookup *lk, uint64_t pc, uint64_t at,
    int leaf, struct step *st, struct sp_cfi_row *row,
    enum sp_unwind_fallback *why, int *end, struct sp_unwind_stats *stats)
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
	/* at: the frame's return address, not rewound. */
	if (t != NULL)
		*end = spi_cfi_table_stack_end(t, pc - bias);
	if (t != NULL && *end == 0 && spi_cfi_table_sigreturn(t, at - bias))
		*end = END_SIGNAL;
	else if (t != NULL && *end == 0 && leaf &&
	    spi_cfi_table_sigreturn_end(t, at - bias) &&
	    spi_arch_after_syscall(lk, at))
		*end = END_SIGRETURN;
	if (t == NULL || spi_cfi_table_empty(t)) {
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
	err = spi_cfi_table_row(t, pc - bias, row);
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

/* One step by CFI: the caller's registers; its pc is exact after a
 * signal frame's row (the interrupted pc: glibc's __restore_rt). */
static int
row_step(struct spi_walk *w, struct spi_frame *cur, const struct step *st,
    const struct sp_cfi_row *row, struct spi_frame *next)
{
	int err;

	if (st->simple) {
		anchor_sp(cur, st->cfa_reg, st->cfa_off,
		    (st->saved & SPI_BIT(SPI_DW_FP)) != 0, st->off[SPI_DW_FP]);
		err = simple_step(w, cur, st, next);
	} else {
		err = cfi_step(w, cur, row, next);
	}
	next->sp_guess = 0;
	if (err == 0 && (next->valid & SPI_BIT(SPI_DW_RA)))
		next->pc = spi_arch_code_addr(next->r[SPI_DW_RA]);
	return err;
}

/* Whether a frame record's return address is one: in known code right
 * after a call, or anywhere in JIT code, whose runtimes push return
 * addresses of their own (the JVM's interpreter pushes its return entry
 * and jumps into the callee). */
static int
jit_ra(const struct sp_unwind_lookup *lk, uint64_t ra)
{
	return (lk->jit != NULL && lk->jit(lk->ctx, ra)) ||
	    spi_unwind_code_ra(lk, ra);
}

/* The walk ends in a frame of end kind (row_for's *end): whole, but at
 * a Go stack switch (SPI_END_SWITCH), where spi_unwind_splice may go on
 * from switch_ra, the return address into the switch (0: from the
 * chain's first return address). */
static void
outermost(struct sp_unwind_result *res, int end, uint64_t switch_ra)
{
	res->complete = end != SPI_END_SWITCH;
	res->error = end != SPI_END_SWITCH ? SP_UNW_OK : SP_UNW_SWITCH;
	res->switch_ra = switch_ra;
}

void
spi_unwind_dwarf(const struct sp_uregs *regs, const struct sp_ustack *stk,
    const struct sp_unwind_lookup *lookup, uint64_t *ips, size_t max,
    struct sp_unwind_result *res, struct sp_unwind_stats *stats)
{
	struct spi_walk w = { stk, regs->r[SPI_PERF_SP] };
	struct spi_frame fr[2], *cur = &fr[0], *next = &fr[1], *tmp;
	struct sp_cfi_row row;
	struct step st;
	int exact = 1, cut = 0;

	memset(res, 0, sizeof(*res));
	/* Only a row row_for filled is stepped by; the analyzer cannot tell
	 * (a cache hit fills a simple step instead). */
	row.cfa_expr = NULL;
	row.cfa_reg = 0;
	row.cfa_off = 0;
	row.regs[SPI_DW_FP].kind = SP_RULE_SAME;
	row.regs[SPI_DW_FP].off = 0;
	spi_arch_from_perf(regs, cur);
	for (;;) {
		uint64_t pc = cur->pc - (exact ? 0 : 1);
		enum sp_unwind_fallback why = SP_FB_BAD_CFI;
		int own_regs = exact, by_cfi = 0, sig, sig_err, end, err;

		if (res->n == max) {
			res->error = SP_UNW_DEPTH;
			return;
		}
		err = row_for(lookup, pc, cur->pc, res->n == 0 && exact, &st,
		    &row, &why, &end, stats);
		/* The sample's pc after a syscall that ends its FDE: the
		 * syscall's row (it moves no register the CFI tracks). */
		if (err && why == SP_FB_NO_FDE && res->n == 0 &&
		    spi_arch_after_syscall(lookup, pc) &&
		    row_for(lookup, pc - 1, cur->pc, 1, &st, &row, &why, &end,
		    stats) == 0)
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
		/* Where Go starts a stack (goexit, mstart), the walk is
		 * whole; where it switched stacks (systemstack, on g0's),
		 * the caller is on the goroutine's, which the copy lacks:
		 * spi_unwind_splice may go on.  Unless the sample is in it
		 * (still on the first stack). */
		if ((end == SPI_END_ROOT || end == SPI_END_SWITCH) &&
		    res->n > 1) {
			outermost(res, end, cur->pc);
			return;
		}
		/* The kernel's signal trampoline, whatever CFI it has (arm64's
		 * vdso has none, or a frame record's that skips the
		 * interrupted frame): the interrupted registers, read from the
		 * signal frame; the trampoline's frame is its own address. */
		sig_err = end == END_SIGNAL || end == END_SIGRETURN ?
		    spi_arch_signal_step(&w, cur, next) : -SP_ENOTFOUND;
		sig = sig_err == 0;
		/* In rt_sigreturn with no signal frame at sp: the kernel
		 * restored the interrupted sp, not yet the pc, and the
		 * registers are half the interrupted frame's.  No walk from
		 * them is true.  (Or the copy ends before the frame.) */
		if (end == END_SIGRETURN && !sig) {
			res->error = sig_err == -SP_ETRUNC ?
			    SP_UNW_STACK_BOUNDS : SP_UNW_NO_REGS;
			return;
		}
		if (sig) {
			stats->signal_frames++;
			ips[res->n - 1] = cur->pc;
			exact = 1;
			err = 0;
		} else if (err == 0) {
			err = row_step(&w, cur, &st, &row, next);
			exact = st.signal_frame;
			/* The row is right; the copy ends before its slots. */
			cut = err == -SP_ETRUNC;
			stats->cfi_steps++;
			by_cfi = err == 0;
			/* RA undefined: outermost, or where the CFI of a
			 * switch reads it in the middle of the switch (a
			 * sample in systemstack after it moved the stack
			 * pointer). */
			if (err == 0 && !(next->valid & SPI_BIT(SPI_DW_RA))) {
				outermost(res, end, 0);
				return;
			}
		}
		if (err) {
			stats->fallbacks[why]++;
			/* JIT code that keeps frame pointers (the JVM's with
			 * -XX:+PreserveFramePointer, node's): its frame record
			 * first, where it leads into known code right after a
			 * call.  An OSR frame's shape is the interpreter's
			 * frame it replaced, which the analysis cannot see. */
			if (!own_regs && why == SP_FB_NO_CFI &&
			    spi_unwind_fp_step(&w, cur, next) == 0 &&
			    jit_ra(lookup, spi_arch_code_addr(next->r[SPI_DW_RA])))
				err = 0;
			/* Instruction analysis where the registers are the
			 * frame's own, and in code with no CFI at all (a JIT's,
			 * CPython's perf trampolines): its stack pointer came
			 * from a step, and from the return address (not the
			 * rewound pc, inside the call) the stack is as it was
			 * before the call. */
			else if (lookup->read_code != NULL && (own_regs ||
			    (why == SP_FB_NO_CFI &&
			    (cur->valid & SPI_BIT(SPI_DW_SP)))))
				err = spi_arch_leaf_step(&w, cur, lookup,
				    cur->pc, next, stats);
			exact = 0;
		}
		if (err) {
			/* _start clears the frame pointer: a zero one is the
			 * end of a walk that got there.  At the sample's own
			 * frame only on the process's first stack (a sample
			 * at the entry point): code with no frame pointer
			 * (musl's, built static) keeps _start's 0 all along,
			 * and a leaf in it the analysis cannot tell (_Exit's
			 * syscall loop) is no outermost frame. */
			if ((cur->valid & SPI_BIT(SPI_DW_FP)) &&
			    cur->r[SPI_DW_FP] == 0 && (!own_regs ||
			    spi_unwind_entry_stack(&w, cur->r[SPI_DW_SP]))) {
				res->complete = 1;
				return;
			}
			err = spi_unwind_fp_step(&w, cur, next);
			/* Past a copy that holds the whole stack: garbage. */
			if (err == -SP_ETRUNC && stk->whole && stk->len > 0 &&
			    !cut)
				err = -SP_EFORMAT;
			/* In code with no CFI, the frame pointer is no more
			 * than data: look for the return address. */
			if (err && why == SP_FB_NO_CFI && !cut &&
			    spi_unwind_scan_step(&w, cur, lookup, next) == 0) {
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
		/* The analysis's, a frame record's or a scan's return address
		 * (row_step gave a row's, or a signal frame's pc). */
		if (!by_cfi && !sig)
			next->pc = spi_arch_code_addr(next->r[SPI_DW_RA]);
		/* A zero return address ends the stack where CFI put it
		 * there; found by a frame pointer or a guess, it is garbage. */
		if (next->pc == 0) {
			res->error = SP_UNW_BAD_RA;
			if (by_cfi)
				outermost(res, end, 0);
			return;
		}
		/* The caller's stack pointer is above; the sampled frame's
		 * (or an interrupted one's) may be the same where the return
		 * address is still in a register (AArch64's leaves). */
		if (!(next->valid & SPI_BIT(SPI_DW_SP)) ||
		    next->r[SPI_DW_SP] < cur->r[SPI_DW_SP] ||
		    (next->r[SPI_DW_SP] == cur->r[SPI_DW_SP] &&
		    !(SPI_ARCH_RA_IN_REG && own_regs && next->pc != cur->pc))) {
			res->error = SP_UNW_NO_PROGRESS;
			return;
		}
		res->stack_used = next->r[SPI_DW_SP] - w.sp0;
		tmp = cur;
		cur = next;
		next = tmp;
	}
}
