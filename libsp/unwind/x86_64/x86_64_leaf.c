/* SPDX-License-Identifier: MIT */
/*
 * Leaf-frame instruction analysis with Zydis.  Where no CFI describes a
 * PC, the return address of the leaf is found by simulating the stack
 * pointer from the PC forward to the function's `ret`: every push, pop,
 * `sub rsp`, `leave` on the way says how far above the sampled rsp the
 * return address is (System V ABI §3.2.2: `ret` pops it from [rsp]).  The
 * path follows fall-throughs and direct jumps, leaves loops by their
 * forward exits, and backtracks to untaken forward branches at dead ends
 * (indirect jumps, traps, already visited code).
 */
#include <string.h>

#include <Zydis/Zydis.h>

#include "sp/common/error.h"
#include "x86_64_leaf_int.h"

#define PENDING_MAX 16

enum bp_state {
	BP_ORIG,    /* rbp still holds its value at the sampled PC */
	BP_REL,     /* rbp = sampled rsp + bp_val (mov rbp, rsp) */
	BP_LOADED,  /* rbp = [sampled rsp + bp_val] (popped from there) */
	BP_OTHER,   /* clobbered */
};

struct state {
	uint64_t ip;
	int64_t off;       /* simulated rsp - sampled rsp */
	int off_valid;
	enum bp_state bp;
	int64_t bp_val;
	int64_t orig_slot; /* where the original rbp was pushed, or 1 */
};

struct sim {
	ZydisDecoder dec;
	sp_leaf_read_fn read;
	void *ctx;
	uint64_t base;     /* the code window */
	size_t len;
	uint8_t buf[SP_LEAF_WINDOW];
	unsigned fetches;
	uint64_t visited[SP_LEAF_INSNS_MAX];
	size_t nvisited;
	struct state pending[PENDING_MAX];
	size_t npending;
};

/* Decodes the instruction at ip, reading code as needed. */
static int
decode(struct sim *s, uint64_t ip, ZydisDecodedInstruction *in,
    ZydisDecodedOperand *ops)
{
	uint64_t have = 0;

	if (ip >= s->base && ip - s->base < s->len)
		have = s->len - (ip - s->base);
	/* Refetch unless the whole longest instruction is in the window
	 * or the window already ends where readable code ends. */
	if (have < ZYDIS_MAX_INSTRUCTION_LENGTH &&
	    !(have > 0 && s->len < sizeof(s->buf))) {
		if (s->fetches == SP_LEAF_FETCH_MAX)
			return -SP_ELIMIT;
		s->fetches++;
		s->base = ip;
		s->len = s->read(s->ctx, ip, s->buf, sizeof(s->buf));
		if (s->len > sizeof(s->buf))
			s->len = 0;
		have = s->len;
	}
	if (have == 0)
		return -SP_ENOTFOUND;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&s->dec,
	    s->buf + (ip - s->base), (ZyanUSize)have, in, ops)))
		return -SP_EFORMAT;
	return 0;
}

static int
visited(struct sim *s, uint64_t ip)
{
	size_t i;

	for (i = 0; i < s->nvisited; i++)
		if (s->visited[i] == ip)
			return 1;
	return 0;
}

static int
is_reg(const ZydisDecodedOperand *op, ZydisRegister r)
{
	return op->type == ZYDIS_OPERAND_TYPE_REGISTER && op->reg.value == r;
}

/* A memory operand [base + disp] with no index. */
static int
is_mem_base(const ZydisDecodedOperand *op, ZydisRegister base)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op->mem.base == base && op->mem.index == ZYDIS_REGISTER_NONE;
}

/* Whether the instruction writes register r (explicitly or not). */
static int
writes(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
    ZydisRegister r)
{
	int i;

	for (i = 0; i < in->operand_count; i++)
		if (is_reg(&ops[i], r) &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return 1;
	return 0;
}

static void
pop_rbp(struct state *st)
{
	if (st->off == st->orig_slot)
		st->bp = BP_ORIG;
	else if (st->off >= 0) {
		st->bp = BP_LOADED;
		st->bp_val = st->off;
	} else
		st->bp = BP_OTHER;
}

/* The return is reached: the answer, if the state allows one. */
static int
at_return(const struct state *st, struct sp_leaf *out)
{
	if (!st->off_valid || st->off < 0 || (st->off & 7) != 0)
		return 0;
	if (st->bp != BP_ORIG && st->bp != BP_LOADED)
		return 0;
	out->kind = SP_LEAF_RA_AT;
	out->ra_off = st->off;
	out->bp_saved = st->bp == BP_LOADED;
	out->bp_off = st->bp_val;
	return 1;
}

enum step { STEP_NEXT, STEP_DEAD, STEP_DONE };

/* rsp := rbp (leave, mov rsp, rbp): only a known rbp says where. */
static enum step
rsp_from_rbp(struct state *st, int64_t disp, struct sp_leaf *out)
{
	if (st->bp == BP_ORIG) {
		/* rbp was set up before the PC: a frame-pointer frame. */
		out->kind = SP_LEAF_FRAME;
		return STEP_DONE;
	}
	if (st->bp != BP_REL)
		return STEP_DEAD;
	st->off = st->bp_val + disp;
	st->off_valid = 1;
	return STEP_NEXT;
}

static enum step
stack_op(struct state *st, const ZydisDecodedInstruction *in,
    const ZydisDecodedOperand *ops, struct sp_leaf *out)
{
	int64_t width = in->operand_width / 8;
	enum step r;

	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
		st->off -= width;
		if (is_reg(&ops[0], ZYDIS_REGISTER_RBP) && st->bp == BP_ORIG)
			st->orig_slot = st->off;
		return STEP_NEXT;
	case ZYDIS_MNEMONIC_PUSHFQ:
		st->off -= 8;
		return STEP_NEXT;
	case ZYDIS_MNEMONIC_POPFQ:
		st->off += 8;
		return STEP_NEXT;
	case ZYDIS_MNEMONIC_POP:
		if (is_reg(&ops[0], ZYDIS_REGISTER_RSP))
			return STEP_DEAD;
		if (is_reg(&ops[0], ZYDIS_REGISTER_RBP))
			pop_rbp(st);
		st->off += width;
		return STEP_NEXT;
	case ZYDIS_MNEMONIC_LEAVE:
		if ((r = rsp_from_rbp(st, 0, out)) != STEP_NEXT)
			return r;
		pop_rbp(st);
		st->off += 8;
		return STEP_NEXT;
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
		if (ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			break;
		st->off += in->mnemonic == ZYDIS_MNEMONIC_ADD ?
		    ops[1].imm.value.s : -ops[1].imm.value.s;
		return STEP_NEXT;
	case ZYDIS_MNEMONIC_MOV:
		if (is_reg(&ops[1], ZYDIS_REGISTER_RBP))
			return rsp_from_rbp(st, 0, out);
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (is_mem_base(&ops[1], ZYDIS_REGISTER_RSP)) {
			st->off += ops[1].mem.disp.value;
			return STEP_NEXT;
		}
		if (is_mem_base(&ops[1], ZYDIS_REGISTER_RBP))
			return rsp_from_rbp(st, ops[1].mem.disp.value, out);
		break;
	default:
		break;
	}
	/* Some other write to rsp (and rsp, -16; mov rsp, rax): the offset
	 * is unknown until a known rbp restores it. */
	st->off_valid = 0;
	return STEP_NEXT;
}

/* Effects on rbp of an instruction that is not a push or pop. */
static void
rbp_op(struct state *st, const ZydisDecodedInstruction *in,
    const ZydisDecodedOperand *ops)
{
	if (in->mnemonic == ZYDIS_MNEMONIC_MOV &&
	    is_reg(&ops[1], ZYDIS_REGISTER_RSP) && st->off_valid) {
		st->bp = BP_REL;
		st->bp_val = st->off;
	} else if (in->mnemonic == ZYDIS_MNEMONIC_LEA &&
	    is_mem_base(&ops[1], ZYDIS_REGISTER_RSP) && st->off_valid) {
		st->bp = BP_REL;
		st->bp_val = st->off + ops[1].mem.disp.value;
	} else
		st->bp = BP_OTHER;
}

static void
branch_later(struct sim *s, const struct state *st, uint64_t target)
{
	if (s->npending == PENDING_MAX || visited(s, target))
		return;
	s->pending[s->npending] = *st;
	s->pending[s->npending++].ip = target;
}

/* One instruction at st->ip. */
static enum step
step(struct sim *s, struct state *st, struct sp_leaf *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZyanU64 target = 0;
	int rel;

	if (visited(s, st->ip) || decode(s, st->ip, &in, ops) != 0)
		return STEP_DEAD;
	s->visited[s->nvisited++] = st->ip;
	rel = in.operand_count_visible > 0 &&
	    ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    ops[0].imm.is_relative &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[0], st->ip,
	    &target));
	switch (in.meta.category) {
	case ZYDIS_CATEGORY_RET:
		return at_return(st, out) ? STEP_DONE : STEP_DEAD;
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (rel) {
			st->ip = target;
			return STEP_NEXT;
		}
		/* jmp *mem without an index: a tail call through the GOT or
		 * a PLT stub.  Other indirect jumps are jump tables. */
		if (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[0].mem.index == ZYDIS_REGISTER_NONE)
			return at_return(st, out) ? STEP_DONE : STEP_DEAD;
		return STEP_DEAD;
	case ZYDIS_CATEGORY_COND_BR:
		/* A forward branch may be the way out; a backward one is
		 * the loop we are leaving by falling through. */
		if (rel && target > st->ip)
			branch_later(s, st, target);
		break;
	case ZYDIS_CATEGORY_INTERRUPT: /* int3, int: a trap */
	case ZYDIS_CATEGORY_SYSTEM:    /* hlt and friends: not user code */
		return STEP_DEAD;
	case ZYDIS_CATEGORY_CALL:
		break; /* balanced: the callee returns here */
	default:
		if (in.mnemonic == ZYDIS_MNEMONIC_UD2 ||
		    in.mnemonic == ZYDIS_MNEMONIC_ENTER)
			return STEP_DEAD;
		if (writes(&in, ops, ZYDIS_REGISTER_RSP)) {
			enum step r = stack_op(st, &in, ops, out);

			if (r != STEP_NEXT)
				return r;
		} else if (writes(&in, ops, ZYDIS_REGISTER_RBP))
			rbp_op(st, &in, ops);
		break;
	}
	st->ip += in.length;
	return STEP_NEXT;
}

int
spi_unwind_leaf(uint64_t pc, sp_leaf_read_fn read, void *ctx,
    struct sp_leaf *out)
{
	struct sim s;
	struct state st = { pc, 0, 1, BP_ORIG, 0, 1 };
	enum step r;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	out->kind = SP_LEAF_UNKNOWN;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&s.dec, ZYDIS_MACHINE_MODE_LONG_64,
	    ZYDIS_STACK_WIDTH_64)))
		return -SP_EFORMAT;
	s.read = read;
	s.ctx = ctx;
	while (s.nvisited < SP_LEAF_INSNS_MAX) {
		r = step(&s, &st, out);
		if (r == STEP_DONE)
			return 0;
		if (r == STEP_DEAD) {
			if (s.npending == 0)
				break;
			st = s.pending[--s.npending];
		}
	}
	out->kind = SP_LEAF_UNKNOWN;
	return 0;
}
