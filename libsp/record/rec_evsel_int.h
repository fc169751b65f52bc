/* SPDX-License-Identifier: MIT */
#ifndef SP_REC_EVSEL_INT_H
#define SP_REC_EVSEL_INT_H

/*
 * What the sampling events count (perf's -e): a name perf knows, as perf
 * spells it (perf list), with ":u" for user time only.  Two kinds: the
 * clocks (cpu-clock, task-clock), whose samples each stand for a sampling
 * period of time, and the counts (cycles, page-faults, ...), whose samples
 * stand for the events counted since the last one (PERF_SAMPLE_PERIOD):
 * the weight sp-record writes.
 */

#include <stddef.h>
#include <stdint.h>

struct rec_evsel {
	const char *name;     /* the table's spelling (an alias resolved) */
	uint32_t type;        /* PERF_TYPE_HARDWARE or _SOFTWARE */
	uint64_t config;
	int clock;            /* counts time: cpu-clock, task-clock */
	int user_only;        /* ":u": exclude_kernel */
	int deflt;            /* none was named: cpu-clock, or cycles first
	                       * at fixed intervals (fallback allowed) */
};

/*
 * Resolves spec (NULL: the default) into *sel.  0, or -SP_EUSAGE with
 * why[0..cap) saying what is wrong and what is known.
 */
int spi_evsel_parse(const char *spec, struct rec_evsel *sel, char *why,
    size_t cap);

#endif
