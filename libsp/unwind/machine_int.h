/* SPDX-License-Identifier: MIT */
#ifndef SP_MACHINE_INT_H
#define SP_MACHINE_INT_H

/*
 * The architecture a build records on: its constants of the seam
 * (arch_int.h lists them), chosen when compiling.  The only place that
 * names the architectures.
 */

#if defined(__x86_64__)
#include "unwind/x86_64/x86_64_int.h"
#elif defined(__aarch64__)
#include "unwind/aarch64/aarch64_int.h"
#else
#error "stackpulse records on x86-64 and AArch64 only: no unwinder for this architecture"
#endif

#endif
