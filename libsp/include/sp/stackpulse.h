/* SPDX-License-Identifier: MIT */
#ifndef SP_STACKPULSE_H
#define SP_STACKPULSE_H

/*
 * libstackpulse's whole API in one include.  Each header is also usable
 * alone; their paths follow libsp's folders (sp/spool/ is the spool
 * format, its writer and readers; sp/record/ the recorder; sp/sym/
 * symbolization; sp/report/ what people read; sp/common/ errors,
 * processes, bundles and outputs; sp/tool/ the version).  docs/api.md
 * walks through them.
 */

#include "sp/common/bundle.h"
#include "sp/common/error.h"
#include "sp/common/output.h"
#include "sp/common/opts.h"
#include "sp/common/process.h"
#include "sp/record/recorder.h"
#include "sp/report/browse.h"
#include "sp/report/demangle.h"
#include "sp/report/flame.h"
#include "sp/report/fold.h"
#include "sp/report/perf_script.h"
#include "sp/report/pprof.h"
#include "sp/report/report.h"
#include "sp/report/speedscope.h"
#include "sp/report/top.h"
#include "sp/spool/format.h"
#include "sp/spool/merge.h"
#include "sp/spool/replay.h"
#include "sp/spool/snapshot.h"
#include "sp/spool/spool.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"
#include "sp/sym/debuginfod.h"
#include "sp/sym/sym.h"
#include "sp/sym/symbolizer.h"
#include "sp/tool/version.h"

#endif
