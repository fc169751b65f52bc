/* SPDX-License-Identifier: MIT */
#ifndef SP_AARCH64_INT_H
#define SP_AARCH64_INT_H

#include <stdint.h>

#include "dwarf/cfi_int.h"

/* AArch64's constants of the architecture seam (arch_int.h). */

#define SPI_ARCH_NAME "aarch64"

/*
 * The sampled user registers, in perf_event's order (asm/perf_regs.h):
 * x0-x30, sp, pc.  The DWARF numbers (the AArch64 DWARF ABI) are the
 * same: x0-x30 are 0-30, sp 31, pc 32; the CFI's return-address column
 * is x30, the link register, a register like the others.
 */
enum aarch64_reg {
	AARCH64_X0 = 0,
	AARCH64_FP = 29,	/* x29, the frame pointer */
	AARCH64_LR = 30,	/* x30, the link register */
	AARCH64_SP = 31,
	AARCH64_PC = 32,
	AARCH64_REG_COUNT
};

#define SPI_ARCH_PERF_REGS ((1ull << AARCH64_REG_COUNT) - 1)
#define SPI_PERF_NREGS AARCH64_REG_COUNT
#define SPI_PERF_SP AARCH64_SP
#define SPI_PERF_PC AARCH64_PC
#define SPI_DW_SP AARCH64_SP
#define SPI_DW_FP AARCH64_FP
#define SPI_DW_RA AARCH64_LR
/* A walk tracks x0-x30, sp and pc. */
#define SPI_WALK_NREGS AARCH64_REG_COUNT
_Static_assert(SPI_WALK_NREGS <= SPI_CFI_NREGS, "a CFI row holds AArch64's registers");

/* A call (bl, blr) leaves the return address in x30. */
#define SPI_ARCH_RA_IN_REG 1
/* A frame record (AAPCS64 §6.2.3) is at the bottom of its frame, below
 * locals and other saves: the caller's sp is above it by the frame's size. */
#define SPI_ARCH_RECORD_AT_SP 0

/*
 * A return address as a code address: without the pointer authentication
 * code that paciasp put in its top bits (-mbranch-protection=standard,
 * as Debian and Ubuntu build arm64), whether or not the CFI said it was
 * signed (DW_CFA_AARCH64_negate_ra_state): a frame record's saved x30
 * carries one too, and no user code address has those bits.  Linux gives
 * user space 48 bits of address unless a process asks for more
 * (mmap above 2^48, with 52-bit VAs), which no code mapping does.
 */
static inline uint64_t
spi_arch_code_addr(uint64_t ra)
{
	return ra & 0x0000ffffffffffffull;
}

/* The kernel's half of the address space (TTBR1, top bits set). */
#define SPI_ARCH_KERNEL_START 0xffff000000000000ull
#define SPI_ARCH_KERNEL_SIZE 0xffffffffffffull

#endif
