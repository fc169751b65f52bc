/* SPDX-License-Identifier: MIT */
#ifndef SP_UNWIND_INT_H
#define SP_UNWIND_INT_H

/*
 * User-stack unwinding at record time, from the registers and the stack
 * bytes the kernel copied with a sample: DWARF CFI frame by frame, the
 * frame pointer where a PC has none, instruction analysis of a leaf.
 */

#include <stddef.h>
#include <stdint.h>

#include "unwind/machine_int.h"

/* The sampled user registers, in perf_event's order for this
 * architecture (SPI_ARCH_PERF_REGS's bits). */
struct sp_uregs {
	uint64_t r[SPI_PERF_NREGS];
};

/* Stack bytes copied from address r[SPI_PERF_SP] upward.  whole: the copy
 * reaches the stack's top (the kernel copied less than was asked), so a
 * frame pointer beyond it is no frame pointer. */
struct sp_ustack {
	const uint8_t *data;
	size_t len;
	int whole;
};

/* Why a walk ended before the outermost frame, counted per kind. */
enum sp_unwind_error {
	SP_UNW_OK,
	SP_UNW_STACK_BOUNDS, /* a read fell outside the copied stack bytes */
	SP_UNW_NO_PROGRESS,  /* the next frame is not above this one */
	SP_UNW_BAD_FP,       /* misaligned frame pointer */
	SP_UNW_DEPTH,        /* the frame limit was reached */
	SP_UNW_NO_REGS,      /* the sample carried no user registers, or
	                      * registers the kernel was restoring (arm64's
	                      * rt_sigreturn, between the sp and the pc) */
	SP_UNW_BAD_RA,       /* a return address in no executable mapping, or
	                      * 0 where no CFI says the stack ends */
	SP_UNW_NO_STACK,     /* the kernel copied no stack bytes (it could
	                      * not read the stack: a sample in a page fault) */
	SP_UNW_SWITCH,       /* Go's runtime switched stacks (systemstack,
	                      * mcall, morestack...): the frames above are on
	                      * the goroutine's stack, not in the copy, and the
	                      * kernel's frame-pointer chain did not lead on */
	SP_UNW_FP_END,       /* the kernel's frame-pointer walk (--call-graph
	                      * fp): never checked whole, as a function
	                      * without a frame record is skipped silently */
	SP_UNW_ERRORS_
};

/* Returns the counter name of an error kind, e.g. "unwind_stack_bounds". */
const char *spi_unwind_error_name(enum sp_unwind_error e);

struct sp_unwind_result {
	size_t n;       /* addresses stored, leaf first */
	int complete;   /* reached the outermost frame */
	enum sp_unwind_error error;
	uint64_t stack_used; /* from the sample's stack pointer to the last
	                      * frame's: the copy a whole walk needed */
	uint64_t switch_ra;  /* SP_UNW_SWITCH: the return address into the
	                      * switch (the last address, not rewound); 0:
	                      * the sample is in the switch itself */
};

/* Why a frame was unwound by its frame pointer instead of its CFI. */
enum sp_unwind_fallback {
	SP_FB_NO_MODULE,  /* no known mapping covers the PC (JIT, stale) */
	SP_FB_NO_CFI,     /* the module has no readable CFI ([vdso], anon) */
	SP_FB_NO_FDE,     /* no FDE covers the PC (hand-written assembly) */
	SP_FB_BAD_CFI,    /* malformed CFI or an expression we cannot run */
	SP_FB_KINDS_
};

/* Returns the counter name of a fallback reason, e.g. "fp_fallback_no_fde". */
const char *spi_unwind_fallback_name(enum sp_unwind_fallback f);

/* A file's CFI, made and freed through unwind/cfi_table_int.h (spi_cfi_table_open). */
struct sp_cfi_table;
struct sp_unwind_cache;
struct sp_leaf_memo;

/*
 * How the DWARF unwinder finds the CFI for a PC: find returns 0 with the
 * table of the module containing pc (NULL when it has none) and the load
 * bias (runtime address - ELF address), or -SP_ENOTFOUND when no module
 * covers pc.
 */
struct sp_unwind_lookup {
	int (*find)(void *ctx, uint64_t pc, const struct sp_cfi_table **table,
	    uint64_t *bias);
	void *ctx;
	/* Rows already computed, by (table, pc); may be NULL. */
	struct sp_unwind_cache *cache;
	/*
	 * Reads up to len bytes of the process's code at addr into buf and
	 * returns how many it read (0: none).  Used for the instruction
	 * analysis of a leaf frame that no CFI covers; may be NULL.
	 */
	size_t (*read_code)(void *ctx, uint64_t addr, uint8_t *buf,
	    size_t len);
	/*
	 * Whether pc lies in code with no file (a JIT's): 1 or 0.  Where
	 * neither the analysis nor the frame pointer unwinds such a frame,
	 * the stack is scanned for its return address.  May be NULL (no
	 * scan).
	 */
	int (*jit)(void *ctx, uint64_t pc);
	/*
	 * Leaf analyses already done, and the epoch of the process's code
	 * they are kept under (0: none kept); memo may be NULL.  The caller
	 * gives the code a new epoch whenever it may have been replaced.
	 */
	struct sp_leaf_memo *memo;
	uint64_t epoch;
};

/*
 * A direct-mapped cache of CFI rows, so that the steady state of a hot
 * loop is one lookup per frame with no parsing.  Rows point into their
 * tables: the tables must outlive the cache.  Returns NULL when out of
 * memory.
 */
struct sp_unwind_cache *spi_unwind_cache_new(void);
void spi_unwind_cache_free(struct sp_unwind_cache *c);
/* Drops the rows of table t (before t is freed).  c may be NULL. */
void spi_unwind_cache_forget(struct sp_unwind_cache *c,
    const struct sp_cfi_table *t);

/*
 * The leaf analyses already done, so that code without CFI (a JIT's) is
 * decoded once, not at every sample: a fixed table of MEMO_SLOTS entries
 * by (epoch, pc), each used only while the code bytes at pc are those it
 * was made from (leaf_memo.c).  NULL when out of memory.
 */
struct sp_leaf_memo *spi_leaf_memo_new(void);
void spi_leaf_memo_free(struct sp_leaf_memo *m);

struct sp_unwind_stats {
	uint64_t fallbacks[SP_FB_KINDS_];
	uint64_t cfi_steps;
	uint64_t cache_hits;
	uint64_t leaf_insn;         /* leaves unwound by instruction analysis */
	uint64_t leaf_insn_unknown; /* leaves it could not tell */
	uint64_t leaf_memo_hits;    /* of both, analyses the memo gave */
	uint64_t scanned;           /* frames in code with no CFI whose return
	                             * address a stack scan found */
	uint64_t signal_frames;     /* interrupted frames read from the
	                             * kernel's signal frame (arm64) */
};

/*
 * Unwinds with DWARF CFI (DWARF 5 §6.4), falling back to the frame
 * pointer frame by frame, counting each fallback by reason in *stats.
 * Every stack read is checked against the copy; a frame-pointer step ends
 * cleanly at a zero frame pointer (the outermost frame), and with an
 * error kind otherwise (misaligned, outside the copy, no progress).
 * Stores at most max addresses.  Never fails: res says how far it got.
 * A leaf (or interrupted) frame without CFI, and any frame in a module
 * without CFI at all (JIT code: CPython's -X perf trampolines), is first
 * analysed by decoding its instructions (lookup->read_code) to find its
 * return address even in a prologue, an epilogue or a function without a
 * frame pointer.
 * ips[0] is the sampled IP; later entries are return addresses already
 * rewound by one byte into the call, except after a signal frame, where
 * the interrupted PC is exact, and a signal trampoline's (returned into,
 * not called: its return address).  A sample in a system call that ends
 * its function's CFI (rt_sigreturn in __restore_rt) is unwound with the
 * syscall's row.  The walk ends cleanly where the return
 * address is undefined (_start, clone) or CFI gives it as zero.  A return
 * address that lookup->find places in no module, or a zero one found by
 * a frame pointer or a leaf's analysis, is a guess gone wrong: the walk
 * ends there, incomplete (SP_UNW_BAD_RA), and the address is not stored.
 */
void spi_unwind_dwarf(const struct sp_uregs *regs, const struct sp_ustack *stk,
    const struct sp_unwind_lookup *lookup, uint64_t *ips, size_t max,
    struct sp_unwind_result *res, struct sp_unwind_stats *stats);

/*
 * A walk that ended at a Go stack switch (SP_UNW_SWITCH) goes on along
 * the kernel's frame-pointer chain of the same sample (chain: its user
 * part, n return addresses, the sampled pc first): from the entry that is
 * the return address into the switch (from the first, where the sample is
 * in the switch itself), the entries after it, rewound, are
 * the goroutine's frames (Go keeps frame pointers, and the switch leaves
 * the goroutine's in its register: perf --call-graph fp walks the same).
 * The walk is complete when they end in a function where a stack starts
 * (runtime.goexit, mstart, rt0_go).  Returns how many were added.
 */
size_t spi_unwind_splice(const struct sp_unwind_lookup *lookup,
    const uint64_t *chain, size_t n, uint64_t *ips, size_t max,
    struct sp_unwind_result *res);

/*
 * The kernel's frame-pointer walk as the stack (--call-graph fp): chain,
 * its user part (n addresses, the sampled pc first), into ips as
 * spi_unwind_dwarf stores them (return addresses rewound into the call).
 * It ends at an address in no module (the walk read a frame pointer that
 * was none).  It is never complete (SP_UNW_FP_END, or SP_UNW_DEPTH at
 * max): a function that keeps no frame record is skipped without a trace
 * and the walk may still reach _start, so nothing says it is whole.
 */
void spi_unwind_chain(const struct sp_unwind_lookup *lookup,
    const uint64_t *chain, size_t n, uint64_t *ips, size_t max,
    struct sp_unwind_result *res);

#endif
