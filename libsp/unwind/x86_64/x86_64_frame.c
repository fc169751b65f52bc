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

	for (i = 0; i <= X86_64_DW_RA; i++)
		f->r[i] = in->r[map[i]];
	f->valid = (1u << (X86_64_DW_RA + 1)) - 1;
}

/* The System V frame-pointer convention: [rbp] is the caller's rbp,
 * [rbp + 8] the return address. */
int
spi_arch_fp_step(const struct spi_walk *w, const struct spi_frame *cur, struct spi_frame *next)
{
	uint64_t fp = cur->r[X86_64_DW_RBP], nfp, ra;

	/* Misaligned, or below the frame it would be the caller's of: not
	 * a frame pointer (code that keeps none uses rbp for data). */
	if (!(cur->valid & (1u << X86_64_DW_RBP)) || (fp & 7) ||
	    ((cur->valid & (1u << X86_64_DW_RSP)) && fp < cur->r[X86_64_DW_RSP]))
		return -SP_EFORMAT;
	if (spi_unwind_load(w, fp, &nfp) < 0 || spi_unwind_load(w, fp + 8, &ra) < 0)
		return -SP_ETRUNC; /* beyond the copy: above, as fp >= rsp */
	memset(next, 0, sizeof(*next));
	next->r[X86_64_DW_RBP] = nfp;
	next->r[X86_64_DW_RSP] = fp + 16;
	next->r[X86_64_DW_RA] = ra;
	next->valid = 1u << X86_64_DW_RBP | 1u << X86_64_DW_RSP | 1u << X86_64_DW_RA;
	return 0;
}

/*
 * Whether sp is the stack the kernel gives a new process (System V ABI
 * x86-64, 3.4.1): argc, argc pointers into the stack above, a NULL.
 */
int
spi_arch_entry_stack(const struct spi_walk *w, uint64_t sp)
{
	uint64_t argc, v, i;

	if (spi_unwind_load(w, sp, &argc) < 0 || argc == 0 || argc > 65536 ||
	    spi_unwind_load(w, sp + 8 * (argc + 1), &v) < 0 || v != 0)
		return 0;
	for (i = 1; i <= argc; i++)
		if (spi_unwind_load(w, sp + 8 * i, &v) < 0 || v <= sp ||
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
int
spi_arch_scan_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, struct spi_frame *next)
{
	uint64_t sp = cur->r[X86_64_DW_RSP], v, bp, bias, first = 0, found = 0;
	const struct sp_cfi_table *t;
	int i;

	if (lk->read_code == NULL || lk->jit == NULL ||
	    !(cur->valid & (1u << X86_64_DW_RSP)) ||
	    !lk->jit(lk->ctx, cur->r[X86_64_DW_RA]))
		return -SP_ENOTFOUND;
	for (i = 0; i < SCAN_WORDS && found == 0; i++) {
		uint64_t slot = sp + 8 * (uint64_t)i;

		if (spi_unwind_load(w, slot, &v) < 0)
			break;
		if (v < 4096 || lk->find(lk->ctx, v - 1, &t, &bias) != 0 ||
		    !after_call(lk, v))
			continue;
		if (first == 0)
			first = slot;
		if (i > 0 && spi_unwind_load(w, slot - 8, &bp) == 0 && (bp & 7) == 0 &&
		    bp > slot && bp - w->sp0 < w->stk->len)
			found = slot;
	}
	if (found == 0)
		found = first;
	if (found == 0 || spi_unwind_load(w, found, &v) < 0)
		return -SP_ENOTFOUND;
	memset(next, 0, sizeof(*next));
	next->r[X86_64_DW_RA] = v;
	next->r[X86_64_DW_RSP] = found + 8;
	next->valid = 1u << X86_64_DW_RA | 1u << X86_64_DW_RSP;
	if (found > sp && spi_unwind_load(w, found - 8, &bp) == 0 && (bp & 7) == 0 &&
	    bp > found && bp - w->sp0 < w->stk->len) {
		next->r[X86_64_DW_RBP] = bp;
		next->valid |= 1u << X86_64_DW_RBP;
	} else if (cur->valid & (1u << X86_64_DW_RBP)) {
		next->r[X86_64_DW_RBP] = cur->r[X86_64_DW_RBP];
		next->valid |= 1u << X86_64_DW_RBP;
	}
	return 0;
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
	struct sp_leaf lf;

	if (spi_unwind_leaf(pc, lk->read_code, lk->ctx, &lf) != 0 ||
	    lf.kind == SP_LEAF_UNKNOWN) {
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
	next->valid = 1u << X86_64_DW_RA | 1u << X86_64_DW_RSP |
	    (cur->valid & 1u << X86_64_DW_RBP) | (uint32_t)lf.bp_saved << X86_64_DW_RBP;
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
