/* SPDX-License-Identifier: MIT */
/*
 * The library's words to an embedder: a kernel frame left unnamed
 * (kernel_none) is named by its address, not as an offset in
 * [kernel.kallsyms]; an anonymous frame whose perf map was not asked for
 * says which option asks for it, not sp-sym's flag alone; a rate above
 * the kernel's limit names sp_recorder_opts.frequency, not sp-record's
 * -F.  On a spool
 * written here: a kernel module as the recorder defines it (mapped at
 * its addresses, offset 0) and an anonymous mapping of a process.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/common/error.h"
#include "sp/record/recorder.h"
#include "sp/spool/format.h"
#include "sp/spool/snapshot.h"
#include "sp/spool/writer.h"
#include "sp/sym/symbolizer.h"

#define KADDR 0xffffffff81382fa3ull
#define JIT_PID 4242u
#define JIT_START 0x7f0000000000ull

static void
put(struct sp_writer *w, struct sp_record *r)
{
	cr_assert_eq(sp_writer_put(w, r, NULL), 0, "record kind %u", r->kind);
}

/* Module 1 the kernel's, module 2 an anonymous mapping of JIT_PID;
 * frame 1 a kernel frame, frame 2 one in the anonymous mapping. */
static void
write_spool(const char *path)
{
	struct sp_writer *w;
	struct sp_header h;
	struct sp_record r;
	uint32_t kname, anon;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_writer_string(w, "[kernel.kallsyms]", 17, &kname), 0);
	cr_assert_eq(sp_writer_string(w, "//anon", 6, &anon), 0);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.flags = SP_MOD_KERNEL;
	r.u.module.start = 0xffff800000000000ull;
	r.u.module.size = 0x00007fffffffffffull;
	r.u.module.path = kname;
	put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = JIT_PID;
	r.u.module.flags = SP_MOD_ANON;
	r.u.module.start = JIT_START;
	r.u.module.size = 0x10000;
	r.u.module.path = anon;
	put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_FRAME;
	r.u.frame.module = 1;
	r.u.frame.mode = SP_FRAME_KERNEL;
	r.u.frame.abs_ip = r.u.frame.rel_ip = KADDR;
	put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_FRAME;
	r.u.frame.module = 2;
	r.u.frame.mode = SP_FRAME_USER;
	r.u.frame.abs_ip = JIT_START + 0x123;
	r.u.frame.rel_ip = 0x123;
	put(w, &r);
	cr_assert_eq(sp_writer_finish(w), 0);
	sp_writer_free(w);
	cr_assert_eq(close(fd), 0);
}

Test(libwords, a_kernel_address_is_no_offset_and_options_are_named)
{
	static const uint32_t other_pid = 1;
	char path[] = "/tmp/sp-unit-words-XXXXXX", name[64];
	struct sp_sym_options o = { 0 };
	struct sp_snapshot *s;
	struct sp_symbolizer *sym;
	struct sp_resolved_stack st;
	const struct sp_sym_report *rep;
	size_t i;
	int fd = mkstemp(path), said = 0;

	cr_assert_geq(fd, 0);
	(void)close(fd);
	write_spool(path);
	cr_assert_eq(sp_snapshot_open(path, &s, NULL), 0);
	(void)unlink(path);

	sp_format_frame(sp_snapshot_defs(s), 1, name, sizeof(name));
	cr_assert_str_eq(name, "0xffffffff81382fa3", "an address, not an "
	    "offset in the kernel: %s", name);
	sp_format_frame(sp_snapshot_defs(s), 2, name, sizeof(name));
	cr_assert_str_eq(name, "anon+0x123", "a user module's offset stays "
	    "(%s)", name);

	o.kernel_none = 1;
	o.perf_map_pids = &other_pid;
	o.nperf_map_pids = 1;
	cr_assert_eq(sp_symbolizer_new(sp_snapshot_defs(s),
	    sp_snapshot_header(s), &o, NULL, &sym), 0);
	cr_assert_eq(sp_symbolizer_resolve_frame(sym, 1, &st), 0);
	cr_assert_eq(st.n, 1);
	cr_assert_eq(st.frames[0].kind, SP_RESOLVED_KERNEL);
	cr_assert_str_eq(st.frames[0].name, "0xffffffff81382fa3");
	cr_assert_eq(sp_symbolizer_resolve_frame(sym, 2, &st), 0);
	cr_assert_eq(st.frames[0].origin, SP_ORIGIN_ADDRESS);
	rep = sp_symbolizer_report(sym);
	for (i = 0; i < rep->nmissing; i++)
		if (strstr(rep->missing[i].why, "perf map") != NULL) {
			said = 1;
			cr_assert_not_null(strstr(rep->missing[i].why,
			    "perf_map_pids"), "names the option: %s",
			    rep->missing[i].why);
		}
	cr_assert(said, "the anonymous frame's module is in the report");
	sp_symbolizer_free(sym);
	sp_snapshot_free(s);
}

/* The recorder's refusal of a rate names the field an embedder sets. */
Test(libwords, a_rate_above_the_limit_names_the_options_field)
{
	struct sp_recorder_opts o = { 0 };
	struct sp_diag diag = { 0 };
	struct sp_recorder *r = NULL;
	struct sp_writer *w;
	struct sp_header h;
	unsigned max;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), err;

	cr_assert_geq(fd, 0);
	err = sp_max_sample_rate(&max);
	if (err == -ENOENT)
		cr_skip_test("no /proc/sys/kernel/perf_event_max_sample_rate");
	cr_assert_eq(err, 0, "%s", sp_strerror(err));
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	o.frequency = max + 1;
	err = sp_recorder_new(w, &o, &r, &diag);
	cr_assert_eq(err, -SP_EFREQ, "%u Hz over a limit of %u: %d (%s)",
	    o.frequency, max, err, diag.msg);
	cr_assert_eq(diag.permitted, max);
	cr_assert_not_null(strstr(diag.msg, "sp_recorder_opts.frequency"),
	    "names the field: %s", diag.msg);
	cr_assert_null(strstr(diag.msg, "-F"), "no tool's flag: %s", diag.msg);
	cr_assert_null(strstr(diag.msg, "sp-record"), "%s", diag.msg);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}
