/* SPDX-License-Identifier: MIT */
/*
 * AArch64 leaf-frame analysis: a small A64 decoder and a simulation of
 * sp, x29 and x30 from the sampled pc forward to the function's return.
 * A `ret` branches to x30 (Arm ARM C6.2 RET); what happened to sp, x29
 * and x30 on the way says where the caller's values are relative to the
 * sampled sp.  Like the x86-64 analysis (x86_64_leaf.c) the path follows
 * fall-throughs and `b`, leaves loops by their forward exits, and
 * backtracks to untaken forward branches at dead ends.
 *
 * The decoder is conservative: it models the forms compilers use for
 * frames (stp/ldp/str/ldr with sp or a known x29 as base, writeback, add
 * and sub on sp and x29) and, for every other instruction, only which of
 * sp, x29 and x30 it may write; an sp it cannot follow is unknown until a
 * known x29 restores it, an x29 or x30 it cannot follow is clobbered.
 * Encodings are those of the Arm ARM (DDI 0487), "A64 instruction set
 * encoding" (C4.1), group by group.
 *
 * Includes only the C library and its own header: the unit test and the
 * fuzz target build it into themselves on every host.
 */
#include <string.h>

#include "aarch64_leaf_int.h"

#define PENDING_MAX 16
#define SLOTS_MAX 8
#define REG_SP 31   /* as a base register or in add/sub (immediate) */
#define REG_FP 29
#define REG_LR 30

enum reg_kind {
	REG_ORIG,    /* still the value it had at the sampled pc */
	REG_REL,     /* x29 = sampled sp + val (mov x29, sp) */
	REG_LOADED,  /* loaded from [sampled sp + val], not written since */
	REG_OTHER,   /* clobbered */
};

struct reg {
	enum reg_kind kind;
	int64_t val;
};

/* x29 or x30 stored at [sampled sp + off, + 8) on the path: a load from
 * there gives back what was stored (the prologue's save of x30 before
 * the pc's own return address is on the stack). */
struct slot {
	int64_t off;
	unsigned from;
	struct reg val;
};

struct state {
	uint64_t pc;
	int64_t off;      /* simulated sp - sampled sp */
	int off_valid;
	struct reg fp;    /* x29 */
	struct reg lr;    /* x30 */
	struct slot slot[SLOTS_MAX];
	unsigned nslot;
	int slot_lost;    /* a save did not fit: trust no load */
	/* A constant in one register (mov x12, #6032 before sub sp, sp,
	 * x12: a frame too large for an immediate). */
	unsigned kreg;
	int kvalid;
	uint64_t kval;
};

struct sim {
	spi_a64_read_fn read;
	void *ctx;
	uint64_t base;    /* the code window */
	size_t len;
	uint8_t buf[SPI_A64_WINDOW];
	unsigned fetches;
	/* Each instruction simulated, with its state's hash: a path that
	 * comes again to an instruction in the same state (a loop, a join
	 * already explored) ends; in another state (a shared epilogue after
	 * a path that died) it goes on. */
	struct {
		uint64_t pc;
		uint64_t h;
	} visited[SPI_A64_INSNS_MAX];
	size_t nvisited;
	struct state pending[PENDING_MAX];
	size_t npending;
	struct spi_a64_leaf tail;  /* the state at a likely tail call */
	int have_tail;
};

enum step {
	STEP_NEXT,  /* go on at pc + 4 */
	STEP_JUMP,  /* go on at st->pc, set */
	STEP_DEAD,  /* this path ends without an answer */
	STEP_DONE,  /* *out holds the answer */
};

/* The bits-wide field at the bottom of v, sign-extended. */
static int64_t
sext(uint32_t v, unsigned bits)
{
	uint64_t x = v & ((UINT64_C(1) << bits) - 1);

	return (int64_t)x - (int64_t)((x >> (bits - 1)) << bits);
}

/* The instruction at pc (little-endian, C1.3.2), reading code as needed. */
static int
fetch(struct sim *s, uint64_t pc, uint32_t *insn)
{
	const uint8_t *p;

	if (!(pc >= s->base && pc - s->base < s->len &&
	    s->len - (pc - s->base) >= 4)) {
		if (s->fetches == SPI_A64_FETCH_MAX)
			return -1;
		s->fetches++;
		s->base = pc;
		s->len = s->read(s->ctx, pc, s->buf, sizeof(s->buf));
		if (s->len > sizeof(s->buf) || s->len < 4) {
			s->len = 0;
			return -1;
		}
	}
	p = s->buf + (pc - s->base);
	*insn = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
	return 0;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * UINT64_C(0x9e3779b97f4a7c15);
	return h ^ h >> 29;
}

/* A hash of what the simulation knows at an instruction. */
static uint64_t
state_hash(const struct state *st)
{
	uint64_t h = 0;
	unsigned i;

	h = mix(h, (uint64_t)st->off);
	h = mix(h, (uint64_t)st->off_valid);
	h = mix(h, (uint64_t)st->fp.kind << 8 | st->lr.kind);
	h = mix(h, (uint64_t)st->fp.val);
	h = mix(h, (uint64_t)st->lr.val);
	h = mix(h, st->kvalid ? st->kreg : 32);
	h = mix(h, st->kvalid ? st->kval : 0);
	h = mix(h, (uint64_t)st->nslot << 1 | (uint64_t)st->slot_lost);
	for (i = 0; i < st->nslot; i++) {
		h = mix(h, (uint64_t)st->slot[i].off);
		h = mix(h, (uint64_t)st->slot[i].from << 8 |
		    st->slot[i].val.kind);
		h = mix(h, (uint64_t)st->slot[i].val.val);
	}
	return h;
}

static int
visited(const struct sim *s, uint64_t pc, uint64_t h)
{
	size_t i;

	for (i = 0; i < s->nvisited; i++)
		if (s->visited[i].pc == pc && s->visited[i].h == h)
			return 1;
	return 0;
}

static struct reg *
tracked(struct state *st, unsigned r)
{
	return r == REG_FP ? &st->fp : r == REG_LR ? &st->lr : NULL;
}

/* Register r is written with a value not modelled. */
static void
clobber(struct state *st, unsigned r)
{
	struct reg *g = tracked(st, r);

	if (g != NULL)
		g->kind = REG_OTHER;
	if (r == st->kreg)
		st->kvalid = 0;
}

/* [rn + imm] as an offset from the sampled sp, when known. */
static int
address(const struct state *st, unsigned rn, int64_t imm, int64_t *a)
{
	if (rn == REG_SP && st->off_valid)
		*a = st->off + imm;
	else if (rn == REG_FP && st->fp.kind == REG_REL)
		*a = st->fp.val + imm;
	else
		return 0;
	return 1;
}

/* A store of width bytes of register rt at a known offset a; gpr64: rt
 * is a whole X register. */
static void
store(struct state *st, unsigned rt, int64_t a, int64_t width, int gpr64)
{
	struct reg *g = tracked(st, rt);
	unsigned i, n = 0;

	for (i = 0; i < st->nslot; i++)
		if (!(a < st->slot[i].off + 8 && st->slot[i].off < a + width))
			st->slot[n++] = st->slot[i];
	st->nslot = n;
	if (!gpr64 || g == NULL)
		return;
	if (n == SLOTS_MAX) {
		st->slot_lost = 1;
		return;
	}
	st->slot[n].off = a;
	st->slot[n].from = rt;
	st->slot[n].val = *g;
	st->nslot++;
}

/* A load into register rt; known: from the offset a; gpr64: 8 bytes
 * into a whole X register. */
static void
load(struct state *st, unsigned rt, int known, int64_t a, int gpr64)
{
	struct reg *g = tracked(st, rt);
	unsigned i;

	clobber(st, rt);
	if (g == NULL)
		return;
	if (!known || !gpr64)
		return;
	for (i = 0; i < st->nslot; i++) {
		if (st->slot[i].off == a) {
			if (st->slot[i].from == rt)
				*g = st->slot[i].val;
			return;
		}
		if (a < st->slot[i].off + 8 && st->slot[i].off < a + 8)
			return;
	}
	/* What lies at or above the sampled sp was there at the pc. */
	if (!st->slot_lost && a >= 0) {
		g->kind = REG_LOADED;
		g->val = a;
	}
}

/* Base register rn moves by imm (pre- or post-indexed). */
static void
writeback(struct state *st, unsigned rn, int64_t imm)
{
	if (rn == REG_SP)
		st->off += imm;
	else if (rn == REG_FP && st->fp.kind == REG_REL)
		st->fp.val += imm;
	else
		clobber(st, rn);
}

/* Load/store pair (C4.1.94): stp, ldp, stnp, ldnp, ldpsw, stgp. */
static enum step
ldst_pair(struct state *st, uint32_t insn)
{
	unsigned opc = insn >> 30, v = insn >> 26 & 1, type = insn >> 23 & 3;
	unsigned l = insn >> 22 & 1, rt = insn & 31, rn = insn >> 5 & 31;
	unsigned rt2 = insn >> 10 & 31;
	int64_t width, scale, imm, a = 0;
	int known, x;

	if (opc == 3)
		return STEP_DEAD;
	if (v)
		width = scale = (int64_t)4 << opc;
	else if (opc == 2)
		width = scale = 8;
	else if (opc == 1 && !l) {   /* stgp: two X, offset in 16s */
		width = 8;
		scale = 16;
	} else
		width = scale = 4;
	imm = sext(insn >> 15, 7) * scale;
	/* type 1 post-indexed: the access is at the base. */
	known = address(st, rn, type == 1 ? 0 : imm, &a);
	x = !v && width == 8;
	if (l && !v) {
		load(st, rt, known, a, x && opc == 2);
		load(st, rt2, known, a + width, x && opc == 2);
	} else if (!l && known) {
		store(st, rt, a, width, x);
		store(st, rt2, a + width, width, x);
	}
	if (type == 1 || type == 3)
		writeback(st, rn, imm);
	return STEP_NEXT;
}

/* Atomic memory operations (C4.1.94): Rt gets the old value; ld64b
 * loads Rt to Rt + 7, st64bv and st64bv0 write their status to Rs
 * (o3 set, opc neither swp's 000 nor ldapr's 100). */
static void
atomic(struct state *st, uint32_t insn)
{
	unsigned rt = insn & 31, opc = insn >> 12 & 7, i;

	clobber(st, rt);
	if (!(insn >> 15 & 1) || opc == 0 || opc == 4)
		return;
	for (i = 1; i < 8; i++)
		clobber(st, (rt + i) & 31);
	clobber(st, insn >> 16 & 31);
}

/* Load/store register, one of them (C4.1.94, op0 xx11): immediate
 * (unscaled, post, pre, unprivileged, unsigned offset), register offset,
 * atomics, ldraa/ldrab. */
static enum step
ldst_single(struct state *st, uint32_t insn)
{
	unsigned size = insn >> 30, v = insn >> 26 & 1, opc = insn >> 22 & 3;
	unsigned rt = insn & 31, rn = insn >> 5 & 31, mode = insn >> 10 & 3;
	int64_t width = v && (opc & 2) ? 16 : (int64_t)1 << size;
	int64_t imm = 0, a = 0;
	int pre = 1, wb = 0, regoff = 0, ld, known;

	if (insn >> 24 & 1)
		imm = (int64_t)(insn >> 10 & 0xfff) * width;
	else if (!(insn >> 21 & 1)) {
		imm = sext(insn >> 12, 9);
		pre = mode != 1;
		wb = mode == 1 || mode == 3;
	} else if (mode == 2)
		regoff = 1;
	else if (mode == 0) {  /* atomics: Rt gets the old value */
		if (!v)
			atomic(st, insn);
		return STEP_NEXT;
	} else {               /* ldraa, ldrab: imm10 in 8s (C6.2.173) */
		if (v || size != 3)
			return STEP_DEAD;
		imm = sext((insn >> 22 & 1) << 9 | (insn >> 12 & 0x1ff), 10);
		imm *= 8;
		wb = (insn >> 11 & 1) != 0;
		opc = 1;
	}
	known = !regoff && address(st, rn, pre ? imm : 0, &a);
	/* V: opc bit 0 loads; X: opc 00 stores, 10 with size 11 is prfm. */
	ld = v ? (opc & 1) != 0 : opc != 0 && !(size == 3 && opc == 2);
	if (ld && !v)
		load(st, rt, known, a, size == 3 && opc == 1);
	else if (!ld && known && !(size == 3 && opc == 2 && !v))
		store(st, rt, a, width, !v && size == 3);
	if (wb)
		writeback(st, rn, imm);
	return STEP_NEXT;
}

/* Loads and stores (C4.1.94), by op0's bits 29:28. */
static enum step
ldst(struct state *st, uint32_t insn)
{
	unsigned rt = insn & 31, rn = insn >> 5 & 31;

	switch (insn >> 28 & 3) {
	case 2:
		return ldst_pair(st, insn);
	case 3:
		return ldst_single(st, insn);
	case 0:
		/* Advanced SIMD structures: post-indexed by bit 23. */
		if (!(insn >> 31) && (insn >> 26 & 1)) {
			if (insn >> 23 & 1) {
				if (rn == REG_SP)
					st->off_valid = 0;
				clobber(st, rn);
			}
			return STEP_NEXT;
		}
		/* Exclusives, acquire/release, compare and swap: any of
		 * Rt, Rs, Rt2 may be written, and casp's Rs + 1. */
		clobber(st, rt);
		clobber(st, insn >> 16 & 31);
		clobber(st, (insn >> 16 & 31) + 1);
		clobber(st, insn >> 10 & 31);
		return STEP_NEXT;
	default:
		if (!(insn >> 24 & 1)) {  /* ldr (literal) */
			if (!(insn >> 26 & 1))
				clobber(st, rt);
			return STEP_NEXT;
		}
		/* ldapur/stlur (bits 11:10 00) and the RCpc and
		 * memory-copy forms that write back or write Rn, Rs. */
		if (rn == REG_SP && (insn >> 10 & 3) != 0)
			st->off_valid = 0;
		clobber(st, rt);
		clobber(st, rn);
		clobber(st, insn >> 16 & 31);
		return STEP_NEXT;
	}
}

/* sp := x29 + imm (mov sp, x29; add/sub sp, x29, #imm). */
static enum step
sp_from_fp(struct state *st, int64_t imm)
{
	/* x29 set up before the pc: a frame-pointer frame, not ours to
	 * express against sp; the caller walks the x29 chain. */
	if (st->fp.kind == REG_ORIG)
		return STEP_DONE;
	if (st->fp.kind != REG_REL)
		return STEP_DEAD;
	st->off = st->fp.val + imm;
	st->off_valid = 1;
	return STEP_NEXT;
}

/* Add/subtract (immediate) (C4.1.92): the frame's own arithmetic. */
static enum step
add_sub_imm(struct state *st, uint32_t insn)
{
	unsigned sf = insn >> 31, rd = insn & 31, rn = insn >> 5 & 31;
	int64_t imm = insn >> 10 & 0xfff;

	if (insn >> 22 & 1)    /* sh: lsl #12 */
		imm <<= 12;
	if (insn >> 30 & 1)
		imm = -imm;
	if (insn >> 29 & 1) {      /* adds, subs: Rd 31 is xzr */
		clobber(st, rd);
		return STEP_NEXT;
	}
	if (rd == REG_SP && (!sf || (rn != REG_SP && rn != REG_FP))) {
		st->off_valid = 0; /* sp from elsewhere, or wsp */
		return STEP_NEXT;
	}
	if (rd == REG_SP && rn == REG_SP) {
		st->off += imm;
		return STEP_NEXT;
	}
	if (rd == REG_SP)
		return sp_from_fp(st, imm);
	if (rd == REG_FP && sf && rn == REG_SP && st->off_valid) {
		st->fp.kind = REG_REL;
		st->fp.val = st->off + imm;
	} else if (rd == REG_FP && sf && rn == REG_FP &&
	    st->fp.kind == REG_REL)
		st->fp.val += imm;
	else
		clobber(st, rd);
	return STEP_NEXT;
}

/* Move wide (C6.2.226 movz, movn, movk): the constant, if it is one. */
static enum step
move_wide(struct state *st, uint32_t insn)
{
	unsigned rd = insn & 31, opc = insn >> 29 & 3;
	unsigned sh = (insn >> 21 & 3) * 16;
	uint64_t imm = (uint64_t)(insn >> 5 & 0xffff) << sh, v;

	if (opc == 0)
		v = ~imm;
	else if (opc == 2)
		v = imm;
	else if (opc == 3 && st->kvalid && st->kreg == rd)
		v = (st->kval & ~((uint64_t)0xffff << sh)) | imm;
	else {
		clobber(st, rd);
		return STEP_NEXT;
	}
	clobber(st, rd);
	if (!(insn >> 31))
		v &= 0xffffffff;
	if (rd < REG_FP) {
		st->kreg = rd;
		st->kval = v;
		st->kvalid = 1;
	}
	return STEP_NEXT;
}

/* Data processing, immediate (C4.1.92), by bits 25:23. */
static enum step
dp_imm(struct state *st, uint32_t insn)
{
	unsigned rd = insn & 31;

	switch (insn >> 23 & 7) {
	case 2:
		return add_sub_imm(st, insn);
	case 3:    /* addg, subg: Rd 31 is sp */
		if (rd == REG_SP)
			st->off_valid = 0;
		break;
	case 4:    /* logical: Rd 31 is sp except for ands */
		if (rd == REG_SP && (insn >> 29 & 3) != 3)
			st->off_valid = 0;
		break;
	case 5:
		return move_wide(st, insn);
	default:   /* adr, adrp, movz/n/k, bitfield, extract: Rd 31 is xzr */
		break;
	}
	clobber(st, rd);
	return STEP_NEXT;
}

/* add/sub sp, sp, Xm (uxtx or sxtx, shifted by 0-4; C6.2.4): by a
 * known constant, else sp is unknown. */
static enum step
sp_by_reg(struct state *st, uint32_t insn)
{
	unsigned rm = insn >> 16 & 31, ext = insn >> 13 & 3;
	unsigned shift = insn >> 10 & 7;
	int64_t d;

	if (!(insn >> 31) || (insn >> 5 & 31) != REG_SP || ext != 3 ||
	    shift > 4 || !st->kvalid || st->kreg != rm ||
	    st->kval > UINT64_C(0xffffffff)) {
		st->off_valid = 0;
		return STEP_NEXT;
	}
	d = (int64_t)(st->kval << shift);
	st->off += insn >> 30 & 1 ? -d : d;
	return STEP_NEXT;
}

/* Data processing, register (C4.1.95): Rd 31 is xzr but in two forms. */
static enum step
dp_reg(struct state *st, uint32_t insn)
{
	unsigned rd = insn & 31;

	/* pac*, aut*, xpac*: only the pointer's authentication code
	 * changes, not where it points (C6.2.203 PACIA). */
	if ((insn & 0xffffc000) == 0xdac10000 ||
	    (insn & 0xfffff800) == 0xdac14000)
		return STEP_NEXT;
	/* add/sub (extended register) with S 0, and irg: Rd 31 is sp. */
	if (rd == REG_SP && (insn & 0x3f200000) == 0x0b200000)
		return sp_by_reg(st, insn);
	if (rd == REG_SP && (insn & 0xffe0fc00) == 0x9ac01000)
		st->off_valid = 0;
	clobber(st, rd);
	return STEP_NEXT;
}

/* Scalar FP and Advanced SIMD (C4.1.96): what writes a general register. */
static enum step
dp_simd(struct state *st, uint32_t insn)
{
	unsigned op = insn >> 16 & 7, imm4 = insn >> 11 & 15;

	/* Conversion between FP and integer: fcvt* (0, 1, 4, 5), fmov to
	 * a general register, fjcvtzs (6); between FP and fixed-point:
	 * fcvtzs, fcvtzu (00x); smov (imm4 0101), umov (0111). */
	if (((insn & 0x7f20fc00) == 0x1e200000 && (op <= 1 || (op >= 4 &&
	    op <= 6))) ||
	    ((insn & 0x7f200000) == 0x1e000000 && (op & 6) == 0) ||
	    ((insn & 0xbfe08400) == 0x0e000400 && (imm4 == 5 || imm4 == 7)))
		clobber(st, insn & 31);
	return STEP_NEXT;
}

/* SVE: addvl, addpl, addsvl, addspl write Xd|sp by a vector length this
 * analysis cannot know; other forms may write Xd. */
static enum step
sve(struct state *st, uint32_t insn)
{
	if ((insn & 0xffa0f000) == 0x04205000 && (insn & 31) == REG_SP)
		st->off_valid = 0;
	clobber(st, insn & 31);
	return STEP_NEXT;
}

/* Where the caller's value of g is at the return: in g itself (at 0),
 * or saved at sampled sp + *off, an 8-byte slot inside the frame. */
static int
caller_value(const struct state *st, const struct reg *g, int *at,
    int64_t *off)
{
	if (g->kind == REG_ORIG)
		return 1;
	if (g->kind != REG_LOADED || (g->val & 7) != 0 ||
	    g->val > st->off - 8)
		return 0;
	*at = 1;
	*off = g->val;
	return 1;
}

/* The return is reached with st: the answer, if st allows one (AAPCS64
 * §6.2.2: sp is 16-aligned; the saves lie in the callee's frame). */
static int
at_return(const struct state *st, struct spi_a64_leaf *out)
{
	struct spi_a64_leaf r;

	memset(&r, 0, sizeof(r));
	if (!st->off_valid || st->off < 0 || (st->off & 15) != 0 ||
	    !caller_value(st, &st->lr, &r.ra_at, &r.ra_off) ||
	    !caller_value(st, &st->fp, &r.fp_at, &r.fp_off))
		return 0;
	r.known = 1;
	r.sp_off = st->off;
	*out = r;
	return 1;
}

static void
branch_later(struct sim *s, const struct state *st, uint64_t target)
{
	if (s->npending == PENDING_MAX || visited(s, target, state_hash(st)))
		return;
	s->pending[s->npending] = *st;
	s->pending[s->npending++].pc = target;
}

/* A conditional branch by imm (in instructions): a forward one may be
 * the way out; a backward one is the loop left by falling through. */
static enum step
cond_branch(struct sim *s, const struct state *st, int64_t imm)
{
	if (imm > 0)
		branch_later(s, st, st->pc + (uint64_t)imm * 4);
	return STEP_NEXT;
}

/* bl, blr: the callee returns with sp and x29 kept (AAPCS64 §6.1.1) and
 * x30 lost: a return after it needs x30 loaded again, from a save made
 * on the path or before the pc. */
static enum step
call(struct state *st)
{
	st->lr.kind = REG_OTHER;
	st->kvalid = 0;
	return STEP_NEXT;
}

/* Unconditional branch (register) (C4.1.93). */
static enum step
branch_reg(struct state *st, uint32_t insn, struct spi_a64_leaf *out)
{
	unsigned rn = insn >> 5 & 31;

	if ((insn & 0xfffffc1f) == 0xd65f0000 && rn == REG_LR)    /* ret */
		return at_return(st, out) ? STEP_DONE : STEP_DEAD;
	if (insn == 0xd65f0bff || insn == 0xd65f0fff)     /* retaa, retab */
		return at_return(st, out) ? STEP_DONE : STEP_DEAD;
	if ((insn & 0xfeff0000) == 0xd63f0000)         /* blr, blraa... */
		return call(st);
	/* br x16, x17: a PLT stub or veneer going on to its function
	 * (AAPCS64 §6.1.1: IP0, IP1), a tail call; other indirect branches
	 * are jump tables. */
	if ((insn & 0xfeff0000) == 0xd61f0000 && (rn == 16 || rn == 17))
		return at_return(st, out) ? STEP_DONE : STEP_DEAD;
	return STEP_DEAD;
}

/* Branches, exception generating and system instructions (C4.1.93). */
static enum step
branch(struct sim *s, struct state *st, uint32_t insn,
    struct spi_a64_leaf *out)
{
	if ((insn & 0x7c000000) == 0x14000000) {       /* b, bl */
		if (insn >> 31)
			return call(st);
		/* Past a frame's release, a b is likely a tail call: its
		 * state answers if the callee cannot be followed. */
		if (!s->have_tail && st->off > 0 && at_return(st, &s->tail))
			s->have_tail = 1;
		st->pc += (uint64_t)sext(insn, 26) * 4;
		return STEP_JUMP;
	}
	if ((insn & 0xff000000) == 0x54000000 ||       /* b.cond, bc.cond */
	    (insn & 0x7e000000) == 0x34000000)         /* cbz, cbnz */
		return cond_branch(s, st, sext(insn >> 5, 19));
	if ((insn & 0x7e000000) == 0x36000000)         /* tbz, tbnz */
		return cond_branch(s, st, sext(insn >> 5, 14));
	if ((insn & 0xff000000) == 0xd4000000)
		/* svc returns to the next instruction; brk, hlt, hvc... trap */
		return (insn & 0xffe0001f) == 0xd4000001 ? STEP_NEXT :
		    STEP_DEAD;
	if ((insn & 0xffc00000) == 0xd5000000) {
		/* System: hints (nop, bti, paciasp, autiasp...) change
		 * nothing here; mrs and sysl (L, bit 21) write Rt. */
		if (insn >> 21 & 1)
			clobber(st, insn & 31);
		return STEP_NEXT;
	}
	if ((insn & 0xfe000000) == 0xd6000000)
		return branch_reg(st, insn, out);
	return STEP_DEAD;
}

/* One instruction at st->pc, by its group (C4.1, op0 = bits 28:25). */
static enum step
step(struct sim *s, struct state *st, struct spi_a64_leaf *out)
{
	uint64_t h = state_hash(st);
	unsigned op0;
	uint32_t insn;
	enum step r;

	if (visited(s, st->pc, h) || fetch(s, st->pc, &insn) != 0)
		return STEP_DEAD;
	s->visited[s->nvisited].pc = st->pc;
	s->visited[s->nvisited++].h = h;
	op0 = insn >> 25 & 15;
	if ((op0 & 5) == 4)            /* x1x0 */
		r = ldst(st, insn);
	else if ((op0 & 7) == 5)       /* x101 */
		r = dp_reg(st, insn);
	else if ((op0 & 7) == 7)       /* x111 */
		r = dp_simd(st, insn);
	else if ((op0 & 14) == 8)      /* 100x */
		r = dp_imm(st, insn);
	else if ((op0 & 14) == 10)     /* 101x */
		r = branch(s, st, insn, out);
	else if (op0 == 2)             /* 0010 */
		r = sve(st, insn);
	else                           /* udf, SME, unallocated */
		r = STEP_DEAD;
	if (r == STEP_NEXT)
		st->pc += 4;
	return r == STEP_JUMP ? STEP_NEXT : r;
}

int
spi_a64_leaf(uint64_t pc, spi_a64_read_fn read, void *ctx,
    struct spi_a64_leaf *out)
{
	struct sim s;
	struct state st;
	enum step r;

	memset(out, 0, sizeof(*out));
	if ((pc & 3) != 0 || read == NULL)  /* A64 code is 4-aligned */
		return 0;
	memset(&s, 0, sizeof(s));
	memset(&st, 0, sizeof(st));
	s.read = read;
	s.ctx = ctx;
	st.pc = pc;
	st.off_valid = 1;
	while (s.nvisited < SPI_A64_INSNS_MAX) {
		r = step(&s, &st, out);
		if (r == STEP_DONE)
			return 0;
		if (r == STEP_DEAD) {
			if (s.npending == 0)
				break;
			st = s.pending[--s.npending];
		}
	}
	if (s.have_tail)
		*out = s.tail;
	return 0;
}
