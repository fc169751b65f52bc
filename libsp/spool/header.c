/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
/* next_in becomes const: the input is never written. */
#define ZLIB_CONST
#include <zlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "sp/spool/spool.h"

/* Offsets of the version 1 header fields (docs/spool-format.md). */
enum {
	OFF_VERSION = 8,
	OFF_HEADER_LEN = 10,
	OFF_FLAGS = 12,
	OFF_START_US = 16,
	OFF_START_NS = 24,
	OFF_INTERVAL = 32,
	OFF_PAGE = 36,
	OFF_BOOT_ID = 40,
	OFF_HOSTNAME = 56,
	OFF_RELEASE = 120,
	OFF_MACHINE = 184,
};

/* SP_MAGIC as bytes: it is not a C string (no NUL on disk). */
static const uint8_t magic[SP_MAGIC_LEN] = { 0x89, 'S', 'P', 'O', 'O', 'L',
	'\r', '\n' };

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses a UUID such as 6b9e...-... into 16 bytes; 0 or -1. */
static int
parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0;

	for (; *s != '\0' && *s != '\n' && n < 32; s++) {
		int v;

		if (*s == '-')
			continue;
		v = hexval((unsigned char)*s);
		if (v < 0)
			return -1;
		if (n % 2 == 0)
			out[n / 2] = (uint8_t)(v << 4);
		else
			out[n / 2] |= (uint8_t)v;
		n++;
	}
	return n == 32 ? 0 : -1;
}

static void
read_boot_id(uint8_t out[16])
{
	char buf[64];
	ssize_t n;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	memset(out, 0, 16);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (parse_uuid(buf, out) < 0)
		memset(out, 0, 16);
}

static void
copy_field(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int
sp_header_init_host(struct sp_header *h)
{
	struct utsname u;
	struct timespec rt, mono;
	long page;

	memset(h, 0, sizeof(*h));
	h->version = SP_VERSION;
	h->header_len = SP_HEADER_LEN;
	if (uname(&u) < 0)
		return -errno;
	copy_field(h->hostname, sizeof(h->hostname), u.nodename);
	copy_field(h->release, sizeof(h->release), u.release);
	copy_field(h->machine, sizeof(h->machine), u.machine);
	page = sysconf(_SC_PAGESIZE);
	h->page_size = page > 0 ? (uint32_t)page : 4096;
	read_boot_id(h->boot_id);
	if (clock_gettime(CLOCK_REALTIME, &rt) < 0 ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) < 0)
		return -errno;
	h->start_time_us = (uint64_t)rt.tv_sec * 1000000u +
	    (uint64_t)rt.tv_nsec / 1000u;
	h->start_mono_ns = (uint64_t)mono.tv_sec * 1000000000u +
	    (uint64_t)mono.tv_nsec;
	return 0;
}

/* A fixed-width field, NUL-padded; a name of exactly width bytes has no
 * NUL on disk. */
static void
put_padded(uint8_t *dst, size_t width, const char *src)
{
	size_t i;

	for (i = 0; i < width && src[i] != '\0'; i++)
		dst[i] = (uint8_t)src[i];
	for (; i < width; i++)
		dst[i] = 0;
}

int
sp_header_timestamp_us(const struct sp_header *h, uint64_t time, int64_t *us)
{
	/* Unsigned wrap-around then a signed view: a time before
	 * start_mono_ns (rings slightly out of order) comes out negative. */
	int64_t since_ns = (int64_t)(time - h->start_mono_ns);

	if (h->start_time_us == 0)
		return 0;
	/* In unsigned arithmetic, which wraps: a hostile start_time_us
	 * gives a wrong time, not undefined behaviour. */
	*us = (int64_t)(h->start_time_us + (uint64_t)(since_ns / 1000));
	return 1;
}

void
sp_header_encode(const struct sp_header *h, uint8_t out[SP_HEADER_LEN])
{
	memset(out, 0, SP_HEADER_LEN);
	memcpy(out, magic, SP_MAGIC_LEN);
	sp_put_le16(out + OFF_VERSION, SP_VERSION);
	sp_put_le16(out + OFF_HEADER_LEN, SP_HEADER_LEN);
	sp_put_le32(out + OFF_FLAGS, h->flags);
	sp_put_le64(out + OFF_START_US, h->start_time_us);
	sp_put_le64(out + OFF_START_NS, h->start_mono_ns);
	sp_put_le32(out + OFF_INTERVAL, h->sample_interval_us);
	sp_put_le32(out + OFF_PAGE, h->page_size);
	memcpy(out + OFF_BOOT_ID, h->boot_id, 16);
	put_padded(out + OFF_HOSTNAME, 64, h->hostname);
	put_padded(out + OFF_RELEASE, 64, h->release);
	put_padded(out + OFF_MACHINE, 32, h->machine);
}

static void
get_padded(char *dst, const uint8_t *src, size_t width)
{
	size_t i;

	for (i = 0; i < width && src[i] != 0; i++)
		dst[i] = (char)src[i];
	dst[i] = '\0';
}

static int
fail(struct sp_diag *diag, uint64_t off, int err, const char *msg)
{
	return sp_diag_set(diag, off, err, "%s", msg);
}

/* Whether p[0..len) inflates (gzip) to a spool's magic. */
static int
gzipped_spool(const uint8_t *p, size_t len)
{
	uint8_t out[SP_MAGIC_LEN];
	z_stream z;
	int ok;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return 0;
	z.next_in = p;
	z.avail_in = (uInt)(len < 65536 ? len : 65536);
	z.next_out = out;
	z.avail_out = sizeof(out);
	(void)inflate(&z, Z_SYNC_FLUSH);
	ok = z.avail_out == 0 && memcmp(out, magic, sizeof(out)) == 0;
	(void)inflateEnd(&z);
	return ok;
}

/* Whether the first line of p[0..len) reads as folded stacks: printable
 * text, and a count after its last space. */
static int
folded_text(const uint8_t *p, size_t len)
{
	size_t i, space = 0;

	for (i = 0; i < len && p[i] != '\n'; i++) {
		if (p[i] < 0x20 && p[i] != '\t')
			return 0;
		if (p[i] == ' ')
			space = i;
	}
	if (i == len && len < 4096)
		return 0; /* a first line cut short: not enough to tell */
	if (space == 0 || space + 1 >= i)
		return 0;
	while (++space < i)
		if (p[space] < '0' || p[space] > '9')
			return 0;
	return 1;
}

/*
 * Not a spool: what the data looks like, for a message that says what to
 * do with it (a perf.data given to sp-fold got "bad magic").
 */
static int
not_a_spool(const uint8_t *p, size_t len, struct sp_diag *diag)
{
	const char *what = NULL;
	size_t i = 0;

	if (len >= 8 && (memcmp(p, "PERFILE2", 8) == 0 ||
	    memcmp(p, "2ELIFREP", 8) == 0))
		what = "this is a perf recording (perf record's perf.data); "
		    "stackpulse cannot read it: perf script | "
		    "stackcollapse-perf.pl gives folded stacks for sp-flame, "
		    "or record with sp-record";
	else if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		what = gzipped_spool(p, len) ? "a gzip-compressed spool: "
		    "gunzip it first (zcat FILE | sp-fold -)" :
		    "gzip-compressed data, such as a pprof profile (sp-fold "
		    "--pprof writes them; read them with pprof): not a spool";
	else if (len >= 4 && memcmp(p, "\177ELF", 4) == 0)
		what = "an ELF file (a program or a library), not a spool: "
		    "record it with sp-record -- PROGRAM";
	else if (folded_text(p, len))
		what = "folded stacks (text, as sp-fold writes), not a spool: "
		    "pipe them to sp-flame";
	if (what == NULL) {
		while (i < len && (p[i] == ' ' || p[i] == '\n' ||
		    p[i] == '\t' || p[i] == '\r'))
			i++;
		if (i < len && (p[i] == '{' || p[i] == '['))
			what = "JSON (a speedscope profile or a Chrome trace, "
			    "as sp-fold writes them?), not a spool: open it in "
			    "its viewer";
	}
	if (what != NULL)
		return fail(diag, 0, -SP_EMAGIC, what);
	return fail(diag, 0, -SP_EMAGIC, "not a spool: bad magic");
}

int
sp_header_decode(const uint8_t *p, size_t len, struct sp_header *h,
    struct sp_diag *diag)
{
	size_t hlen, i;

	memset(h, 0, sizeof(*h));
	if (len > 0 &&
	    memcmp(p, magic, len < SP_MAGIC_LEN ? len : SP_MAGIC_LEN) != 0)
		return not_a_spool(p, len, diag);
	if (len < OFF_FLAGS)
		return fail(diag, len, -SP_ETRUNC, "data ends inside the header");
	h->version = sp_le16(p + OFF_VERSION);
	h->header_len = sp_le16(p + OFF_HEADER_LEN);
	if (h->version != SP_VERSION)
		return fail(diag, OFF_VERSION, -SP_EVERSION,
		    "unsupported spool version (this reader knows version 1)");
	hlen = h->header_len;
	if (hlen < SP_HEADER_LEN || hlen > SP_HEADER_MAX)
		return fail(diag, OFF_HEADER_LEN, -SP_EFORMAT,
		    "header length out of range 216..4096");
	if (len < hlen)
		return fail(diag, len, -SP_ETRUNC, "data ends inside the header");
	/* Unknown trailing fields must be zero (copy_struct_from_user). */
	for (i = SP_HEADER_LEN; i < hlen; i++)
		if (p[i] != 0)
			return fail(diag, i, -SP_EVERSION,
			    "header has non-zero fields this reader does not know");
	h->flags = sp_le32(p + OFF_FLAGS);
	if (h->flags != 0)
		return fail(diag, OFF_FLAGS, -SP_EVERSION,
		    "header flags this reader does not know are set");
	h->start_time_us = sp_le64(p + OFF_START_US);
	h->start_mono_ns = sp_le64(p + OFF_START_NS);
	h->sample_interval_us = sp_le32(p + OFF_INTERVAL);
	h->page_size = sp_le32(p + OFF_PAGE);
	memcpy(h->boot_id, p + OFF_BOOT_ID, 16);
	get_padded(h->hostname, p + OFF_HOSTNAME, 64);
	get_padded(h->release, p + OFF_RELEASE, 64);
	get_padded(h->machine, p + OFF_MACHINE, 32);
	return 0;
}
