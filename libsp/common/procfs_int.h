/* SPDX-License-Identifier: MIT */
#ifndef SP_PROCFS_INT_H
#define SP_PROCFS_INT_H

/* Reading /proc: a process's mappings, its threads, names. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp/common/process.h"

#define SP_PROC_FILE_MAX ((size_t)64 << 20) /* largest /proc file read */

struct sp_map {
	uint64_t start, end, offset, inode;
	uint32_t dev_major, dev_minor;
	int exec;
	const char *path;  /* into the caller's buffer; "" for anonymous */
	size_t path_len;
};

/*
 * Reads a whole file of at most max bytes into a new NUL-terminated buffer
 * (*out, to free).  Returns 0, -errno, or -SP_ELIMIT when it is larger.
 */
int spi_read_file(const char *path, size_t max, char **out, size_t *len);

/*
 * Parses one line of /proc/PID/maps (without its newline).  The path keeps
 * the kernel's escapes (a newline in a name shows as \012) and a
 * " (deleted)" suffix.  Returns 0 or -SP_EFORMAT.
 */
int spi_parse_maps_line(const char *line, size_t len, struct sp_map *m);

/*
 * Undoes the one escape of a maps path in place: the kernel writes a
 * newline as \012 (fs/proc/task_mmu.c: seq_file_path(m, file, "\n")), as
 * PERF_RECORD_MMAP2 does not, so both name a file alike.  A backslash is
 * not escaped, so a name with a real "\012" in it cannot be told apart.
 * Returns the new length.
 */
size_t spi_maps_path_unescape(char *path, size_t len);

/*
 * Lists the threads of pid into a new array (*tids, to free).  Returns 0
 * or -errno (ESRCH when the process is gone).
 */
int spi_proc_tasks(pid_t pid, pid_t **tids, size_t *n);

/* Lists the processes in /proc into a new array (*pids, to free). */
int spi_proc_pids(pid_t **pids, size_t *n);

/*
 * Lists the processes of the cgroup v2 directory open on dirfd and of
 * its descendants (cgroup.procs; SP_CGROUP_DEPTH_MAX levels down, at most
 * SP_CGROUP_PIDS_MAX pids) into a new array.  0 or -errno.
 */
#define SP_CGROUP_DEPTH_MAX 32
#define SP_CGROUP_PIDS_MAX 4194304u /* pid_max's limit */
int spi_cgroup_pids(int dirfd, pid_t **pids, size_t *n);

/*
 * The state letter (R, S, D, T, Z...) and parent pid of process pid, from
 * /proc/PID/stat.  Returns 0, -ESRCH (gone), -SP_EFORMAT, or -errno.
 */
int spi_proc_stat(pid_t pid, char *state, pid_t *ppid);

/* sp_process_descendants: sp/common/process.h. */

/* Reads /proc/PID/task/TID/comm into buf (NUL-terminated, no newline). */
int spi_proc_comm(pid_t pid, pid_t tid, char *buf, size_t cap);

/* The file name of /proc/PID/exe's target ("java"), NUL-terminated and
 * cut to cap - 1 bytes. */
int spi_proc_exe_name(pid_t pid, char *buf, size_t cap);

/* The arguments of process pid (/proc/PID/cmdline) separated by spaces,
 * NUL-terminated and cut to cap - 1 bytes ("" when unreadable). */
int spi_proc_args(pid_t pid, char *buf, size_t cap);

/* Reads a small integer file such as /proc/sys/kernel/perf_event_paranoid. */
int spi_read_long(const char *path, long *v);

#endif
