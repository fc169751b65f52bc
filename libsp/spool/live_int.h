/* SPDX-License-Identifier: MIT */
#ifndef SP_LIVE_INT_H
#define SP_LIVE_INT_H

/*
 * What the recorder asks of the writer it writes to and of the tail it
 * makes on that writer's file (sp_recorder_tail): the writer's header
 * while it is still unwritten, its descriptor, and a tail on a
 * descriptor.
 */

#include <stdint.h>

#include "sp/spool/tail.h"
#include "sp/spool/writer.h"

/*
 * Sets the sampling interval of w's header while nothing is written yet
 * (the header goes out at the first flush, and the CRC of END covers
 * it).  0, or -EALREADY once the header is written.
 */
int spi_writer_interval(struct sp_writer *w, uint32_t interval_us);

/* The descriptor w writes to (the caller's). */
int spi_writer_fd(const struct sp_writer *w);

/* The error that stopped w (a write's -errno, -ENOMEM), else 0: every
 * record after it fails with it. */
int spi_writer_failed(const struct sp_writer *w);

/*
 * A tail reading fd, which it owns (closed by sp_tail_free, also on
 * failure), and releasing the blocks of what it consumed through
 * punch_fd (owned too; -1: sp_tail_discard_consumed refuses).  0,
 * -ENOMEM.
 */
int spi_tail_fd(int fd, int punch_fd, struct sp_tail **out);

#endif
