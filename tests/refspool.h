/* SPDX-License-Identifier: MIT */
#ifndef TESTS_REFSPOOL_H
#define TESTS_REFSPOOL_H

/* The raw stack after the first sample (refspool.c). */
#define REF_RAW_REGS 3
#define REF_RAW_BYTES 16

#include <stddef.h>
#include <stdint.h>

#include "sp/spool/spool.h"
#include "sp/spool/writer.h"

/* The reference header: start_mono_ns 1000, host "testhost". */
void ref_header(struct sp_header *h);

/*
 * Writes the reference spool's records to w: one record of every kind
 * (HOST 1 is "otherhost", not used by the rest), nsamples samples over two threads and three stacks, an exit
 * event and a summary, then END when finish is set (else only a flush).
 * Aborts on a writer error, which would be a bug.
 */
void ref_write(struct sp_writer *w, size_t nsamples, int finish);

#define REF_PID 4242u
#define REF_TID2 4243u
#define REF_MOD_START 0x400000ull
#define REF_MOD_SIZE 0x2000ull
#define REF_T0 1000000ull /* time of the first sample */
#define REF_DT 1000ull    /* ns between samples */

/* The stack make_reference gives sample i, leaf first; returns depth. */
size_t ref_stack(size_t i, uint32_t frames[8]);

#endif
