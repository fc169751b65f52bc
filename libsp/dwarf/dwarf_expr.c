/* SPDX-License-Identifier: MIT */
/* DWARF 5 §2.5: the expression stack machine, for the operations that
 * CFI uses (compilers' DW_CFA_*expression, the x86-64 PLT, the signal
 * trampoline).  Bounded in stack depth and steps. */
#include <string.h>

#include "common/cursor_int.h"
#include "dwarf/cfi_int.h"

struct stack {
	uint64_t v[SP_EXPR_STACK_MAX];
	int n;
};

static int
push(struct stack *s, uint64_t v)
{
	if (s->n == SP_EXPR_STACK_MAX)
		return -SP_ELIMIT;
	s->v[s->n++] = v;
	return 0;
}

static int
pop(struct stack *s, uint64_t *v)
{
	if (s->n == 0)
		return -SP_EFORMAT;
	*v = s->v[--s->n];
	return 0;
}

/* Binary operations (§2.5.1.4): b is the top, a below it. */
static int
binary(uint8_t op, uint64_t a, uint64_t b, uint64_t *r)
{
	switch (op) {
	case 0x1a: *r = a & b; return 0;                      /* and */
	case 0x1b:                                             /* div */
		if (b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
			return -SP_EFORMAT;
		*r = (uint64_t)((int64_t)a / (int64_t)b);
		return 0;
	case 0x1c: *r = a - b; return 0;                      /* minus */
	case 0x1d:                                             /* mod */
		if (b == 0)
			return -SP_EFORMAT;
		*r = a % b;
		return 0;
	case 0x1e: *r = a * b; return 0;                      /* mul */
	case 0x21: *r = a | b; return 0;                      /* or */
	case 0x22: *r = a + b; return 0;                      /* plus */
	case 0x24: *r = b >= 64 ? 0 : a << b; return 0;       /* shl */
	case 0x25: *r = b >= 64 ? 0 : a >> b; return 0;       /* shr */
	case 0x26:                                             /* shra */
		if (b >= 64)
			b = 63;
		/* Arithmetic shift without shifting a signed value. */
		*r = (a >> 63) ? ~(~a >> b) : a >> b;
		return 0;
	case 0x27: *r = a ^ b; return 0;                      /* xor */
	case 0x29: *r = a == b; return 0;                     /* eq */
	case 0x2a: *r = (int64_t)a >= (int64_t)b; return 0;   /* ge */
	case 0x2b: *r = (int64_t)a > (int64_t)b; return 0;    /* gt */
	case 0x2c: *r = (int64_t)a <= (int64_t)b; return 0;   /* le */
	case 0x2d: *r = (int64_t)a < (int64_t)b; return 0;    /* lt */
	case 0x2e: *r = a != b; return 0;                     /* ne */
	default: return -SP_EFORMAT;
	}
}

static int
reg_value(const uint64_t *regs, uint64_t valid, uint64_t reg, uint64_t *v)
{
	if (reg >= SPI_CFI_NREGS || !(valid & (1ull << reg)))
		return -SP_EFORMAT;
	*v = regs[reg];
	return 0;
}

/* Stack manipulation (§2.5.1.3). */
static int
stack_op(struct stack *s, uint8_t op, struct sp_cur *c)
{
	uint64_t a, b, d;
	uint8_t idx;

	switch (op) {
	case 0x12: /* dup */
		return s->n ? push(s, s->v[s->n - 1]) : -SP_EFORMAT;
	case 0x13: /* drop */
		return pop(s, &a);
	case 0x14: /* over */
		return s->n >= 2 ? push(s, s->v[s->n - 2]) : -SP_EFORMAT;
	case 0x15: /* pick */
		idx = sp_rd_u8(c);
		return idx < s->n ? push(s, s->v[s->n - 1 - idx]) : -SP_EFORMAT;
	case 0x16: /* swap */
		if (s->n < 2)
			return -SP_EFORMAT;
		a = s->v[s->n - 1];
		s->v[s->n - 1] = s->v[s->n - 2];
		s->v[s->n - 2] = a;
		return 0;
	case 0x17: /* rot */
		if (s->n < 3)
			return -SP_EFORMAT;
		a = s->v[s->n - 1];
		b = s->v[s->n - 2];
		d = s->v[s->n - 3];
		s->v[s->n - 1] = b;
		s->v[s->n - 2] = d;
		s->v[s->n - 3] = a;
		return 0;
	default:
		return -SP_EFORMAT;
	}
}

static int
constant(uint8_t op, struct sp_cur *c, uint64_t *v)
{
	const uint8_t *b;

	switch (op) {
	case 0x08: *v = sp_rd_u8(c); break;                       /* const1u */
	case 0x09: *v = (uint64_t)(int64_t)(int8_t)sp_rd_u8(c); break;
	case 0x0a:                                                /* const2u */
	case 0x0b:                                                /* const2s */
		b = sp_take(c, 2);
		if (b == NULL)
			return -SP_EFORMAT;
		*v = op == 0x0a ? sp_le16(b) :
		    (uint64_t)(int64_t)(int16_t)sp_le16(b);
		break;
	case 0x0c: *v = sp_rd_u32(c); break;                      /* const4u */
	case 0x0d: *v = (uint64_t)(int64_t)(int32_t)sp_rd_u32(c); break;
	case 0x0e:                                                /* const8u */
	case 0x0f: *v = sp_rd_u64(c); break;                      /* const8s */
	case 0x10: *v = sp_rd_varint(c); break;                   /* constu */
	case 0x11: *v = (uint64_t)sp_rd_sleb(c); break;                 /* consts */
	default: return -SP_EFORMAT;
	}
	return c->err ? -SP_EFORMAT : 0;
}

/* One operation other than skip and bra. */
static int
step(struct stack *s, struct sp_cur *c, const uint64_t *regs, uint64_t valid,
    int (*read)(void *, uint64_t, uint64_t *), void *ctx)
{
	uint8_t op = sp_rd_u8(c);
	uint64_t a, b, v;
	int err;

	if (op >= 0x30 && op <= 0x4f) /* lit0..lit31 */
		return push(s, op - 0x30u);
	if (op >= 0x70 && op <= 0x8f) { /* breg0..breg31 */
		int64_t off = sp_rd_sleb(c);

		if ((err = reg_value(regs, valid, op - 0x70u, &v)) != 0)
			return err;
		return push(s, v + (uint64_t)off);
	}
	if (op >= 0x08 && op <= 0x11)
		return constant(op, c, &v) ? -SP_EFORMAT : push(s, v);
	if (op >= 0x12 && op <= 0x17)
		return stack_op(s, op, c);
	switch (op) {
	case 0x06: /* deref */
		if ((err = pop(s, &a)) != 0 || (err = read(ctx, a, &v)) != 0)
			return err;
		return push(s, v);
	case 0x19: /* abs */
		if ((err = pop(s, &a)) != 0)
			return err;
		return push(s, (int64_t)a < 0 ? -a : a);
	case 0x1f: /* neg */
	case 0x20: /* not */
		if ((err = pop(s, &a)) != 0)
			return err;
		return push(s, op == 0x1f ? -a : ~a);
	case 0x23: /* plus_uconst */
		if ((err = pop(s, &a)) != 0)
			return err;
		return push(s, a + sp_rd_varint(c));
	case 0x92: /* bregx */
		a = sp_rd_varint(c);
		b = (uint64_t)sp_rd_sleb(c);
		if ((err = reg_value(regs, valid, a, &v)) != 0)
			return err;
		return push(s, v + b);
	case 0x96: /* nop */
		return 0;
	default:
		if ((err = pop(s, &b)) != 0 || (err = pop(s, &a)) != 0 ||
		    (err = binary(op, a, b, &v)) != 0)
			return err ? err : -SP_EFORMAT;
		return push(s, v);
	}
}

int
spi_dwarf_expr(const uint8_t *expr, size_t len, const uint64_t *regs,
    uint64_t valid, uint64_t init, int push_init,
    int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx,
    uint64_t *out)
{
	struct sp_cur c = sp_cur_make(expr, len);
	struct stack s;
	int steps, err = 0;

	s.n = 0;
	if (push_init)
		s.v[s.n++] = init;
	for (steps = 0; c.pos < len && err == 0; steps++) {
		uint8_t op = c.p[c.pos];

		if (steps == SP_EXPR_STEPS_MAX)
			return -SP_ELIMIT;
		if (op == 0x2f || op == 0x28) { /* skip, bra */
			int16_t off;
			const uint8_t *b;
			uint64_t cond = 1;

			c.pos++;
			b = sp_take(&c, 2);
			if (b == NULL || (op == 0x28 && pop(&s, &cond) < 0))
				return -SP_EFORMAT;
			off = (int16_t)sp_le16(b);
			if (cond == 0)
				continue;
			if ((off < 0 && (size_t)-off > c.pos) ||
			    (off > 0 && (size_t)off > len - c.pos))
				return -SP_EFORMAT;
			c.pos = (size_t)((int64_t)c.pos + off);
			continue;
		}
		err = step(&s, &c, regs, valid, read, ctx);
		if (c.err)
			err = -SP_EFORMAT;
	}
	if (err)
		return err;
	return pop(&s, out);
}
