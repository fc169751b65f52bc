/* SPDX-License-Identifier: MIT */
/* Readers on damaged input: every truncation, growing files, tests/bad. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"
#include "sp/spool/tail.h"

/* Samples whose records end at or before each offset of m. */
static size_t *
samples_before(const struct mem *m)
{
	size_t *count = calloc(m->len + 1, sizeof(*count));
	struct sp_replay *r;
	struct sp_record rec;
	size_t off, n = 0;

	cr_assert_eq(sp_replay_open_mem(m->p, m->len, &r, NULL), 0);
	off = SP_HEADER_LEN;
	while (sp_replay_next(r, &rec) > 0) {
		for (; off < rec.offset + rec.size; off++)
			count[off] = n;
		n += rec.kind == SP_REC_SAMPLE;
	}
	for (; off <= m->len; off++)
		count[off] = n;
	sp_replay_free(r);
	return count;
}

Test(truncation, every_prefix_reads_back_its_intact_part)
{
	struct mem m = make_reference(12, 1);
	size_t *want = samples_before(&m), cut;

	for (cut = 0; cut <= m.len; cut++) {
		struct sp_snapshot *s;
		struct sp_replay *r;
		struct sp_record rec;
		struct sp_diag diag;
		size_t n = 0;
		int err;

		err = sp_snapshot_open_mem(m.p, cut, &s, &diag);
		if (cut < SP_HEADER_LEN) {
			/* No header, nothing to recover: not a spool. */
			cr_assert_eq(err, -SP_EFORMAT, "cut at %zu", cut);
			cr_assert_eq(diag.offset, cut);
			cr_assert_eq(strncmp(diag.msg, "not a spool: ", 13), 0,
			    "cut at %zu: %s", cut, diag.msg);
			cr_assert_eq(sp_replay_open_mem(m.p, cut, &r, &diag),
			    -SP_EFORMAT, "cut at %zu", cut);
			continue;
		}
		cr_assert_eq(err, 0, "cut at %zu: %s", cut, diag.msg);
		cr_assert_eq(sp_snapshot_status(s)->truncated, cut < m.len,
		    "cut at %zu", cut);
		cr_assert_eq(sp_snapshot_nsamples(s), want[cut], "cut at %zu",
		    cut);
		cr_assert_leq(sp_snapshot_status(s)->end_offset, cut);
		sp_snapshot_free(s);

		cr_assert_eq(sp_replay_open_mem(m.p, cut, &r, NULL), 0);
		while ((err = sp_replay_next(r, &rec)) > 0)
			n += rec.kind == SP_REC_SAMPLE;
		cr_assert_eq(err, 0, "cut at %zu", cut);
		cr_assert_eq(sp_replay_status(r)->truncated, cut < m.len);
		cr_assert_eq(n, want[cut]);
		sp_replay_free(r);
	}
	free(want);
	mem_free(&m);
}

Test(truncation, garbage_is_not_a_truncation)
{
	static const char text[] = "root:x:0:0:root:/root:/bin/bash\n";
	struct sp_snapshot *s;
	struct sp_diag diag;

	cr_assert_eq(sp_snapshot_open_mem(text, sizeof(text) - 1, &s, &diag),
	    -SP_EMAGIC);
	cr_assert_eq(diag.offset, 0);
}

Test(tail, follows_a_growing_file_byte_by_byte)
{
	struct mem m = make_reference(20, 1);
	char path[] = "/tmp/sp-tail-XXXXXX";
	int fd = mkstemp(path), st = 0;
	struct sp_tail *t;
	struct sp_sample out[4];
	size_t off, n, total = 0;

	cr_assert(fd >= 0);
	cr_assert_eq(sp_tail_open(path, &t), 0);
	cr_assert_null(sp_tail_header(t));
	/* Append one byte at a time: every poll sees a partial record. */
	for (off = 0; off < m.len; off++) {
		cr_assert_eq(write(fd, m.p + off, 1), 1);
		do {
			st = sp_tail_poll(t, out, 4, &n);
			cr_assert_geq(st, 0, "at %zu: %s", off,
			    sp_tail_diag(t)->msg);
			total += n;
		} while (n == 4);
		if (off + 1 >= SP_HEADER_LEN)
			cr_assert_not_null(sp_tail_header(t));
		cr_assert_eq(st, off + 1 == m.len);
	}
	cr_assert_eq(total, 20);
	sp_tail_free(t);
	close(fd);
	unlink(path);
	mem_free(&m);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = malloc(1 << 16);

	cr_assert_not_null(f, "%s", path);
	*len = fread(p, 1, (1 << 16) - 1, f);
	p[*len] = '\0';
	fclose(f);
	return p;
}

Test(bad, every_file_in_tests_bad_gives_its_error)
{
	DIR *dir = opendir("tests/bad");
	struct dirent *e;
	int files = 0;

	cr_assert_not_null(dir, "run from the source top");
	while ((e = readdir(dir)) != NULL) {
		char path[512], msg[400];
		size_t len, elen;
		char *data, *expect;
		struct sp_snapshot *s = NULL;
		struct sp_replay *r = NULL;
		struct sp_record rec;
		struct sp_diag diag;
		int err;

		len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".spl") != 0)
			continue;
		snprintf(path, sizeof(path), "tests/bad/%s", e->d_name);
		data = slurp(path, &len);
		snprintf(path + strlen(path) - 4, 8, ".expect");
		expect = slurp(path, &elen);
		if (elen > 0 && expect[elen - 1] == '\n')
			expect[elen - 1] = '\0';

		memset(&diag, 0, sizeof(diag));
		err = sp_snapshot_open_mem(data, len, &s, &diag);
		cr_assert_lt(err, 0, "%s: snapshot accepted it", e->d_name);
		snprintf(msg, sizeof(msg), "offset 0x%llx: %s", diag.offset,
		    diag.msg);
		cr_assert_str_eq(msg, expect, "%s (snapshot)", e->d_name);

		err = sp_replay_open_mem(data, len, &r, &diag);
		if (err == 0) {
			while ((err = sp_replay_next(r, &rec)) > 0)
				;
			diag = *sp_replay_diag(r);
			sp_replay_free(r);
		}
		cr_assert_lt(err, 0, "%s: replay accepted it", e->d_name);
		snprintf(msg, sizeof(msg), "offset 0x%llx: %s", diag.offset,
		    diag.msg);
		cr_assert_str_eq(msg, expect, "%s (replay)", e->d_name);
		free(data);
		free(expect);
		files++;
	}
	closedir(dir);
	cr_assert_geq(files, 15, "tests/bad holds its files");
}
