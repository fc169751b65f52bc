/* SPDX-License-Identifier: MIT */
/* The recorder's oldest kernel: releases as uname -r gives them, on each
 * side of 4.3, and strings that are no release. */
#include <criterion/criterion.h>
#include <sys/utsname.h>

#include "record/rec_events_int.h"

Test(kernel, releases_from_4_3_on_are_supported)
{
	static const char *const yes[] = {
		"4.3.0", "4.19.0-27-amd64", "5.10.0-35-cloud-amd64",
		"6.1.0-41-arm64", "6.12.48+deb13-cloud-amd64", "10.0",
	};
	static const char *const no[] = {
		"4.2.8", "3.16.0-11-amd64", "4.0", "2.6.32-754.el6.x86_64",
	};
	struct utsname u;
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_expect_eq(spi_kernel_supported(yes[i]), 1, "%s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_eq(spi_kernel_supported(no[i]), 0, "%s", no[i]);
	cr_expect_eq(spi_kernel_supported("linux"), -1);
	cr_expect_eq(spi_kernel_supported("6"), -1);
	cr_expect_eq(spi_kernel_supported("6."), -1);
	cr_expect_eq(spi_kernel_supported(""), -1);
	/* This machine's, on which the other tests record. */
	cr_assert_eq(uname(&u), 0);
	cr_expect_eq(spi_kernel_supported(u.release), 1, "%s", u.release);
}

/* Preemptions are marked in switch records from 4.17 on (--off-cpu keeps
 * them apart there). */
Test(kernel, at_least_compares_major_then_minor)
{
	cr_expect_eq(spi_kernel_at_least("4.17.0", 4, 17), 1);
	cr_expect_eq(spi_kernel_at_least("4.19.0-27-amd64", 4, 17), 1);
	cr_expect_eq(spi_kernel_at_least("5.0", 4, 17), 1);
	cr_expect_eq(spi_kernel_at_least("4.16.18", 4, 17), 0);
	cr_expect_eq(spi_kernel_at_least("3.99", 4, 17), 0);
	cr_expect_eq(spi_kernel_at_least("4.9.0-19-amd64", 4, 17), 0);
	cr_expect_eq(spi_kernel_at_least("", 4, 17), -1);
}
