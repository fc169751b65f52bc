/* SPDX-License-Identifier: MIT */
/*
 * For tests/vm (arm64 guests): does this process's CPU sign return
 * addresses?  Signs the address of main with the A key and SP as
 * modifier (PACIA1716, in the hint space: a no-op where PAuth is absent
 * or its key disabled) and prints "pac PLAIN SIGNED", 16 hexadecimal digits each.
 * The host's check wants SIGNED to differ from PLAIN in its top bits
 * only, the PAC field above the virtual address (Arm ARM D8.8).
 */
#include <stdint.h>
#include <stdio.h>

int
main(void)
{
	uint64_t plain = (uint64_t)(uintptr_t)&main, signed_ = plain;

	__asm__ volatile("mov x17, %0\n\tmov x16, sp\n\thint #8\n\tmov %0, x17"
	    : "+r"(signed_) : : "x16", "x17");
	printf("pac %016llx %016llx\n", (unsigned long long)plain,
	    (unsigned long long)signed_);
	return 0;
}
