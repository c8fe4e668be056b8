/* SPDX-License-Identifier: MIT */
/*
 * Private to transport/: small readers for sysfs attribute files. Every
 * function takes paths built from a caller-given root so unit tests can run
 * the device and counter code over a fake tree in a temp directory.
 */
#ifndef RBLK_TRANSPORT_SYSFS_H
#define RBLK_TRANSPORT_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#define RBLK_SYSFS_DEFAULT_ROOT "/sys"

/* snprintf into @buf; -ENAMETOOLONG when it does not fit. */
int rblk_sysfs_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Reads a small attribute file into @buf, NUL-terminated, with trailing
 * whitespace removed. -ENOENT when absent; some attributes exist but refuse
 * to be read (gid_attrs/types/<i> of an empty GID gives -EINVAL).
 */
int rblk_sysfs_read_str(const char *path, char *buf, size_t len);

/*
 * Reads a decimal (or 0x-prefixed hex) unsigned value; -EINVAL when the file
 * does not hold one.
 */
int rblk_sysfs_read_u64(const char *path, uint64_t *out);

/*
 * Numeric entries of a directory (gids/, ports/), sorted ascending, in a
 * malloc()ed array the caller frees. *n = 0 and *out = NULL for an empty or
 * missing directory (the latter returns -ENOENT).
 */
int rblk_sysfs_list_numeric(const char *dir, unsigned **out, unsigned *n);

#endif
