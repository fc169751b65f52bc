/* SPDX-License-Identifier: MIT */
/*
 * AArch64's side of the architecture seam (arch_int.h): perf's registers
 * (already in DWARF's numbering), frame records (x29, x30), the entry
 * stack, bl, blr and svc, the kernel's signal frame, and the steps that
 * read code: the leaf analysis (aarch64_leaf.c) and the scan for a
 * return address.  A64 instructions are 4 bytes, little-endian.
 */
#include <string.h>

#include "unwind/arch_int.h"
#include "aarch64_leaf_int.h"

#define A64_SVC0 0xd4000001u        /* svc #0 */

/* perf's order is DWARF's: x0-x30, sp, pc. */
void
spi_arch_from_perf(const struct sp_uregs *in, struct spi_frame *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->r, in->r, sizeof(in->r));
	f->valid = SPI_BIT(AARCH64_REG_COUNT) - 1;
	f->pc = in->r[AARCH64_PC];
}

/* The instruction at addr, or 0 (an undefined encoding) if unreadable. */
static uint32_t
insn_at(const struct sp_unwind_lookup *lk, uint64_t addr)
{
	uint8_t b[4];

	if (lk->read_code == NULL || lk->read_code(lk->ctx, addr, b, 4) != 4)
		return 0;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

int
spi_arch_after_syscall(const struct sp_unwind_lookup *lk, uint64_t pc)
{
	return pc >= 4 && (pc & 3) == 0 && insn_at(lk, pc - 4) == A64_SVC0;
}

/*
 * The kernel's rt_sigframe, which the stack pointer points at in
 * __kernel_rt_sigreturn (arch/arm64/kernel/signal.c): a siginfo (128
 * bytes), then a ucontext whose uc_mcontext, a struct sigcontext, is at
 * offset 176: fault_address, regs[31], sp, pc.  The vdso's CFI for it,
 * where it has any, gives x29 and x30 alone, from the frame record the
 * kernel writes, which loses the interrupted frame.
 */
#define SIGFRAME_REGS (128 + 176 + 8)
#define SIGFRAME_SP (SIGFRAME_REGS + 31 * 8)
#define SIGFRAME_PC (SIGFRAME_SP + 8)
/* The sigcontext's __reserved records (16-aligned, after pstate), of
 * which the kernel always writes the FP/SIMD one first (magic, size). */
#define SIGFRAME_RESERVED (128 + 176 + 288)
#define FPSIMD_MAGIC 0x46508001u

int
spi_arch_signal_step(const struct spi_walk *w, const struct spi_frame *cur,
    struct spi_frame *next)
{
	uint64_t sp = cur->r[AARCH64_SP], v;
	int i;

	if (!(cur->valid & SPI_BIT(AARCH64_SP)))
		return -SP_ENOTFOUND;
	/* The highest slot read: past the copy's end, none is in it; not
	 * the magic, no signal frame at sp (a sample in rt_sigreturn after
	 * the kernel restored the interrupted sp, before its pc). */
	if (spi_unwind_load(w, sp + SIGFRAME_RESERVED, &v) < 0)
		return -SP_ETRUNC;
	if ((uint32_t)v != FPSIMD_MAGIC)
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	for (i = 0; i < 31; i++) {
		if (spi_unwind_load(w, sp + SIGFRAME_REGS + 8 * (uint64_t)i, &v) < 0)
			return -SP_ENOTFOUND;
		next->r[i] = v;
	}
	if (spi_unwind_load(w, sp + SIGFRAME_SP, &next->r[AARCH64_SP]) < 0 ||
	    spi_unwind_load(w, sp + SIGFRAME_PC, &v) < 0)
		return -SP_ENOTFOUND;
	next->r[AARCH64_PC] = v;
	next->pc = v;
	next->valid = SPI_BIT(AARCH64_REG_COUNT) - 1;
	return 0;
}

/* Whether the instruction before ra is a call: bl, blr, or blr with
 * pointer authentication (blraa, blrab, blraaz, blrabz). */
int
spi_arch_after_call(const struct sp_unwind_lookup *lk, uint64_t ra)
{
	uint32_t i;

	if (ra < 4 || (ra & 3))
		return 0;
	i = insn_at(lk, ra - 4);
	return (i & 0xfc000000u) == 0x94000000u ||     /* bl */
	    (i & 0xfffffc1fu) == 0xd63f0000u ||        /* blr */
	    (i & 0xfefff800u) == 0xd63f0800u;          /* blra* */
}

/*
 * A frame without CFI: the analysis (aarch64_leaf.c) says where the
 * caller's sp is and whether x30 and x29 still hold the return address
 * and the caller's frame pointer or were saved on the stack.  0 with next
 * filled, or -SP_ENOTFOUND to walk the frame record instead.
 */
int
spi_arch_leaf_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, uint64_t pc, struct spi_frame *next,
    struct sp_unwind_stats *stats)
{
	uint64_t sp = cur->r[AARCH64_SP], ra = cur->r[AARCH64_LR];
	uint64_t fp = cur->r[AARCH64_FP];
	struct spi_leaf_key key;
	struct spi_a64_leaf lf;

	if (!(cur->valid & SPI_BIT(AARCH64_SP))) {
		stats->leaf_insn_unknown++;
		return -SP_ENOTFOUND;
	}
	if (spi_leaf_memo_find(lk, pc, &key, &lf, sizeof(lf), stats) != 0) {
		if (spi_a64_leaf(pc, lk->read_code, lk->ctx, &lf) != 0)
			lf.known = 0;
		spi_leaf_memo_keep(lk, &key, &lf, sizeof(lf));
	}
	if (!lf.known) {
		stats->leaf_insn_unknown++;
		return -SP_ENOTFOUND;
	}
	stats->leaf_insn++;
	/* x30 and x29 still the caller's only where they are this frame's
	 * own (the leaf, an interrupted frame); a caller's were not kept. */
	if ((!lf.ra_at && !(cur->valid & SPI_BIT(AARCH64_LR))) ||
	    (lf.ra_at && spi_unwind_load(w, sp + (uint64_t)lf.ra_off, &ra) < 0) ||
	    (lf.fp_at && spi_unwind_load(w, sp + (uint64_t)lf.fp_off, &fp) < 0))
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	next->r[AARCH64_LR] = ra;
	next->r[AARCH64_SP] = sp + (uint64_t)lf.sp_off;
	next->r[AARCH64_FP] = fp;
	next->valid = SPI_BIT(AARCH64_LR) | SPI_BIT(AARCH64_SP) |
	    ((cur->valid & SPI_BIT(AARCH64_FP)) | (uint64_t)(lf.fp_at != 0) << AARCH64_FP);
	return 0;
}
