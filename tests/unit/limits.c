/* SPDX-License-Identifier: MIT */
/* The limits of docs/limits.md that no other unit test reaches, each at
 * its value and one past it. */
#include <criterion/criterion.h>
