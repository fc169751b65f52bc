/* SPDX-License-Identifier: MIT */
/*
 * The demangler on any bytes: libiberty's C++ and Rust demanglers run in
 * the process (sp-fold, sp-report, sp-top, sp-flame), so a hostile name
 * in a binary or a perf map reaches them.  Each input is split at
 * newlines into names; every one is queued, run and read back.  A text
 * is at most SP_DEMANGLE_NAME_MAX bytes, NUL-free; a name not to be
 * demangled has none; the total kept stays within SP_DEMANGLE_KEPT_MAX.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp/report/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size, *nl, *t;
	struct sp_demangle *dm;
	unsigned long long kept = 0;
	size_t len, tl;

	if (sp_demangle_new(NULL, &dm) < 0)
		return 0;
	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		if (sp_demangle_add(dm, s, (size_t)(nl - s)) < 0)
			break;
	}
	if (sp_demangle_run(dm, 1, NULL) < 0)
		abort();
	for (s = (const char *)data; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		len = (size_t)(nl - s);
		t = sp_demangle_get(dm, s, len, &tl);
		if (t == NULL)
			continue;
		/* Only what has a mangled word can have a text. */
		if (memchr(s, '_', len) == NULL || tl == 0 ||
		    tl > SP_DEMANGLE_NAME_MAX || memchr(t, '\0', tl) != NULL)
			abort();
		kept += tl;
	}
	if (kept > SP_DEMANGLE_KEPT_MAX(size) * 2)
		abort();
	sp_demangle_free(dm);
	return 0;
}
