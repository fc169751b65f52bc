/* SPDX-License-Identifier: MIT */
#ifndef TESTS_COMMON_H
#define TESTS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "refspool.h"
#include "sp/spool/spool.h"
#include "sp/spool/writer.h"

/* A spool made in memory by a test. */
struct mem {
	uint8_t *p;
	size_t len;
};

/* A writer on a fresh memfd with a fixed header (start_mono_ns 1000). */
struct sp_writer *mem_writer(int *fd);

/* Reads everything written to fd back into memory and closes fd. */
struct mem mem_collect(int fd);

void mem_free(struct mem *m);

/* The reference spool of refspool.h, in memory. */
struct mem make_reference(size_t nsamples, int finish);

/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

#endif
