/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "common/cursor_int.h"
#include "sp/unwind.h"

static const char *const error_names[SP_UNW_ERRORS_] = {
	[SP_UNW_OK] = "unwind_ok",
	[SP_UNW_STACK_BOUNDS] = "unwind_stack_bounds",
	[SP_UNW_NO_PROGRESS] = "unwind_no_progress",
	[SP_UNW_BAD_FP] = "unwind_bad_fp",
	[SP_UNW_DEPTH] = "unwind_depth",
	[SP_UNW_NO_REGS] = "unwind_no_regs",
};

const char *
sp_unwind_error_name(enum sp_unwind_error e)
{
	return (unsigned)e < SP_UNW_ERRORS_ ? error_names[e] : "unwind_unknown";
}

/* Reads the 8 bytes at address addr of the copied stack. */
static int
stack_load(const struct sp_ustack *stk, uint64_t sp, uint64_t addr,
    uint64_t *v)
{
	uint64_t off;

	if (addr < sp)
		return -1;
	off = addr - sp;
	if (off > stk->len || stk->len - off < 8)
		return -1;
	*v = sp_le64(stk->data + off);
	return 0;
}

void
sp_unwind_fp(const struct sp_uregs *regs, const struct sp_ustack *stk,
    uint64_t *ips, size_t max, struct sp_unwind_result *res)
{
	uint64_t sp = regs->r[SP_REG_SP], fp = regs->r[SP_REG_BP];
	uint64_t next, ret;

	memset(res, 0, sizeof(*res));
	if (max == 0)
		return;
	ips[res->n++] = regs->r[SP_REG_IP];
	for (;;) {
		/* System V ABI: the outermost frame has a zero frame pointer
		 * (_start clears %rbp). */
		if (fp == 0) {
			res->complete = 1;
			return;
		}
		if (fp & 7) {
			res->error = SP_UNW_BAD_FP;
			return;
		}
		if (stack_load(stk, sp, fp, &next) < 0 ||
		    stack_load(stk, sp, fp + 8, &ret) < 0) {
			res->error = SP_UNW_STACK_BOUNDS;
			return;
		}
		if (res->n == max) {
			res->error = SP_UNW_DEPTH;
			return;
		}
		ips[res->n++] = ret;
		if (next != 0 && next <= fp) {
			res->error = SP_UNW_NO_PROGRESS;
			return;
		}
		fp = next;
	}
}
