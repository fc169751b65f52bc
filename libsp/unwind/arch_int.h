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
 *   SPI_ARCH_KERNEL_START, SPI_ARCH_KERNEL_SIZE
 *                          the kernel's addresses, which the module of
 *                          kernel frames spans
 */

#include <stddef.h>
#include <stdint.h>

#include "unwind/machine_int.h"
#include "unwind/unwind_int.h"
#include "unwind/walk_int.h"

/* The sampled registers (perf's order) as the leaf frame's (DWARF's). */
void spi_arch_from_perf(const struct sp_uregs *in, struct spi_frame *f);

/* The frame-pointer convention: the caller's frame from cur's frame
 * pointer.  0; -SP_EFORMAT when it is no frame pointer; -SP_ETRUNC when
 * its slots are past the copy. */
int spi_arch_fp_step(const struct spi_walk *w, const struct spi_frame *cur,
    struct spi_frame *next);

/* Whether sp is the stack the kernel gives a new process (its entry
 * point's frame, where the outermost frame pointer is 0). */
int spi_arch_entry_stack(const struct spi_walk *w, uint64_t sp);

/* Whether the instruction before pc is a system call: a sample taken in
 * one has its user pc after it, which may be past the function's CFI. */
int spi_arch_after_syscall(const struct sp_unwind_lookup *lk, uint64_t pc);

/* A frame without CFI, by instruction analysis of its code from pc (the
 * leaf, or a caller in code with no CFI at all).  0 with next filled, or
 * -SP_ENOTFOUND to walk the frame pointer instead; counts in stats. */
int spi_arch_leaf_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, uint64_t pc, struct spi_frame *next,
    struct sp_unwind_stats *stats);

/* JIT code that neither unwinds: a return address looked for among the
 * stack words above the stack pointer.  0, or -SP_ENOTFOUND. */
int spi_arch_scan_step(const struct spi_walk *w, const struct spi_frame *cur,
    const struct sp_unwind_lookup *lk, struct spi_frame *next);

#endif
