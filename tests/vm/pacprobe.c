/* SPDX-License-Identifier: MIT */
/*
 * For tests/vm (arm64 guests): does this process's CPU sign return
 * addresses?  Signs the address of main with the A key and a modifier
 * (PACIA1716, in the hint space: a no-op where PAuth is absent or its key
 * disabled) and prints "pac PLAIN SIGNED", 16 hexadecimal digits each.
 * The host's check wants SIGNED to differ from PLAIN in its top bits
 * only, the PAC field above the virtual address (Arm ARM D8.8).  That
 * field is 7 bits here (48-bit addresses, the top byte ignored): one
 * signature in 128 puts back the bits that were there, leaving the
 * address as it was, which failed the check once.  So up to 8 modifiers
 * are tried, and the first signature that changes the address is
 * printed (the last where none does: 1 in 2^56 with PAuth on).
 */
#include <stdint.h>
#include <stdio.h>

int
main(void)
{
	uint64_t plain = (uint64_t)(uintptr_t)&main, signed_ = plain;
	uint64_t mod;

	for (mod = 0; mod < 8 && signed_ == plain; mod++) {
		signed_ = plain;
		__asm__ volatile("mov x17, %0\n\tmov x16, %1\n\thint #8\n\tmov %0, x17"
		    : "+r"(signed_) : "r"(mod) : "x16", "x17");
	}
	printf("pac %016llx %016llx\n", (unsigned long long)plain,
	    (unsigned long long)signed_);
	return 0;
}
