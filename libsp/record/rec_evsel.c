/* SPDX-License-Identifier: MIT */
/* perf's event names for -e, resolved to perf_event_open(2)'s type and
 * config. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "rec_evsel_int.h"
#include "sp/common/error.h"
#include "sp/record/recorder.h"

struct evdef {
	const char *name, *alias;
	uint32_t type;
	int clock;
	uint64_t config;
	const char *what;
};

/* perf list's spellings (and its aliases) of the generic events. */
static const struct evdef events[] = {
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, 1, PERF_COUNT_SW_CPU_CLOCK,
	    "time on a CPU, by a timer (the default)" },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, 1, PERF_COUNT_SW_TASK_CLOCK,
	    "time on a CPU, by the task's clock" },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, 0,
	    PERF_COUNT_SW_PAGE_FAULTS, "page faults, minor and major" },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, 0,
	    PERF_COUNT_SW_PAGE_FAULTS_MIN, "faults served without I/O" },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, 0,
	    PERF_COUNT_SW_PAGE_FAULTS_MAJ, "faults that waited for I/O" },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, 0,
	    PERF_COUNT_SW_CONTEXT_SWITCHES, "switches off a CPU" },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, 0,
	    PERF_COUNT_SW_CPU_MIGRATIONS, "moves to another CPU" },
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, 0,
	    PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (a PMU)" },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, 0,
	    PERF_COUNT_HW_INSTRUCTIONS, "instructions retired (a PMU)" },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, 0,
	    PERF_COUNT_HW_CACHE_MISSES, "last-level cache misses (a PMU)" },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, 0,
	    PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches (a PMU)" },
};

#define NEVENTS (sizeof(events) / sizeof(events[0]))

int
sp_event_info(size_t i, const char **name, const char **what)
{
	if (i >= NEVENTS)
		return 0;
	*name = events[i].name;
	*what = events[i].what;
	return 1;
}

static void
set(struct rec_evsel *sel, const struct evdef *d)
{
	sel->name = d->name;
	sel->type = d->type;
	sel->config = d->config;
	sel->clock = d->clock;
}

int
spi_evsel_parse(const char *spec, struct rec_evsel *sel, char *why,
    size_t cap)
{
	size_t len, i, k = 0;
	const char *mod;

	memset(sel, 0, sizeof(*sel));
	if (spec == NULL) {
		set(sel, &events[0]);
		sel->deflt = 1;
		return 0;
	}
	mod = strchr(spec, ':');
	len = mod != NULL ? (size_t)(mod - spec) : strlen(spec);
	if (mod != NULL && strcmp(mod, ":u") != 0) {
		(void)snprintf(why, cap, "event %s: of perf's modifiers only :u "
		    "(user time only) is known", spec);
		return -SP_EUSAGE;
	}
	sel->user_only = mod != NULL;
	for (i = 0; i < NEVENTS; i++)
		if ((strlen(events[i].name) == len &&
		    memcmp(events[i].name, spec, len) == 0) ||
		    (events[i].alias != NULL && strlen(events[i].alias) == len &&
		    memcmp(events[i].alias, spec, len) == 0)) {
			set(sel, &events[i]);
			return 0;
		}
	k = (size_t)snprintf(why, cap, "event %s is not known; the events are",
	    spec);
	for (i = 0; i < NEVENTS && k < cap; i++)
		k += (size_t)snprintf(why + k, cap - k, "%s %s", i ? "," : "",
		    events[i].name);
	return -SP_EUSAGE;
}
