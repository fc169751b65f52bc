/* SPDX-License-Identifier: MIT */
#ifndef SP_DWCACHE_INT_H
#define SP_DWCACHE_INT_H

/*
 * The cache of inflated DWARF (docs/architecture.md, "Symbolizing").
 * Debian's and Fedora's debug files, and most that debuginfod serves,
 * compress their DWARF sections (SHF_COMPRESSED, zlib); inflating libc's
 * costs more than naming every frame of a large program.  So the first
 * run that inflates a file's DWARF keeps the inflated bytes in one file
 * of a cache directory, named by the file's build-id, and later runs map
 * that file read-only instead of inflating again.
 *
 * An entry is written to a temporary file and renamed into place, never
 * rewritten in place: a run that maps it keeps reading the bytes it
 * mapped, also when a prune removes it.  It is used only by its owner, and only while the source file's
 * build-id and each section's stored and inflated sizes match what it
 * records; else it is inflated again and replaced.  Its bytes are read
 * as untrusted DWARF, as the debug file's own are.
 */

#include <stddef.h>
#include <stdint.h>

#include "dwarf/debuginfo_int.h"
#include "elf/elf_int.h"

/* Files whose compressed DWARF inflates to less (256 KiB) are not
 * cached: they inflate in under a millisecond. */
#define SPI_DWCACHE_MIN ((uint64_t)1 << 18)

/*
 * The cache's bound, kept when an entry is written: the user's entries
 * not used for 30 days go (a use moves an entry's mtime on, once a day
 * at most), then the least recently used while the entries take more
 * than 2 GiB (some 200 libc versions).
 */
#define SPI_DWCACHE_AGE ((int64_t)30 * 86400)
#define SPI_DWCACHE_MAX ((uint64_t)2 << 30)

struct spi_dwcache_plan;

/* A mapped entry (map), or the plan of one to write (plan), or none. */
struct spi_dwcache {
	void *map;
	size_t len;
	struct spi_dwcache_plan *plan;
};

/*
 * For f's sections names[0..n): where f's entry in dir is valid, sets
 * *bytes[i] of each compressed section to its inflated bytes in the
 * mapping *c (valid until spi_dwcache_fini) and returns 0.  Returns
 * -SP_ENOTFOUND when f has no compressed section, inflates to less than
 * SPI_DWCACHE_MIN, has no build-id, or has no valid entry (then, for a
 * file worth an entry, *c keeps what spi_dwcache_put is to write);
 * -ENOMEM.  Sections not compressed are left as they are.
 */
int spi_dwcache_get(const char *dir, const struct sp_elf_file *f,
    const char *const *names, size_t n, struct sp_dwarf_bytes *const *bytes,
    struct spi_dwcache *c);

/*
 * After spi_dwcache_get found no entry for a file worth one (f still
 * open): writes it, in the directory get was given (made, with its
 * parents, mode 0700), from the inflated bytes *bytes[i] of its
 * compressed sections, as get reads them; then keeps the directory in
 * its bound (SPI_DWCACHE_AGE, SPI_DWCACHE_MAX).  Returns 0,
 * -SP_ENOTFOUND when there is nothing to write (or the bytes are not the
 * sizes the file states), or -errno: a cache is an optimisation, and
 * callers go on without one.
 */
int spi_dwcache_put(struct spi_dwcache *c,
    const struct sp_dwarf_bytes *const *bytes);

/* Unmaps c's entry and drops its plan, if any. */
void spi_dwcache_fini(struct spi_dwcache *c);

/* mkdir -p path, each made with mode 0700: 0 or -errno. */
int spi_make_dirs(const char *path);

#endif
