/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "common/lines_int.h"
#include "sym/kallsyms_int.h"

#define NO_MODULE SIZE_MAX

struct ksym {
	uint64_t start, end;
	size_t name, module;  /* offsets into names; module NO_MODULE: core */
	uint32_t seq;         /* line order, for a stable sort */
	uint8_t local;        /* t, w: after T, W at the same address */
};

struct sp_kallsyms {
	struct ksym *v;
	size_t n;
	size_t bad;
	int hidden;
	char *names;
};

/* One parsed line; spans into the line. */
struct kline {
	uint64_t addr;
	char type;
	const char *name, *module;
	size_t name_len, module_len;  /* module_len 0: the core kernel */
};

/* "ADDR TYPE NAME[\t[MODULE]]" (kernel/kallsyms.c, s_show). */
static int
parse_line(const char *s, size_t len, struct kline *l)
{
	size_t i = 0, end;
	const char *tab;

	/* The range [ADDR, end) of the last address would be empty. */
	if (memchr(s, '\0', len) != NULL ||
	    spi_parse_hex(s, len, &i, 0, &l->addr) < 0 ||
	    l->addr == UINT64_MAX ||
	    len - i < 4 || s[i] != ' ' || s[i + 2] != ' ')
		return -SP_EFORMAT;
	l->type = s[i + 1];
	i += 3;
	tab = memchr(s + i, '\t', len - i);
	end = tab != NULL ? (size_t)(tab - s) : len;
	l->name = s + i;
	l->name_len = end - i;
	l->module = NULL;
	l->module_len = 0;
	if (l->name_len == 0 || memchr(l->name, ' ', l->name_len) != NULL)
		return -SP_EFORMAT;
	if (tab == NULL)
		return 0;
	/* "\t[MODULE]": at least one byte between the brackets. */
	if (len - end < 4 || s[end + 1] != '[' || s[len - 1] != ']')
		return -SP_EFORMAT;
	l->module = s + end + 2;
	l->module_len = len - end - 3;
	if (memchr(l->module, '\t', l->module_len) != NULL)
		return -SP_EFORMAT;
	return 0;
}

static int
is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Table being built: symbols, names, and the last module interned
 * (kallsyms lists each module's symbols together). */
struct build {
	struct ksym *v;
	size_t n, cap;
	struct sp_buf names;
	size_t last_mod;
	const char *last_mod_s;
	size_t last_mod_len;
};

static int
add(struct build *b, const struct kline *l)
{
	struct ksym *e;

	if (b->n == SP_KALLSYMS_ENTRIES_MAX)
		return -SP_ELIMIT;
	if (spi_grow_zeroed(&b->v, &b->cap, b->n + 1, sizeof(*b->v)) != 0)
		return -ENOMEM;
	e = &b->v[b->n];
	e->start = l->addr;
	e->end = 0;
	e->seq = (uint32_t)b->n;
	e->local = l->type == 't' || l->type == 'w';
	e->module = NO_MODULE;
	if (l->module_len > 0 && b->last_mod != NO_MODULE &&
	    l->module_len == b->last_mod_len &&
	    memcmp(l->module, b->last_mod_s, l->module_len) == 0) {
		e->module = b->last_mod;
	} else if (l->module_len > 0) {
		e->module = b->names.len;
		spi_buf_put(&b->names, l->module, l->module_len);
		spi_buf_u8(&b->names, 0);
		b->last_mod = e->module;
		b->last_mod_s = l->module;
		b->last_mod_len = l->module_len;
	}
	e->name = b->names.len;
	spi_buf_put(&b->names, l->name, l->name_len);
	spi_buf_u8(&b->names, 0);
	b->n++;
	return b->names.err;
}

static int
by_address(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->local != y->local)
		return x->local - y->local;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
same_module(const struct sp_kallsyms *k, size_t a, size_t b)
{
	if (a == b)
		return 1;
	if (a == NO_MODULE || b == NO_MODULE)
		return 0;
	return strcmp(k->names + a, k->names + b) == 0;
}

/* Each group of aliases ends at the next address; when that is another
 * module's, or there is none, after SP_KALLSYMS_TAIL_MAX at most. */
static void
set_ends(struct sp_kallsyms *k)
{
	size_t i = 0, j, g;
	uint64_t end, start;

	while (i < k->n) {
		start = k->v[i].start;
		for (j = i; j < k->n && k->v[j].start == start; j++)
			;
		end = start > UINT64_MAX - SP_KALLSYMS_TAIL_MAX ? UINT64_MAX :
		    start + SP_KALLSYMS_TAIL_MAX;
		if (j < k->n && (k->v[j].start < end ||
		    same_module(k, k->v[i].module, k->v[j].module)))
			end = k->v[j].start;
		for (g = i; g < j; g++)
			k->v[g].end = end;
		i = j;
	}
}

static int
read_symbols(struct sp_kallsyms *k, struct build *b, const char *text,
    size_t len)
{
	struct sp_cur c = sp_cur_make(text, len);
	struct kline l;
	const char *line;
	size_t linelen;
	int rc, err = 0;

	while (err == 0 && (rc = spi_next_line(&c, SP_KALLSYMS_LINE_MAX,
	    &line, &linelen)) != 0) {
		if (rc < 0 || parse_line(line, linelen, &l) < 0) {
			k->bad++;
			continue;
		}
		if (!is_text(l.type))
			continue;
		if (l.addr == 0) {
			k->hidden = 1;
			continue;
		}
		err = add(b, &l);
	}
	return err;
}

int
spi_kallsyms_parse(const char *text, size_t len, struct sp_kallsyms **out)
{
	struct sp_kallsyms *k;
	struct build b;
	int err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return -ENOMEM;
	memset(&b, 0, sizeof(b));
	b.last_mod = NO_MODULE;
	err = read_symbols(k, &b, text, len);
	k->v = b.v;
	k->n = b.n;
	k->names = (char *)b.names.p;
	if (err) {
		spi_kallsyms_free(k);
		return err;
	}
	if (k->n > 0)
		qsort(k->v, k->n, sizeof(*k->v), by_address);
	set_ends(k);
	*out = k;
	return 0;
}

int
spi_kallsyms_open(const char *path, struct sp_kallsyms **out,
    struct sp_diag *diag)
{
	struct stat st;
	char *text;
	size_t len;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return spi_path_fail(diag, path, -errno, NULL);
	if (fstat(fd, &st) < 0) {
		err = -errno;
		(void)close(fd);
		return spi_path_fail(diag, path, err, NULL);
	}
	if (!S_ISREG(st.st_mode)) {
		(void)close(fd);
		return spi_path_fail(diag, path, -EPERM,
		    "not a regular file (refused)");
	}
	/* /proc files say 0 bytes: the hint only saves reallocations. */
	err = spi_read_fd(fd, SP_KALLSYMS_FILE_MAX, st.st_size > 0 ?
	    (size_t)st.st_size : 0, &text, &len);
	(void)close(fd);
	if (err)
		return spi_path_fail(diag, path, err, NULL);
	err = spi_kallsyms_parse(text, len, out);
	free(text);
	if (err)
		return spi_path_fail(diag, path, err, NULL);
	return 0;
}

void
spi_kallsyms_free(struct sp_kallsyms *k)
{
	if (k == NULL)
		return;
	free(k->v);
	free(k->names);
	free(k);
}

/* The first symbol whose address is above addr (n when none is). */
static size_t
upper(const struct sp_kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *
spi_kallsyms_find(const struct sp_kallsyms *k, uint64_t addr,
    uint64_t *start, const char **module)
{
	const struct ksym *s;
	size_t i = upper(k, addr);

	if (i == 0)
		return NULL;
	s = &k->v[i - 1];
	if (addr >= s->end)
		return NULL;
	/* The preferred alias is the first of those at this address. */
	s = &k->v[upper(k, s->start - 1)];
	if (start != NULL)
		*start = s->start;
	if (module != NULL)
		*module = s->module == NO_MODULE ? NULL : k->names + s->module;
	return k->names + s->name;
}

size_t
spi_kallsyms_count(const struct sp_kallsyms *k)
{
	return k->n;
}

int
spi_kallsyms_symbol(const struct sp_kallsyms *k, size_t i, struct sp_ksym *out)
{
	const struct ksym *s;

	if (i >= k->n)
		return -SP_ENOTFOUND;
	s = &k->v[i];
	out->start = s->start;
	out->end = s->end;
	out->name = k->names + s->name;
	out->module = s->module == NO_MODULE ? NULL : k->names + s->module;
	return 0;
}

size_t
spi_kallsyms_bad_lines(const struct sp_kallsyms *k)
{
	return k->bad;
}

int
spi_kallsyms_hidden(const struct sp_kallsyms *k)
{
	return k->hidden;
}
