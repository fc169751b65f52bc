/* SPDX-License-Identifier: MIT */
/*
 * Two spools cut from the input (its first two bytes: where) merged into
 * a memfd: merging never fails on what the readers let through, and the
 * output reads back whole with every sample the merger counted.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp/spool/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_merge_input in[2] = { { 0 } };
	struct sp_merge *m = NULL;
	struct sp_replay *r = NULL;
	struct sp_record rec;
	uint64_t n = 0;
	size_t cut;
	int fd, err;

	if (size < 2)
		return 0;
	cut = ((size_t)data[0] | (size_t)data[1] << 8) % (size - 1);
	fd = memfd_create("merge", MFD_CLOEXEC);
	if (fd < 0 || sp_merge_new(fd, &m) != 0)
		abort();
	if (sp_replay_open_mem(data + 2, cut, &in[0].replay, NULL) != 0)
		in[0].replay = NULL;
	if (sp_replay_open_mem(data + 2 + cut, size - 2 - cut, &in[1].replay,
	    NULL) != 0)
		in[1].replay = NULL;
	if (sp_merge_inputs(m, in, 2) != 0 || sp_merge_finish(m) != 0 ||
	    lseek(fd, 0, SEEK_SET) != 0 || sp_replay_open_fd(fd, &r, NULL) != 0)
		abort();
	while ((err = sp_replay_next(r, &rec)) > 0)
		n += rec.kind == SP_REC_SAMPLE;
	if (err != 0 || sp_replay_status(r)->truncated ||
	    n != in[0].st.samples + in[1].st.samples)
		abort();
	sp_replay_free(r);
	sp_replay_free(in[0].replay);
	sp_replay_free(in[1].replay);
	sp_merge_free(m);
	close(fd);
	return 0;
}
