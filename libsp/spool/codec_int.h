/* SPDX-License-Identifier: MIT */
#ifndef SP_CODEC_INT_H
#define SP_CODEC_INT_H

/*
 * The record codec: framing ({kind, length, payload}) and the payload of
 * each kind, both directions.  It knows nothing of ids beyond their
 * encoding; sp/spool/spool.h's defs check references.
 */

#include "common/buf_int.h"
#include "sp/spool/spool.h"

struct sp_codec {
	uint64_t clock;			/* stream clock, ns */
	struct sp_counter *counters;	/* scratch for SUMMARY */
	size_t counters_cap;
	struct sp_symline lines[SP_INLINE_MAX]; /* scratch for SYMBOL */
};

void spi_codec_init(struct sp_codec *c, uint64_t clock_base);
void spi_codec_fini(struct sp_codec *c);

/*
 * Reads the frame of the record at p[0..len): its kind, the bytes of kind
 * and length (*hdr) and the payload length (*plen).  Returns 0 when the
 * whole record is in p; -SP_ETRUNC when it runs past len; -SP_EFORMAT,
 * with diag, for a length over SP_RECORD_MAX or a bad kind.  Here and in
 * spi_record_decode, diag (may be NULL) is filled at offset 0: the caller,
 * which knows where the record lies, moves it there.
 */
int spi_record_frame(const uint8_t *p, size_t len, unsigned *kind,
    size_t *hdr, size_t *plen, struct sp_diag *diag);

/*
 * Decodes the payload of a record of a known kind into r (kind and the
 * fields; not id, offset or size), advancing the stream clock.  Strings in
 * r point into p and are not NUL-terminated; SUMMARY and SYMBOL arrays
 * point into c's scratch until the next call.  Returns 0, or -SP_EFORMAT
 * (or -ENOMEM) with diag naming the field.
 */
int spi_record_decode(struct sp_codec *c, unsigned kind, const uint8_t *p,
    size_t len, struct sp_record *r, struct sp_diag *diag);

/*
 * Why a SYMBOL's fixed fields are not ones a spool may hold (its frame,
 * origin or count), or NULL: the decoder's check, which the writer makes
 * on the record too.
 */
const char *spi_symbol_invalid(const struct sp_symbol *s);

/*
 * Encodes the payload of r into payload (replacing its contents),
 * advancing the stream clock.  Returns 0, -SP_ELIMIT for a payload over
 * SP_RECORD_MAX, -SP_EUSAGE for an unknown kind or a time delta that does
 * not fit, or -ENOMEM.
 */
int spi_record_payload(struct sp_codec *c, const struct sp_record *r,
    struct sp_buf *payload);

/* Appends a framed record to out.  Returns 0 or -ENOMEM. */
int spi_record_put(struct sp_buf *out, unsigned kind, const uint8_t *payload,
    size_t len);

#endif
