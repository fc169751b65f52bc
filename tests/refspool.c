/* SPDX-License-Identifier: MIT */
/* The reference spool that unit tests, CLI tests and the fuzz corpus use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refspool.h"

size_t
ref_stack(size_t i, uint32_t frames[8])
{
	/* Frames 1..4 are user frames main<-a<-b / main<-a<-c, frame 5 a
	 * kernel frame; stack 2 ends in the truncated marker (frame 6). */
	switch (i % 3) {
	case 0:
		frames[0] = 3, frames[1] = 2, frames[2] = 1;
		return 3;
	case 1:
		frames[0] = 5, frames[1] = 4, frames[2] = 2, frames[3] = 1;
		return 4;
	default:
		frames[0] = 2, frames[1] = 6;
		return 2;
	}
}

/* Puts r; a failure is a bug in this file or in the writer. */
static uint32_t
put(struct sp_writer *w, struct sp_record *r)
{
	uint32_t id = 0;
	int err = sp_writer_put(w, r, &id);

	if (err) {
		(void)fprintf(stderr, "refspool: put kind %u: %s\n", r->kind,
		    sp_strerror(err));
		abort();
	}
	return id;
}

static void
check(int err, const char *what)
{
	if (err) {
		(void)fprintf(stderr, "refspool: %s: %s\n", what,
		    sp_strerror(err));
		abort();
	}
}

static void
put_defs(struct sp_writer *w)
{
	struct sp_record r;
	uint32_t path, comm, fn, file, i;
	static const uint64_t ips[] = { 0x1100, 0x1200, 0x1300, 0x1400 };

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_HOST;
	r.u.host.hostname.s = "otherhost";
	r.u.host.hostname.len = 9;
	r.u.host.release.s = "5.10.0";
	r.u.host.release.len = 6;
	r.u.host.machine.s = "x86_64";
	r.u.host.machine.len = 6;
	r.u.host.page_size = 4096;
	r.u.host.has_boot_id = 1;
	memset(r.u.host.boot_id, 0xcd, 16);
	(void)put(w, &r);
	check(sp_writer_string(w, "/usr/bin/ref", 12, &path), "string");
	check(sp_writer_string(w, "ref-main", 8, &comm), "string");
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_RECORDING;
	r.u.recording.event.s = "cpu-clock";
	r.u.recording.event.len = 9;
	r.u.recording.frequency = 1000;
	r.u.recording.stack_bytes = 32768;
	r.u.recording.command.s = "ref --run";
	r.u.recording.command.len = 9;
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_MODULE;
	r.u.module.pid = REF_PID;
	r.u.module.start = REF_MOD_START;
	r.u.module.size = REF_MOD_SIZE;
	r.u.module.file_offset = 0x1000;
	r.u.module.inode = 77;
	r.u.module.dev = 0x801;
	r.u.module.build_id_len = 20;
	memset(r.u.module.build_id, 0x5a, 20);
	r.u.module.path = path;
	(void)put(w, &r);
	for (i = 0; i < 4; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_FRAME;
		r.u.frame.module = 1;
		r.u.frame.mode = i == 3 ? SP_FRAME_KERNEL : SP_FRAME_USER;
		r.u.frame.rel_ip = ips[i];
		r.u.frame.abs_ip = REF_MOD_START + ips[i] - 0x1000;
		if (i == 3)
			r.u.frame.module = 0;
		(void)put(w, &r);
	}
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_FRAME;
	r.u.frame.abs_ip = 0xffffffff81000000ull;
	r.u.frame.rel_ip = 0xffffffff81000000ull;
	r.u.frame.mode = SP_FRAME_KERNEL;
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_FRAME;
	r.u.frame.mode = SP_FRAME_TRUNCATED;
	(void)put(w, &r);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_THREAD;
	r.u.thread.pid = REF_PID;
	r.u.thread.tid = REF_PID;
	r.u.thread.comm = comm;
	(void)put(w, &r);
	r.u.thread.tid = REF_TID2;
	(void)put(w, &r);
	check(sp_writer_string(w, "main", 4, &fn), "string");
	check(sp_writer_string(w, "ref.c", 5, &file), "string");
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SYMBOL;
	r.u.symbol.frame = 1;
	r.u.symbol.origin = SP_ORIGIN_ELF;
	r.u.symbol.module_name = path;
	r.u.symbol.count = 1;
	{
		struct sp_symline line = { fn, file, 42 };

		r.u.symbol.lines = &line;
		(void)put(w, &r);
	}
}

void
ref_header(struct sp_header *h)
{
	memset(h, 0, sizeof(*h));
	h->start_mono_ns = 1000;
	h->start_time_us = 1700000000000000ull;
	h->sample_interval_us = 1000;
	h->page_size = 4096;
	strcpy(h->hostname, "testhost");
	strcpy(h->release, "6.1.0-test");
	strcpy(h->machine, "x86_64");
	h->boot_id[0] = 0xab;
}

/* After the first sample: REF_RAW_REGS registers r[k] = k + 1 and
 * REF_RAW_BYTES stack bytes b[k] = k. */
static void
put_rawstack(struct sp_writer *w)
{
	uint8_t regs[REF_RAW_REGS * 8] = { 0 }, stack[REF_RAW_BYTES];
	struct sp_record r;
	size_t k;

	for (k = 0; k < REF_RAW_REGS; k++)
		regs[8 * k] = (uint8_t)(k + 1);
	for (k = 0; k < REF_RAW_BYTES; k++)
		stack[k] = (uint8_t)k;
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_RAWSTACK;
	r.u.rawstack.nregs = REF_RAW_REGS;
	r.u.rawstack.regs = regs;
	r.u.rawstack.stack = stack;
	r.u.rawstack.stack_len = REF_RAW_BYTES;
	(void)put(w, &r);
}

void
ref_write(struct sp_writer *w, size_t nsamples, int finish)
{
	struct sp_record r;
	uint32_t frames[8], stack;
	size_t i, n;
	struct sp_counter ctr[2] = {
		{ { "samples", 7 }, 0 }, { { "lost_events", 11 }, 3 },
	};

	put_defs(w);
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_PYTHON;
	r.u.python.time = 2000;
	r.u.python.pid = REF_PID;
	(void)put(w, &r);
	for (i = 0; i < nsamples; i++) {
		n = ref_stack(i, frames);
		check(sp_writer_stack(w, frames, n, &stack), "stack");
		memset(&r, 0, sizeof(r));
		r.kind = SP_REC_SAMPLE;
		r.u.sample.thread = 1 + (uint32_t)(i % 2);
		r.u.sample.stack = stack;
		r.u.sample.time = REF_T0 + i * REF_DT;
		r.u.sample.cpu = (uint32_t)(i % 2);
		(void)put(w, &r);
		if (i == 0)
			put_rawstack(w);
	}
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_PROC;
	r.u.proc.event = SP_PROC_EXIT;
	r.u.proc.time = REF_T0 + nsamples * REF_DT;
	r.u.proc.pid = REF_PID;
	r.u.proc.tid = REF_TID2;
	(void)put(w, &r);
	ctr[0].value = nsamples;
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SUMMARY;
	r.u.summary.counters = ctr;
	r.u.summary.count = 2;
	(void)put(w, &r);
	check(finish ? sp_writer_finish(w) : sp_writer_flush(w), "finish");
}
