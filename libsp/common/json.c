/* SPDX-License-Identifier: MIT */
/* Strings for JSON, valid UTF-8 whatever the bytes (json_int.h). */
#include "common/json_int.h"

size_t
spi_utf8_len(const unsigned char *s, size_t len, size_t i)
{
	unsigned c = s[i], lo = 0x80, hi = 0xbf;
	size_t n, k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;	/* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n > len - i || s[i + 1] < lo || s[i + 1] > hi)
		return 0;
	for (k = 2; k < n; k++)
		if (s[i + k] < 0x80 || s[i + k] > 0xbf)
			return 0;
	return n;
}

size_t
spi_utf8_size(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n = 0, k;

	while (i < len) {
		k = spi_utf8_len(s, len, i);
		n += k > 0 ? k : 3;
		i += k > 0 ? k : 1;
	}
	return n;
}

void
spi_utf8_put(struct sp_buf *b, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;

	while (i < len) {
		k = spi_utf8_len(s, len, i);
		if (k > 0)
			spi_buf_put(b, s + i, k);
		else
			spi_buf_put(b, "\xef\xbf\xbd", 3);	/* U+FFFD */
		i += k > 0 ? k : 1;
	}
}

/*
 * The JSON text of the character at s[i..len) into out (at most 6
 * bytes); returns the bytes of s it stands for (at least 1).
 */
static size_t
one(const unsigned char *s, size_t len, size_t i, char *out, size_t *n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[i];
	size_t k;

	if (c == '"' || c == '\\') {
		out[0] = '\\';
		out[1] = (char)c;
		*n = 2;
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		out[0] = '\\';
		out[1] = 'u';
		out[2] = '0';
		out[3] = '0';
		out[4] = hex[c >> 4];
		out[5] = hex[c & 15];
		*n = 6;
		return 1;
	}
	if ((k = spi_utf8_len(s, len, i)) == 0) {
		out[0] = '\xef';	/* U+FFFD */
		out[1] = '\xbf';
		out[2] = '\xbd';
		*n = 3;
		return 1;
	}
	for (*n = 0; *n < k; (*n)++)
		out[*n] = (char)s[i + *n];
	return k;
}

void
spi_json_put(struct sp_buf *b, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run, n;
	char e[6];

	while (i < len) {
		/* Plain ASCII goes in runs. */
		for (run = i; run < len && s[run] >= 0x20 && s[run] < 0x7f &&
		    s[run] != '"' && s[run] != '\\'; run++)
			;
		if (run > i) {
			spi_buf_put(b, s + i, run - i);
			i = run;
			continue;
		}
		i += one(s, len, i, e, &n);
		spi_buf_put(b, e, n);
	}
}

void
spi_json_fput(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;
	char e[6];

	(void)putc('"', out);
	while (i < len) {
		i += one(s, len, i, e, &n);
		(void)fwrite(e, 1, n, out);
	}
	(void)putc('"', out);
}
