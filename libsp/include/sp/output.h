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
 * diag->msg says what happened and what to do, ready to print
 * ("output PATH: Is a directory").
 */
int sp_output_open(const char *path, int *fd, struct sp_diag *diag);

/*
 * After a failure, undoes sp_output_open(path, &fd): closes fd and, when
 * it is a regular file, removes path, so that a half-written spool does
 * not pass for a result.  Standard output (fd STDOUT_FILENO) and devices
 * such as /dev/null are left alone.
 */
void sp_output_abandon(const char *path, int fd);

/*
 * Closes fd after the spool was written (nothing for standard output).
 * Returns 0, or -errno from close(2), after which a regular file is
 * removed as sp_output_abandon does.
 */
int sp_output_close(const char *path, int fd);

#endif
