/* SPDX-License-Identifier: MIT */
/*
 * mkspool: writes the spools the tests use.
 *   mkspool ref FILE [NSAMPLES]   the reference spool (refspool.c)
 *   mkspool cut FILE [NSAMPLES]   the reference spool without END
 *   mkspool bad DIR               the malformed spools of tests/bad, each
 *                                 NAME.spl with NAME.expect, the message
 *                                 sp-dump must print for it
 *   mkspool offcpu FILE FLAGS     a recording of RECORDING flags FLAGS
 *                                 with one off-CPU sample (kind 1, 5 ns),
 *                                 and with flag 64 (preemption apart) one
 *                                 preempted (kind 2, 7 ns): what sp-record
 *                                 --off-cpu writes on a kernel before
 *                                 4.17 (flags 32), or after (96)
 * tests/bad/ is checked in; `mkspool bad tests/bad` remakes it.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "refspool.h"

/* A spool built byte by byte: the reference header, then raw records. */
struct raw {
	uint8_t b[4096];
	size_t len;
};

static void
raw_header(struct raw *r)
{
	struct sp_header h;

	ref_header(&h);
	sp_header_encode(&h, r->b);
	r->len = SP_HEADER_LEN;
}

static void
raw_bytes(struct raw *r, const void *p, size_t n)
{
	if (n > sizeof(r->b) - r->len)
		errx(1, "raw spool too large");
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

/* A record: kind, one-byte length, payload (short payloads only). */
static void
raw_rec(struct raw *r, uint8_t kind, const void *payload, uint8_t n)
{
	uint8_t hdr[2] = { kind, n };

	raw_bytes(r, hdr, 2);
	raw_bytes(r, payload, n);
}

/* A valid END record over what is there so far. */
static void
raw_end(struct raw *r)
{
	uint8_t e[6] = { SP_REC_END, 4 };
	uint32_t crc = (uint32_t)crc32(0L, r->b, (uInt)r->len);
	int i;

	for (i = 0; i < 4; i++)	/* little-endian */
		e[2 + i] = (uint8_t)(crc >> 8 * i);
	raw_bytes(r, e, 6);
}

static void
save(const char *dir, const char *name, const struct raw *r,
    const char *expect)
{
	char path[512];
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/%s.spl", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(r->b, 1, r->len, f) != r->len || fclose(f))
		err(1, "%s", path);
	(void)snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	f = fopen(path, "w");
	if (f == NULL || fprintf(f, "%s\n", expect) < 0 || fclose(f))
		err(1, "%s", path);
}

/* The minimal definitions a sample needs: thread 1 and frame/node 1. */
static void
raw_defs(struct raw *r)
{
	static const uint8_t thread[] = { 0, 1, 1, 0 };
	static const uint8_t frame[] = { 0, 0, 0x10, 0x10 };
	static const uint8_t node[] = { 0, 1 };

	raw_rec(r, SP_REC_THREAD, thread, sizeof(thread));
	raw_rec(r, SP_REC_FRAME, frame, sizeof(frame));
	raw_rec(r, SP_REC_NODE, node, sizeof(node));
}

/* Input that ends before the header does: no prefix to recover. */
static void
bad_short_header(const char *dir)
{
	struct raw r;

	r.len = 0;
	save(dir, "empty", &r, "offset 0x0: not a spool: empty file");
	raw_header(&r);
	r.len = 100;
	save(dir, "header-cut", &r, "offset 0x64: not a spool: incomplete "
	    "header (100 of 216 bytes)");
	raw_header(&r);
	r.b[10] = 0xe8; /* 232: 16 more (zero) bytes than it has */
	save(dir, "header-cut-long", &r, "offset 0xd8: not a spool: "
	    "incomplete header (216 of 232 bytes)");
}

static void
bad_header(const char *dir)
{
	struct raw r;

	raw_header(&r);
	r.b[0] = 'S';
	save(dir, "bad-magic", &r, "offset 0x0: not a spool: bad magic");
	raw_header(&r);
	r.b[8] = 9;
	save(dir, "bad-version", &r, "offset 0x8: unsupported spool version "
	    "(this reader knows version 1)");
	raw_header(&r);
	r.b[10] = 16;
	r.b[11] = 0;
	save(dir, "header-too-short", &r,
	    "offset 0xa: header length out of range 216..4096");
	raw_header(&r);
	r.b[10] = 0xe8; /* 232: 16 unknown bytes */
	memset(r.b + SP_HEADER_LEN, 0, 16);
	r.b[SP_HEADER_LEN + 3] = 1;
	r.len += 16;
	save(dir, "header-unknown-field", &r, "offset 0xdb: header has "
	    "non-zero fields this reader does not know");
	bad_short_header(dir);
}

static void
bad_framing(const char *dir)
{
	static const uint8_t huge[] = { SP_REC_STRING, 0xff, 0xff, 0xff, 0xff,
		0x0f, 'x' };
	static const uint8_t zero[] = { 0, 1, 'x' };
	struct raw r;

	raw_header(&r);
	raw_bytes(&r, huge, sizeof(huge));
	save(dir, "record-length-huge", &r,
	    "offset 0xd8: record length exceeds the 1 MiB maximum");
	raw_header(&r);
	raw_bytes(&r, zero, sizeof(zero));
	save(dir, "record-kind-zero", &r,
	    "offset 0xd8: record kind 0 is invalid");
	raw_header(&r);
	raw_end(&r);
	raw_rec(&r, SP_REC_STRING, "late", 4);
	save(dir, "data-after-end", &r,
	    "offset 0xde: data follows the end record");
	raw_header(&r);
	raw_defs(&r);
	raw_bytes(&r, "\x0d\x04\x00\x00\x00\x00", 6);
	save(dir, "bad-crc", &r, "offset 0xe8: end record crc32 does not "
	    "match the data before it");
}

static void
bad_fields(const char *dir)
{
	static const uint8_t pid_overflow[] = { 0, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 0 };
	static const uint8_t mode3[] = { 0, 3, 0, 0 };
	static const uint8_t size0[] = { 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t bid65[] = { 0, 1, 0, 0, 1, 0, 0, 0, 65 };
	static const uint8_t summary[] = { 0x80, 0x80, 0x80, 0x80, 0x10, 1 };
	static const uint8_t back[] = { 1, 1, 0x81, 0x80, 0x10, 0 };
	struct raw r;

	raw_header(&r);
	raw_rec(&r, SP_REC_THREAD, pid_overflow, sizeof(pid_overflow));
	save(dir, "varint-overflow", &r, "offset 0xd8: record payload ends "
	    "inside its fields, or a field is out of range");
	raw_header(&r);
	raw_rec(&r, SP_REC_FRAME, mode3, sizeof(mode3));
	save(dir, "frame-mode", &r,
	    "offset 0xd8: frame mode is not user, kernel or truncated");
	raw_header(&r);
	raw_rec(&r, SP_REC_MODULE, size0, sizeof(size0));
	save(dir, "module-empty", &r,
	    "offset 0xd8: module address range is empty or wraps");
	raw_header(&r);
	raw_rec(&r, SP_REC_MODULE, bid65, sizeof(bid65));
	save(dir, "module-build-id-long", &r, "offset 0xd8: record payload "
	    "ends inside its fields, or a field is out of range");
	raw_header(&r);
	raw_rec(&r, SP_REC_SUMMARY, summary, sizeof(summary));
	save(dir, "summary-count-huge", &r,
	    "offset 0xd8: summary counter count exceeds the record");
	raw_header(&r);
	raw_defs(&r);
	raw_rec(&r, SP_REC_SAMPLE, back, sizeof(back));
	save(dir, "clock-underflow", &r,
	    "offset 0xe8: time delta moves the clock out of range");
}

static void
bad_refs(const char *dir)
{
	static const uint8_t sample9[] = { 9, 0, 2, 0 };
	static const uint8_t node_fwd[] = { 5, 1 };
	static const uint8_t sym[] = { 1, 2, 0, 0, 1, 0, 0, 0 };
	static const uint8_t thread_comm[] = { 0, 1, 1, 3 };
	struct raw r;

	raw_header(&r);
	raw_defs(&r);
	raw_rec(&r, SP_REC_SAMPLE, sample9, sizeof(sample9));
	save(dir, "sample-undefined-thread", &r, "offset 0xe8: sample refers "
	    "to an undefined thread or stack");
	raw_header(&r);
	raw_defs(&r);
	raw_rec(&r, SP_REC_NODE, node_fwd, sizeof(node_fwd));
	save(dir, "node-forward-parent", &r, "offset 0xe8: stack node refers "
	    "to an undefined node or frame");
	raw_header(&r);
	raw_defs(&r);
	raw_rec(&r, SP_REC_SYMBOL, sym, sizeof(sym));
	raw_rec(&r, SP_REC_SYMBOL, sym, sizeof(sym));
	save(dir, "symbol-twice", &r,
	    "offset 0xf2: frame already has a symbol");
	raw_header(&r);
	raw_rec(&r, SP_REC_THREAD, thread_comm, sizeof(thread_comm));
	save(dir, "thread-undefined-comm", &r, "offset 0xd8: thread refers "
	    "to an undefined host or string");
}

/*
 * One record with one thing wrong, after the minimal definitions when
 * defs is set (so it sits at 0xe8, else at 0xd8).  Found by review of
 * docs/spool-format.md against codec.c and defs.c, and by fuzzing.
 */
struct bad_case {
	const char *name;
	int defs;
	uint8_t kind;
	uint8_t len;
	const uint8_t payload[24];
	const char *expect;
};

#define PAYLOAD_FIELDS "record payload ends inside its fields, or a field " \
	"is out of range"

static const struct bad_case bad_cases[] = {
	/* SYMBOL: frame, origin, flags, module name, count, lines. */
	{ "symbol-count-zero", 1, SP_REC_SYMBOL, 5, { 1, 2, 0, 0, 0 },
	    "symbol has 0 or more than 64 logical frames" },
	{ "symbol-count-65", 1, SP_REC_SYMBOL, 5, { 1, 2, 0, 0, 65 },
	    "symbol has 0 or more than 64 logical frames" },
	{ "symbol-count-huge", 1, SP_REC_SYMBOL, 9,
	    { 1, 2, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f },
	    "symbol has 0 or more than 64 logical frames" },
	{ "symbol-lines-short", 1, SP_REC_SYMBOL, 8,
	    { 1, 2, 0, 0, 3, 0, 0, 0 }, PAYLOAD_FIELDS },
	{ "symbol-frame-zero", 1, SP_REC_SYMBOL, 8,
	    { 0, 2, 0, 0, 1, 0, 0, 0 }, "symbol has no frame" },
	{ "symbol-origin-zero", 1, SP_REC_SYMBOL, 8,
	    { 1, 0, 0, 0, 1, 0, 0, 0 }, "symbol origin out of range" },
	{ "symbol-origin-5", 1, SP_REC_SYMBOL, 8,
	    { 1, 5, 0, 0, 1, 0, 0, 0 }, "symbol origin out of range" },
	{ "symbol-undefined-frame", 1, SP_REC_SYMBOL, 8,
	    { 2, 2, 0, 0, 1, 0, 0, 0 },
	    "symbol refers to an undefined frame or string" },
	{ "symbol-undefined-module-name", 1, SP_REC_SYMBOL, 8,
	    { 1, 2, 0, 1, 1, 0, 0, 0 },
	    "symbol refers to an undefined frame or string" },
	{ "symbol-undefined-function", 1, SP_REC_SYMBOL, 8,
	    { 1, 2, 0, 0, 1, 1, 0, 0 },
	    "symbol line refers to an undefined string" },
	{ "symbol-undefined-file", 1, SP_REC_SYMBOL, 8,
	    { 1, 2, 0, 0, 1, 0, 1, 0 },
	    "symbol line refers to an undefined string" },
	/* NODE: a parent that is the node itself would make a cycle. */
	{ "node-self-parent", 1, SP_REC_NODE, 2, { 2, 1 },
	    "stack node refers to an undefined node or frame" },
	{ "node-frame-zero", 1, SP_REC_NODE, 2, { 1, 0 },
	    "stack node has no frame" },
	{ "node-undefined-frame", 1, SP_REC_NODE, 2, { 1, 2 },
	    "stack node refers to an undefined node or frame" },
	/* Hosts, modules, frames, threads, samples. */
	{ "thread-undefined-host", 0, SP_REC_THREAD, 4, { 1, 1, 1, 0 },
	    "thread refers to an undefined host or string" },
	{ "module-undefined-host", 0, SP_REC_MODULE, 10,
	    { 1, 1, 0, 0, 1, 0, 0, 0, 0, 0 },
	    "module refers to an undefined host or string" },
	{ "module-undefined-path", 0, SP_REC_MODULE, 10,
	    { 0, 1, 0, 0, 1, 0, 0, 0, 0, 1 },
	    "module refers to an undefined host or string" },
	{ "module-range-wraps", 0, SP_REC_MODULE, 19,
	    { 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0x01, 2, 0, 0, 0, 0, 0 },
	    "module address range is empty or wraps" },
	{ "frame-undefined-module", 0, SP_REC_FRAME, 4, { 1, 0, 16, 16 },
	    "frame refers to an undefined module" },
	{ "frame-marker-with-module", 0, SP_REC_FRAME, 4, { 1, 2, 0, 0 },
	    "truncated-stack marker frame has a module" },
	{ "str-beyond-record", 0, SP_REC_HOST, 10,
	    { 1, 'h', 0, 0, 0, 5, 1, 2, 3, 4 }, PAYLOAD_FIELDS },
	{ "host-boot-id-3", 0, SP_REC_HOST, 9,
	    { 1, 'h', 0, 0, 0, 3, 1, 2, 3 },
	    "host boot id is neither 0 nor 16 bytes" },
	{ "sample-no-thread", 1, SP_REC_SAMPLE, 4, { 0, 1, 2, 0 },
	    "sample has no thread" },
	{ "sample-undefined-stack", 1, SP_REC_SAMPLE, 4, { 1, 2, 2, 0 },
	    "sample refers to an undefined thread or stack" },
	/* Kinds 0 on CPU, 1 off CPU blocked, 2 preempted; weight 5 ns. */
	{ "sample-kind-3", 1, SP_REC_SAMPLE, 6, { 1, 1, 2, 0, 5, 3 },
	    "sample counts an unknown quantity" },
	/* Timed records. */
	{ "python-status-2", 0, SP_REC_PYTHON, 4, { 2, 0, 1, 2 },
	    "python status is neither 0 nor 1" },
	{ "python-undefined-host", 0, SP_REC_PYTHON, 4, { 2, 1, 1, 1 },
	    "python record refers to an undefined host" },
	{ "proc-event-9", 0, SP_REC_PROC, 8, { 2, 9, 0, 1, 1, 0, 0, 0 },
	    "process event is not fork, exec, comm or exit" },
	{ "proc-undefined-comm", 0, SP_REC_PROC, 8, { 2, 2, 0, 1, 1, 0, 0, 1 },
	    "process event refers to an undefined host or string" },
	/* RAWSTACK: nregs, nregs x u64, stack. */
	{ "rawstack-regs-65", 0, SP_REC_RAWSTACK, 2, { 65, 0 },
	    "raw stack has too many registers" },
	{ "rawstack-regs-huge", 0, SP_REC_RAWSTACK, 6,
	    { 0xff, 0xff, 0xff, 0xff, 0x0f, 0 },
	    "raw stack has too many registers" },
	{ "rawstack-regs-short", 0, SP_REC_RAWSTACK, 10,
	    { 2, 1, 2, 3, 4, 5, 6, 7, 8, 0 }, PAYLOAD_FIELDS },
	{ "rawstack-stack-long", 0, SP_REC_RAWSTACK, 4, { 0, 9, 1, 2 },
	    PAYLOAD_FIELDS },
	/* Varints and framing. */
	{ "varint-truncated", 0, SP_REC_THREAD, 2, { 0, 0x81 },
	    PAYLOAD_FIELDS },
	{ "varint-11-bytes", 0, SP_REC_THREAD, 14, { 0, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 1, 0 }, PAYLOAD_FIELDS },
	{ "id-over-32-bits", 0, SP_REC_THREAD, 8,
	    { 0, 1, 1, 0x80, 0x80, 0x80, 0x80, 0x10 }, PAYLOAD_FIELDS },
	{ "end-short", 0, SP_REC_END, 3, { 0, 0, 0 },
	    "end record is not 4 bytes" },
};

/* SUMMARY counter names: 1..64 bytes. */
static void
bad_summary(const char *dir)
{
	uint8_t p[80];
	struct raw r;

	memset(p, 'n', sizeof(p));
	p[0] = 1;  /* one counter */
	p[1] = 65; /* name length */
	p[67] = 0; /* value */
	raw_header(&r);
	raw_rec(&r, SP_REC_SUMMARY, p, 68);
	save(dir, "summary-name-65", &r, "offset 0xd8: summary counter name "
	    "is empty or over 64 bytes");
	p[0] = 2;
	p[1] = 64;
	p[66] = 0;
	p[67] = 0; /* the second name is empty */
	p[68] = 0;
	raw_header(&r);
	raw_rec(&r, SP_REC_SUMMARY, p, 69);
	save(dir, "summary-name-empty", &r, "offset 0xd8: summary counter "
	    "name is empty or over 64 bytes");
}

static void
bad_table(const char *dir)
{
	char expect[256];
	const struct bad_case *b;
	struct raw r;
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		b = &bad_cases[i];
		raw_header(&r);
		if (b->defs)
			raw_defs(&r);
		(void)snprintf(expect, sizeof(expect), "offset 0x%zx: %s",
		    r.len, b->expect);
		raw_rec(&r, b->kind, b->payload, b->len);
		save(dir, b->name, &r, expect);
	}
	bad_summary(dir);
}

static void
write_ref(const char *path, size_t n, int finish)
{
	struct sp_header h;
	struct sp_writer *w;
	int fd = strcmp(path, "-") == 0 ? STDOUT_FILENO :
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		err(1, "%s", path);
	ref_header(&h);
	if (sp_writer_new(fd, &h, &w) < 0)
		errx(1, "out of memory");
	ref_write(w, n, finish);
	sp_writer_free(w);
	if (fd != STDOUT_FILENO && close(fd) < 0)
		err(1, "%s", path);
}

static void
write_offcpu(const char *path, unsigned long flags)
{
	static const uint8_t blocked[] = { 1, 1, 2, 0, 5, SP_SAMPLE_OFF_CPU };
	static const uint8_t preempted[] = { 1, 1, 2, 0, 7,
		SP_SAMPLE_PREEMPTED };
	/* event "cpu-clock", 1000 Hz, stack_bytes 0, flags, command "" */
	uint8_t rec[] = { 9, 'c', 'p', 'u', '-', 'c', 'l', 'o', 'c', 'k',
		0xe8, 0x07, 0, (uint8_t)(flags & 0x7f), 0 };
	struct raw r;
	FILE *f;

	raw_header(&r);
	raw_rec(&r, SP_REC_RECORDING, rec, sizeof(rec));
	raw_defs(&r);
	raw_rec(&r, SP_REC_SAMPLE, blocked, sizeof(blocked));
	if (flags & SP_RECORDING_PREEMPTED)
		raw_rec(&r, SP_REC_SAMPLE, preempted, sizeof(preempted));
	raw_end(&r);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(r.b, 1, r.len, f) != r.len || fclose(f))
		err(1, "%s", path);
}

int
main(int argc, char **argv)
{
	size_t n = argc > 3 ? strtoul(argv[3], NULL, 10) : 30;

	if (argc >= 3 && strcmp(argv[1], "ref") == 0)
		write_ref(argv[2], n, 1);
	else if (argc >= 3 && strcmp(argv[1], "cut") == 0)
		write_ref(argv[2], n, 0);
	else if (argc == 4 && strcmp(argv[1], "offcpu") == 0)
		write_offcpu(argv[2], strtoul(argv[3], NULL, 0));
	else if (argc == 3 && strcmp(argv[1], "bad") == 0) {
		bad_header(argv[2]);
		bad_framing(argv[2]);
		bad_fields(argv[2]);
		bad_refs(argv[2]);
		bad_table(argv[2]);
	} else {
		(void)fprintf(stderr, "usage: mkspool ref|cut FILE [NSAMPLES]"
		    " | mkspool bad DIR | mkspool offcpu FILE FLAGS\n");
		return 2;
	}
	return 0;
}
