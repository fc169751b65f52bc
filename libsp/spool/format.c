/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sp/spool/format.h"

const char *
sp_module_basename(const struct sp_defs *d, uint32_t module)
{
	const struct sp_module *m = sp_defs_module(d, module);
	const struct sp_str *path;
	const char *slash;

	if (m == NULL)
		return "?";
	path = sp_defs_string(d, m->path);
	if (path == NULL || path->len == 0)
		return (m->flags & SP_MOD_KERNEL) ? "[kernel]" :
		    (m->flags & SP_MOD_ANON) ? "[anon]" : "?";
	slash = strrchr(path->s, '/');
	return slash != NULL && slash[1] != '\0' ? slash + 1 : path->s;
}

static size_t
result(int n)
{
	return n < 0 ? 0 : (size_t)n;
}

/*
 * Whether f's offset is its absolute address: the kernel's modules are
 * mapped at their addresses ([kernel.kallsyms] from 0xffff800000000000,
 * offset 0), so "[kernel.kallsyms]+0xffffffff81382fa3" would print an
 * address as an offset.
 */
static int
absolute(const struct sp_defs *d, const struct sp_frame *f)
{
	const struct sp_module *m = sp_defs_module(d, f->module);

	return m != NULL && (m->flags & SP_MOD_KERNEL) && f->rel_ip == f->abs_ip;
}

size_t
sp_format_frame(const struct sp_defs *d, uint32_t frame, char *buf,
    size_t cap)
{
	const struct sp_frame *f = sp_defs_frame(d, frame);
	const struct sp_symbol *sym = sp_defs_symbol(d, frame);
	const struct sp_str *name;

	if (f == NULL)
		return result(snprintf(buf, cap, "[bad frame %" PRIu32 "]",
		    frame));
	if (f->mode == SP_FRAME_TRUNCATED)
		return result(snprintf(buf, cap, "[truncated]"));
	if (f->mode == SP_FRAME_KERNEL && f->module == 0 && f->abs_ip == 0)
		return result(snprintf(buf, cap, SP_KERNEL_FRAME_NAME));
	if (sym != NULL) {
		/* The outermost logical frame names the machine frame. */
		name = sp_defs_string(d, sym->lines[sym->count - 1].function);
		if (name != NULL && name->len > 0)
			return result(snprintf(buf, cap, "%s", name->s));
	}
	if (f->module == 0 || absolute(d, f))
		return result(snprintf(buf, cap, "0x%" PRIx64, f->abs_ip));
	return result(snprintf(buf, cap, "%s+0x%" PRIx64,
	    sp_module_basename(d, f->module), f->rel_ip));
}

int
sp_python_runtime_path(const char *path, size_t len)
{
	const char *base = path;
	size_t i;

	for (i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	len -= (size_t)(base - path);
	return (len > 8 && memcmp(base, "python3.", 8) == 0) ||
	    (len > 11 && memcmp(base, "libpython3.", 11) == 0);
}
