/* SPDX-License-Identifier: MIT */
#ifndef SP_REPLAY_INT_H
#define SP_REPLAY_INT_H

#include <stdint.h>

struct sp_replay;

/*
 * A second reader over r's input from its start, for a pass that looks
 * ahead while r stays where it is: a regular file read with pread (r's
 * offset does not move), or r's memory.  The kinds in skip (a mask of
 * 1 << kind) are framed and returned with their kind alone, undecoded
 * and not defined; so is END, as the reader keeps no crc32.  The other
 * kinds are decoded and defined as r does, with the same ids.  Returns
 * 0 and *out (sp_replay_free it; it never closes r's file), -ESPIPE
 * when r reads a pipe, -ENOMEM, or the header's error.
 */
int spi_replay_ahead(const struct sp_replay *r, uint32_t skip,
    struct sp_replay **out);

#endif
