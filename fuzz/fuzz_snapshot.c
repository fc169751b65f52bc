/* SPDX-License-Identifier: MIT */
/* Snapshot over arbitrary bytes: no crash, and a success is consistent. */
#include <stdlib.h>

#include "sp/spool/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_snapshot *s;
	size_t i, depth;
	uint32_t frames[64];

	if (sp_snapshot_open_mem(data, size, &s, NULL) != 0)
		return 0;
	if (sp_snapshot_status(s)->end_offset > size)
		abort();
	for (i = 0; i < sp_snapshot_nsamples(s); i++)
		if (sp_defs_stack(sp_snapshot_defs(s),
		    sp_snapshot_samples(s)[i].stack, frames, 64, &depth) == -SP_EREF)
			abort(); /* the reader let an undefined stack through */
	sp_snapshot_free(s);
	return 0;
}
