/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's live updates (sp_symbolizer_update): what a tail read
 * besides samples (execs, PID reuse, Python runtimes, modules mapped over
 * others) and perf maps that changed make the frames of some processes
 * stale; they are forgotten, to be resolved again.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symbolizer_int.h"

/* Adds pid to the invalidation list (once). */
static void
invalidate(struct sp_symbolizer *s, struct sp_invalidation *inv,
    uint32_t pid)
{
	size_t i;

	for (i = 0; i < inv->npids; i++)
		if (s->invalid[i] == pid)
			return;
	if (inv->npids < MAX_INVALID)
		s->invalid[inv->npids++] = pid;
	else
		inv->all = 1;
}

/* Forgets every raw address: they are looked up by pid and address. */
static void
forget_raw(struct sp_symbolizer *s)
{
	spi_idmap_fini(&s->rawmap);
	memset(&s->rawmap, 0, sizeof(s->rawmap));
	s->rawmap.words = 2;
	free(s->raw);
	s->raw = NULL;
	s->capraw = 0;
}

/* Forgets every frame of the pids listed, and every raw address. */
static void
forget(struct sp_symbolizer *s, const struct sp_invalidation *inv)
{
	uint32_t id, nframes = sp_defs_count(s->c.defs, SP_REC_FRAME);
	size_t i;

	for (id = 1; id <= nframes && id <= s->capframes; id++) {
		const struct sp_frame *f = sp_defs_frame(s->c.defs, id);
		const struct sp_module *m = sp_defs_module(s->c.defs,
		    f->module);

		if (m == NULL || m->pid == 0)
			continue;
		for (i = 0; i < inv->npids && !inv->all; i++)
			if (s->invalid[i] == m->pid)
				break;
		if (inv->all || i < inv->npids)
			s->frames[id - 1].state = 0;
	}
	/* Raw addresses are looked up by pid: an exec changes them all. */
	forget_raw(s);
}

/* Whether new module id lies over an older module of its pid. */
static int
remapped(const struct sp_symbolizer *s, uint32_t id, uint32_t older)
{
	const struct sp_module *m = sp_defs_module(s->c.defs, id), *o;
	uint32_t i;

	if (m == NULL || m->pid == 0)
		return 0;
	for (i = 1; i <= older; i++) {
		o = sp_defs_module(s->c.defs, i);
		if (o->pid == m->pid && o->host == m->host &&
		    o->start < m->start + m->size && m->start < o->start + o->size)
			return 1;
	}
	return 0;
}

/* What a tail read besides samples: execs, reuse, Python runtimes. */
static int
apply_events(struct sp_symbolizer *s, const struct sp_tail_events *ev,
    struct sp_invalidation *inv)
{
	uint32_t id;
	size_t i;
	int err;

	if (ev->overflow)
		inv->all = 1;
	for (i = 0; i < ev->npython; i++) {
		err = spi_sym_set_python(&s->c, ev->python[i].host,
		    ev->python[i].pid, ev->python[i].is_python);
		if (err < 0)
			return err;
		invalidate(s, inv, ev->python[i].pid);
	}
	for (i = 0; i < ev->nprocs; i++)
		if (ev->procs[i].event == SP_PROC_EXEC)
			invalidate(s, inv, ev->procs[i].pid);
	for (id = ev->modules_from + 1; id <= ev->modules_to; id++)
		if (remapped(s, id, ev->modules_from))
			invalidate(s, inv, sp_defs_module(s->c.defs, id)->pid);
	/* A caller's address that no module held (a library mapped since)
	 * may have one now: look raw addresses up again. */
	if (ev->modules_to > ev->modules_from)
		forget_raw(s);
	return 0;
}

int
sp_symbolizer_update(struct sp_symbolizer *s,
    const struct sp_tail_events *ev, struct sp_invalidation *inv)
{
	struct timespec now;
	uint32_t pids[64];
	size_t i, n;
	int err;

	memset(inv, 0, sizeof(*inv));
	inv->pids = s->invalid;
	s->epoch++;
	if (ev != NULL && (err = apply_events(s, ev, inv)) < 0) {
		inv->all = 1;
		inv->npids = 0;
		forget(s, inv);
		return err;
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec != s->pmaps_checked.tv_sec) {
		s->pmaps_checked = now;
		n = spi_sym_pmaps_refresh(&s->c, pids, 64);
		if (n > 64)
			inv->all = 1;
		for (i = 0; i < n && i < 64; i++)
			invalidate(s, inv, pids[i]);
	}
	if (inv->all || inv->npids > 0)
		forget(s, inv);
	if (inv->all)
		inv->npids = 0;
	return 0;
}

int
sp_invalidation_affects(const struct sp_invalidation *inv, uint32_t pid)
{
	size_t i;

	if (inv->all)
		return 1;
	for (i = 0; i < inv->npids; i++)
		if (inv->pids[i] == pid)
			return 1;
	return 0;
}
