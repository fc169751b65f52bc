/* SPDX-License-Identifier: MIT */
/* The byte-level codecs: varints, zigzag, the header, record framing;
 * the writer's interning table. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/intern_int.h"
#include "common/varint_int.h"
#include "sp/spool/spool.h"
#include "spool/codec_int.h"

Test(varint, round_trips_edge_values)
{
	static const uint64_t v[] = { 0, 1, 127, 128, 255, 300, 16383, 16384,
		(1ull << 32) - 1, 1ull << 32, (1ull << 63) - 1, 1ull << 63,
		UINT64_MAX };
	static const int len[] = { 1, 1, 1, 2, 2, 2, 2, 3, 5, 5, 9, 10, 10 };
	uint8_t b[SP_VARINT_MAX];
	uint64_t out;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = spi_varint_put(b, v[i]);

		cr_assert_eq(n, (size_t)len[i], "length of %llu",
		    (unsigned long long)v[i]);
		cr_assert_eq(spi_varint_get(b, n, &out), (int)n);
		cr_assert_eq(out, v[i]);
		/* Every shorter prefix is "need more bytes". */
		while (n-- > 0)
			cr_assert_eq(spi_varint_get(b, n, &out), 0);
	}
}

Test(varint, rejects_values_over_64_bits)
{
	uint8_t b[11];
	uint64_t out;

	memset(b, 0xff, sizeof(b));
	cr_assert_eq(spi_varint_get(b, sizeof(b), &out), -1);
	memset(b, 0x80, 9);
	b[9] = 0x02; /* bit 64 */
	cr_assert_eq(spi_varint_get(b, 10, &out), -1);
	b[9] = 0x01;
	cr_assert_eq(spi_varint_get(b, 10, &out), 10);
	cr_assert_eq(out, 1ull << 63);
}

Test(varint, zigzag_maps_small_magnitudes_short)
{
	static const int64_t v[] = { 0, -1, 1, -2, 2, INT64_MIN, INT64_MAX };
	static const uint64_t z[] = { 0, 1, 2, 3, 4, UINT64_MAX,
		UINT64_MAX - 1 };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		cr_assert_eq(sp_zigzag(v[i]), z[i]);
		cr_assert_eq(sp_unzigzag(z[i]), v[i]);
	}
}

static void
sample_header(struct sp_header *h)
{
	memset(h, 0, sizeof(*h));
	h->start_time_us = 123456789;
	h->start_mono_ns = 987654321;
	h->sample_interval_us = 1000;
	h->page_size = 4096;
	memset(h->boot_id, 0x11, 16);
	memset(h->hostname, 'h', 64); /* exactly 64 bytes: no NUL on disk */
	strcpy(h->release, "6.1.0");
	strcpy(h->machine, "x86_64");
}

Test(header, round_trips)
{
	struct sp_header h, back;
	uint8_t b[SP_HEADER_LEN];
	struct sp_diag d;

	sample_header(&h);
	sp_header_encode(&h, b);
	cr_assert_eq(memcmp(b, SP_MAGIC, SP_MAGIC_LEN), 0);
	cr_assert_eq(sp_header_decode(b, sizeof(b), &back, &d), 0);
	cr_assert_eq(back.version, 1);
	cr_assert_eq(back.header_len, SP_HEADER_LEN);
	cr_assert_eq(back.start_time_us, h.start_time_us);
	cr_assert_eq(back.start_mono_ns, h.start_mono_ns);
	cr_assert_eq(back.sample_interval_us, 1000);
	cr_assert_eq(back.page_size, 4096);
	cr_assert_eq(memcmp(back.boot_id, h.boot_id, 16), 0);
	cr_assert_eq(strlen(back.hostname), 64);
	cr_assert_str_eq(back.release, "6.1.0");
	cr_assert_str_eq(back.machine, "x86_64");
}

Test(header, every_prefix_is_truncated_not_wrong)
{
	struct sp_header h, back;
	uint8_t b[SP_HEADER_LEN];
	size_t n;

	sample_header(&h);
	sp_header_encode(&h, b);
	for (n = 0; n < sizeof(b); n++)
		cr_assert_eq(sp_header_decode(b, n, &back, NULL), -SP_ETRUNC,
		    "prefix of %zu bytes", n);
}

Test(header, rejects_bad_magic_version_length_and_flags)
{
	struct sp_header h, back;
	uint8_t b[SP_HEADER_LEN + 16];
	struct sp_diag d;

	sample_header(&h);
	sp_header_encode(&h, b);
	b[1] = 'X';
	cr_assert_eq(sp_header_decode(b, SP_HEADER_LEN, &back, &d), -SP_EMAGIC);
	cr_assert_eq(sp_header_decode(b, 3, &back, &d), -SP_EMAGIC);
	sp_header_encode(&h, b);
	b[8] = 2;
	cr_assert_eq(sp_header_decode(b, SP_HEADER_LEN, &back, &d),
	    -SP_EVERSION);
	cr_assert_eq(d.offset, 8);
	sp_header_encode(&h, b);
	b[10] = 100; /* header_len 100 < 216 */
	b[11] = 0;
	cr_assert_eq(sp_header_decode(b, SP_HEADER_LEN, &back, &d),
	    -SP_EFORMAT);
	cr_assert_eq(d.offset, 10);
	sp_header_encode(&h, b);
	b[12] = 1;
	cr_assert_eq(sp_header_decode(b, SP_HEADER_LEN, &back, &d),
	    -SP_EVERSION);
}

Test(header, skips_unknown_trailing_fields_only_when_zero)
{
	struct sp_header h, back;
	uint8_t b[SP_HEADER_LEN + 16];
	struct sp_diag d;

	sample_header(&h);
	memset(b, 0, sizeof(b));
	sp_header_encode(&h, b);
	b[10] = (uint8_t)(SP_HEADER_LEN + 16);
	cr_assert_eq(sp_header_decode(b, sizeof(b), &back, &d), 0);
	cr_assert_eq(back.header_len, SP_HEADER_LEN + 16);
	b[SP_HEADER_LEN + 5] = 7;
	cr_assert_eq(sp_header_decode(b, sizeof(b), &back, &d), -SP_EVERSION);
	cr_assert_eq(d.offset, SP_HEADER_LEN + 5);
}

Test(frame, checks_length_before_payload)
{
	uint8_t b[16] = { SP_REC_STRING, 0x80, 0x80, 0x80, 0x01 };
	unsigned kind;
	size_t hdr, plen;
	struct sp_diag why = { 0 };

	/* 2 MiB claimed: over the maximum, whatever follows. */
	cr_assert_eq(spi_record_frame(b, 5, &kind, &hdr, &plen, &why),
	    -SP_EFORMAT);
	cr_assert(why.msg[0] != '\0');
	b[1] = 3;
	b[2] = 'a';
	cr_assert_eq(spi_record_frame(b, 4, &kind, &hdr, &plen, &why),
	    -SP_ETRUNC);
	cr_assert_eq(spi_record_frame(b, 5, &kind, &hdr, &plen, &why), 0);
	cr_assert_eq(kind, SP_REC_STRING);
	cr_assert_eq(hdr, 2);
	cr_assert_eq(plen, 3);
	b[0] = 0;
	cr_assert_eq(spi_record_frame(b, 5, &kind, &hdr, &plen, &why),
	    -SP_EFORMAT);
}

/* Encodes r alone and decodes it back into out. */
static void
roundtrip(const struct sp_record *r, struct sp_record *out,
    struct sp_codec *dec)
{
	struct sp_codec enc;
	struct sp_buf payload = { 0 };
	struct sp_diag why = { 0 };

	spi_codec_init(&enc, 500);
	spi_codec_init(dec, 500);
	cr_assert_eq(spi_record_payload(&enc, r, &payload), 0);
	cr_assert_eq(spi_record_decode(dec, r->kind, payload.p, payload.len,
	    out, &why), 0, "kind %u: %s", r->kind, why.msg);
	/* Every strict prefix of the payload is malformed. */
	if (r->kind != SP_REC_STRING && payload.len > 0) {
		struct sp_record tmp;
		struct sp_codec c2;

		spi_codec_init(&c2, 500);
		cr_assert_neq(spi_record_decode(&c2, r->kind, payload.p,
		    payload.len - 1, &tmp, &why), 0, "kind %u", r->kind);
		spi_codec_fini(&c2);
	}
	spi_codec_fini(&enc);
	spi_buf_fini(&payload);
}

Test(payload, timed_records_carry_signed_deltas)
{
	struct sp_record r, back;
	struct sp_codec dec;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SAMPLE;
	r.u.sample.thread = 3;
	r.u.sample.stack = 9;
	r.u.sample.time = 400; /* before the clock base: negative delta */
	r.u.sample.cpu = 1;
	roundtrip(&r, &back, &dec);
	cr_assert_eq(back.u.sample.time, 400);
	cr_assert_eq(back.u.sample.thread, 3);
	cr_assert_eq(back.u.sample.stack, 9);
	cr_assert_eq(back.u.sample.cpu, 1);
	cr_assert_eq(dec.clock, 400);
	spi_codec_fini(&dec);
}

Test(payload, module_and_symbol_round_trip)
{
	struct sp_record r, back;
	struct sp_codec dec;
	struct sp_symline lines[2] = { { 4, 5, 10 }, { 6, 0, 0 } };

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = 1;
	r.u.module.flags = SP_MOD_DELETED;
	r.u.module.start = 0x7f0000000000ull;
	r.u.module.size = 0x1000;
	r.u.module.build_id_len = 3;
	memcpy(r.u.module.build_id, "\x01\x02\x03", 3);
	r.u.module.path = 2;
	roundtrip(&r, &back, &dec);
	cr_assert_eq(memcmp(&back.u.module, &r.u.module, sizeof(r.u.module)),
	    0);
	spi_codec_fini(&dec);

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SYMBOL;
	r.u.symbol.frame = 7;
	r.u.symbol.origin = SP_ORIGIN_ELF;
	r.u.symbol.flags = SP_SYM_HIDDEN;
	r.u.symbol.count = 2;
	r.u.symbol.lines = lines;
	roundtrip(&r, &back, &dec);
	cr_assert_eq(back.u.symbol.count, 2);
	cr_assert_eq(back.u.symbol.lines[0].line, 10);
	cr_assert_eq(back.u.symbol.lines[1].function, 6);
	spi_codec_fini(&dec);
}

/* The uid is an appended field: a MODULE without it is the older form. */
Test(payload, module_uid_is_optional)
{
	struct sp_record r, back;
	struct sp_codec enc, dec;
	struct sp_buf payload = { 0 };
	struct sp_diag why = { 0 };
	size_t full;

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = 9;
	r.u.module.size = 0x1000;
	r.u.module.uid_plus1 = 1001;
	spi_codec_init(&enc, 0);
	spi_codec_init(&dec, 0);
	cr_assert_eq(spi_record_payload(&enc, &r, &payload), 0);
	full = payload.len;
	cr_assert_eq(spi_record_decode(&dec, SP_REC_MODULE, payload.p, full,
	    &back, &why), 0);
	cr_assert_eq(back.u.module.uid_plus1, 1001);
	/* 1001 takes two varint bytes; without them: unknown, not an error. */
	cr_assert_eq(spi_record_decode(&dec, SP_REC_MODULE, payload.p, full - 2,
	    &back, &why), 0);
	cr_assert_eq(back.u.module.uid_plus1, 0);
	cr_assert_eq(back.u.module.pid, 9);
	/* Half a varint is malformed. */
	cr_assert_neq(spi_record_decode(&dec, SP_REC_MODULE, payload.p,
	    full - 1, &back, &why), 0);
	/* Unknown (0) is not written at all. */
	r.u.module.uid_plus1 = 0;
	payload.len = 0;
	cr_assert_eq(spi_record_payload(&enc, &r, &payload), 0);
	cr_assert_eq(payload.len, full - 2);
	spi_codec_fini(&enc);
	spi_codec_fini(&dec);
	spi_buf_fini(&payload);
}

Test(payload, rejects_out_of_range_fields)
{
	static const struct {
		unsigned kind;
		uint8_t bytes[8];
		size_t len;
	} bad[] = {
		{ SP_REC_FRAME, { 0, 3, 0, 0 }, 4 },         /* mode 3 */
		{ SP_REC_FRAME, { 1, 2, 0, 0 }, 4 },         /* marker+module */
		{ SP_REC_NODE, { 0, 0 }, 2 },                /* no frame */
		{ SP_REC_SAMPLE, { 0, 0, 0, 0 }, 4 },        /* no thread */
		{ SP_REC_SAMPLE, { 1, 0, 0x03, 0 }, 4 },     /* before 0 */
		{ SP_REC_PYTHON, { 0, 0, 1, 2 }, 4 },        /* status 2 */
		{ SP_REC_PROC, { 0, 9, 0, 0, 0, 0, 0, 0 }, 8 }, /* event 9 */
		{ SP_REC_END, { 1, 2, 3 }, 3 },              /* short crc */
		{ SP_REC_SUMMARY, { 0x7f, 0, 0 }, 3 },       /* count > room */
		{ SP_REC_SYMBOL, { 1, 2, 0, 0, 65 }, 5 },    /* 65 lines */
		{ SP_REC_THREAD, { 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0 }, 8 },
	};
	struct sp_codec c;
	struct sp_record r;
	struct sp_diag why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		spi_codec_init(&c, 1);
		why.msg[0] = '\0';
		cr_assert_eq(spi_record_decode(&c, bad[i].kind, bad[i].bytes,
		    bad[i].len, &r, &why), -SP_EFORMAT, "case %zu", i);
		cr_assert(why.msg[0] != '\0', "case %zu has a reason", i);
		spi_codec_fini(&c);
	}
}

/* Keys that differ in one byte or only in their kind, through several
 * doublings of the table: each keeps the id it was added with. */
Test(intern, keys_keep_their_ids_through_growth)
{
	struct sp_intern t;
	uint8_t key[12];
	uint64_t hash;
	uint32_t i, kind;

	memset(&t, 0, sizeof(t));
	memset(key, 0xab, sizeof(key));
	for (kind = 1; kind <= 2; kind++) {
		for (i = 0; i < 50000; i++) {
			memcpy(key + 3, &i, sizeof(i));
			cr_assert_eq(spi_intern_find(&t, kind, key, sizeof(key),
			    &hash), 0);
			cr_assert_eq(spi_intern_add(&t, kind, key, sizeof(key),
			    hash, kind * 100000 + i + 1), 0);
		}
	}
	cr_assert_eq(spi_intern_find(&t, 1, key, 0, &hash), 0);
	cr_assert_eq(spi_intern_add(&t, 1, key, 0, hash, 7), 0);
	for (kind = 1; kind <= 2; kind++) {
		for (i = 0; i < 50000; i++) {
			memcpy(key + 3, &i, sizeof(i));
			cr_assert_eq(spi_intern_find(&t, kind, key, sizeof(key),
			    &hash), kind * 100000 + i + 1);
		}
	}
	cr_assert_eq(spi_intern_find(&t, 1, key, 0, &hash), 7);
	cr_assert_eq(spi_intern_find(&t, 2, key, 0, &hash), 0);
	cr_assert_eq(spi_intern_find(&t, 3, key, sizeof(key), &hash), 0);
	key[11] ^= 1;
	cr_assert_eq(spi_intern_find(&t, 1, key, sizeof(key), &hash), 0);
	spi_intern_fini(&t);
}
