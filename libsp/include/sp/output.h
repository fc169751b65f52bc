/* SPDX-License-Identifier: MIT */
#ifndef SP_OUTPUT_H
#define SP_OUTPUT_H

/*
 * Where a tool writes a spool: a file it creates or truncates, or
 * standard output.  Shared by sp-record, sp-sym and sp-merge so that "-"
 * and terminals are treated alike.
 */

struct sp_diag;

/*
 * Opens path for writing a binary spool: "-" is standard output (*fd =
 * STDOUT_FILENO, not to be closed), anything else is created or truncated
 * with mode 0644 and opened close-on-exec.  Returns 0; -SP_EUSAGE when
 * path is "-" and standard output is a terminal (binary bytes would land
 * on the screen); -errno when the file can't be opened.  On error,
 * diag->msg says what happened and what to do, ready to print.
 */
int sp_output_open(const char *path, int *fd, struct sp_diag *diag);

#endif
