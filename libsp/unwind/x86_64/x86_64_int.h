/* SPDX-License-Identifier: MIT */
#ifndef SP_X86_64_INT_H
#define SP_X86_64_INT_H

#include <stdint.h>

#include "dwarf/cfi_int.h"

/* x86-64's constants of the architecture seam (arch_int.h). */

#define SPI_ARCH_NAME "x86_64"

/* The sampled user registers, in perf_event's order (asm/perf_regs.h)
 * without DS, ES, FS and GS, which x86-64 does not sample. */
enum x86_64_reg {
	X86_64_REG_AX, X86_64_REG_BX, X86_64_REG_CX, X86_64_REG_DX,
	X86_64_REG_SI, X86_64_REG_DI, X86_64_REG_BP, X86_64_REG_SP,
	X86_64_REG_IP, X86_64_REG_FLAGS, X86_64_REG_CS, X86_64_REG_SS,
	X86_64_REG_R8, X86_64_REG_R9, X86_64_REG_R10, X86_64_REG_R11,
	X86_64_REG_R12, X86_64_REG_R13, X86_64_REG_R14, X86_64_REG_R15,
	X86_64_REG_COUNT
};

/* DWARF register numbers (System V ABI x86-64, fig. 3.36); the
 * return-address column is 16. */
enum x86_64_dw {
	X86_64_DW_RAX, X86_64_DW_RDX, X86_64_DW_RCX, X86_64_DW_RBX,
	X86_64_DW_RSI, X86_64_DW_RDI, X86_64_DW_RBP, X86_64_DW_RSP,
	X86_64_DW_R8, X86_64_DW_R9, X86_64_DW_R10, X86_64_DW_R11,
	X86_64_DW_R12, X86_64_DW_R13, X86_64_DW_R14, X86_64_DW_R15,
	X86_64_DW_RA
};

/* asm/perf_regs.h: every user register but DS, ES, FS and GS, in
 * enum x86_64_reg's order: so many, the stack pointer and pc there. */
#define SPI_ARCH_PERF_REGS (((1ull << 24) - 1) & ~(0xfull << 12))
#define SPI_PERF_NREGS X86_64_REG_COUNT
#define SPI_PERF_SP X86_64_REG_SP
#define SPI_PERF_PC X86_64_REG_IP
#define SPI_DW_SP X86_64_DW_RSP
#define SPI_DW_FP X86_64_DW_RBP
#define SPI_DW_RA X86_64_DW_RA
/* A row (dwarf/cfi_int.h) holds every register the walk reads. */
/* A walk tracks rax-r15 and the return address: every register CFI
 * moves on x86-64 (vector registers never matter). */
#define SPI_WALK_NREGS (X86_64_DW_RA + 1)
_Static_assert(SPI_WALK_NREGS <= SPI_CFI_NREGS, "a CFI row holds x86-64's registers");
/* A call pushes the return address; it is as it is. */
#define SPI_ARCH_RA_IN_REG 0
/* push rbp, right after the call pushed the return address. */
#define SPI_ARCH_RECORD_AT_SP 1
static inline uint64_t spi_arch_code_addr(uint64_t ra) { return ra; }
/* The kernel's half of the address space (canonical high addresses), as
 * the module of kernel frames spans it. */
#define SPI_ARCH_KERNEL_START 0xffff800000000000ull
#define SPI_ARCH_KERNEL_SIZE 0x7fffffffffffull

#endif
