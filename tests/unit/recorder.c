/* SPDX-License-Identifier: MIT */
/* The recorder's building blocks: mapping tables, the int map, /proc
 * parsing, the unwinder's frame-pointer walk on hand-made stacks. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "common/imap_int.h"
#include "common/procfs_int.h"
#include "elf/elf_int.h"
#include "record/recorder_int.h"

static void
add(struct rec_proc *p, uint64_t start, uint64_t end, uint32_t module,
    uint64_t off)
{
	struct rec_range r;

	memset(&r, 0, sizeof(r));
	r.start = start;
	r.end = end;
	r.module = module;
	r.offset = off;

	cr_assert_eq(spi_rec_insert_range(NULL, p, &r), 0);
}

/* Mappings hold references on their file; the last one frees it. */
Test(maps, file_references_follow_the_mappings)
{
	struct rec_ctx *r = calloc(1, sizeof(*r));
	struct rec_file *f = calloc(1, sizeof(*f));
	struct rec_proc p = { 0 }, child = { 0 };
	struct rec_range nr;

	cr_assert(r != NULL && f != NULL);
	r->files = f;
	memset(&nr, 0, sizeof(nr));
	nr.start = 0x1000;
	nr.end = 0x3000;
	nr.file = f;
	cr_assert_eq(spi_rec_insert_range(r, &p, &nr), 0);
	cr_assert_eq(f->refs, 1);
	add(&p, 0x1800, 0x2000, 2, 0);     /* splits it: two pieces */
	cr_assert_eq(p.nmaps, 3);
	cr_assert_eq(f->refs, 2);
	cr_assert_eq(spi_rec_clone_maps(r, &child, &p), 0); /* fork */
	cr_assert_eq(f->refs, 4);
	spi_rec_drop_maps(r, &child);          /* the child execs */
	cr_assert_eq(f->refs, 2);
	add(&p, 0x1000, 0x1800, 3, 0);     /* covers one piece */
	cr_assert_eq(f->refs, 1);
	cr_assert_eq(r->files, f);
	/* The same file mapped again over its last mapping (a rescan). */
	memset(&nr, 0, sizeof(nr));
	nr.start = 0x2000;
	nr.end = 0x3000;
	nr.file = f;
	cr_assert_eq(spi_rec_insert_range(r, &p, &nr), 0);
	cr_assert_eq(f->refs, 1);
	cr_assert_eq(r->files, f);
	memset(&nr, 0, sizeof(nr));
	nr.start = 0;
	nr.end = 0x4000;
	cr_assert_eq(spi_rec_insert_range(r, &p, &nr), 0); /* covers all */
	cr_assert_eq(p.nmaps, 1);
	cr_assert_null(r->files, "the last reference freed the file");
	spi_rec_proc_free(r, NULL);
	free(p.maps);
	free(child.maps);
	free(r);
}

static uint32_t
mod_at(const struct rec_proc *p, uint64_t ip)
{
	const struct rec_range *r = spi_rec_find_range(p, ip);

	return r ? r->module : 0;
}

Test(maps, insert_keeps_order_and_finds)
{
	struct rec_proc p = { 0 };

	add(&p, 0x3000, 0x4000, 3, 0);
	add(&p, 0x1000, 0x2000, 1, 0);
	add(&p, 0x2000, 0x3000, 2, 0);
	cr_assert_eq(p.nmaps, 3);
	cr_assert_eq(mod_at(&p, 0x1000), 1);
	cr_assert_eq(mod_at(&p, 0x1fff), 1);
	cr_assert_eq(mod_at(&p, 0x2000), 2);
	cr_assert_eq(mod_at(&p, 0x3fff), 3);
	cr_assert_eq(mod_at(&p, 0x4000), 0);
	cr_assert_eq(mod_at(&p, 0xfff), 0);
	free(p.maps);
}

Test(maps, a_new_mapping_replaces_what_it_overlaps)
{
	struct rec_proc p = { 0 };
	const struct rec_range *r;

	add(&p, 0x1000, 0x9000, 1, 0x100);
	add(&p, 0x3000, 0x5000, 2, 0);     /* splits 1 in two */
	cr_assert_eq(p.nmaps, 3);
	cr_assert_eq(mod_at(&p, 0x2fff), 1);
	cr_assert_eq(mod_at(&p, 0x3000), 2);
	cr_assert_eq(mod_at(&p, 0x5000), 1);
	r = spi_rec_find_range(&p, 0x6000);
	cr_assert_eq(r->start, 0x5000);
	cr_assert_eq(r->offset, 0x100 + 0x4000, "the tail keeps its file offset");
	add(&p, 0x0, 0x10000, 7, 0);       /* covers everything */
	cr_assert_eq(p.nmaps, 1);
	cr_assert_eq(mod_at(&p, 0x4000), 7);
	free(p.maps);
}

Test(maps, alternating_dlopen_addresses_resolve_to_the_current_library)
{
	struct rec_proc p = { 0 };
	uint32_t i;

	for (i = 0; i < 1000; i++)
		add(&p, 0x7000 + (i % 2) * 0x800, 0x8000 + (i % 2) * 0x800,
		    10 + i, 0);
	/* The last one (i = 999, odd) sits at 0x7800-0x8800 and cut the
	 * previous one (0x7000-0x8000) to 0x7000-0x7800. */
	cr_assert_eq(mod_at(&p, 0x7900), 1009);
	cr_assert_eq(mod_at(&p, 0x7100), 1008);
	cr_assert_eq(p.nmaps, 2);
	free(p.maps);
}

Test(imap, put_get_delete_with_collisions)
{
	struct sp_imap m = { 0 };
	static int vals[5000];
	uint32_t k;

	for (k = 0; k < 5000; k++)
		cr_assert_eq(spi_imap_put(&m, k * 1024, &vals[k]), 0);
	for (k = 0; k < 5000; k += 2)
		cr_assert_eq(spi_imap_del(&m, k * 1024), &vals[k]);
	for (k = 0; k < 5000; k++)
		cr_assert_eq(spi_imap_get(&m, k * 1024), k % 2 ? &vals[k] : NULL,
		    "key %u", k * 1024);
	cr_assert_eq(m.used, 2500);
	cr_assert_null(spi_imap_del(&m, 12345));
	spi_imap_fini(&m);
}

Test(procfs, parses_maps_lines_with_odd_paths)
{
	static const char l1[] = "7f12a000-7f12c000 r-xp 00002000 fd:01 "
	    "123456                     /opt/my app/lib x.so (deleted)";
	static const char l2[] = "55d0e000-55d0f000 rw-p 00000000 00:00 0 ";
	static const char l3[] = "ffffffffff600000-ffffffffff601000 --xp "
	    "00000000 00:00 0                  [vsyscall]";
	struct sp_map m;

	cr_assert_eq(spi_parse_maps_line(l1, strlen(l1), &m), 0);
	cr_assert_eq(m.start, 0x7f12a000);
	cr_assert_eq(m.end, 0x7f12c000);
	cr_assert_eq(m.offset, 0x2000);
	cr_assert_eq(m.dev_major, 0xfd);
	cr_assert_eq(m.dev_minor, 1);
	cr_assert_eq(m.inode, 123456);
	cr_assert(m.exec);
	cr_assert_eq(m.path_len, strlen("/opt/my app/lib x.so (deleted)"));
	cr_assert_eq(memcmp(m.path, "/opt/my app/lib x.so (deleted)",
	    m.path_len), 0);
	cr_assert_eq(spi_parse_maps_line(l2, strlen(l2), &m), 0);
	cr_assert_not(m.exec);
	cr_assert_eq(m.path_len, 0);
	cr_assert_eq(spi_parse_maps_line(l3, strlen(l3), &m), 0);
	cr_assert(m.exec);
	cr_assert_eq(spi_parse_maps_line("garbage", 7, &m), -SP_EFORMAT);
	cr_assert_eq(spi_parse_maps_line("2000-1000 r-xp 0 0:0 0", 22, &m),
	    -SP_EFORMAT, "end before start");
	cr_assert_eq(spi_parse_maps_line("1000-2000 r-xp 0 0:0", 20, &m),
	    -SP_EFORMAT, "no inode");
}

/* The frame-pointer walk of spi_unwind_dwarf: code at [0x400000, 0x500000)
 * is a module without CFI; nothing else is code. */
static int
no_cfi(void *ctx, uint64_t pc, const struct sp_cfi_table **t,
    uint64_t *bias)
{
	(void)ctx;
	if (pc < 0x400000 || pc >= 0x500000)
		return -SP_ENOTFOUND;
	*t = NULL;
	*bias = 0;
	return 0;
}

static void
unwind_fp(const struct sp_uregs *regs, const struct sp_ustack *stk,
    uint64_t *ips, size_t max, struct sp_unwind_result *res)
{
	const struct sp_unwind_lookup lk = { .find = no_cfi };
	struct sp_unwind_stats st;

	memset(&st, 0, sizeof(st));
	spi_unwind_dwarf(regs, stk, &lk, ips, max, res, &st);
	cr_assert_eq(st.cfi_steps, 0);
}

/* Code for the scan: at 0x400010 a call rel32 (returning to 0x400015)
 * among nops; [0x480000, 0x481000) is JIT code. */
static size_t
scan_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	uint8_t code[32];

	(void)ctx;
	memset(code, 0x90, sizeof(code));
	memcpy(code + 0x10, "\xe8\x01\x02\x03\x04", 5);
	if (addr < 0x400000 || addr + len > 0x400000 + sizeof(code))
		return 0;
	memcpy(buf, code + (addr - 0x400000), len);
	return len;
}

static int
scan_jit(void *ctx, uint64_t pc)
{
	(void)ctx;
	return pc >= 0x480000 && pc < 0x481000;
}

/* A JIT frame that keeps no frame pointer: the scan finds its return
 * address, a word after a call; of two, the one with a saved frame
 * pointer below it, not a stale one.  Never in code with a file. */
Test(unwind_scan, finds_the_return_address_of_a_jit_frame)
{
	const struct sp_unwind_lookup lk = { .find = no_cfi,
	    .read_code = scan_code, .jit = scan_jit };
	uint8_t stack[256] = { 0 };
	struct sp_ustack stk = { stack, sizeof(stack), 0 };
	struct sp_uregs regs = { { 0 } };
	struct sp_unwind_stats st;
	struct sp_unwind_result res;
	uint64_t ips[8];

	regs.r[X86_64_REG_IP] = 0x480010;
	regs.r[X86_64_REG_SP] = 0x1000;
	regs.r[X86_64_REG_BP] = 0x3; /* data: no frame pointer */
	sp_put_le64(stack + 0x00, 0x12345);    /* a number */
	sp_put_le64(stack + 0x08, 0x400013);   /* in code, after no call */
	sp_put_le64(stack + 0x10, 0x400015);   /* stale: garbage below */
	sp_put_le64(stack + 0x18, 0x1080);     /* a saved frame pointer */
	sp_put_le64(stack + 0x20, 0x400015);   /* the return address */
	sp_put_le64(stack + 0x80, 0);          /* its caller's rbp: 0 */
	sp_put_le64(stack + 0x88, 0x400015);   /* and return address */
	memset(&st, 0, sizeof(st));
	spi_unwind_dwarf(&regs, &stk, &lk, ips, 8, &res, &st);
	cr_assert_eq(st.scanned, 1);
	cr_assert_eq(ips[0], 0x480010);
	/* The caller's rbp came from the slot below the return address:
	 * its frame pointer leads to the outermost frame (rbp 0). */
	cr_assert_eq(res.n, 3);
	cr_assert_eq(ips[1], 0x400014);
	cr_assert_eq(ips[2], 0x400014);
	cr_assert(res.complete);
	/* The same leaf in code with a file is not scanned. */
	regs.r[X86_64_REG_IP] = 0x460010;
	memset(&st, 0, sizeof(st));
	spi_unwind_dwarf(&regs, &stk, &lk, ips, 8, &res, &st);
	cr_assert_eq(st.scanned, 0);
	cr_assert_not(res.complete);
}

/* A stack at 0x1000 of 256 bytes with three frames chained through fp
 * slots; the outermost's saved fp and return address are given. */
static void
chain(uint8_t *stack, struct sp_uregs *regs, uint64_t fp, uint64_t ra)
{
	memset(stack, 0, 256);
	memset(regs, 0, sizeof(*regs));
	regs->r[X86_64_REG_SP] = 0x1000;
	regs->r[X86_64_REG_BP] = 0x1010;
	regs->r[X86_64_REG_IP] = 0x401000;
	sp_put_le64(stack + 0x10, 0x1040);   /* saved fp */
	sp_put_le64(stack + 0x18, 0x402000); /* return address */
	sp_put_le64(stack + 0x40, fp);
	sp_put_le64(stack + 0x48, ra);
}

Test(unwind_fp, walks_a_chain_to_the_zero_frame_pointer)
{
	uint8_t stack[256];
	struct sp_uregs regs;
	struct sp_ustack stk = { stack, sizeof(stack), 0 };
	struct sp_unwind_result res;
	uint64_t ips[8];

	chain(stack, &regs, 0, 0x403000); /* outermost: fp 0 */
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert(res.complete);
	cr_assert_eq(res.n, 3);
	cr_assert_eq(ips[0], 0x401000);
	/* Return addresses come rewound into their call instructions. */
	cr_assert_eq(ips[1], 0x402000 - 1);
	cr_assert_eq(ips[2], 0x403000 - 1);
}

Test(unwind_fp, stops_at_the_copy_a_loop_and_the_depth_limit)
{
	uint8_t stack[64] = { 0 };
	struct sp_uregs regs = { { 0 } };
	struct sp_ustack stk = { stack, sizeof(stack), 0 };
	struct sp_unwind_result res;
	uint64_t ips[8];

	regs.r[X86_64_REG_SP] = 0x1000;
	regs.r[X86_64_REG_BP] = 0x1038; /* fp+8 is past the 64-byte copy */
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_not(res.complete);
	cr_assert_eq(res.error, SP_UNW_STACK_BOUNDS);
	/* The same when the copy holds the whole stack: no frame pointer
	 * (code that keeps none uses rbp for data), and so below rsp. */
	stk.whole = 1;
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_eq(res.error, SP_UNW_BAD_FP);
	stk.whole = 0;
	regs.r[X86_64_REG_BP] = 0x0ff8;
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_eq(res.error, SP_UNW_BAD_FP);
	regs.r[X86_64_REG_BP] = 0x1010;
	sp_put_le64(stack + 0x10, 0x1010); /* points at itself: */
	sp_put_le64(stack + 0x18, 0x402000); /* (a zero one ends the walk) */
	unwind_fp(&regs, &stk, ips, 8, &res);
	/* the next frame pointer is below the frame it would be above */
	cr_assert_eq(res.error, SP_UNW_BAD_FP);
	regs.r[X86_64_REG_BP] = 0x1011;
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_eq(res.error, SP_UNW_BAD_FP);
	regs.r[X86_64_REG_BP] = 0x1000;
	sp_put_le64(stack, 0x1010);
	sp_put_le64(stack + 0x08, 0x401000);
	sp_put_le64(stack + 0x10, 0x1020);
	sp_put_le64(stack + 0x20, 0x1030);
	sp_put_le64(stack + 0x28, 0x403000);
	unwind_fp(&regs, &stk, ips, 2, &res);
	cr_assert_eq(res.error, SP_UNW_DEPTH);
	cr_assert_eq(res.n, 2);
	/* A zero frame pointer ends a walk that got to it, but a leaf in
	 * code with no CFI and rbp 0 (musl's static code keeps _start's 0
	 * all along) is no outermost frame. */
	regs.r[X86_64_REG_IP] = 0x401000;
	regs.r[X86_64_REG_BP] = 0;
	memset(stack, 0, sizeof(stack));
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_not(res.complete);
	cr_assert_eq(res.n, 1);
	/* At the entry point, on the stack the kernel gave the process
	 * (argc, argv pointing above, NULL), it is. */
	sp_put_le64(stack, 1);
	sp_put_le64(stack + 8, 0x1030);
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert(res.complete);
	cr_assert_eq(res.n, 1);
}

/* A sample the kernel could copy no stack for (taken in a page fault)
 * says so: no option would have made it longer. */
Test(unwind_fp, no_stack_bytes_is_its_own_reason)
{
	uint8_t stack[1];
	struct sp_uregs regs = { { 0 } };
	struct sp_ustack stk = { stack, 0, 0 };
	struct sp_unwind_result res;
	uint64_t ips[8];

	regs.r[X86_64_REG_IP] = 0x401000;
	regs.r[X86_64_REG_SP] = 0x1000;
	regs.r[X86_64_REG_BP] = 0x1010;
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_not(res.complete);
	cr_assert_eq(res.error, SP_UNW_NO_STACK);
	cr_assert_eq(res.n, 1);
	cr_assert_str_eq(spi_unwind_error_name(SP_UNW_NO_STACK), "unwind_no_stack");
}

/* Where a frame pointer leads out of the code, or to a zero return
 * address, the walk stops short: no frame made of garbage, no claim that
 * the stack is complete. */
Test(unwind_fp, a_return_address_outside_the_code_ends_the_walk_truncated)
{
	uint8_t stack[256];
	struct sp_uregs regs;
	struct sp_ustack stk = { stack, sizeof(stack), 0 };
	struct sp_unwind_result res;
	uint64_t ips[8];

	chain(stack, &regs, 0x1080, 0x36393934); /* text, not code */
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_not(res.complete);
	cr_assert_eq(res.error, SP_UNW_BAD_RA);
	cr_assert_eq(res.n, 2);
	cr_assert_eq(ips[1], 0x402000 - 1);
	sp_put_le64(stack + 0x48, 0);
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_not(res.complete);
	cr_assert_eq(res.error, SP_UNW_BAD_RA);
	cr_assert_eq(res.n, 2);
	/* The leaf's own pc is a frame wherever it is (a JIT's code before
	 * its mapping is known). */
	regs.r[X86_64_REG_IP] = 0x7000;
	unwind_fp(&regs, &stk, ips, 8, &res);
	cr_assert_eq(res.n, 2);
	cr_assert_eq(ips[0], 0x7000);
}

/* A child that forks a grandchild, and a second child: all three are
 * listed, each after its parent. */
Test(procfs, descendants_are_listed_parents_first)
{
	int go[2];
	pid_t a, b, *v;
	size_t n, i, ia = 0, ib = 0, ig = 0;
	char c;

	cr_assert_eq(pipe(go), 0);
	a = fork();
	cr_assert_geq(a, 0);
	if (a == 0) {
		if (fork() == 0) {
			(void)close(go[1]);
			(void)read(go[0], &c, 1);
			_exit(0);
		}
		(void)close(go[1]);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	b = fork();
	cr_assert_geq(b, 0);
	if (b == 0) {
		(void)close(go[1]);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	/* Until a's child is there. */
	for (i = 0; i < 500; i++) {
		cr_assert_eq(sp_process_descendants(getpid(), &v, &n), 0);
		if (n >= 3)
			break;
		free(v);
		usleep(10000);
	}
	cr_assert_eq(n, 3);
	for (i = 0; i < n; i++) {
		if (v[i] == a)
			ia = i + 1;
		else if (v[i] == b)
			ib = i + 1;
		else
			ig = i + 1;
	}
	cr_assert(ia && ib && ig);
	cr_assert_gt(ig, ia, "the grandchild comes after its parent");
	free(v);
	(void)close(go[1]);
	(void)close(go[0]);
	(void)waitpid(a, NULL, 0);
	(void)waitpid(b, NULL, 0);
	cr_assert_eq(sp_process_descendants(999999999, &v, &n), 0);
	cr_assert_eq(n, 0);
	free(v);
}

/* A Go stack switch continued along the kernel's chain: from the entry
 * after the return address into the switch, rewound, up to the first
 * address in no module; still no root, so still the switch's error. */
Test(unwind_splice, goes_on_from_the_return_address_into_the_switch)
{
	const struct sp_unwind_lookup lk = { .find = no_cfi };
	const uint64_t chain[] = { 0x401000, 0x402000, 0x403000, 0x404000,
	    0x405000, 0x9000000, 0x406000 };
	struct sp_unwind_result res;
	uint64_t ips[8] = { 0x401000, 0x402fff, 0x403fff };

	memset(&res, 0, sizeof(res));
	res.n = 3;
	res.error = SP_UNW_SWITCH;
	res.switch_ra = 0x403000;
	cr_expect_eq(spi_unwind_splice(&lk, chain, 7, ips, 8, &res), 2);
	cr_expect_eq(res.n, 5);
	cr_expect_eq(ips[3], 0x403fff);
	cr_expect_eq(ips[4], 0x404fff);
	cr_expect_eq(res.error, SP_UNW_SWITCH);
	cr_expect_eq(res.complete, 0);
	/* A sample in the switch itself: from the chain's first return
	 * address; and never past max. */
	res.n = 1;
	res.switch_ra = 0;
	cr_expect_eq(spi_unwind_splice(&lk, chain, 7, ips, 3, &res), 2);
	cr_expect_eq(ips[1], 0x401fff);
	cr_expect_eq(ips[2], 0x402fff);
	/* A return address the chain lacks: nothing added. */
	res.n = 3;
	res.switch_ra = 0x407000;
	cr_expect_eq(spi_unwind_splice(&lk, chain, 7, ips, 8, &res), 0);
	/* Another error: nothing. */
	res.error = SP_UNW_BAD_RA;
	res.switch_ra = 0x403000;
	cr_expect_eq(spi_unwind_splice(&lk, chain, 7, ips, 8, &res), 0);
}

/* f as the recorder sees the file at path: its inode and build-id. */
static void
file_as_mapped(const char *path, struct rec_file *f)
{
	struct sp_elf_file *e = NULL;
	const uint8_t *id;
	struct stat st;
	size_t len;

	memset(f, 0, sizeof(*f));
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	cr_assert_eq(spi_elf_file_open(path, &e, NULL), 0, "%s", path);
	cr_assert_eq(spi_elf_file_build_id(e, &id, &len), 0);
	memcpy(f->build_id, id, len);
	f->build_id_len = (uint8_t)len;
	spi_elf_file_free(e);
}

/* A mapped file is unreachable when this host's path leads to no file,
 * or to another build: not to a copy of the same build, not to itself. */
Test(keep, unreachable_is_no_file_or_another_build_at_the_path)
{
	char dir[] = "/tmp/sp-unit-keep-XXXXXX", path[128], cmd[512];
	char *tree = realpath("build/tests/tree-O2", NULL);
	struct rec_file f;

	cr_assert_not_null(tree);
	cr_assert_not_null(mkdtemp(dir));
	(void)snprintf(path, sizeof(path), "%s/app", dir);
	file_as_mapped(tree, &f);
	cr_assert_eq(spi_rec_unreachable(tree, &f), 0, "the file itself");
	cr_assert_eq(spi_rec_unreachable(path, &f), 1, "no file there");
	(void)snprintf(cmd, sizeof(cmd), "cp build/tests/tree-O2 %s", path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(spi_rec_unreachable(path, &f), 0,
	    "a copy of the same build serves sp-sym as well");
	(void)snprintf(cmd, sizeof(cmd), "cp build/tests/split %s", path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(spi_rec_unreachable(path, &f), 1, "another build");
	cr_assert_eq(spi_rec_unreachable("[vdso]", &f), 0, "no path");
	f.build_id_len = 0;
	cr_assert_eq(spi_rec_unreachable(path, &f), 0,
	    "without a build-id nothing could be matched");
	(void)unlink(path);
	(void)rmdir(dir);
	free(tree);
}
