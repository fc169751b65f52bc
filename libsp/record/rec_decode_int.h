/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_DECODE_INT_H
#define SP_REC_DECODE_INT_H

/*
 * The recorder's perf records, decoded before anything acts on them
 * (perf's struct perf_sample in spirit): a pure function from a record's
 * bytes, as a ring gave them, to a typed struct.  It reads nothing else,
 * changes nothing, and points into the record for what is variable
 * (the callchain, the stack copy, a path).  The handlers (rec_process.c)
 * then act on a record known to be whole.
 */

#include <stddef.h>
#include <stdint.h>

#include "common/procfs_int.h"
#include "unwind/unwind_int.h"

/* What the events' attributes make of every record. */
struct rec_format {
	size_t id_len;        /* 8 with PERF_SAMPLE_IDENTIFIER, else 0 */
	int callchain;        /* samples carry PERF_SAMPLE_CALLCHAIN */
	int period;           /* and PERF_SAMPLE_PERIOD (an event that
	                       * counts, -e) */
	int no_stack;         /* and no REGS_USER, STACK_USER (by frame
	                       * pointers) */
};

enum rec_kind {
	REC_OTHER,            /* a kind the recorder does not read */
	REC_SAMPLE,
	REC_MMAP2,
	REC_COMM,
	REC_FORK,
	REC_EXIT,
	REC_LOST,
	REC_THROTTLE,
	REC_SWITCH            /* PERF_RECORD_SWITCH and _CPU_WIDE */
};

/* A PERF_RECORD_SAMPLE of sample_type [IDENTIFIER] TID TIME CPU [PERIOD]
 * [CALLCHAIN] [REGS_USER STACK_USER]. */
struct rec_sample {
	uint64_t id;          /* the event's id (id_len 8), else 0 */
	uint64_t period;      /* the events it closed (PERIOD), else 0 */
	int in_kernel;        /* taken in the kernel (header's cpumode) */
	const uint8_t *chain; /* nchain little-endian u64, or NULL */
	uint64_t nchain;
	int has_regs;         /* the user registers are there (abi not NONE) */
	struct sp_uregs regs;
	struct sp_ustack stk; /* the copy, dyn_size applied */
};

struct rec_decoded {
	enum rec_kind kind;
	uint16_t misc;        /* the header's */
	/* Of a sample, its own fields; of the others, the sample_id
	 * trailer's (sample_id_all): who and when the record was made. */
	uint32_t pid, tid, cpu;
	uint64_t time;
	union {
		struct rec_sample sample;
		struct {                  /* REC_MMAP2, whole file path */
			uint32_t pid, prot;
			struct sp_map m;  /* path into the record, len */
		} mmap;
		struct {                  /* REC_COMM */
			uint32_t pid, tid;
			char comm[16];    /* NUL-terminated, cut at 15 */
			int exec;         /* PERF_RECORD_MISC_COMM_EXEC */
		} comm;
		struct {                  /* REC_FORK, REC_EXIT */
			uint32_t pid, ppid, tid, ptid;
		} task;
		uint64_t lost;            /* REC_LOST: events lost */
	} u;
};

/*
 * Decodes the record rec[0..len) (len from its header, at least 8 bytes)
 * into *out.  0, or -SP_EFORMAT when a field the kind has lies past the
 * record's end or a count cannot fit in it: *out is then unusable (a bad
 * record, counted and skipped).  A kind not read is REC_OTHER with the
 * trailer's fields where they fit.
 */
int spi_rec_decode(const struct rec_format *f, const uint8_t *rec,
    size_t len, struct rec_decoded *out);

#endif
