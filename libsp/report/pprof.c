/* SPDX-License-Identifier: MIT */
/*
 * pprof export, encoded by hand: protobuf's wire format is a key (field
 * number << 3 | wire type) as a varint, then a varint (type 0) or a
 * varint length and that many bytes (type 2, strings, sub-messages and
 * packed repeated scalars).  The varint is LEB128, as in the spool, so
 * spi_buf_varint and spi_buf_str encode it.  Field numbers are those of
 * profile.proto (github.com/google/pprof, proto/profile.proto).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* next_in becomes const: the input is never written. */
#define ZLIB_CONST
#include <zlib.h>

#include "common/buf_int.h"
#include "common/intern_int.h"
#include "common/json_int.h"
#include "fold_int.h"
#include "sp/report/demangle.h"
#include "sp/report/pprof.h"
#include "sp/spool/format.h"

/* Wire types (protobuf encoding: "Message Structure"). */
#define WT_VARINT 0
#define WT_LEN 2

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE,
	PROFILE_PERIOD,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL,
	LABEL_KEY = 1, LABEL_STR, LABEL_NUM,
	MAPPING_ID = 1, MAPPING_START, MAPPING_LIMIT, MAPPING_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
	MAPPING_HAS_FILENAMES, MAPPING_HAS_LINE_NUMBERS,
	MAPPING_HAS_INLINE_FRAMES,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1, LINE_LINE,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
};

/* Per module: what its locations carry, for the mapping's has_* bits. */
#define MOD_USED 1u
#define MOD_FILES 2u
#define MOD_LINES 4u
#define MOD_INLINE 8u

/* Intern kinds. */
#define K_STRING 1
#define K_FUNCTION 2

struct pp {
	struct sp_fold *f;
	const struct sp_defs *d;
	struct sp_intern ids;        /* strings and functions */
	uint32_t nstrings, nfunctions;
	struct sp_buf strtab, functions, locations, samples;
	struct sp_buf sbody, sub, sub2; /* a sample, a line/label, a location */
	uint8_t *loc_done;           /* by frame id */
	uint8_t *mods;               /* by module id: MOD_* */
	size_t nframes, nmods;
	uint32_t *frames;
	size_t capframes;
	uint64_t period;
	enum sp_fold_time unit;      /* resolved: not AUTO */
	unsigned kinds;              /* the sample kinds shown: 1 << kind */
	uint64_t unit_period;        /* ns a CPU sample counts with BOTH */
	int counts;                  /* CPU samples weigh events (-e) */
	char event[64];              /* of which event */
	uint64_t event_period;       /* its -c, 0: by frequency */
};

static void
key(struct sp_buf *b, unsigned field, unsigned wt)
{
	spi_buf_varint(b, (uint64_t)field << 3 | wt);
}

static void
field_varint(struct sp_buf *b, unsigned field, uint64_t v)
{
	if (v == 0)
		return; /* proto3: an absent scalar is 0 */
	key(b, field, WT_VARINT);
	spi_buf_varint(b, v);
}

/* A sub-message (or bytes) field from sub, which is emptied. */
static void
field_msg(struct sp_buf *b, unsigned field, struct sp_buf *sub)
{
	key(b, field, WT_LEN);
	spi_buf_str(b, sub->p, sub->len);
	if (sub->err && !b->err)
		b->err = sub->err;
	sub->len = 0;
}

/* The string table index of s[0..len); "" is 0 (profile.proto). */
static uint64_t
string_index(struct pp *p, const char *s, size_t len)
{
	uint64_t hash;
	uint32_t id;

	id = spi_intern_find(&p->ids, K_STRING, (const uint8_t *)s, len, &hash);
	if (id != 0)
		return id - 1;
	if (spi_intern_add(&p->ids, K_STRING, (const uint8_t *)s, len, hash,
	    p->nstrings + 1) != 0) {
		p->strtab.err = -ENOMEM;
		return 0;
	}
	/* A proto3 string is UTF-8 (pprof's Go decoder checks): names are
	 * any bytes, written as common/json_int.h has them. */
	key(&p->strtab, PROFILE_STRING_TABLE, WT_LEN);
	spi_buf_varint(&p->strtab, spi_utf8_size(s, len));
	spi_utf8_put(&p->strtab, s, len);
	return p->nstrings++;
}

static uint64_t
cstring_index(struct pp *p, const char *s)
{
	return string_index(p, s, strlen(s));
}

static uint64_t
sp_string_index(struct pp *p, uint32_t id)
{
	const struct sp_str *s = sp_defs_string(p->d, id);

	return s == NULL ? 0 : string_index(p, s->s, s->len);
}

/*
 * The id of function (system name, file), encoded on first use; name is
 * what people read, the demangled system name (profile.proto: "system
 * name ... for instance, it can be a C++ mangled name"), which follows
 * from it.
 */
static uint64_t
function_id(struct pp *p, uint64_t name, uint64_t sysname, uint64_t file)
{
	uint8_t k[16];
	uint64_t hash;
	uint32_t id;

	memcpy(k, &sysname, 8);
	memcpy(k + 8, &file, 8);
	id = spi_intern_find(&p->ids, K_FUNCTION, k, sizeof(k), &hash);
	if (id != 0)
		return id;
	id = ++p->nfunctions;
	if (spi_intern_add(&p->ids, K_FUNCTION, k, sizeof(k), hash, id) != 0) {
		p->functions.err = -ENOMEM;
		return 0;
	}
	field_varint(&p->sub, FUNCTION_ID, id);
	field_varint(&p->sub, FUNCTION_NAME, name);
	field_varint(&p->sub, FUNCTION_SYSTEM_NAME, sysname);
	field_varint(&p->sub, FUNCTION_FILENAME, file);
	field_msg(&p->functions, PROFILE_FUNCTION, &p->sub);
	return id;
}

/* Appends a Line {function, line} to the location in p->sub2. */
static void
put_line(struct pp *p, uint64_t name, uint64_t sysname, uint64_t file,
    uint32_t line)
{
	uint64_t fn = function_id(p, name, sysname, file);

	field_varint(&p->sub, LINE_FUNCTION_ID, fn);
	field_varint(&p->sub, LINE_LINE, line);
	field_msg(&p->sub2, LOCATION_LINE, &p->sub);
}

/* The lines of a symbolized frame, innermost first; 0 if it has none. */
static int
symbol_lines(struct pp *p, uint32_t id, uint8_t *mod)
{
	const struct sp_symbol *sym = sp_defs_symbol(p->d, id);
	const struct sp_demangle *dm = sp_fold_options(p->f)->demangle;
	const struct sp_symline *l;
	const struct sp_str *fn;
	const char *shown;
	uint64_t sys;
	uint32_t i, first;
	size_t len;

	if (sym == NULL || sp_defs_string(p->d,
	    sym->lines[sym->count - 1].function) == NULL ||
	    sp_defs_string(p->d, sym->lines[sym->count - 1].function)->len == 0)
		return 0;
	first = (sp_fold_options(p->f)->flags & SP_FOLD_NO_INLINE) ?
	    sym->count - 1 : 0;
	for (i = first; i < sym->count; i++) {
		l = &sym->lines[i];
		fn = sp_defs_string(p->d, l->function);
		shown = fn != NULL ? sp_demangle_get(dm, fn->s, fn->len, &len) :
		    NULL;
		sys = sp_string_index(p, l->function);
		put_line(p, shown != NULL ? string_index(p, shown, len) : sys,
		    sys, sp_string_index(p, l->file), l->line);
		*mod |= (l->file ? MOD_FILES : 0) | (l->line ? MOD_LINES : 0);
	}
	if (sym->count - first > 1)
		*mod |= MOD_INLINE;
	return 1;
}

/* Encodes the location of frame id (or a marker) on first use. */
static void
location(struct pp *p, uint32_t id, uint64_t loc)
{
	const struct sp_frame *fr = NULL;
	uint8_t mod = 0, *modp = &mod;
	char name[512];
	uint64_t sys;

	if (loc >= p->nframes + 2 || p->loc_done[loc])
		return;
	p->loc_done[loc] = 1;
	if (loc < p->nframes)
		fr = sp_defs_frame(p->d, id);
	field_varint(&p->sub2, LOCATION_ID, loc);
	if (fr != NULL && fr->module != 0 && fr->module < p->nmods) {
		modp = &p->mods[fr->module];
		*modp |= MOD_USED;
		field_varint(&p->sub2, LOCATION_MAPPING_ID, fr->module);
	}
	if (fr != NULL)
		field_varint(&p->sub2, LOCATION_ADDRESS, fr->abs_ip);
	if (fr == NULL || fr->mode == SP_FRAME_TRUNCATED ||
	    !symbol_lines(p, id, modp)) {
		if (fr == NULL)
			(void)snprintf(name, sizeof(name), "%s",
			    id == SP_FOLD_DEEPER ? "[deeper]" : "[unknown]");
		else if (fr->mode == SP_FRAME_TRUNCATED)
			(void)snprintf(name, sizeof(name), "[truncated]");
		else
			(void)sp_format_frame(p->d, id, name, sizeof(name));
		sys = cstring_index(p, name);
		put_line(p, sys, sys, 0, 0);
	}
	field_msg(&p->locations, PROFILE_LOCATION, &p->sub2);
}

/* The location id of frame id: the frame id; markers after the last. */
static uint64_t
location_id(const struct pp *p, uint32_t id)
{
	if (id == SP_FOLD_UNKNOWN)
		return p->nframes;
	if (id == SP_FOLD_DEEPER)
		return p->nframes + 1;
	return id;
}

/* The labels of a sample with a root, into p->sbody. */
static void
labels(struct pp *p, uint32_t group)
{
	const struct sp_fold_group *g = sp_fold_group(p->f, group);

	if (g == NULL)
		return;
	field_varint(&p->sub, LABEL_KEY, cstring_index(p, "pid"));
	field_varint(&p->sub, LABEL_NUM, g->pid);
	field_msg(&p->sbody, SAMPLE_LABEL, &p->sub);
	if (sp_fold_options(p->f)->root == SP_FOLD_ROOT_THREAD) {
		field_varint(&p->sub, LABEL_KEY, cstring_index(p, "tid"));
		field_varint(&p->sub, LABEL_NUM, g->tid);
		field_msg(&p->sbody, SAMPLE_LABEL, &p->sub);
	}
	field_varint(&p->sub, LABEL_KEY, cstring_index(p, "comm"));
	field_varint(&p->sub, LABEL_STR, g->comm ?
	    sp_string_index(p, g->comm) : cstring_index(p, "?"));
	field_msg(&p->sbody, SAMPLE_LABEL, &p->sub);
}

/* One Sample for entry e; nothing when no frame was kept. */
static int
sample(struct pp *p, const struct sp_fold_entry *e)
{
	uint64_t cpu;
	size_t n, i;
	int err;

	err = sp_fold_frames(p->f, p->d, e->stack,
	    sp_fold_options(p->f)->max_depth, &p->frames, &p->capframes, &n);
	if (err < 0 || n == 0)
		return err;
	/* Leaf first (profile.proto: "The leaf is at location_id[0]"). */
	for (i = 0; i < n; i++)
		location(p, p->frames[i], location_id(p, p->frames[i]));
	for (i = n; i-- > 0;)
		spi_buf_varint(&p->sub2, location_id(p, p->frames[i]));
	/* Packed repeated fields, proto3's default. */
	field_msg(&p->sbody, SAMPLE_LOCATION_ID, &p->sub2);
	/* Values in sample_type's order: CPU samples and their time, then
	 * off-CPU time, then preempted time; an entry has one kind, the
	 * others are 0. */
	cpu = e->kind != SP_SAMPLE_CPU ? 0 : p->unit == SP_FOLD_TIME_BOTH ?
	    e->count / p->unit_period : e->count;
	if (p->kinds & 1u << SP_SAMPLE_CPU) {
		spi_buf_varint(&p->sub2, cpu);
		if (p->period != 0)
			spi_buf_varint(&p->sub2, cpu * p->period);
	}
	if (p->kinds & 1u << SP_SAMPLE_OFF_CPU)
		spi_buf_varint(&p->sub2, e->kind == SP_SAMPLE_OFF_CPU ?
		    e->count : 0);
	if (p->kinds & 1u << SP_SAMPLE_PREEMPTED)
		spi_buf_varint(&p->sub2, e->kind == SP_SAMPLE_PREEMPTED ?
		    e->count : 0);
	field_msg(&p->sbody, SAMPLE_VALUE, &p->sub2);
	labels(p, e->group);
	field_msg(&p->samples, PROFILE_SAMPLE, &p->sbody);
	return 0;
}

static void
hex_build_id(const struct sp_module *m, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < m->build_id_len; i++) {
		out[2 * i] = hex[m->build_id[i] >> 4];
		out[2 * i + 1] = hex[m->build_id[i] & 15];
	}
	out[2 * i] = '\0';
}

/* The mappings of the modules that locations used, into b. */
static void
mappings(struct pp *p, struct sp_buf *b)
{
	const struct sp_module *m;
	char bid[2 * SP_BUILD_ID_MAX + 1];
	size_t id;
	uint8_t fl;

	for (id = 1; id < p->nmods; id++) {
		if (!((fl = p->mods[id]) & MOD_USED) ||
		    (m = sp_defs_module(p->d, (uint32_t)id)) == NULL)
			continue;
		hex_build_id(m, bid);
		field_varint(&p->sub, MAPPING_ID, id);
		field_varint(&p->sub, MAPPING_START, m->start);
		field_varint(&p->sub, MAPPING_LIMIT, m->start + m->size);
		field_varint(&p->sub, MAPPING_OFFSET, m->file_offset);
		field_varint(&p->sub, MAPPING_FILENAME,
		    sp_string_index(p, m->path));
		field_varint(&p->sub, MAPPING_BUILD_ID, cstring_index(p, bid));
		/* Every location has lines: pprof must not re-symbolize. */
		field_varint(&p->sub, MAPPING_HAS_FUNCTIONS, 1);
		field_varint(&p->sub, MAPPING_HAS_FILENAMES, !!(fl & MOD_FILES));
		field_varint(&p->sub, MAPPING_HAS_LINE_NUMBERS,
		    !!(fl & MOD_LINES));
		field_varint(&p->sub, MAPPING_HAS_INLINE_FRAMES,
		    !!(fl & MOD_INLINE));
		field_msg(b, PROFILE_MAPPING, &p->sub);
	}
}

static void
value_type(struct pp *p, struct sp_buf *b, unsigned field, const char *type,
    const char *unit)
{
	field_varint(&p->sub, VALUE_TYPE_TYPE, cstring_index(p, type));
	field_varint(&p->sub, VALUE_TYPE_UNIT, cstring_index(p, unit));
	field_msg(b, field, &p->sub);
}

/* Everything but the string table and samples' sections, into head. */
static int
encode_parts(struct pp *p, const struct sp_header *h, struct sp_buf *head,
    struct sp_buf *tail)
{
	const struct sp_fold_entry *e;
	struct sp_fold_stats st;
	size_t n, i;
	int err;

	(void)cstring_index(p, ""); /* string_table[0] must be "" */
	if ((err = sp_fold_entries(p->f, p->d, &e, &n)) < 0)
		return err;
	p->unit = sp_fold_unit(p->f, p->d, &p->unit_period);
	p->kinds = spi_fold_kinds(p->f, p->d);
	/* An event that counts: its events, by name (page-faults/count). */
	if ((p->kinds & 1u << SP_SAMPLE_CPU) && p->counts) {
		value_type(p, head, PROFILE_SAMPLE_TYPE, p->event, "count");
	} else if (p->kinds & 1u << SP_SAMPLE_CPU) {
		value_type(p, head, PROFILE_SAMPLE_TYPE, "samples", "count");
		if (p->period != 0)
			value_type(p, head, PROFILE_SAMPLE_TYPE, "cpu",
			    "nanoseconds");
	}
	if (p->kinds & 1u << SP_SAMPLE_OFF_CPU)
		value_type(p, head, PROFILE_SAMPLE_TYPE, "off_cpu",
		    "nanoseconds");
	if (p->kinds & 1u << SP_SAMPLE_PREEMPTED)
		value_type(p, head, PROFILE_SAMPLE_TYPE, "preempted",
		    "nanoseconds");
	for (i = 0; i < n; i++)
		if ((err = sample(p, &e[i])) < 0)
			return err;
	mappings(p, tail);
	sp_fold_get_stats(p->f, &st);
	field_varint(tail, PROFILE_TIME_NANOS, h->start_time_us * 1000);
	field_varint(tail, PROFILE_DURATION_NANOS, st.last_ns - st.first_ns);
	if (p->period != 0) {
		value_type(p, tail, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		field_varint(tail, PROFILE_PERIOD, p->period);
	} else if (p->counts) {
		value_type(p, tail, PROFILE_PERIOD_TYPE, p->event, "count");
		if (p->event_period != 0)
			field_varint(tail, PROFILE_PERIOD, p->event_period);
	}
	return 0;
}

static void
pp_fini(struct pp *p)
{
	spi_intern_fini(&p->ids);
	spi_buf_fini(&p->strtab);
	spi_buf_fini(&p->functions);
	spi_buf_fini(&p->locations);
	spi_buf_fini(&p->samples);
	spi_buf_fini(&p->sbody);
	spi_buf_fini(&p->sub);
	spi_buf_fini(&p->sub2);
	free(p->loc_done);
	free(p->mods);
	free(p->frames);
}

static int
buf_error(const struct sp_buf *const *bs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (bs[i]->err)
			return bs[i]->err;
	return 0;
}

int
sp_pprof_encode(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, unsigned char **out, size_t *len)
{
	struct pp p;
	struct sp_str ev;
	struct sp_buf head = { 0 }, tail = { 0 }, all = { 0 };
	const struct sp_buf *bufs[] = { &p.strtab, &p.functions, &p.locations,
		&p.samples, &p.sbody, &p.sub, &p.sub2, &head, &tail, &all };
	int err;

	*out = NULL;
	*len = 0;
	memset(&p, 0, sizeof(p));
	p.f = f;
	p.d = d;
	p.period = spi_fold_period_ns(d, h);
	p.counts = sp_fold_counts_events(d, &ev);
	(void)snprintf(p.event, sizeof(p.event), "%.*s", ev.len > 0 &&
	    ev.len < sizeof(p.event) ? (int)ev.len : 6, ev.len > 0 &&
	    ev.len < sizeof(p.event) ? ev.s : "events");
	p.event_period = sp_defs_recording(d) != NULL ?
	    sp_defs_recording(d)->period : 0;
	/* Frame ids index directly; the two markers follow the last id. */
	p.nframes = (size_t)sp_defs_count(d, SP_REC_FRAME) + 1;
	p.nmods = (size_t)sp_defs_count(d, SP_REC_MODULE) + 1;
	p.loc_done = calloc(p.nframes + 2, 1);
	p.mods = calloc(p.nmods, 1);
	err = p.loc_done == NULL || p.mods == NULL ? -ENOMEM :
	    encode_parts(&p, h, &head, &tail);
	if (err == 0) {
		/* Field order is free in protobuf; this is profile.proto's. */
		spi_buf_put(&all, head.p, head.len);
		spi_buf_put(&all, p.samples.p, p.samples.len);
		spi_buf_put(&all, tail.p, tail.len);
		spi_buf_put(&all, p.locations.p, p.locations.len);
		spi_buf_put(&all, p.functions.p, p.functions.len);
		spi_buf_put(&all, p.strtab.p, p.strtab.len);
		err = buf_error(bufs, sizeof(bufs) / sizeof(bufs[0]));
	}
	if (err == 0) {
		*out = all.p;
		*len = all.len;
	} else {
		spi_buf_fini(&all);
	}
	spi_buf_fini(&head);
	spi_buf_fini(&tail);
	pp_fini(&p);
	return err;
}

/* gzip (RFC 1952) through zlib: windowBits 15 + 16 asks for its header. */
static int
gzip_to(const unsigned char *p, size_t len, FILE *out)
{
	unsigned char chunk[65536] = { 0 }; /* cppcheck: deflate fills it */
	z_stream z;
	int zr, err = 0;
	size_t n;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = p;
	do {
		/* avail_in is a uInt: feed at most 1 GiB at a time. */
		if (z.avail_in == 0 && len > 0) {
			z.avail_in = (uInt)(len < (1u << 30) ? len : (1u << 30));
			len -= z.avail_in;
		}
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, len == 0 ? Z_FINISH : Z_NO_FLUSH);
		n = sizeof(chunk) - z.avail_out;
		if (n > 0 && fwrite(chunk, 1, n, out) != n)
			err = -EIO;
	} while (err == 0 && zr != Z_STREAM_END && (zr == Z_OK ||
	    zr == Z_BUF_ERROR));
	if (err == 0 && zr != Z_STREAM_END)
		err = -ENOMEM;
	(void)deflateEnd(&z);
	return err;
}

int
sp_pprof_write(struct sp_fold *f, const struct sp_defs *d,
    const struct sp_header *h, FILE *out)
{
	unsigned char *p;
	size_t len;
	int err;

	if ((err = sp_pprof_encode(f, d, h, &p, &len)) < 0)
		return err;
	err = gzip_to(p, len, out);
	free(p);
	if (err == 0 && (fflush(out) != 0 || ferror(out)))
		err = -EIO;
	return err;
}
