/* SPDX-License-Identifier: MIT */
#ifndef SP_REPORT_INT_H
#define SP_REPORT_INT_H

#include "common/opts_int.h"
#include "sp/report/report.h"

/* sz 0: struct sp_report_options as of 0.5.0, whose last field is ctx
 * (frozen: a field added later lies past it).  Both readers of the
 * struct, sp_report_write and sp_browse_new, take it. */
#define REPORT_OPTS_SZ0 SPI_OPTS_END(struct sp_report_options, ctx)

#endif
