/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_CTX_INT_H
#define SP_REC_CTX_INT_H

/*
 * What the recorder's helpers share without the recorder itself: the
 * counters, the mappings and files of the followed processes, and
 * struct rec_ctx, the part of the recorder they may use (the writer, the
 * log, the bundle, the files and the row cache).  rec_emit.c, rec_maps.c,
 * rec_reuse.c and rec_module.c see only this header, so they cannot call
 * back into the files above them: the files form one order, rec_emit,
 * rec_maps < rec_reuse < rec_module < rec_threads < rec_offcpu <
 * rec_process < rec_targets < recorder.
 */

#include <stdint.h>
#include <sys/types.h>

#include "common/imap_int.h"
#include "sp/record/recorder.h"
#include "sp/spool/writer.h"
#include "unwind/unwind_int.h"

/* Summary counters, in the order they are written. */
enum rec_counter {
	C_SAMPLE_EVENTS,      /* PERF_RECORD_SAMPLE read from the rings */
	C_SAMPLES,            /* samples written */
	C_LOST_EVENTS,        /* events the kernel dropped (LOST records) */
	C_LOST_RECORDS,
	C_PROCESSES,          /* processes followed: targets and children */
	C_THREADS,            /* threads of those, opened or seen forking */
	C_LIFECYCLE_GAPS,     /* recovery sweeps of /proc after a loss */
	C_KERNEL_ENABLED,     /* kernel time sampled (exclude_kernel 0) */
	C_KERNEL_CALLCHAINS,  /* and its callchains (--kernel) */
	C_KERNEL_SAMPLES,     /* samples taken in the kernel */
	C_RING_BYTES_MIN,
	C_RING_BYTES_MAX,
	C_MISSING_PID,        /* samples without a usable pid/tid */
	C_IDLE,               /* samples of the idle task (tid 0) */
	C_MISSING_TIME,
	C_UNTRACKED,          /* samples of processes not followed */
	C_GONE,               /* the whole system: samples of processes that
	                       * exited before their mappings were read */
	C_CHILDREN_NOT_FOLLOWED, /* running descendants of a target, not
	                          * followed (children off) */
	C_EMPTY_STACKS,
	C_TRUNCATED_STACKS,
	C_JIT_TRUNCATED,      /* of those, ended in code with no file (JIT) */
	C_EXEC_SAMPLES,       /* taken in an exec before the new image ran:
	                       * the kernel's stack alone, whole */
	C_IGNORED_USER_CALLCHAIN, /* user frames the kernel sent anyway */
	C_UNKNOWN_MODULE,     /* user frames outside every known mapping */
	C_MAPS_RESCANS,
	C_PID_REUSES,         /* known pids found to be new processes */
	C_THROTTLES,
	C_JITTER_PERCENT,     /* the intervals' jitter: drawn from this % below
	                       * 1 / the rate up to it; 0: fixed (--no-jitter,
	                       * or at the kernel's rate) */
	C_JITTER_DROPPED,     /* samples dropped to keep the rate: the kernel
	                       * took them at intervals that short */
	C_EVENT_COUNT,        /* of an event that counts (-e): the events
	                       * the samples written stand for */
	C_BAD_RECORDS,        /* perf records too short for their fields */
	C_CODE_READS,         /* pages of code read from processes */
	C_CODE_READ_HITS,     /* code reads served from a page read before
	                       * in the same drain */
	C_CFI_STEPS,          /* frames unwound by their CFI */
	C_CFI_FILES,          /* ELF files whose CFI was loaded */
	C_CFI_CACHE_HITS,     /* CFI steps served from the row cache */
	C_CFI_RELEASED,       /* files whose CFI was freed: no longer mapped */
	C_CFI_REFUSED,        /* CFI sections refused by a bound (sizes, zlib) */
	C_UNREACHABLE_KEPT,   /* files only a target's mount namespace (or
	                       * map_files) reaches, kept in a bundle */
	C_UNREACHABLE_KEPT_BYTES,
	C_UNREACHABLE_SKIPPED, /* such files not kept: past the budget, or
	                       * no bundle to keep them in */
	C_UNREACHABLE_SKIPPED_BYTES,
	C_LEAF_INSN,          /* leaves without CFI unwound by analysis */
	C_LEAF_INSN_UNKNOWN,  /* leaves the analysis could not tell */
	C_LEAF_MEMO_HITS,     /* of both, analyses the leaf memo gave */
	C_SCANNED,            /* frames found by a stack scan (JIT code) */
	C_SIGNAL_FRAMES,      /* interrupted frames read from signal frames */
	C_STACK_BYTES,        /* the stack copy's size in use (it may change
	                       * once or twice without -s: recorder.c) */
	C_STACK_SWITCHES,     /* changes of that size */
	C_OFF_CPU,            /* --off-cpu: off-CPU samples written,
	                       * blocked or preempted */
	C_OFF_CPU_NS,         /* the nanoseconds they weigh */
	C_OFF_CPU_PREEMPTED,  /* of them, switches out of a thread still
	                       * runnable (SP_SAMPLE_PREEMPTED) */
	C_OFF_CPU_PREEMPTED_NS, /* the nanoseconds those weigh */
	C_OFF_CPU_APART,      /* 1: the kernel marks preemptions (4.17), so
	                       * they are kept apart; 0: counted as blocked */
	C_OFF_CPU_UNMATCHED,  /* switches out whose switch in was not seen
	                       * before the next one (lost records) */
	/* Whole walks by the stack they used: up to 4, 8, 16, 32, 64 KiB
	 * (sp-record's summary says how far -s could come down). */
	C_STACK_USED_FIRST_,
	C_STACK_USED_LAST_ = C_STACK_USED_FIRST_ + 4,
	C_FALLBACK_FIRST_,    /* then one counter per fallback reason */
	C_UNWIND_FIRST_ = C_FALLBACK_FIRST_ + SP_FB_KINDS_,
	C_COUNT_ = C_UNWIND_FIRST_ + SP_UNW_ERRORS_ - 1
};

/* The counter of unwind error kind e (not SP_UNW_OK). */
#define C_UNW(e) (C_UNWIND_FIRST_ + (e) - 1)

struct rec_range {
	uint64_t start, end;  /* [start, end) */
	uint32_t module;      /* MODULE id */
	uint64_t offset;      /* file offset of start */
	const struct sp_cfi_table *cfi; /* its CFI, NULL if none or not
	                       * read yet: the file's (spi_rec_range_cfi) */
	uint64_t bias;        /* runtime address - ELF address */
	int has_bias;         /* bias known: the file's CFI applies */
	struct rec_file *file; /* holds a reference; NULL for none, [vdso] */
};

/*
 * An ELF file, shared by every mapping of it: its build-id read when it
 * was first mapped, its CFI the first time a walk needs it (a process maps
 * many libraries it never runs in the time recorded).
 */
struct rec_file {
	uint64_t dev, ino;
	struct sp_elf_file *elf;    /* open until the CFI is read (it then
	                             * holds it), NULL: not ELF */
	struct sp_cfi_table *cfi;   /* NULL: not read yet, or no usable CFI */
	int cfi_read;
	uint8_t build_id[SP_BUILD_ID_MAX];
	uint8_t build_id_len;       /* 0: none */
	char *path;           /* to keep: a mapping's path, until kept */
	int kept;             /* in the bundle (or tried) */
	int judged;           /* unreachable decided (rec_keep.c) */
	int unreachable;      /* this host's path leads elsewhere: kept by
	                       * default (spi_rec_unreachable) */
	int keep_fd;          /* unreachable: the file, open until kept (its
	                       * process may be gone by then); -1 */
	size_t refs;          /* mappings that use it; freed at 0 */
	struct rec_file *next;
};

/* Code with no file (a JIT's) as read at a few addresses while its
 * process lived: a sample drained after the process exited (its last
 * ones, on a loaded machine) is analysed from these bytes. */
#define CODE_MEMO 8u
struct code_memo {
	uint64_t addr;
	size_t len;
	uint8_t b[64];
};

struct rec_proc {
	uint32_t pid;
	int tracked;          /* its samples are recorded */
	uint32_t followed_by; /* the attach that began to follow it as a
	                       * child of its target (struct rec_targets
	                       * attach), 0 none: a failed one unfollows it */
	int attached;         /* a -p target: its exit is logged */
	int python;           /* last PYTHON status written */
	int pmap_copied;      /* its perf map was copied into the bundle at
	                       * its first frame in code with no file */
	uid_t uid;            /* owner, for perf-map checks; -1 unknown */
	struct rec_range *maps;  /* sorted by start, not overlapping */
	size_t nmaps, capmaps;
	uint64_t last_rescan; /* time of the last /proc maps rescan */
	uint64_t start_time;  /* /proc/PID/stat starttime; 0 unknown */
	/* Clock ticks since boot until which a new thread of it may lack an
	 * inherited event: when its threads' events were opened by listing
	 * them (attach).  0: every new thread inherits one (a spawned or a
	 * forked process). */
	uint64_t listed_until;
	uint64_t jit_cut;     /* its walks that ended in code with no file */
	uint64_t exec_time;   /* time of its last exec (COMM record), 0 none */
	int awaiting_exec;    /* spawned by sp-record, its first exec's COMM
	                       * record not yet seen: its events started in
	                       * that exec (enable_on_exec) */
	uint64_t exited;      /* time of its EXIT record (the whole system:
	                       * kept a while, struct rec_exited), 0 alive */
	uint64_t code_epoch;  /* its code as the leaf memo knows it: a new
	                       * one when its mappings change or its perf
	                       * map grows (0: none yet) */
	uint64_t pmap_checked; /* when its perf map's size was last read */
	int64_t pmap_size;    /* that size, -1 none */
	char exe[32];         /* its executable's name, read at the first */
	struct code_memo code[CODE_MEMO];
};

/* rec_keep.c's: where files no host path reaches are kept, and how
 * much of them. */
struct rec_keep {
	const char *dir;          /* the bundle beside the spool, made at
	                           * the first file kept; NULL: none */
	uint64_t max;             /* bytes kept at most; 0: none kept */
	uint64_t used;
	struct sp_bundle *own;    /* the one at dir, once made */
	int failed;               /* no bundle to keep them in: said once */
};

/* The recorder's state its helpers use; struct sp_recorder holds one. */
/*
 * Code bytes read from sampled processes in this drain (rec_process.c
 * read_code), by 4 KiB page: the unwinder reads a few bytes at a time,
 * two or three times a sample in JIT code (the leaf memo's check, the
 * call before a return address), and each process_vm_readv cost 3 us.
 * The samples of a drain were taken before it, so bytes read once for
 * all of them are as current as bytes read for each.
 */
#define REC_CODE_PAGES 64u
struct rec_code_page {
	uint64_t page;                /* its address (4 KiB aligned) */
	uint64_t gen;                 /* the drain that read it; 0: empty */
	uint32_t pid;
	uint32_t len;                 /* bytes read from its start */
	uint8_t b[4096];
};

struct rec_ctx {
	struct sp_writer *w;
	void (*log)(void *ctx, const char *msg); /* NULL: quiet */
	void *log_ctx;
	struct sp_bundle *bundle;     /* NULL: none */
	struct rec_keep keep;
	uint64_t now;                 /* time of the record being processed */
	struct rec_file *files;       /* CFI of the files mapped so far */
	struct sp_cfi_table *vdso;    /* the [vdso]'s CFI */
	int vdso_tried;
	uint8_t vdso_id[SP_BUILD_ID_MAX];  /* its build-id, for its modules */
	uint8_t vdso_id_len;
	struct sp_unwind_cache *cache;
	struct sp_leaf_memo *leaf_memo;
	uint64_t maps_gen;            /* counts changes to any mappings */
	uint64_t epochs;              /* code epochs given out (rec_proc) */
	struct rec_code_page *code;   /* REC_CODE_PAGES, NULL until used */
	uint64_t drain_gen;           /* drains begun, from 1 */
	uint64_t c[C_COUNT_];
};

/* rec_emit.c: the log, and the PYTHON and PROC records. */
void spi_rec_log(const struct rec_ctx *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int spi_rec_write_python(struct rec_ctx *r, struct rec_proc *p, int is_py,
    uint64_t time);
/* A PROC record (SP_PROC_*) at the current time; comm may be NULL. */
int spi_rec_write_proc(struct rec_ctx *r, uint32_t event, uint32_t pid,
    uint32_t tid, uint32_t opid, uint32_t otid, const char *comm);

/* rec_maps.c: the mapping containing ip, or NULL; inserting a mapping
 * (cutting away what it overlaps); copying a parent's table at fork;
 * freeing a process, forgetting its mappings, releasing a file. */
const struct rec_range *spi_rec_find_range(const struct rec_proc *p,
    uint64_t ip);
int spi_rec_insert_range(struct rec_ctx *r, struct rec_proc *p,
    const struct rec_range *nr);
int spi_rec_clone_maps(struct rec_ctx *r, struct rec_proc *child,
    const struct rec_proc *parent);

void spi_rec_proc_free(struct rec_ctx *r, struct rec_proc *p);
/* Forgets every mapping of p (exec), releasing their files. */
void spi_rec_drop_maps(struct rec_ctx *r, struct rec_proc *p);

/* rec_module.c: a mapping becomes a MODULE and a range; a /proc/PID/maps
 * rescan adds each executable mapping. */
struct sp_map;
int spi_rec_add_mapping(struct rec_ctx *r, struct rec_proc *p,
    const struct sp_map *m);
int spi_rec_scan_maps(struct rec_ctx *r, struct rec_proc *p);
/* spi_rec_scan_maps in two steps: /proc/PID/maps read into *buf (to
 * free; after the pid-reuse check), then its executable mappings added
 * (buf is changed and freed), which may be later, the process gone. */
int spi_rec_read_maps(struct rec_ctx *r, struct rec_proc *p, char **buf,
    size_t *len);
int spi_rec_add_maps(struct rec_ctx *r, struct rec_proc *p, char *buf,
    size_t len);
/* Keeps the file of range m of pid in the bundle, once: called for the
 * first frame a sample has in it, so only binaries samples touch are
 * kept. */
void spi_rec_keep_binary(struct rec_ctx *r, uint32_t pid,
    const struct rec_range *m);
/* The CFI of range m, the file's read now if not yet; NULL: none. */
const struct sp_cfi_table *spi_rec_range_cfi(struct rec_ctx *r,
    const struct rec_range *m);
/* The ELF file of range m ([vdso]'s too), to read code from; NULL: none. */
const struct sp_elf_file *spi_rec_range_elf(const struct rec_range *m);

/* rec_keep.c: whether e (opened, or NULL) has f's build-id; frees e. */
int spi_rec_same_build(struct sp_elf_file *e, const struct rec_file *f);
/* Whether this host's path leads to another file than f (or
 * none), so sp-sym would not find f by it: 1 or 0 (0 also for a file
 * without a build-id, which nothing could match). */
int spi_rec_unreachable(const char *path, const struct rec_file *f);
/* Keeps the file open on fd, f's binary or (debug) its debug file, in
 * the bundle it belongs in: every file with a bundle that keeps
 * binaries, else an unreachable one within the budget (counted).  0,
 * also when it is not to be kept, or -errno. */
int spi_rec_keep(struct rec_ctx *r, const struct rec_file *f, int fd,
    const char *origin, int debug);
/* Writes the manifest of the bundle beside the spool, if one was made:
 * 0 or -errno.  _fini frees it. */
int spi_rec_keep_finish(struct rec_ctx *r);
void spi_rec_keep_fini(struct rec_ctx *r);

/* rec_reuse.c: the start time of pid, or of its thread tid when not 0
 * (proc(5): /proc/PID[/task/TID]/stat field 22, clock ticks since boot)
 * in *t; -errno (-ENOENT: gone) or -SP_EFORMAT. */
int spi_rec_start_time(uint32_t pid, uint32_t tid, uint64_t *t);
/* Compares p's start time with /proc's: a different one is a new process
 * that took a pid whose exit was lost.  Its old mappings are dropped and
 * an EXEC record written.  Sets *reused; 0 or a negative error. */
int spi_rec_check_reuse(struct rec_ctx *r, struct rec_proc *p, int *reused);
/* spi_rec_check_reuse for every followed process of procs (pid -> struct
 * rec_proc), after a loss. */
int spi_rec_sweep_reused(struct rec_ctx *r, const struct sp_imap *procs);
/* The pids of the processes of procs (pid -> struct rec_proc) that keep
 * says to keep, into *out (to free) and *n.  0 or -ENOMEM. */
int spi_rec_pids(const struct sp_imap *procs, int (*keep)(const struct rec_proc *),
    uint32_t **out, size_t *n);

#endif
