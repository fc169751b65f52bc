/* SPDX-License-Identifier: MIT */
#ifndef SP_OUTPUT_H
#define SP_OUTPUT_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Where a tool writes: a file it creates or truncates, or standard
 * output.  Shared by the tools so that "-" and terminals are treated
 * alike, and so that a failed run never leaves a half-written file.
 */

struct sp_diag;

/*
 * A tool's standard output, kept only if the run succeeds.  With a path,
 * standard output becomes a new temporary file next to it (".NAME.PID-N"
 * in the same directory, the mode of the file it replaces, else 0644
 * less the umask); sp_output_commit renames it over path, so a failed
 * run leaves an existing file as it was and creates none.  A path that is
 * not a regular file or a link to one (a device, a FIFO), or whose
 * directory takes no new file, is written in place instead.
 */
struct sp_output_file {
	const char *name;   /* for messages: path, or "stdout" */
	const char *path;   /* NULL: standard output as it was */
	char *tmp;          /* the temporary file, NULL when in place */
	char *target;       /* what tmp replaces (path, links resolved) */
};

/*
 * Points standard output at path as above (NULL or "-": leaves it).
 * Returns 0 or -errno with diag->msg ("PATH: reason").  Call it before
 * anything is written to stdout.
 */
int sp_output_redirect(struct sp_output_file *o, const char *path,
    struct sp_diag *diag);

/*
 * Flushes standard output and, when it went to a temporary, renames it
 * over the target.  Returns 0, or -errno (-EIO for a write error whose
 * errno is gone) with diag->msg "NAME: reason" after removing the
 * temporary.  Frees what sp_output_redirect allocated either way.
 */
int sp_output_commit(struct sp_output_file *o, struct sp_diag *diag);

/* Removes the temporary, if any, and frees o: the run failed. */
void sp_output_discard(struct sp_output_file *o);

/*
 * A binary spool written through a file descriptor (sp-record, sp-sym,
 * sp-merge).  Opens *fd (close-on-exec) on a temporary next to path as
 * sp_output_redirect does; "-" is standard output (*fd STDOUT_FILENO,
 * refused with -SP_EUSAGE on a terminal), and a path that is not a
 * regular file or a link to one (a FIFO, /dev/null) is written in place.
 * Unlike sp_output_redirect, a regular file whose directory takes no new
 * file is an error, not truncated: nothing may touch it before the
 * output is known good.  The temporary replaces path at sp_output_place
 * (sp-record, once the recording has started, so that a recording killed
 * later still leaves a readable prefix under path) or sp_output_finish
 * (a tool whose whole run must succeed).  Returns 0, -SP_EUSAGE, or
 * -errno with diag->msg ("output PATH: reason").
 */
int sp_output_spool(struct sp_output_file *o, const char *path, int *fd,
    struct sp_diag *diag);

/*
 * Renames the spool's temporary over its target now (nothing to do in
 * place); the fd goes on writing into it.  Returns 0 or -errno with
 * diag->msg, the temporary still there (sp_output_discard removes it).
 * Call sp_output_discard at the end to free o.
 */
int sp_output_place(struct sp_output_file *o, struct sp_diag *diag);

/*
 * The spool is complete: closes fd (not standard output), renames the
 * temporary over path and frees o.  Returns 0, or -errno from close(2) or
 * rename(2) with diag->msg, after removing the temporary: an existing
 * file at path is then as it was.
 */
int sp_output_finish(struct sp_output_file *o, int fd, struct sp_diag *diag);

/* The run failed: closes fd (not standard output), removes the temporary
 * and frees o.  What was written in place (a FIFO, a device) stays. */
void sp_output_abandon(struct sp_output_file *o, int fd);

#ifdef __cplusplus
}
#endif

#endif
