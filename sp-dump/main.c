/* SPDX-License-Identifier: MIT */
/* sp-dump: show, check and count the records of a spool. */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/common/output.h"
#include "sp/report/demangle.h"
#include "sp/spool/format.h"
#include "sp/spool/replay.h"
#include "sp/tool/tool.h"

#define MAX_DEPTH 4096

enum mode { MODE_TEXT, MODE_CHECK, MODE_STATS };

struct dump {
	const char *path, *out;
	struct sp_output_file of;
	enum mode mode;
	int json;
	int verbose;
	int no_demangle;
	struct sp_demangle *dm;  /* NULL: names as the spool has them */
	struct sp_replay *r;
	uint64_t count[256], bytes[256];
	uint32_t frames[MAX_DEPTH];
};

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-dump [--check | --stats] [--json] [-v] [--no-demangle]\n"
	    "               [-o FILE] [FILE | -]\n"
	    "Show a spool's header, modules, threads, process events, samples\n"
	    "with their stacks and summary counters.\n"
	    "      --check   validate only; the exit status says (not with\n"
	    "                --stats)\n"
	    "      --stats   record counts and bytes per kind, bytes per sample,\n"
	    "                summary counters\n"
	    "  -j, --json    JSON Lines, one object per record (with --stats:\n"
	    "                one object)\n"
	    "  -v, --verbose also show strings, frames and stack nodes\n"
	    "      --no-demangle\n"
	    "                C++ and Rust names as the spool has them (mangled;\n"
	    "                by default they are demangled)\n"
	    "  -o, --output FILE\n"
	    "                where to write (default: standard output)\n"
	    "  -h, --help    this text\n"
	    "      --version version, spool format and build-id\n"
	    "FILE - (the default when standard input is not a terminal) reads\n"
	    "standard input.\n");
	exit(status);
}

/* Writes s[0..len) as a JSON string (common/json_int.h: valid UTF-8 as
 * it is, other bytes as U+FFFD). */
static void
json_str(const char *s, size_t len)
{
	spi_tool_json_str(stdout, s, len);
}

static void
json_sp_str(const struct sp_str *s)
{
	if (s == NULL)
		(void)fputs("null", stdout);
	else
		json_str(s->s, s->len);
}

/* A string for text output: printable, with others as \xNN. */
static void
text_str(const struct sp_str *s)
{
	uint32_t i;

	if (s == NULL) {
		(void)fputs("?", stdout);
		return;
	}
	for (i = 0; i < s->len; i++) {
		unsigned char c = (unsigned char)s->s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			(void)printf("\\x%02x", c);
		else
			(void)putchar(c);
	}
}

/*
 * Sends the names of frames[0..n) and their inlined callees (all: sym
 * set, a SYMBOL's lines) that are new to the demangler, one exchange
 * for them all; says once when it cannot.
 */
static void
demangle(const struct dump *d, const uint32_t *frames, size_t n,
    const struct sp_symbol *sym)
{
	const struct sp_defs *defs = sp_replay_defs(d->r);
	const struct sp_str *fn;
	struct sp_diag diag;
	size_t i;
	uint32_t k;

	for (i = 0; d->dm != NULL && i < (sym != NULL ? 1 : n); i++) {
		const struct sp_symbol *s = sym != NULL ? sym :
		    sp_defs_symbol(defs, frames[i]);

		for (k = 0; s != NULL && k < s->count; k++)
			if ((fn = sp_defs_string(defs, s->lines[k].function)) !=
			    NULL && (sym != NULL || k == s->count - 1) &&
			    sp_demangle_add(d->dm, fn->s, fn->len) < 0)
				errx(1, "out of memory");
	}
	if (d->dm != NULL && sp_demangle_run(d->dm, 0, &diag) < 0)
		spi_tool_demangle_failed(diag.msg);
}

/* s, or its demangled text in *tmp. */
static const struct sp_str *
shown(const struct dump *d, const struct sp_str *s, struct sp_str *tmp)
{
	size_t len;

	if (s == NULL || (tmp->s = sp_demangle_get(d->dm, s->s, s->len,
	    &len)) == NULL || len > UINT32_MAX)
		return s;
	tmp->len = (uint32_t)len;
	return tmp;
}

/* The name of frame id as sp_format_frame gives it (into buf), or its
 * function's demangled text; *len its length. */
static const char *
frame_name(const struct dump *d, uint32_t id, char *buf, size_t cap,
    size_t *len)
{
	const struct sp_defs *defs = sp_replay_defs(d->r);
	const struct sp_symbol *sym = sp_defs_symbol(defs, id);
	const struct sp_str *fn, *s;
	struct sp_str tmp;

	if (sym != NULL && (fn = sp_defs_string(defs,
	    sym->lines[sym->count - 1].function)) != NULL && fn->len > 0 &&
	    (s = shown(d, fn, &tmp)) == &tmp) {
		*len = s->len;
		return s->s;
	}
	*len = sp_format_frame(defs, id, buf, cap);
	if (*len >= cap)
		*len = cap - 1;
	return buf;
}

static double
rel_seconds(const struct dump *d, uint64_t t)
{
	uint64_t base = sp_replay_header(d->r)->start_mono_ns;

	return t >= base ? (double)(t - base) / 1e9 :
	    -(double)(base - t) / 1e9;
}

static void
print_header(const struct dump *d)
{
	const struct sp_header *h = sp_replay_header(d->r);
	int i;

	if (d->json) {
		(void)printf("{\"kind\":\"header\",\"version\":%u,"
		    "\"header_len\":%u,\"start_time_us\":%" PRIu64 ","
		    "\"start_mono_ns\":%" PRIu64 ",\"sample_interval_us\":%u,"
		    "\"page_size\":%u,\"hostname\":", h->version,
		    h->header_len, h->start_time_us, h->start_mono_ns,
		    h->sample_interval_us, h->page_size);
		json_str(h->hostname, strlen(h->hostname));
		(void)fputs(",\"release\":", stdout);
		json_str(h->release, strlen(h->release));
		(void)fputs(",\"machine\":", stdout);
		json_str(h->machine, strlen(h->machine));
		(void)fputs(",\"boot_id\":\"", stdout);
		for (i = 0; i < 16; i++)
			(void)printf("%02x", h->boot_id[i]);
		(void)fputs("\"}\n", stdout);
		return;
	}
	(void)printf("spool %s: version %u, host %s, kernel %s, %s, "
	    "page size %u\n", d->path, h->version, h->hostname, h->release,
	    h->machine, h->page_size);
	(void)printf("start %" PRIu64 ".%06" PRIu64 " (unix time), "
	    "sample interval %u us\n", h->start_time_us / 1000000,
	    h->start_time_us % 1000000, h->sample_interval_us);
}

static void
print_module(const struct dump *d, const struct sp_record *r)
{
	const struct sp_module *m = &r->u.module;
	const struct sp_str *path = sp_defs_string(sp_replay_defs(d->r),
	    m->path);
	unsigned i;

	if (d->json) {
		(void)printf("{\"kind\":\"module\",\"id\":%u,\"host\":%u,"
		    "\"pid\":%u,\"flags\":%u,\"start\":%" PRIu64 ",\"size\":%"
		    PRIu64 ",\"file_offset\":%" PRIu64 ",\"inode\":%" PRIu64
		    ",\"dev\":%" PRIu64 ",\"build_id\":\"", r->id, m->host,
		    m->pid, m->flags, m->start, m->size, m->file_offset,
		    m->inode, m->dev);
	} else {
		(void)printf("module %u: pid %u [0x%" PRIx64 "-0x%" PRIx64
		    ") off 0x%" PRIx64 " flags 0x%x build-id ", r->id, m->pid,
		    m->start, m->start + m->size, m->file_offset, m->flags);
	}
	for (i = 0; i < m->build_id_len; i++)
		(void)printf("%02x", m->build_id[i]);
	if (d->json) {
		(void)fputs("\",\"path\":", stdout);
		json_sp_str(path);
		if (m->uid_plus1 != 0)
			(void)printf(",\"uid\":%u", m->uid_plus1 - 1);
		(void)fputs("}\n", stdout);
	} else {
		(void)fputs(m->build_id_len ? " " : "- ", stdout);
		text_str(path);
		(void)putchar('\n');
	}
}

static void
print_thread(const struct dump *d, const struct sp_record *r)
{
	const struct sp_thread *t = &r->u.thread;
	const struct sp_str *comm = sp_defs_string(sp_replay_defs(d->r),
	    t->comm);

	if (d->json) {
		(void)printf("{\"kind\":\"thread\",\"id\":%u,\"host\":%u,"
		    "\"pid\":%u,\"tid\":%u,\"comm\":", r->id, t->host, t->pid,
		    t->tid);
		json_sp_str(comm);
		(void)fputs("}\n", stdout);
		return;
	}
	(void)printf("thread %u: pid %u tid %u comm ", r->id, t->pid, t->tid);
	text_str(comm);
	(void)putchar('\n');
}

static void
print_sample(struct dump *d, const struct sp_record *r)
{
	const struct sp_defs *defs = sp_replay_defs(d->r);
	const struct sp_sample *s = &r->u.sample;
	const struct sp_thread *t = sp_defs_thread(defs, s->thread);
	size_t depth = 0, i, n, len;
	const char *name;
	char buf[512];

	/* Deeper stacks show their leaf-side MAX_DEPTH frames. */
	(void)sp_defs_stack(defs, s->stack, d->frames, MAX_DEPTH, &depth);
	n = depth;
	if (n > MAX_DEPTH)
		n = MAX_DEPTH;
	demangle(d, d->frames, n, NULL);
	if (d->json) {
		(void)printf("{\"kind\":\"sample\",\"thread\":%u,\"pid\":%u,"
		    "\"tid\":%u,\"time\":%" PRIu64 ",\"cpu\":%u,\"stack\":%u,",
		    s->thread, t->pid, t->tid, s->time, s->cpu, s->stack);
		if (s->kind == SP_SAMPLE_OFF_CPU)
			(void)printf("\"off_cpu_ns\":%" PRIu64 ",", s->weight);
		else if (s->kind == SP_SAMPLE_PREEMPTED)
			(void)printf("\"preempted_ns\":%" PRIu64 ",",
			    s->weight);
		else if (s->weight > 1)
			(void)printf("\"weight\":%" PRIu64 ",", s->weight);
		(void)fputs("\"frames\":[", stdout);
		for (i = 0; i < n; i++) {
			name = frame_name(d, d->frames[i], buf, sizeof(buf),
			    &len);
			(void)fputs(i ? "," : "", stdout);
			json_str(name, len);
		}
		(void)fputs("]}\n", stdout);
		return;
	}
	(void)printf("sample %.6f pid %u tid %u cpu %u", rel_seconds(d,
	    s->time), t->pid, t->tid, s->cpu);
	if (s->kind == SP_SAMPLE_OFF_CPU)
		(void)printf(" off CPU %.6f s", (double)s->weight / 1e9);
	else if (s->kind == SP_SAMPLE_PREEMPTED)
		(void)printf(" preempted %.6f s", (double)s->weight / 1e9);
	else if (s->weight > 1)
		(void)printf(" weight %" PRIu64, s->weight);
	(void)printf(": %zu frames\n", depth);
	for (i = 0; i < n; i++) {
		name = frame_name(d, d->frames[i], buf, sizeof(buf), &len);
		(void)printf("    #%-3zu %.*s\n", i, (int)len, name);
	}
	if (n < depth)
		(void)printf("    ... %zu more frames\n", depth - n);
}

static void
print_proc(const struct dump *d, const struct sp_record *r)
{
	static const char *const events[] = { "?", "fork", "exec", "comm",
		"exit" };
	const struct sp_proc *p = &r->u.proc;
	const struct sp_str *comm = sp_defs_string(sp_replay_defs(d->r),
	    p->comm);

	if (d->json) {
		(void)printf("{\"kind\":\"proc\",\"event\":\"%s\",\"time\":%"
		    PRIu64 ",\"host\":%u,\"pid\":%u,\"tid\":%u,\"other_pid\":%u,"
		    "\"other_tid\":%u,\"comm\":", events[p->event], p->time,
		    p->host, p->pid, p->tid, p->other_pid, p->other_tid);
		json_sp_str(comm);
		(void)fputs("}\n", stdout);
		return;
	}
	(void)printf("%s %.6f pid %u tid %u (other %u/%u) ", events[p->event],
	    rel_seconds(d, p->time), p->pid, p->tid, p->other_pid,
	    p->other_tid);
	text_str(comm);
	(void)putchar('\n');
}

static void
print_python(const struct dump *d, const struct sp_record *r)
{
	const struct sp_python *p = &r->u.python;

	if (d->json)
		(void)printf("{\"kind\":\"python\",\"time\":%" PRIu64
		    ",\"host\":%u,\"pid\":%u,\"is_python\":%s}\n", p->time,
		    p->host, p->pid, p->is_python ? "true" : "false");
	else
		(void)printf("python %.6f pid %u: %s\n", rel_seconds(d, p->time),
		    p->pid, p->is_python ? "a Python runtime" :
		    "no longer a Python runtime");
}

/* How the samples were taken: the event, its rate and what it covered. */
static void
print_recording(const struct dump *d, const struct sp_recording *g)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} flags[] = {
		{ SP_RECORDING_KERNEL_TIME, "kernel-time" },
		{ SP_RECORDING_KERNEL, "kernel-callchains" },
		{ SP_RECORDING_CHILDREN, "children" },
		{ SP_RECORDING_SYSTEM, "system-wide" },
		{ SP_RECORDING_CGROUP, "cgroup" },
		{ SP_RECORDING_OFF_CPU, "off-cpu" },
		{ SP_RECORDING_PREEMPTED, "preempted-apart" },
		{ SP_RECORDING_COUNTS, "counts-events" },
		{ SP_RECORDING_FP, "frame-pointer-stacks" },
	};
	const char *sep = "";
	size_t i;

	if (d->json) {
		(void)fputs("{\"kind\":\"recording\",\"event\":", stdout);
		json_sp_str(&g->event);
		(void)printf(",\"frequency\":%u,\"period\":%llu,"
		    "\"stack_bytes\":%u,\"flags\":%u,\"command\":",
		    g->frequency, (unsigned long long)g->period,
		    g->stack_bytes, g->flags);
		json_sp_str(&g->command);
		(void)fputs("}\n", stdout);
		return;
	}
	(void)fputs("recording: event ", stdout);
	text_str(&g->event);
	if (g->period != 0)
		(void)printf(", every %llu%s", (unsigned long long)g->period,
		    (g->flags & SP_RECORDING_COUNTS) ? "" : " ns");
	else
		(void)printf(", %u Hz", g->frequency);
	(void)printf(", %u stack bytes, ", g->stack_bytes);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (g->flags & flags[i].bit) {
			(void)printf("%s%s", sep, flags[i].name);
			sep = ",";
		}
	if (!(g->flags & SP_RECORDING_KERNEL_TIME))
		(void)printf("%suser time only", sep);
	(void)fputs(", command ", stdout);
	text_str(&g->command);
	(void)putchar('\n');
}

static void
print_counters(const struct dump *d, const struct sp_counter *c, size_t n)
{
	size_t i;

	if (d->json) {
		(void)fputs("{\"kind\":\"summary\"", stdout);
		for (i = 0; i < n; i++) {
			(void)putchar(',');
			json_str(c[i].name.s, c[i].name.len);
			(void)printf(":%" PRIu64, c[i].value);
		}
		(void)fputs("}\n", stdout);
		return;
	}
	(void)fputs("summary:\n", stdout);
	for (i = 0; i < n; i++) {
		(void)fputs("    ", stdout);
		text_str(&c[i].name);
		(void)printf(" %" PRIu64 "\n", c[i].value);
	}
}

/*
 * A SYMBOL: the frame's name, origin and flags, then its logical frames
 * innermost first, each "function file:line".
 */
static void
print_symbol(const struct dump *d, const struct sp_symbol *sym)
{
	static const char *const origins[] = { "?", "perf-map", "elf",
		"kernel", "address" };
	const struct sp_defs *defs = sp_replay_defs(d->r);
	const struct sp_symline *l;
	struct sp_str tmp;
	const char *name;
	char buf[512];
	size_t len;
	uint32_t i;

	demangle(d, NULL, 0, sym);
	name = frame_name(d, sym->frame, buf, sizeof(buf), &len);
	if (d->json) {
		(void)printf("{\"kind\":\"symbol\",\"frame\":%u,"
		    "\"origin\":%u,\"flags\":%u,\"name\":", sym->frame,
		    sym->origin, sym->flags);
		json_str(name, len);
		(void)fputs(",\"module\":", stdout);
		json_sp_str(sp_defs_string(defs, sym->module_name));
		(void)fputs(",\"lines\":[", stdout);
	} else {
		(void)printf("symbol frame %u: %.*s (%s, flags 0x%x, module ",
		    sym->frame, (int)len, name, origins[sym->origin < 5 ?
		    sym->origin : 0], sym->flags);
		text_str(sp_defs_string(defs, sym->module_name));
		(void)putchar(')');
	}
	for (i = 0; i < sym->count; i++) {
		l = &sym->lines[i];
		if (d->json) {
			(void)fputs(i ? ",{\"function\":" : "{\"function\":",
			    stdout);
			json_sp_str(shown(d, sp_defs_string(defs, l->function),
			    &tmp));
			(void)fputs(",\"file\":", stdout);
			json_sp_str(sp_defs_string(defs, l->file));
			(void)printf(",\"line\":%u}", l->line);
			continue;
		}
		(void)fputs(i ? " <- " : ": ", stdout);
		text_str(shown(d, sp_defs_string(defs, l->function), &tmp));
		(void)putchar(' ');
		text_str(sp_defs_string(defs, l->file));
		(void)printf(":%u", l->line);
	}
	(void)fputs(d->json ? "]}\n" : "\n", stdout);
}

/* Strings, frames, nodes, symbols and the rest, shown with -v or --json. */
static void
print_other(const struct dump *d, const struct sp_record *r)
{
	const struct sp_defs *defs = sp_replay_defs(d->r);
	char name[512];

	if (!d->json && !d->verbose)
		return;
	switch (r->kind) {
	case SP_REC_STRING:
		(void)printf(d->json ? "{\"kind\":\"string\",\"id\":%u,"
		    "\"value\":" : "string %u: ", r->id);
		if (d->json)
			json_sp_str(&r->u.string);
		else
			text_str(&r->u.string);
		(void)fputs(d->json ? "}\n" : "\n", stdout);
		break;
	case SP_REC_FRAME:
		(void)sp_format_frame(defs, r->id, name, sizeof(name));
		(void)printf(d->json ? "{\"kind\":\"frame\",\"id\":%u,"
		    "\"module\":%u,\"mode\":%u,\"rel_ip\":%" PRIu64 ","
		    "\"abs_ip\":%" PRIu64 "}\n" : "frame %u: module %u mode %u "
		    "rel 0x%" PRIx64 " abs 0x%" PRIx64 "\n", r->id,
		    r->u.frame.module, r->u.frame.mode, r->u.frame.rel_ip,
		    r->u.frame.abs_ip);
		break;
	case SP_REC_NODE:
		(void)printf(d->json ? "{\"kind\":\"node\",\"id\":%u,"
		    "\"parent\":%u,\"frame\":%u}\n" :
		    "node %u: parent %u frame %u\n", r->id, r->u.node.parent,
		    r->u.node.frame);
		break;
	case SP_REC_SYMBOL:
		print_symbol(d, &r->u.symbol);
		break;
	default:
		(void)printf(d->json ? "{\"kind\":\"%s\",\"offset\":%" PRIu64
		    "}\n" : "%s record at offset %" PRIu64 "\n",
		    sp_kind_name(r->kind), r->offset);
		break;
	}
}

static void
print_record(struct dump *d, const struct sp_record *r)
{
	switch (r->kind) {
	case SP_REC_MODULE:
		print_module(d, r);
		break;
	case SP_REC_THREAD:
		print_thread(d, r);
		break;
	case SP_REC_SAMPLE:
		print_sample(d, r);
		break;
	case SP_REC_PROC:
		print_proc(d, r);
		break;
	case SP_REC_PYTHON:
		print_python(d, r);
		break;
	case SP_REC_SUMMARY:
		print_counters(d, r->u.summary.counters, r->u.summary.count);
		break;
	case SP_REC_RECORDING:
		print_recording(d, &r->u.recording);
		break;
	default:
		print_other(d, r);
		break;
	}
}

static void
print_stats(const struct dump *d)
{
	const struct sp_status *st = sp_replay_status(d->r);
	const struct sp_counter *c;
	size_t n = sp_defs_counters(sp_replay_defs(d->r), &c), i;
	uint64_t samples = d->count[SP_REC_SAMPLE];
	double bps = samples ? (double)st->end_offset / (double)samples : 0;
	unsigned k;

	if (d->json) {
		(void)printf("{\"samples\":%" PRIu64 ",\"bytes\":%" PRIu64
		    ",\"bytes_per_sample\":%.2f,\"records\":%" PRIu64
		    ",\"truncated\":%s,\"finished\":%s,\"kinds\":{", samples,
		    st->end_offset, bps, st->records,
		    st->truncated ? "true" : "false",
		    st->finished ? "true" : "false");
		for (k = 0, i = 0; k < 256; k++)
			if (d->count[k])
				(void)printf("%s\"%s\":{\"count\":%" PRIu64
				    ",\"bytes\":%" PRIu64 "}", i++ ? "," : "",
				    sp_kind_name(k), d->count[k], d->bytes[k]);
		(void)fputs("}", stdout);
		for (i = 0; i < n; i++) {
			(void)putchar(',');
			json_str(c[i].name.s, c[i].name.len);
			(void)printf(":%" PRIu64, c[i].value);
		}
		(void)fputs("}\n", stdout);
		return;
	}
	(void)printf("%-10s %12s %14s\n", "kind", "records", "bytes");
	for (k = 0; k < 256; k++)
		if (d->count[k])
			(void)printf("%-10s %12" PRIu64 " %14" PRIu64 "\n",
			    sp_kind_name(k), d->count[k], d->bytes[k]);
	(void)printf("%-10s %12" PRIu64 " %14" PRIu64 "\n", "total",
	    st->records, st->end_offset);
	(void)printf("bytes per sample: %.2f\n", bps);
	print_counters(d, c, n);
}

static void
set_mode(struct dump *d, enum mode m)
{
	if (d->mode != MODE_TEXT && d->mode != m)
		errx(2, "--check and --stats exclude each other");
	d->mode = m;
}

static int
run(struct dump *d)
{
	struct sp_diag diag;
	struct sp_record rec;
	const struct sp_status *st;
	int err;

	d->r = spi_tool_replay(d->path);
	memset(&diag, 0, sizeof(diag));
	/* After the header is known good; a spool found corrupt later
	 * leaves FILE as it was. */
	if (sp_output_redirect(&d->of, d->out, &diag) < 0)
		errx(1, "%s", diag.msg);
	if (d->mode == MODE_TEXT)
		print_header(d);
	while ((err = sp_replay_next(d->r, &rec)) > 0) {
		d->count[rec.kind & 0xff]++;
		d->bytes[rec.kind & 0xff] += rec.size;
		if (d->mode == MODE_TEXT)
			print_record(d, &rec);
	}
	if (err < 0) {
		const struct sp_diag *dg = sp_replay_diag(d->r);

		(void)fflush(stdout);
		sp_output_discard(&d->of);
		spi_tool_fail(err, SP_TOOL_INPUT, d->path, dg);
	}
	st = sp_replay_status(d->r);
	if (d->mode == MODE_STATS)
		print_stats(d);
	if (st->truncated)
		warnx("%s: truncated at offset 0x%" PRIx64 ": recovered the "
		    "intact prefix, %" PRIu64 " records, %" PRIu64 " samples",
		    d->path, st->end_offset, st->records, st->samples);
	if (d->mode == MODE_CHECK && !d->json)
		(void)printf("%s: ok: %" PRIu64 " records, %" PRIu64
		    " samples, %s\n", d->path, st->records, st->samples,
		    st->finished ? "finished" : "truncated tail recovered");
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-demangle", no_argument, NULL, 1000 + 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 1000 + 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct dump d;
	struct sp_diag diag;
	int ch, status;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":hjo:v", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			set_mode(&d, MODE_CHECK);
			break;
		case 'h':
			usage(0);
			break;
		case 'j':
			d.json = 1;
			break;
		case 'o':
			d.out = optarg;
			break;
		case 's':
			set_mode(&d, MODE_STATS);
			break;
		case 'v':
			d.verbose = 1;
			break;
		case 1000 + 'D':
			d.no_demangle = 1;
			break;
		case 1000 + 'V':
			spi_tool_version("sp-dump");
			break;
		default:
			spi_tool_bad_option("sp-dump", ch, argv);
		}
	}
	if (argc - optind > 1)
		usage(2);
	d.path = optind < argc ? argv[optind] : "-";
	spi_tool_input(d.path, "spool",
	    "sp-dump [--check | --stats] [--json] FILE");
	/* Only the text shows names. */
	if (d.mode == MODE_TEXT && !d.no_demangle &&
	    sp_demangle_new(NULL, &d.dm) < 0)
		errx(1, "out of memory");
	status = run(&d);
	sp_demangle_free(d.dm);
	sp_replay_free(d.r);
	if (sp_output_commit(&d.of, &diag) < 0)
		errx(1, "%s", diag.msg);
	return status;
}
