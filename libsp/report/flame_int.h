/* SPDX-License-Identifier: MIT */
#ifndef SP_FLAME_INT_H
#define SP_FLAME_INT_H

/*
 * The merged tree of folded stacks, shared by the parser (flame.c) and
 * the SVG writer (flame_svg.c).  Node 0 is the root ("all"); links are
 * indices so the node array can grow by realloc.
 */

#include <stddef.h>
#include <stdint.h>

#include "common/buf_int.h"
#include "sp/report/flame.h"

#define FLAME_NONE UINT32_MAX

struct flame_node {
	uint64_t total;     /* samples of this frame and of all above it */
	size_t name;        /* offset of the name in names */
	uint32_t name_len;
	uint32_t parent, child, next;  /* FLAME_NONE when there is none */
};

struct sp_flame {
	struct flame_node *node;
	size_t n, cap;
	uint32_t *tab;      /* open addressing: node index or FLAME_NONE */
	size_t tabcap;      /* a power of two, at least 2 * n */
	struct sp_buf names;
	uint64_t lines;
	size_t nbad;
	struct sp_flame_bad bad[SP_FLAME_BAD_KEEP];
	char *carry;        /* a line split across feeds */
	size_t carry_len;
	int skipping;       /* inside a line longer than SP_FLAME_LINE_MAX */
	unsigned decimals;  /* totals are in 10^-decimals samples */
	uint32_t *path;     /* one line's frame offsets in the line */
	uint32_t *path_len;
	int stacks;         /* a stack line was read: no more headers */
	char countname[SP_FLAME_HEADER_MAX]; /* "# countname: " before them */
	char title[SP_FLAME_HEADER_MAX];     /* "# title: " before them */
};

/* The child of parent named name[0..len), or FLAME_NONE. */
uint32_t spi_flame_child(const struct sp_flame *f, uint32_t parent,
    const char *name, size_t len);

/* 10^e, for e <= SP_FLAME_DECIMALS_MAX. */
static inline uint64_t
flame_pow10(unsigned e)
{
	uint64_t m = 1;

	while (e-- > 0)
		m *= 10;
	return m;
}

static inline const char *
sp_flame_name(const struct sp_flame *f, uint32_t i)
{
	return (const char *)spi_buf_at(&f->names, f->node[i].name);
}

#endif
