/* SPDX-License-Identifier: MIT */
/* sp-sym: name a spool's frames offline and write a symbolized spool. */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp/common/bundle.h"
#include "sp/common/output.h"
#include "sp/spool/replay.h"
#include "sp/sym/sym.h"
#include "sp/tool/tool.h"

#define MAX_PIDS 256

struct opts {
	struct sp_sym_options so;
	struct sp_debuginfod dbgd;
	const char *dbgd_urls;   /* --debuginfod, or NULL */
	int no_dbgd;             /* --no-debuginfod */
	const char *in, *out;
	char beside[4096];       /* IN.bundle, used without --bundle */
	const char *dirs[SP_DEBUG_DIRS_MAX];
	size_t ndirs;
	uint32_t pids[MAX_PIDS];
	int quiet, strict;
	int maps_said;    /* --perf-maps or --perf-maps-for given */
	const char *cache_arg;   /* --cache-dir, or NULL */
	int no_cache;            /* --no-cache */
	char cache[4096];
};

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-sym [-o FILE] [--debug-dir DIR]... [--sysroot DIR]\n"
	    "              [--bundle DIR] [--perf-map-dir DIR]\n"
	    "              [--perf-maps-for PID,... | --perf-maps all|none]\n"
	    "              [--kallsyms FILE] [--debuginfod URLS | --no-debuginfod]\n"
	    "              [--cache-dir DIR | --no-cache] [--strict] [-q] [FILE | -]\n"
	    "Name the frames of a spool (ELF symbols, DWARF lines and inline\n"
	    "frames, perf maps, kallsyms) and write a symbolized spool.\n"
	    "  -o, --output FILE     where to write it (default: standard output)\n"
	    "      --debug-dir DIR   look for DIR/.build-id/xx/rest.debug (may\n"
	    "                        repeat; then STACKPULSE_DEBUG_DIRS, or\n"
	    "                        /usr/lib/debug)\n"
	    "  -r, --sysroot DIR     the recorded machine's files are under DIR\n"
	    "  -b, --bundle DIR      use the bundle sp-record --bundle kept first\n"
	    "                        (default: FILE.bundle, if sp-record made it)\n"
	    "      --perf-map-dir DIR  perf-PID.map files are in DIR (default /tmp)\n"
	    "  -p, --perf-maps-for PID,...  read only these processes' perf maps\n"
	    "                        (and Python runtimes')\n"
	    "  -P, --perf-maps all|none  read every recorded process's perf map\n"
	    "                        (the default: the bundle's, or one its user\n"
	    "                        owns, not modified after the recording), or\n"
	    "                        none\n"
	    "      --kallsyms FILE   kernel symbols of the recorded boot\n"
	    "      --no-kallsyms     name no kernel frames (they keep addresses)\n"
	    "      --debuginfod URLS  ask these debuginfod servers (space-\n"
	    "                        separated; default: DEBUGINFOD_URLS) for\n"
	    "                        debug files nothing here has; cached where\n"
	    "                        elfutils' client caches them\n"
	    "      --no-debuginfod   ask none, whatever DEBUGINFOD_URLS says\n"
	    "      --cache-dir DIR   keep compressed debug files' DWARF inflated\n"
	    "                        there for the next run (default:\n"
	    "                        STACKPULSE_CACHE_DIR, or\n"
	    "                        ~/.cache/stackpulse)\n"
	    "      --no-cache        use no such cache\n"
	    "      --strict          exit 1 when a frame stayed address-only\n"
	    "  -q, --quiet           no report\n"
	    "  -h, --help            this text\n"
	    "      --version         version, spool format and build-id\n"
	    "FILE - (the default) reads standard input.\n");
	exit(status);
}

/* --debuginfod, else DEBUGINFOD_URLS (as elfutils' tools and perf), and
 * DEBUGINFOD_TIMEOUT; --no-debuginfod: none. */
static void
debuginfod(struct opts *o)
{
	/* The caller's environment, read once at startup. */
	/* NOLINTBEGIN(concurrency-mt-unsafe) */
	const char *urls = o->dbgd_urls != NULL ? o->dbgd_urls :
	    getenv("DEBUGINFOD_URLS");
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	/* NOLINTEND(concurrency-mt-unsafe) */

	if (o->no_dbgd || urls == NULL || urls[strspn(urls, " ")] == '\0')
		return;
	o->dbgd.urls = urls;
	if (t != NULL && t[0] != '\0')
		o->dbgd.timeout_s = (int)spi_tool_int("DEBUGINFOD_TIMEOUT seconds",
		    t, 1, 3600);
	o->so.debuginfod = &o->dbgd;
}

static const struct option longopts[] = {
	{ "bundle", required_argument, NULL, 'b' },
	{ "cache-dir", required_argument, NULL, 1000 + 'C' },
	{ "debug-dir", required_argument, NULL, 'd' },
	{ "debuginfod", required_argument, NULL, 1000 + 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ "kallsyms", required_argument, NULL, 'k' },
	{ "no-kallsyms", no_argument, NULL, 1000 + 'K' },
	{ "no-cache", no_argument, NULL, 1000 + 'c' },
	{ "no-debuginfod", no_argument, NULL, 1000 + 'N' },
	{ "output", required_argument, NULL, 'o' },
	{ "perf-map-dir", required_argument, NULL, 'm' },
	{ "perf-maps", required_argument, NULL, 'P' },
	{ "perf-maps-for", required_argument, NULL, 'p' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "strict", no_argument, NULL, 's' },
	{ "sysroot", required_argument, NULL, 'r' },
	{ "version", no_argument, NULL, 1000 + 'V' },
	{ NULL, 0, NULL, 0 },
};

/* --perf-maps all|none. */
static void
perf_maps(struct opts *o, const char *arg)
{
	if (strcmp(arg, "all") != 0 && strcmp(arg, "none") != 0)
		errx(2, "--perf-maps takes 'all' or 'none', not '%s'", arg);
	o->so.perf_maps_all = arg[0] == 'a';
	o->so.perf_maps_none = arg[0] == 'n';
	o->maps_said = 1;
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	int ch;

	o->out = "-";
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":b:ho:P:p:qr:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'b':
			o->so.bundle = optarg;
			break;
		case 'd':
			if (o->ndirs == SP_DEBUG_DIRS_MAX)
				errx(2, "at most %d debug directories",
				    SP_DEBUG_DIRS_MAX);
			o->dirs[o->ndirs++] = optarg;
			break;
		case 'h':
			usage(0);
			break;
		case 'k':
			o->so.kallsyms = optarg;
			break;
		case 1000 + 'K':
			o->so.kernel_none = 1;
			break;
		case 'm':
			o->so.perf_map_dir = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'P':
			perf_maps(o, optarg);
			break;
		case 'p':
			spi_tool_pids("--perf-maps-for", optarg, o->pids,
			    MAX_PIDS, &o->so.nperf_map_pids);
			o->maps_said = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'r':
			o->so.sysroot = optarg;
			break;
		case 's':
			o->strict = 1;
			break;
		case 1000 + 'V':
			spi_tool_version("sp-sym");
			break;
		case 1000 + 'D':
			o->dbgd_urls = optarg;
			break;
		case 1000 + 'N':
			o->no_dbgd = 1;
			break;
		case 1000 + 'C':
			o->cache_arg = optarg;
			break;
		case 1000 + 'c':
			o->no_cache = 1;
			break;
		default:
			spi_tool_bad_option("sp-sym", ch, argv);
		}
	}
	if (argc - optind > 1)
		usage(2);
	o->in = optind < argc ? argv[optind] : "-";
	o->so.perf_map_pids = o->pids;
	/* Every recorded process's map, as perf report reads them. */
	if (!o->maps_said)
		o->so.perf_maps_all = 1;
	debuginfod(o);
	o->so.cache_dir = spi_tool_cache_dir(o->cache_arg, o->no_cache,
	    o->cache, sizeof(o->cache));
}

/*
 * A spool read from a file was written up to its modification time: a
 * perf map modified after it (a few seconds' grace for the last flush)
 * is another process's that got the pid since.  A pipe gives no bound.
 */
static void
perf_map_bound(struct opts *o)
{
	struct stat st;
	int got = strcmp(o->in, "-") == 0 ? fstat(STDIN_FILENO, &st) :
	    stat(o->in, &st);

	if (got == 0 && S_ISREG(st.st_mode))
		o->so.perf_map_before = (int64_t)st.st_mtime + 5;
}

/*
 * Without --bundle, the one sp-record made beside the spool (FILE.bundle)
 * when it kept files no path on its host led to (a container's).
 */
static void
bundle_beside(struct opts *o)
{
	struct stat st;

	if (o->so.bundle == NULL && sp_bundle_beside(o->in, o->beside,
	    sizeof(o->beside)) == 0 && stat(o->beside, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		o->so.bundle = o->beside;
}

/* --debug-dir dirs, then STACKPULSE_DEBUG_DIRS (default /usr/lib/debug). */
static void
debug_dirs(struct opts *o, struct sp_debug_dirs *env)
{
	size_t i;

	if (sp_debug_dirs_from_env(env) < 0)
		errx(2, "%s: more than %d directories, or out of memory",
		    SP_DEBUG_DIRS_ENV, SP_DEBUG_DIRS_MAX);
	for (i = 0; i < env->n && o->ndirs < SP_DEBUG_DIRS_MAX; i++)
		o->dirs[o->ndirs++] = env->dirs[i];
	o->so.debug_dirs = o->dirs;
	o->so.ndebug_dirs = o->ndirs;
}

static void
progress(void *arg, uint64_t bytes, uint64_t frames)
{
	(void)arg;
	(void)fprintf(stderr, "\rsp-sym: %" PRIu64 " MB read, %" PRIu64
	    " frames   ", bytes >> 20, frames);
}

/* A module that kept address-only frames: how many, why, where it looked. */
static void
print_missing(const struct opts *o, const struct sp_sym_missing *m)
{
	if (m->no_symbols)
		(void)fprintf(stderr, "sp-sym: %s (build-id %s): %s, %" PRIu64
		    " frames address-only; looked at: %s\n", m->path,
		    m->build_id[0] ? m->build_id : "none", m->why, m->frames,
		    m->tried);
	else if (m->tried[0] != '\0')
		(void)fprintf(stderr, "sp-sym: %s (build-id %s): %" PRIu64
		    " of %" PRIu64 " frames address-only: %s; looked at: %s\n",
		    m->path, m->build_id[0] ? m->build_id : "none", m->frames,
		    m->frames + m->named, m->why, m->tried);
	else
		(void)fprintf(stderr, "sp-sym: %s: %" PRIu64 " frames "
		    "address-only: %s\n", m->path, m->frames, m->why);
	if (m->want_debug && m->build_id[0] != '\0')
		(void)fprintf(stderr, "sp-sym:   hint: put its debug "
		    "file at DIR/.build-id/%.2s/%s.debug (--debug-dir "
		    "DIR), the binary at BUNDLE/binaries/%s (record "
		    "with --bundle-binaries), or pass --sysroot%s\n",
		    m->build_id, m->build_id + 2, m->build_id,
		    o->so.debuginfod == NULL ? ", or ask a debuginfod server "
		    "(--debuginfod URL)" : "");
}

static void
print_report(const struct opts *o, const struct sp_sym_report *r)
{
	size_t i;

	(void)fprintf(stderr, "sp-sym: %" PRIu64 " frames: %" PRIu64 " elf, %"
	    PRIu64 " perf-map, %" PRIu64 " kernel, %" PRIu64 " address-only "
	    "(%" PRIu64 " of them truncated-stack markers); %" PRIu64
	    " copied from the input\n", r->frames, r->by_origin[SP_ORIGIN_ELF],
	    r->by_origin[SP_ORIGIN_PERF_MAP], r->by_origin[SP_ORIGIN_KERNEL],
	    r->by_origin[SP_ORIGIN_ADDRESS], r->truncated, r->copied);
	(void)fprintf(stderr, "sp-sym: %" PRIu64 " inlined frames, %" PRIu64
	    " Python frames, %" PRIu64 " JIT frames, %" PRIu64
	    " hidden interpreter frames\n", r->inline_lines, r->python_frames,
	    r->jit_frames, r->hidden);
	if (r->kernel[0] != '\0')
		(void)fprintf(stderr, "sp-sym: kernel symbols: %s\n", r->kernel);
	for (i = 0; i < r->nfetches; i++)
		(void)fprintf(stderr, "sp-sym: debuginfod: %s (build-id %s): "
		    "%s\n", r->fetches[i].path, r->fetches[i].build_id,
		    r->fetches[i].said);
	if (r->debuginfod_files)
		(void)fprintf(stderr, "sp-sym: %" PRIu64 " debug files from "
		    "debuginfod: %.1f KiB fetched now, the rest from its "
		    "cache\n", r->debuginfod_files,
		    (double)r->debuginfod_bytes / 1024);
	if (r->mismatches)
		(void)fprintf(stderr, "sp-sym: %" PRIu64 " files had another "
		    "build-id than the recorded one and were not used\n",
		    r->mismatches);
	if (r->perf_maps || r->perf_maps_late)
		(void)fprintf(stderr, "sp-sym: %" PRIu64 " perf maps read%s; %"
		    PRIu64 " refused, modified after the recording (another "
		    "process with the pid?)\n", r->perf_maps,
		    o->so.bundle != NULL ? " (the bundle's first)" : "",
		    r->perf_maps_late);
	for (i = 0; i < r->nmissing; i++)
		print_missing(o, &r->missing[i]);
	if (r->copied_address)
		(void)fprintf(stderr, "sp-sym: %" PRIu64 " address-only "
		    "symbols were copied from the input, not looked up again "
		    "(run sp-sym on the spool sp-record wrote)\n",
		    r->copied_address);
	for (i = 0; i < r->ndamaged; i++)
		(void)fprintf(stderr, "sp-sym: %s: skipped %s\n",
		    r->damaged[i].path, r->damaged[i].what);
	if (r->dwarf_errors)
		(void)fprintf(stderr, "sp-sym: %" PRIu64 " frames: malformed "
		    "DWARF, named without it\n", r->dwarf_errors);
	if (r->stale_symbols)
		(void)fprintf(stderr, "sp-sym: %" PRIu64 " input symbols not "
		    "next to their frame were replaced\n", r->stale_symbols);
	if (r->input_truncated)
		warnx("%s: truncated: symbolized the intact prefix", o->in);
}

/*
 * --strict failed: the count and the modules it came from, also with -q
 * (it is why sp-sym exits 1).
 */
static void
strict_failed(const struct sp_sym_report *r)
{
	size_t i;

	(void)fprintf(stderr, "sp-sym: --strict: %" PRIu64 " frames stayed "
	    "address-only", r->by_origin[SP_ORIGIN_ADDRESS] - r->truncated);
	for (i = 0; i < r->nmissing; i++)
		(void)fprintf(stderr, "%s %s (%" PRIu64 ")", i ? "," : ":",
		    r->missing[i].path, r->missing[i].frames);
	if (r->copied_address)
		(void)fprintf(stderr, "%s %" PRIu64 " copied from the input",
		    r->nmissing ? "," : ":", r->copied_address);
	(void)fputc('\n', stderr);
}

int
main(int argc, char **argv)
{
	static struct opts o;
	struct sp_debug_dirs env;
	struct sp_sym_report rep;
	struct sp_replay *in;
	struct sp_output_file out;
	struct sp_diag diag;
	int fd, rc;

	o.so.sz = sizeof(o.so);
	parse_args(argc, argv, &o);
	debug_dirs(&o, &env);
	spi_tool_input(o.in, "spool", "sp-sym [-o FILE] FILE");
	/* The input first: one that is not a spool leaves no output. */
	in = spi_tool_replay(o.in);
	perf_map_bound(&o);
	bundle_beside(&o);
	memset(&diag, 0, sizeof(diag));
	if ((rc = sp_output_spool(&out, o.out, &fd, &diag)) < 0)
		errx(rc == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	if (!o.quiet && isatty(STDERR_FILENO))
		o.so.progress = progress;
	rc = sp_sym_spool(&o.so, in, fd, &rep, &diag);
	if (o.so.progress != NULL)
		(void)fputs("\r\033[K", stderr);
	if (rc < 0) {	/* a half-written output goes */
		sp_output_abandon(&out, fd);
		if (rep.input_failed)
			spi_tool_fail(rc, SP_TOOL_INPUT, o.in, &diag);
		spi_tool_fail(rc, SP_TOOL_OUTPUT, out.name, NULL);
	}
	if (sp_output_finish(&out, fd, &diag) < 0)
		errx(1, "%s", diag.msg);
	if (!o.quiet)
		print_report(&o, &rep);
	rc = o.strict && rep.by_origin[SP_ORIGIN_ADDRESS] > rep.truncated;
	if (rc)
		strict_failed(&rep);
	sp_sym_report_fini(&rep);
	sp_replay_free(in);
	sp_debug_dirs_fini(&env);
	return rc;
}
