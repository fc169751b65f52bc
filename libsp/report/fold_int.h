/* SPDX-License-Identifier: MIT */
#ifndef SP_FOLD_INT_H
#define SP_FOLD_INT_H

/* The fold's state, shared by fold.c (counting) and fold_text.c. */

#include <stddef.h>
#include <stdint.h>

#include "sp/report/fold.h"

/* Open addressing, linear probing; val 0 marks an empty slot. */
struct fold_slot {
	uint64_t key;
	uint64_t val;
};

struct fold_map {
	struct fold_slot *slots;
	size_t cap, used;
};

/* A count's key holds the sample's kind in 2 bits, its group in 30. */
#define FOLD_GROUPS_MAX (1u << 30)

/* What the filters decided for one THREAD id. */
struct fold_thread {
	uint32_t group;
	uint8_t pass;
};

struct sp_fold {
	struct sp_fold_options o;
	uint64_t start_ns;
	uint64_t interval_ns;         /* the header's sampling interval */
	struct fold_map counts;       /* kind << 62 | group << 32 | stack
	                               * -> samples or nanoseconds */
	struct fold_map procs;        /* host << 32 | pid -> group */
	struct fold_thread *threads;  /* by THREAD id - 1 */
	size_t nthreads, capthreads;
	struct sp_fold_group *groups; /* by group id - 1 */
	size_t ngroups, capgroups;
	struct sp_fold_entry *entries;
	size_t nentries;
	struct sp_fold_sampled *order; /* SP_FOLD_ORDER */
	size_t norder, caporder;
	struct sp_fold_stats st;
};

/*
 * A stack's folded text alone (no root), as sp_fold_write prints it, for
 * exporters that need stacks one at a time: frames are rendered once and
 * cached.  The text is valid until the next call; its length is 0 when
 * the options kept no frame.
 */
/* The sampling period in ns: the RECORDING frequency, else the header's
 * interval (0: unknown).  pprof's and speedscope's. */
uint64_t spi_fold_period_ns(const struct sp_defs *d, const struct sp_header *h);

/* The sample kinds (1 << enum sp_sample_kind) that f's unit shows (AUTO
 * resolved by the samples counted): with BOTH, preempted time only when
 * the recording kept it apart (SP_RECORDING_PREEMPTED) or some was
 * counted.  For the exporters' sample types and profiles. */
unsigned spi_fold_kinds(const struct sp_fold *f, const struct sp_defs *d);

struct spi_fold_text;
int spi_fold_text_new(struct sp_fold *f, const struct sp_defs *d,
    struct spi_fold_text **out);
int spi_fold_text_stack(struct spi_fold_text *t, uint32_t stack,
    const char **text, size_t *len);
void spi_fold_text_free(struct spi_fold_text *t);

#endif
