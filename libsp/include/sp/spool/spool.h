/* SPDX-License-Identifier: MIT */
#ifndef SP_SPOOL_H
#define SP_SPOOL_H

/*
 * The spool format (docs/spool-format.md): the header, the record kinds
 * and their decoded forms, and the table of definitions that every reader
 * keeps.  The readers are in sp/spool/snapshot.h, sp/spool/replay.h and
 * sp/spool/tail.h, the writer in sp/spool/writer.h.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_MAGIC "\x89SPOOL\r\n"
#define SP_MAGIC_LEN 8
#define SP_VERSION 1
#define SP_HEADER_LEN 216       /* bytes of a version 1 header */
#define SP_HEADER_MAX 4096      /* largest header_len a reader accepts */
#define SP_RECORD_MAX (1u << 20) /* largest record payload */
#define SP_BUILD_ID_MAX 64
#define SP_COUNTER_NAME_MAX 64
#define SP_INLINE_MAX 64        /* logical frames in one SYMBOL record */

struct sp_header {
	uint16_t version;
	uint16_t header_len;
	uint32_t flags;
	uint64_t start_time_us;      /* CLOCK_REALTIME, µs; 0 unknown */
	uint64_t start_mono_ns;      /* CLOCK_MONOTONIC, ns: stream clock base */
	uint32_t sample_interval_us; /* 0 unknown */
	uint32_t page_size;
	uint8_t boot_id[16];         /* all zero when unknown */
	char hostname[65];           /* NUL-terminated */
	char release[65];
	char machine[33];
};

/*
 * Fills h with version 1 defaults and this host's facts: uname, page size,
 * boot id (when readable), and the current CLOCK_REALTIME and
 * CLOCK_MONOTONIC.  Returns 0 or -errno.
 */
int sp_header_init_host(struct sp_header *h);

/*
 * A sample's (or any record's) time on the profile's timeline: time, in
 * CLOCK_MONOTONIC ns as the readers give it, as CLOCK_REALTIME µs since
 * the epoch, from the header's anchor (start_time_us and start_mono_ns,
 * taken at one moment when the recording began): start_time_us +
 * (time - start_mono_ns) / 1000, earlier than start_time_us for a time
 * before the start.  Returns 1 with *us set, or 0 when the header has no
 * anchor (start_time_us 0: unknown) and leaves *us alone.  A merged
 * spool's times of another host than its first input's have no anchor
 * in the header either (docs/spool-format.md, "Stream clock"): their
 * value is meaningless.  The readers' sp_*_timestamp_us call this.
 */
int sp_header_timestamp_us(const struct sp_header *h, uint64_t time,
    int64_t *us);

/* Writes h as SP_HEADER_LEN bytes into out. */
void sp_header_encode(const struct sp_header *h, uint8_t out[SP_HEADER_LEN]);

/*
 * Decodes a header from p[0..len).  Returns 0 and fills h; -SP_ETRUNC when
 * the bytes end inside a header whose bytes so far are valid; -SP_EMAGIC,
 * -SP_EVERSION or -SP_EFORMAT, with the reason in diag (may be NULL).
 */
int sp_header_decode(const uint8_t *p, size_t len, struct sp_header *h,
    struct sp_diag *diag);

enum sp_kind {
	SP_REC_STRING = 1,
	SP_REC_HOST = 2,
	SP_REC_MODULE = 3,
	SP_REC_FRAME = 4,
	SP_REC_NODE = 5,
	SP_REC_THREAD = 6,
	SP_REC_SAMPLE = 7,
	SP_REC_PYTHON = 8,
	SP_REC_PROC = 9,
	SP_REC_SUMMARY = 10,
	SP_REC_SYMBOL = 11,
	SP_REC_RECORDING = 12,
	SP_REC_END = 13,
	SP_REC_RAWSTACK = 14,
	SP_REC_KINDS_ /* one past the last known kind */
};

/* Returns the lower-case name of a record kind, or "unknown". */
const char *sp_kind_name(unsigned kind);

/* A string from the spool: NUL-terminated, but may contain NUL bytes. */
struct sp_str {
	const char *s;
	uint32_t len;
};

struct sp_host {
	struct sp_str hostname, release, machine;
	uint32_t page_size;
	uint8_t boot_id[16];
	uint8_t has_boot_id;
};

enum sp_module_flag {
	SP_MOD_KERNEL = 1 << 0,
	SP_MOD_VDSO = 1 << 1,
	SP_MOD_ANON = 1 << 2,
	SP_MOD_DELETED = 1 << 3,
	SP_MOD_MEMFD = 1 << 4,
};

struct sp_module {
	uint32_t host;
	uint32_t pid;
	uint32_t flags;       /* enum sp_module_flag */
	uint32_t path;        /* STRING id, 0 none */
	uint64_t start, size, file_offset, inode, dev;
	uint8_t build_id_len;
	uint8_t build_id[SP_BUILD_ID_MAX];
	uint32_t uid_plus1;   /* the process's uid + 1, 0 unknown */
	/* The ELF virtual address of the mapping's first byte + 1, 0
	 * unknown: with it a debug file alone (no file bytes in its
	 * segments) maps a frame's file offset to an address. */
	uint64_t elf_vaddr_plus1;
};

enum sp_frame_mode {
	SP_FRAME_USER = 0,
	SP_FRAME_KERNEL = 1,
	SP_FRAME_TRUNCATED = 2,
};

/* A kernel frame with no module and address 0 stands for time in the
 * kernel recorded without its callchain; it is named this. */
#define SP_KERNEL_FRAME_NAME "[kernel]"

struct sp_frame {
	uint32_t module;      /* MODULE id, 0 none */
	uint32_t mode;        /* enum sp_frame_mode */
	uint64_t rel_ip, abs_ip;
};

struct sp_node {
	uint32_t parent;      /* NODE id, 0 root */
	uint32_t frame;
	uint32_t depth;       /* frames from here to the root, computed */
};

struct sp_thread {
	uint32_t host;
	uint32_t pid, tid;
	uint32_t comm;        /* STRING id, 0 unknown */
};

/* What a sample's weight counts. */
enum sp_sample_kind {
	SP_SAMPLE_CPU = 0,     /* one sample of time on a CPU (weight 1) */
	SP_SAMPLE_OFF_CPU = 1, /* nanoseconds off CPU, from the switch out
	                        * at time to the thread's next switch in:
	                        * blocked (with SP_RECORDING_PREEMPTED; without
	                        * it, preempted too) */
	SP_SAMPLE_PREEMPTED = 2, /* nanoseconds waiting for a CPU, from a
	                        * switch out of a thread still runnable
	                        * (preempted) to its next switch in */
};

struct sp_sample {
	uint32_t thread;
	uint32_t stack;       /* NODE id of the leaf, 0 empty stack */
	uint64_t time;        /* CLOCK_MONOTONIC ns */
	uint32_t cpu;
	uint32_t kind;        /* enum sp_sample_kind */
	/* What kind counts: 1 for a CPU sample (readers set it; a writer
	 * takes 0 as 1), the nanoseconds (> 0) of an off-CPU or preempted
	 * one; of a CPU sample of a recording that counts events
	 * (SP_RECORDING_COUNTS), the events it stands for. */
	uint64_t weight;
};

struct sp_python {
	uint64_t time;
	uint32_t host, pid;
	uint8_t is_python;
};

enum sp_proc_event {
	SP_PROC_FORK = 1,
	SP_PROC_EXEC = 2,
	SP_PROC_COMM = 3,
	SP_PROC_EXIT = 4,
};

struct sp_proc {
	uint64_t time;
	uint32_t event;       /* enum sp_proc_event */
	uint32_t host, pid, tid, other_pid, other_tid;
	uint32_t comm;        /* STRING id, 0 none */
};

struct sp_counter {
	struct sp_str name;
	uint64_t value;
};

struct sp_summary {
	const struct sp_counter *counters;
	uint32_t count;
};

enum sp_sym_origin {
	SP_ORIGIN_PERF_MAP = 1,
	SP_ORIGIN_ELF = 2,
	SP_ORIGIN_KERNEL = 3,
	SP_ORIGIN_ADDRESS = 4,
};

enum sp_sym_flag {
	SP_SYM_PYTHON_RUNTIME = 1 << 0,
	SP_SYM_HIDDEN = 1 << 1,
	SP_SYM_JIT = 1 << 2,
	SP_SYM_TRUNCATED = 1 << 3,
	SP_SYM_PYTHON_FRAME = 1 << 4,
};

struct sp_symline {
	uint32_t function;    /* STRING id */
	uint32_t file;        /* STRING id, 0 unknown */
	uint32_t line;        /* 0 unknown */
};

struct sp_symbol {
	uint32_t frame;
	uint32_t origin;      /* enum sp_sym_origin */
	uint32_t flags;       /* enum sp_sym_flag */
	uint32_t module_name; /* STRING id, 0 none */
	uint32_t count;       /* 1..SP_INLINE_MAX, innermost first */
	const struct sp_symline *lines;
};

struct sp_recording {
	struct sp_str event;  /* perf's name: cpu-clock, cycles, page-faults */
	uint32_t frequency;   /* Hz asked for; 0 with a fixed period */
	uint32_t stack_bytes;
	uint32_t flags;       /* SP_RECORDING_*: kernel callchains, children
	                       * followed, kernel time sampled, the whole
	                       * system, a cgroup */
	struct sp_str command;
	/* A sample every period events (perf's -c; ns for cpu-clock and
	 * task-clock), 0: by frequency.  Appended: 0 in older spools. */
	uint64_t period;
};

/*
 * The registers and copied stack bytes of the SAMPLE record just before
 * it (sp-record --raw-stacks), so the unwinder can be replayed offline.
 * regs holds nregs little-endian u64 values, the sampled user registers in
 * perf's order for the spool's machine (x86-64: asm/perf_regs.h without
 * DS, ES, FS and GS); stack starts at the sampled stack pointer.
 */
#define SP_RAWSTACK_REGS_MAX 64

struct sp_rawstack {
	uint32_t nregs;
	const uint8_t *regs;  /* nregs * 8 bytes */
	uint32_t stack_len;
	const uint8_t *stack;
};

#define SP_RECORDING_KERNEL 1u
#define SP_RECORDING_CHILDREN 2u
#define SP_RECORDING_KERNEL_TIME 4u /* time in the kernel was sampled */
#define SP_RECORDING_SYSTEM 8u      /* every process (sp-record -a) */
#define SP_RECORDING_CGROUP 16u     /* a cgroup's (sp-record --cgroup) */
#define SP_RECORDING_OFF_CPU 32u    /* off-CPU samples (--off-cpu) */
#define SP_RECORDING_PREEMPTED 64u  /* preemptions kept apart from them
                                     * (SP_SAMPLE_PREEMPTED): the kernel
                                     * marks them (Linux 4.17) */
#define SP_RECORDING_COUNTS 128u    /* the event counts something other
                                     * than time (perf's -e page-faults):
                                     * a CPU sample's weight is the
                                     * events since its event's last
                                     * sample, and frequency is no
                                     * sampling period */
#define SP_RECORDING_FP 256u        /* user stacks are the kernel's
                                     * frame-pointer walks (--call-graph
                                     * fp), not unwound by CFI */

/*
 * One decoded record.  For definitions, id is the id the record defines.
 * Strings and the symbol lines point into the reader's definitions and
 * stay valid until the reader is freed; the summary's counter array is
 * valid until the reader's next call.
 */
struct sp_record {
	uint32_t kind;        /* enum sp_kind, or an unknown kind that was skipped */
	uint32_t id;
	uint64_t offset;      /* of the record's kind byte */
	uint64_t size;        /* framed size: kind, length and payload */
	union {
		struct sp_str string;
		struct sp_host host;
		struct sp_module module;
		struct sp_frame frame;
		struct sp_node node;
		struct sp_thread thread;
		struct sp_sample sample;
		struct sp_python python;
		struct sp_proc proc;
		struct sp_summary summary;
		struct sp_symbol symbol;
		struct sp_recording recording;
		struct sp_rawstack rawstack;
		uint32_t crc32;
	} u;
};

/*
 * What a reader found at the end of its input.  truncated: the data ended
 * inside a record or without an END record; everything before end_offset
 * was read and validated ("recovered from a truncated tail").
 */
struct sp_status {
	int finished;         /* an END record was read and its crc32 matched */
	int truncated;
	uint64_t end_offset;  /* bytes of valid data */
	uint64_t records;
	uint64_t samples;
};

/*
 * The definitions a reader has seen.  Lookups take an id and return NULL
 * for 0 and for ids not defined; returned pointers stay valid until the
 * reader reads more records (Snapshot: until it is freed).
 */
struct sp_defs;

uint32_t sp_defs_count(const struct sp_defs *d, enum sp_kind kind);
const struct sp_str *sp_defs_string(const struct sp_defs *d, uint32_t id);
const struct sp_host *sp_defs_host(const struct sp_defs *d, uint32_t id);
const struct sp_module *sp_defs_module(const struct sp_defs *d, uint32_t id);
const struct sp_frame *sp_defs_frame(const struct sp_defs *d, uint32_t id);
const struct sp_node *sp_defs_node(const struct sp_defs *d, uint32_t id);
const struct sp_thread *sp_defs_thread(const struct sp_defs *d, uint32_t id);

/* The symbol of frame id, or NULL when sp-sym has not resolved it. */
const struct sp_symbol *sp_defs_symbol(const struct sp_defs *d, uint32_t frame);

/* The RECORDING record, or NULL when the spool has none. */
const struct sp_recording *sp_defs_recording(const struct sp_defs *d);

/*
 * The summary counters, each name once with the sum of its values over
 * all SUMMARY records, in order of first appearance.  Returns the count.
 */
size_t sp_defs_counters(const struct sp_defs *d, const struct sp_counter **out);

/*
 * Expands stack (a NODE id) into frame ids, leaf first, root last.  Writes
 * at most max ids to frames and the stack's depth to *depth.  Returns 0,
 * -SP_ELIMIT when the stack is deeper than max (frames then holds the max
 * leaf-side frames), or -SP_EREF for an undefined stack id.  Stack 0 is
 * empty (depth 0).
 */
int sp_defs_stack(const struct sp_defs *d, uint32_t stack, uint32_t *frames,
    size_t max, size_t *depth);

#ifdef __cplusplus
}
#endif

#endif
