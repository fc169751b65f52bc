/* SPDX-License-Identifier: MIT */
/* Fold, pprof-encode and write as speedscope a spool from arbitrary bytes:
 * no crash, counts add up. */
#include <stdio.h>
#include <stdlib.h>

#include "sp/report/fold.h"
#include "sp/report/pprof.h"
#include "sp/report/speedscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_fold_options o = { 0 };
	struct sp_snapshot *s;
	struct sp_fold *f;
	struct sp_fold_stats st;
	unsigned char *pb;
	size_t len;
	FILE *null = fopen("/dev/null", "w");

	/* The first byte picks the options, so each path gets inputs. */
	if (null == NULL || size < 1 || sp_snapshot_open_mem(data + 1, size - 1,
	    &s, NULL) != 0) {
		if (null != NULL)
			fclose(null);
		return 0;
	}
	o.flags = (data[0] & 0x1f) | SP_FOLD_ORDER;
	o.root = (enum sp_fold_root)((data[0] >> 5) % 3);
	o.max_depth = data[0] >> 6;
	if (sp_fold_new(&o, sp_snapshot_header(s), &f) == 0) {
		if (sp_fold_snapshot(f, s) != 0 ||
		    sp_fold_write(f, sp_snapshot_defs(s), null) != 0)
			abort();
		sp_fold_get_stats(f, &st);
		if (st.counted + st.filtered != sp_snapshot_nsamples(s))
			abort();
		if (sp_pprof_encode(f, sp_snapshot_defs(s),
		    sp_snapshot_header(s), &pb, &len) != 0)
			abort();
		free(pb);
		if (sp_speedscope_write(f, sp_snapshot_defs(s),
		    sp_snapshot_header(s), "fuzz", null) != 0)
			abort();
		sp_fold_free(f);
	}
	sp_snapshot_free(s);
	fclose(null);
	return 0;
}
