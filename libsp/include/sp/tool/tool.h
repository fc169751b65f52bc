/* SPDX-License-Identifier: MIT */
#ifndef SP_TOOL_H
#define SP_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sp/record/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Helpers for the tools' main() alone.  Unlike the rest of libsp these
 * print and exit, as a command-line tool does; nothing else in the
 * library calls them.
 */

/* Prints sp_version_text() for tool on standard output and exits 0 (1 if
 * standard output cannot be written). */
void spi_tool_version(const char *tool);

/*
 * Reports the option getopt_long() refused and exits 2.  ch is what
 * getopt_long() returned ('?' for an unknown option, ':' for a missing
 * value: the option string must start with ':', after any '+'), with
 * opterr set to 0.  Prints one line, for example
 *   sp-dump: unknown option '--foo' (see sp-dump --help)
 *   sp-dump: option '-o' needs a value (see sp-dump --help)
 */
void spi_tool_bad_option(const char *tool, int ch, char **argv);

/*
 * The value s of an option that takes a whole number from lo to hi.
 * what names the option and what it counts ("-s stack bytes"); anything
 * else (no digits, trailing text, out of range) prints one line
 *   sp-record: -s stack bytes must be a number from 8 to 65528, not 'x'
 * and exits 2 (OpenBSD's strtonum(3), with the flag named).
 */
long long spi_tool_int(const char *what, const char *s, long long lo,
    long long hi);

/*
 * As spi_tool_int for a decimal number (fractions too) from lo (above lo
 * when lo_open) to hi:
 *   sp-record: -d seconds must be a number above 0 and at most 31536000
 *   (fractions too: 0.5), not 'x'
 */
double spi_tool_real(const char *what, const char *s, double lo, int lo_open,
    double hi);

/*
 * Adds the comma-separated pids of list (what names the option, "-p")
 * to pids[*n], at most max in all; a pid given twice is one.  A bad pid
 * is refused as by spi_tool_int; more than max prints "at most MAX
 * processes" and exits 2.
 */
void spi_tool_pids(const char *what, const char *list, uint32_t *pids,
    size_t max, size_t *n);

/*
 * Refuses the input path when it is "-" (standard input) and standard
 * input is a terminal, where a tool would wait for bytes nobody types:
 *   sp-fold: no spool given and standard input is a terminal; usage:
 *   sp-fold [OPTIONS] FILE
 * (what: "spool" or "input"), exiting 2.  Returns otherwise.
 */
void spi_tool_input(const char *path, const char *what, const char *usage);

/*
 * Says that names stay mangled, and why (why: the demangler's message,
 * sp/report/demangle.h), in one line that names the way out:
 *   sp-fold: names are not demangled: c++filt not found (install
 *   binutils); --no-demangle silences this
 * Returns (a tool goes on with the names as they are).
 */
void spi_tool_demangle_failed(const char *why);

/* s[0..len) to out as a JSON string, quoted: the one writer every JSON
 * output uses (valid UTF-8 as it is, other bytes as U+FFFD). */
void spi_tool_json_str(FILE *out, const char *s, size_t len);

/*
 * The cache of inflated DWARF for sp-sym and sp-report
 * (sp_sym_options.cache_dir): arg (--cache-dir) when not NULL, else
 * STACKPULSE_CACHE_DIR, else $XDG_CACHE_HOME/stackpulse, else
 * $HOME/.cache/stackpulse, written into buf; NULL for none (off, an
 * empty STACKPULSE_CACHE_DIR, no home, a path too long).
 */
const char *spi_tool_cache_dir(const char *arg, int off, char *buf,
    size_t cap);

/* Seconds of CLOCK_MONOTONIC, for a tool's timing and status lines. */
double spi_tool_now(void);

/* A library warning (sp_recorder_opts.log) as one line on standard
 * error, after the tool's name; ctx is unused. */
void spi_tool_warn(void *ctx, const char *msg);

struct sp_diag;
struct sp_replay;

/* Whose file a failed run is charged to (spi_tool_fail). */
enum sp_tool_side {
	SP_TOOL_INPUT,
	SP_TOOL_OUTPUT,
};

/*
 * Reports a run that failed with err (a negative libsp error or -errno)
 * and exits 1, in one line that charges the right party:
 *   sp-fold: out of memory                  (-ENOMEM: no file's fault)
 *   sp-sym: x.spl: offset 0x1f3: bad record (the input, diag given)
 *   sp-sym: x.spl: Input/output error       (the input, diag NULL)
 *   sp-merge: output y.spl: No space left on device   (the output)
 * name is the input's path or the output's name (sp_output_file.name);
 * diag, for the input only, says where and why.  The caller first
 * discards its output (sp_output_discard, sp_output_abandon), so that a
 * failed run leaves none.
 */
__attribute__((noreturn)) void spi_tool_fail(int err, enum sp_tool_side side,
    const char *name, const struct sp_diag *diag);


/*
 * Opens the spool path ("-": standard input) with sp_replay_open, or
 * exits 1 with one line that charges the right party:
 *   sp-fold: x.spl: offset 0x0: not a spool (bad magic)
 *   sp-fold: x.spl: No such file or directory
 *   sp-fold: out of memory                  (not the file's fault)
 */
struct sp_replay *spi_tool_replay(const char *path);

/* ---- The recording options sp-record and sp-top share (tool_rec.c) ---- */

#define SP_TOOL_MAX_PIDS 256
#define SP_TOOL_MAX_SECONDS (86400L * 365)

/* What the recording options say, the recorder's own and the targets. */
/* The most CPUs -C lists. */
#define SP_TOOL_MAX_CPUS 4096

struct sp_tool_rec_opts {
	struct sp_recorder_opts ro;   /* -F, -s, -m, -k; children at the end */
	uint32_t pids[SP_TOOL_MAX_PIDS]; /* -p, each once */
	size_t npids;
	double duration;              /* -d seconds, 0: until the targets end */
	int system;                   /* -a: every process */
	int children;                 /* --children 1, --no-children 0, -1
	                               * not said */
	char **cmd;                   /* the command after the options, or NULL */
};

/* Before the options: nothing said (t zeroed, children -1). */
void spi_tool_rec_init(struct sp_tool_rec_opts *t);

/* getopt_long()'s values for --children and --no-children, long-only:
 * -c is perf's period. */
#define SP_TOOL_OPT_CHILDREN 2001
#define SP_TOOL_OPT_NO_CHILDREN 2002

/*
 * One option as getopt_long() returned it, if it is a shared one: 'F'
 * (-F HZ or max), 's' (-s, a multiple of 8), 'm', 'k', 'e' (-e EVENT,
 * "list": the events, printed, exit 0), 'c' (-c PERIOD; an old -c for
 * --children, not a number, is told so), SP_TOOL_OPT_CHILDREN,
 * SP_TOOL_OPT_NO_CHILDREN, 'd', 'p', 'a'; arg is optarg.  Returns 1 when it set
 * t, 0 for any other ch (the tool's own).  A bad value prints one line
 * naming the option and exits 2 (as spi_tool_int).
 */
int spi_tool_rec_option(struct sp_tool_rec_opts *t, int ch, const char *arg);

/*
 * -t TID,... (perf's -t): adds the threads to t->ro.tids, stored in tids
 * (the caller's, SP_TOOL_MAX_PIDS of them, kept while t is), and each
 * one's process to t->pids, attached as with -p.  A thread that is not
 * there (no /proc/TID/status) prints one line naming it and exits 1;
 * a bad number or too many as spi_tool_pids.
 */
void spi_tool_rec_tids(struct sp_tool_rec_opts *t, uint32_t *tids,
    const char *arg);

/*
 * After the options: the command (argv from optind, if anything is
 * left), and children as perf record has it: a command's are followed
 * (a shell script, make), an attached process's when asked for.
 */
void spi_tool_rec_args(struct sp_tool_rec_opts *t, int argc, char **argv);

struct sp_header;

/*
 * Fills h with the host's facts; exits 1 when they cannot be read.  The
 * sampling interval is the recorder's to set (sp_recorder_new, before
 * the writer's first flush).
 */
void spi_tool_rec_header(struct sp_header *h);

struct sp_writer;

/*
 * sp_recorder_new(w, &t->ro, r) before the writer's first flush (the
 * recorder sets the header's interval); exits 2 for a bad option (the
 * frequency's said as -F), 1 for another failure.
 */
void spi_tool_rec_new(struct sp_writer *w, struct sp_tool_rec_opts *t,
    struct sp_recorder **r);

/*
 * Prints sp_recorder_advice(r) on standard error: warnings as the tool's
 * warnx lines, notes (with notes set) as summary lines indented by two
 * spaces.  tool and delay_ms as in struct sp_advice_opts.
 */
void spi_tool_advice(struct sp_recorder *r, const char *tool,
    unsigned long long delay_ms, int notes);

#ifdef __cplusplus
}
#endif

#endif
