/* SPDX-License-Identifier: MIT */
/* Replay over arbitrary bytes: records come in order, references hold,
 * and sp_replay_sample_count's pass counts the samples the reader reads. */
#include <stdlib.h>

#include "sp/spool/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_replay *r;
	struct sp_record rec;
	uint64_t next = 0, want = 0, seen = 0;
	int counted;

	if (sp_replay_open_mem(data, size, &r, NULL) != 0)
		return 0;
	counted = sp_replay_sample_count(r, &want) == 0;
	while (sp_replay_next(r, &rec) > 0) {
		if (rec.offset < next || rec.offset + rec.size > size)
			abort();
		next = rec.offset + rec.size;
		if (rec.kind == SP_REC_SAMPLE && (++seen, sp_defs_thread(
		    sp_replay_defs(r), rec.u.sample.thread) == NULL))
			abort();
	}
	if (counted && seen != want)
		abort();
	sp_replay_free(r);
	return 0;
}
