/* SPDX-License-Identifier: MIT */
/*
 * Calls a tiny function of a shared library (libplt.so) in a tight loop,
 * so that many samples have their leaf in this executable's PLT:
 *
 *   main -> plt_loop -> [PLT stub] -> plt_tiny (libplt.so)
 *
 * A resolved stub is one indirect jump (or endbr64 and the jump), which
 * in the cache takes so little time that the share of samples landing
 * in it varies from 0 to 40% between runs.  So the loop evicts the
 * stub's cache line before each call (clflush); the stub waits for
 * memory and a steady share of samples interrupt it.  Lazily bound (no
 * BIND_NOW), the loop also puts the GOT slot back to its unresolved
 * value before each call, so every call is a first call and runs the
 * lazy binding path: the stub's push, PLT0, _dl_runtime_resolve.
 * Built with -z lazy and with -z now (IBT stubs in .plt.sec).
 * usage: plt [MILLISECONDS] (default 1000).  Prints "cpu_ms=N" at exit.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

struct plt {
	const unsigned char *stub; /* "jmp *slot(%rip)" */
	uintptr_t *slot;           /* plt_tiny's GOT slot */
	uintptr_t unresolved;      /* its value before the first call */
	int lazy;
};

unsigned long plt_tiny(unsigned long x);
__attribute__((noinline)) unsigned long plt_loop(long ms,
    const struct plt *p);

static long
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The stub: the "jmp *rel32(%rip)" (ff 25) through the slot. */
static void
find_stub(const struct dl_phdr_info *info, struct plt *p)
{
	size_t i, j;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *t = (const void *)(info->dlpi_addr +
		    ph->p_vaddr);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (j = 0; j + 6 <= ph->p_filesz; j++) {
			int32_t rel;

			memcpy(&rel, t + j + 2, 4);
			if (t[j] == 0xff && t[j + 1] == 0x25 &&
			    (uintptr_t)(t + j + 6) + (uintptr_t)(intptr_t)rel ==
			    (uintptr_t)p->slot)
				p->stub = t + j;
		}
	}
}

/* In the executable (the first object reported): plt_tiny's slot, the
 * target of its R_X86_64_JUMP_SLOT relocation, and whether it is bound
 * lazily (System V ABI §5.2: DT_FLAGS, DT_FLAGS_1). */
static int
find_plt(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct plt *p = arg;
	const ElfW(Dyn) *d = NULL;
	const ElfW(Rela) *rel = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	size_t relsz = 0, i;

	(void)size;
	p->lazy = 1;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			d = (const void *)(info->dlpi_addr +
			    info->dlpi_phdr[i].p_vaddr);
	for (; d != NULL && d->d_tag != DT_NULL; d++) {
		/* The dynamic linker has relocated the pointers. */
		if (d->d_tag == DT_JMPREL)
			rel = (const void *)d->d_un.d_ptr;
		else if (d->d_tag == DT_PLTRELSZ)
			relsz = d->d_un.d_val;
		else if (d->d_tag == DT_SYMTAB)
			sym = (const void *)d->d_un.d_ptr;
		else if (d->d_tag == DT_STRTAB)
			str = (const void *)d->d_un.d_ptr;
		else if ((d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_BIND_NOW)) ||
		    (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NOW)))
			p->lazy = 0;
	}
	for (i = 0; rel != NULL && i < relsz / sizeof(*rel); i++)
		if (ELF64_R_TYPE(rel[i].r_info) == R_X86_64_JUMP_SLOT &&
		    strcmp(str + sym[ELF64_R_SYM(rel[i].r_info)].st_name,
		    "plt_tiny") == 0)
			p->slot = (uintptr_t *)(info->dlpi_addr + rel[i].r_offset);
	if (p->slot != NULL) {
		p->unresolved = *p->slot;
		find_stub(info, p);
	}
	return 1;
}

unsigned long
plt_loop(long ms, const struct plt *p)
{
	unsigned long x = 0;
	long end = cpu_ms() + ms;
	int i;

	while (cpu_ms() < end)
		for (i = 0; i < 1000; i++) {
			__asm__ volatile("clflush %0" :: "m"(*p->stub));
			if (p->lazy)
				*(volatile uintptr_t *)p->slot = p->unresolved;
			x = plt_tiny(x);
		}
	NO_TAIL_CALL();
	return x;
}

int
main(int argc, char **argv)
{
	struct plt p = { 0 };
	unsigned long x;

	dl_iterate_phdr(find_plt, &p);
	if (p.stub == NULL) {
		fprintf(stderr, "plt: no PLT stub for plt_tiny\n");
		return 1;
	}
	x = plt_loop(argc > 1 ? strtol(argv[1], NULL, 10) : 1000, &p);
	fprintf(stderr, "calls=%lu lazy=%d cpu_ms=%ld\n", x, p.lazy, cpu_ms());
	return 0;
}
