/* SPDX-License-Identifier: MIT */
#ifndef SP_OPTS_H
#define SP_OPTS_H

/*
 * Options structs that can grow (docs/api.md "Options and ABI"): struct
 * sp_recorder_opts, sp_sym_options, sp_fold_options, sp_flame_svg_opts,
 * sp_report_options and sp_advice_opts begin with size_t sz, which the
 * caller sets to sizeof the struct it was built with.  A later release
 * adds fields only at the end, and reads a shorter struct's missing
 * fields as 0 (their defaults).  sz 0 stands for the struct as it was
 * when sz came (release 0.5.0; sp_advice_opts: no field), so zeroed
 * options keep meaning the defaults.  A struct longer than the library
 * knows is refused (-SP_EUSAGE) unless its extra bytes are all 0; so is
 * an sz under sizeof(size_t) or above 4096.  Zero the whole struct (an
 * initializer does) before setting fields.
 */

/*
 * An initializer: struct sp_fold_options fo = SP_OPTS_INIT(sp_fold_options,
 * .max_depth = 20);  The fields not named are 0.  A -pedantic C
 * compiler (before C23) wants a field named after TYPE.  C++ (before
 * C++20's designated initializers): T o{}; o.sz = sizeof(o);
 */
#define SP_OPTS_INIT(TYPE, ...) { .sz = sizeof(struct TYPE), __VA_ARGS__ }

#endif
