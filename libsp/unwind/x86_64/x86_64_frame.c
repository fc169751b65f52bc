/* SPDX-License-Identifier: MIT */
/*
 * x86-64's side of the architecture seam (arch_int.h): perf's registers in
 * DWARF numbering, the System V frame-pointer convention, the entry
 * stack, call and syscall instructions, and the steps that read code: the
 * leaf analysis (x86_64_leaf.c) and the scan for a return address.
 */
#include <string.h>

#include "unwind/arch_int.h"
#include "x86_64_leaf_int.h"

/* perf's register order to DWARF numbering (System V ABI fig. 3.36). */
void
spi_arch_from_perf(const struct sp_uregs *in, struct spi_frame *f)
{
	static const uint8_t map[X86_64_DW_RA + 1] = {
		[X86_64_DW_RAX] = X86_64_REG_AX, [X86_64_DW_RDX] = X86_64_REG_DX,
		[X86_64_DW_RCX] = X86_64_REG_CX, [X86_64_DW_RBX] = X86_64_REG_BX,
		[X86_64_DW_RSI] = X86_64_REG_SI, [X86_64_DW_RDI] = X86_64_REG_DI,
		[X86_64_DW_RBP] = X86_64_REG_BP, [X86_64_DW_RSP] = X86_64_REG_SP,
		[X86_64_DW_R8] = X86_64_REG_R8, [X86_64_DW_R9] = X86_64_REG_R9,
		[X86_64_DW_R10] = X86_64_REG_R10, [X86_64_DW_R11] = X86_64_REG_R11,
		[X86_64_DW_R12] = X86_64_REG_R12, [X86_64_DW_R13] = X86_64_REG_R13,
		[X86_64_DW_R14] = X86_64_REG_R14, [X86_64_DW_R15] = X86_64_REG_R15,
		[X86_64_DW_RA] = X86_64_REG_IP,
	};
	int i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i <= X86_64_DW_RA; i++)
		f->r[i] = in->r[map[i]];
	f->valid = SPI_BIT(X86_64_DW_RA + 1) - 1;
	f->pc = in->r[X86_64_REG_IP];
}

/*
 * Whether the bytes before ra end with a call instruction (x86-64 FF /2
 * through a register or memory, with or without REX, or E8 rel32): a
 * return address, not a number that happens to point into code.
 */
int
spi_arch_after_call(const struct sp_unwind_lookup *lk, uint64_t ra)
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
 * A leaf frame without CFI: where instruction analysis finds the return
 * address, the caller's rsp is just above it and rbp is either untouched
 * or saved below it.  Returns 0 with next filled, or -SP_ENOTFOUND to walk
 * the frame pointer instead.
 */
int
spi_arch_leaf_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, uint64_t pc, struct spi_frame *next,
    struct sp_unwind_stats *stats)
{
	uint64_t sp = cur->r[X86_64_DW_RSP], bp = cur->r[X86_64_DW_RBP], ra;
	struct spi_leaf_key key;
	struct sp_leaf lf;

	if (spi_leaf_memo_find(lk, pc, &key, &lf, sizeof(lf), stats) != 0) {
		if (spi_unwind_leaf(pc, lk->read_code, lk->ctx, &lf) != 0)
			lf.kind = SP_LEAF_UNKNOWN;
		spi_leaf_memo_keep(lk, &key, &lf, sizeof(lf));
	}
	if (lf.kind == SP_LEAF_UNKNOWN) {
		stats->leaf_insn_unknown++;
		return -SP_ENOTFOUND;
	}
	stats->leaf_insn++;
	if (lf.kind == SP_LEAF_FRAME)
		return -SP_ENOTFOUND;
	if (spi_unwind_load(w, sp + (uint64_t)lf.ra_off, &ra) < 0 ||
	    (lf.bp_saved && spi_unwind_load(w, sp + (uint64_t)lf.bp_off, &bp) < 0))
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	next->r[X86_64_DW_RA] = ra;
	next->r[X86_64_DW_RSP] = sp + (uint64_t)lf.ra_off + 8;
	next->r[X86_64_DW_RBP] = bp;
	next->valid = SPI_BIT(X86_64_DW_RA) | SPI_BIT(X86_64_DW_RSP) |
	    (cur->valid & SPI_BIT(X86_64_DW_RBP)) | (uint64_t)lf.bp_saved << X86_64_DW_RBP;
	return 0;
}

/*
 * Whether the instruction before pc is a syscall (0f 05).  A sample taken
 * in a system call has the user pc after it, which is past the function's
 * CFI when the call ends it: glibc's __restore_rt (rt_sigreturn does not
 * return) is "mov $15, %eax; syscall" and its FDE ends there.
 */
int
spi_arch_after_syscall(const struct sp_unwind_lookup *lk, uint64_t pc)
{
	uint8_t b[2];

	return lk->read_code != NULL && pc >= 2 &&
	    lk->read_code(lk->ctx, pc - 2, b, 2) == 2 && b[0] == 0x0f &&
	    b[1] == 0x05;
}

/* glibc's __restore_rt has CFI for every register it restores. */
int
spi_arch_signal_step(const struct spi_walk *w, const struct spi_frame *cur,
    struct spi_frame *next)
{
	(void)w, (void)cur, (void)next;
	return -SP_ENOTFOUND;
}
