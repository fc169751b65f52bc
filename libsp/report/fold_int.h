/* SPDX-License-Identifier: MIT */
#ifndef SP_FOLD_INT_H
#define SP_FOLD_INT_H

/* The fold's state, shared by fold.c (counting) and fold_text.c. */

#include <stddef.h>
#include <stdint.h>

#include "sp/fold.h"

/* Open addressing, linear probing; val 0 marks an empty slot. */
struct fold_slot {
	uint64_t key;
	uint64_t val;
};

struct fold_map {
	struct fold_slot *slots;
	size_t cap, used;
};

/* What the filters decided for one THREAD id. */
struct fold_thread {
	uint32_t group;
	uint8_t pass;
};

struct sp_fold {
	struct sp_fold_options o;
	uint64_t start_ns;
	struct fold_map counts;       /* group << 32 | stack -> samples */
	struct fold_map procs;        /* host << 32 | pid -> group */
	struct fold_thread *threads;  /* by THREAD id - 1 */
	size_t nthreads, capthreads;
	struct sp_fold_group *groups; /* by group id - 1 */
	size_t ngroups, capgroups;
	struct sp_fold_entry *entries;
	size_t nentries;
	struct sp_fold_stats st;
};

#endif
