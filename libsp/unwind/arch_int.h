/* SPDX-License-Identifier: MIT */
#ifndef SP_ARCH_INT_H
#define SP_ARCH_INT_H

/*
 * The architecture seam: everything the recorder and the unwinder know of
 * one architecture, behind one interface, its code in a folder of its own
 * (libsp/unwind/x86_64/; framehop's src/x86_64/ beside src/aarch64/ is the
 * model).  A build records on its own architecture only, so the interface
 * is chosen when compiling: the architecture's header defines the
 * constants below, and its sources the functions.  Readers of spools
 * never unwind; they go by the machine the spool's header names.
 *
 * Constants:
 *   SPI_ARCH_NAME          "x86_64"
 *   SPI_ARCH_PERF_REGS     the PERF_SAMPLE_REGS_USER mask (asm/perf_regs.h);
 *                          a sample's registers come in its bit order
 *   SPI_PERF_NREGS, SPI_PERF_SP, SPI_PERF_PC
 *                          how many that is, and where the stack pointer
 *                          and the pc are among them
 *   SPI_DW_SP, SPI_DW_FP   DWARF numbers of the stack and frame pointers
 *   SPI_DW_RA              the return-address column of the CFI
 *   SPI_WALK_NREGS         the registers a walk tracks (DWARF 0 to it - 1;
 *                          at most SPI_CFI_NREGS): every copy of a frame
 *                          costs them, so x86-64 keeps its 17
 *   SPI_ARCH_KERNEL_START, SPI_ARCH_KERNEL_SIZE
 *                          the kernel's addresses, which the module of
 *                          kernel frames spans
 *   SPI_ARCH_RECORD_AT_SP  1 where a frame record ({frame pointer,
 *                          return address}) lies right below the caller's
 *                          stack pointer (x86-64: push rbp after the
 *                          call); 0 where it is at the frame's bottom
 *                          (AArch64), so the caller's sp is a lower bound
 *   SPI_ARCH_RA_IN_REG     1 where a call leaves the return address in a
 *                          register (AArch64's x30), so that a leaf's
 *                          caller may have the leaf's stack pointer
 *
 * and, inline:
 *   uint64_t spi_arch_code_addr(uint64_t ra)
 *                          a return address as a code address (AArch64:
 *                          without its pointer authentication code)
 */

#include <stddef.h>
#include <stdint.h>

#include "unwind/machine_int.h"
#include "unwind/unwind_int.h"
#include "unwind/walk_int.h"

/* The sampled registers (perf's order) as the leaf frame's (DWARF's). */
void spi_arch_from_perf(const struct sp_uregs *in, struct spi_frame *f);

/* cur is in the kernel's signal trampoline (the vdso's, found by name:
 * spi_cfi_table_sigreturn): the interrupted frame's registers, read from
 * the signal frame the kernel pushed, with next->pc exact.  0;
 * -SP_ETRUNC where the stack copy ends before the signal frame does; or
 * -SP_ENOTFOUND, no signal frame at cur's sp: step as for any frame
 * (x86-64 has no such trampoline: glibc's __restore_rt's CFI restores
 * every register). */
int spi_arch_signal_step(const struct spi_walk *w, const struct spi_frame *cur,
    struct spi_frame *next);

/* Whether the instruction before pc is a system call: a sample taken in
 * one has its user pc after it, which may be past the function's CFI. */
int spi_arch_after_syscall(const struct sp_unwind_lookup *lk, uint64_t pc);

/* A frame without CFI, by instruction analysis of its code from pc (the
 * leaf, or a caller in code with no CFI at all).  0 with next filled, or
 * -SP_ENOTFOUND to walk the frame pointer instead; counts in stats. */
int spi_arch_leaf_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, uint64_t pc, struct spi_frame *next,
    struct sp_unwind_stats *stats);

/* Whether the instruction before ra is a call: a return address, not a
 * number that happens to point into code (for spi_unwind_scan_step). */
int spi_arch_after_call(const struct sp_unwind_lookup *lk, uint64_t ra);

#endif
