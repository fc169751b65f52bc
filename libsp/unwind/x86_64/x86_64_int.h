/* SPDX-License-Identifier: MIT */
#ifndef SP_X86_64_INT_H
#define SP_X86_64_INT_H

/* x86-64's constants of the architecture seam (arch_int.h). */

#define SPI_ARCH_NAME "x86_64"
/* asm/perf_regs.h: every user register but DS, ES, FS and GS, which
 * come in enum sp_reg's order: so many, the stack pointer and pc there. */
#define SPI_ARCH_PERF_REGS (((1ull << 24) - 1) & ~(0xfull << 12))
#define SPI_PERF_NREGS SP_REG_COUNT
#define SPI_PERF_SP SP_REG_SP
#define SPI_PERF_PC SP_REG_IP
/* System V ABI x86-64, fig. 3.36 (sp/cfi.h's SP_DW_* numbering). */
#define SPI_DW_SP SP_DW_RSP
#define SPI_DW_FP SP_DW_RBP
#define SPI_DW_RA SP_DW_RA
/* The kernel's half of the address space (canonical high addresses), as
 * the module of kernel frames spans it. */
#define SPI_ARCH_KERNEL_START 0xffff800000000000ull
#define SPI_ARCH_KERNEL_SIZE 0x7fffffffffffull

#endif
