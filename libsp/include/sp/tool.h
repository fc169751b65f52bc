/* SPDX-License-Identifier: MIT */
#ifndef SP_TOOL_H
#define SP_TOOL_H

/*
 * Helpers for the tools' main() alone.  Unlike the rest of libsp these
 * print and exit, as a command-line tool does; nothing else in the
 * library calls them.
 */

/* Prints sp_version_text() for tool on standard output and exits 0 (1 if
 * standard output cannot be written). */
void sp_tool_version(const char *tool);

/*
 * Reports the option getopt_long() refused and exits 2.  ch is what
 * getopt_long() returned ('?' for an unknown option, ':' for a missing
 * value: the option string must start with ':', after any '+'), with
 * opterr set to 0.  Prints one line, for example
 *   sp-dump: unknown option '--foo' (see sp-dump --help)
 *   sp-dump: option '-o' needs a value (see sp-dump --help)
 */
void sp_tool_bad_option(const char *tool, int ch, char **argv);

#endif
