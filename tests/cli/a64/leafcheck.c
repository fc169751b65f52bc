/* SPDX-License-Identifier: MIT */
/*
 * The AArch64 leaf analysis at every instruction of real compiler output,
 * against the compiler's own CFI (tests/cli/a64/leaf.sh writes both).
 *
 *   leafcheck CODE BASE TRUTH
 *
 * CODE holds the bytes of the code at address BASE (hexadecimal).  TRUTH
 * has a line per instruction, from the CFI row that covers it:
 *   PC s SP_OFF RA_AT RA_OFF FP_AT FP_OFF ROW
 *       CFA = sp + SP_OFF, x30 and x29 saved at sp + RA_OFF, FP_OFF
 *       (_AT 0: in the register itself), the row starting at ROW
 *   PC f
 *       sp not described by the row (CFA = x29 + N)
 * Prints "wrong PC: ..." where the analysis answers otherwise than the
 * CFI, "unknown PC" where it cannot tell on an sp-based row, and last
 * "checked N wrong N unknown N fp-based N (answered N) equivalent N".
 * Exit status 0 when it could run.
 *
 * An answer "in x30" where the row says "saved at K" is equivalent, and
 * counted apart, when an ldr or ldp (offset form: sp is the row's all
 * along) between the row's start and PC loaded x30 from sp + K: the
 * compiler's CFI keeps the rule until the frame goes.  So is "saved at
 * K" where the row says "in x30" when an str or stp between them stored
 * x30 there: gcc may say so one instruction late.  The same for x29.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built in, as the unit test and the fuzz target do: the host's libsp.a
 * has only its own architecture's unwind/ folder. */
#include "unwind/aarch64/aarch64_leaf.c"

struct code {
	uint8_t *p;
	size_t len;
	uint64_t base;
};

static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct code *c = ctx;
	uint64_t off = addr - c->base;

	if (addr < c->base || off >= c->len)
		return 0;
	if (len > c->len - off)
		len = (size_t)(c->len - off);
	memcpy(buf, c->p + off, len);
	return len;
}

static uint32_t
insn_at(const struct code *c, uint64_t pc)
{
	const uint8_t *p = c->p + (pc - c->base);

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* Whether an ldr Xr, [sp, #K] or ldp with Xr at sp + K (load 1; str,
 * stp with load 0) lies in [from, pc). */
static int
moved(const struct code *c, uint64_t from, uint64_t pc, unsigned r,
    long long k, int load)
{
	uint32_t l = load ? 0x00400000 : 0;
	uint64_t a;
	uint32_t i;
	long long off;

	for (a = from; a < pc; a += 4) {
		if (a < c->base || a - c->base + 4 > c->len)
			return 0;
		i = insn_at(c, a);
		if ((i & 0xffc003e0) == (0xf90003e0 | l)) {   /* ldr, str */
			off = (long long)(i >> 10 & 0xfff) * 8;
			if ((i & 31) == r && off == k)
				return 1;
		} else if ((i & 0xffc003e0) == (0xa90003e0 | l)) { /* ldp */
			off = (long long)((int32_t)(i << 10) >> 25) * 8;
			if (((i & 31) == r && off == k) ||
			    ((i >> 10 & 31) == r && off + 8 == k))
				return 1;
		}
	}
	return 0;
}

/* The analysis's slot (at, off) against the row's (cat, coff). */
static int
same_slot(const struct code *c, uint64_t row, uint64_t pc, unsigned r,
    int at, int64_t off, int cat, long long coff, int *equiv)
{
	if (at == cat && (!at || off == coff))
		return 1;
	if ((!at && cat && moved(c, row, pc, r, coff, 1)) ||
	    (at && !cat && moved(c, row, pc, r, off, 0))) {
		*equiv = 1;
		return 1;
	}
	return 0;
}

static int
load_code(const char *path, struct code *c)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    (c->p = malloc((size_t)n + 1)) == NULL ||
	    fread(c->p, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		return -1;
	}
	c->len = (size_t)n;
	fclose(f);
	return 0;
}

int
main(int argc, char **argv)
{
	struct code c;
	struct spi_a64_leaf lf;
	unsigned long checked = 0, wrong = 0, unknown = 0, fpb = 0, fpans = 0;
	unsigned long equivs = 0;
	uint64_t row;
	int equiv;
	char line[256], kind;
	uint64_t pc;
	long long sp, ra, fp;
	int ra_at, fp_at, n;
	FILE *t;

	if (argc != 4) {
		fprintf(stderr, "usage: leafcheck CODE BASE TRUTH\n");
		return 2;
	}
	c.base = strtoull(argv[2], NULL, 16);
	if (load_code(argv[1], &c) != 0 || (t = fopen(argv[3], "r")) == NULL)
		return 1;
	while (fgets(line, sizeof(line), t) != NULL) {
		n = sscanf(line, "%" SCNx64 " %c %lld %d %lld %d %lld %" SCNx64,
		    &pc, &kind, &sp, &ra_at, &ra, &fp_at, &fp, &row);
		if (n < 2 || (kind == 's' && n != 8)) {
			fprintf(stderr, "leafcheck: bad line: %s", line);
			return 1;
		}
		spi_a64_leaf(pc, read_code, &c, &lf);
		checked++;
		if (kind == 'f') {
			fpb++;
			fpans += lf.known != 0;
			continue;
		}
		if (!lf.known) {
			unknown++;
			printf("unknown %" PRIx64 "\n", pc);
			continue;
		}
		equiv = 0;
		if (lf.sp_off != sp ||
		    !same_slot(&c, row, pc, 30, lf.ra_at, lf.ra_off, ra_at, ra,
		    &equiv) ||
		    !same_slot(&c, row, pc, 29, lf.fp_at, lf.fp_off, fp_at, fp,
		    &equiv)) {
			wrong++;
			printf("wrong %" PRIx64 ": sp+%lld ra %d@%lld"
			    " fp %d@%lld; CFI: sp+%lld ra %d@%lld fp %d@%lld\n",
			    pc, (long long)lf.sp_off, lf.ra_at,
			    (long long)lf.ra_off, lf.fp_at,
			    (long long)lf.fp_off, sp, ra_at, ra, fp_at, fp);
		} else
			equivs += equiv;
	}
	fclose(t);
	free(c.p);
	printf("checked %lu wrong %lu unknown %lu fp-based %lu (answered %lu)"
	    " equivalent %lu\n", checked, wrong, unknown, fpb, fpans, equivs);
	return 0;
}
