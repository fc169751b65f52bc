/* SPDX-License-Identifier: MIT */
/* What every part of the recorder writes besides samples: log lines
 * (through the caller's callback) and the PYTHON and PROC records. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rec_ctx_int.h"

void
spi_rec_log(const struct rec_ctx *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	if (r->log != NULL) {
		/* ap is started above; clang-tidy 14 misreports it. */
		/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
		(void)vsnprintf(msg, sizeof(msg), fmt, ap);
		r->log(r->log_ctx, msg);
	}
	va_end(ap);
}

int
spi_rec_write_python(struct rec_ctx *r, struct rec_proc *p, int is_py,
    uint64_t time)
{
	struct sp_record rec;

	if (p->python == is_py || !p->tracked)
		return 0;
	p->python = is_py;
	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_PYTHON;
	rec.u.python.time = time;
	rec.u.python.pid = p->pid;
	rec.u.python.is_python = (uint8_t)is_py;
	return sp_writer_put(r->w, &rec, NULL);
}

int
spi_rec_write_proc(struct rec_ctx *r, uint32_t event, uint32_t pid,
    uint32_t tid, uint32_t opid, uint32_t otid, const char *comm)
{
	struct sp_record rec;
	int err = 0;

	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_PROC;
	rec.u.proc.time = r->now;
	rec.u.proc.event = event;
	rec.u.proc.pid = pid;
	rec.u.proc.tid = tid;
	rec.u.proc.other_pid = opid;
	rec.u.proc.other_tid = otid;
	if (comm != NULL)
		err = sp_writer_string(r->w, comm, strlen(comm),
		    &rec.u.proc.comm);
	return err ? err : sp_writer_put(r->w, &rec, NULL);
}
