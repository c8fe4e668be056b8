/* SPDX-License-Identifier: MIT */
/*
 * Whole-buffer read(2) and write(2) on a blocking descriptor: the loops over
 * short transfers and EINTR, written once.
 */
#ifndef RBLK_COMMON_FDIO_H
#define RBLK_COMMON_FDIO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * read(2) until @len bytes or end of input. The bytes read (fewer than @len
 * only at end of input), or -errno of the first failed read.
 */
ssize_t rblk_read_all(int fd, void *buf, size_t len);
/* write(2) until all @len bytes are written. 0 or -errno. */
int rblk_write_all(int fd, const void *buf, size_t len);

#endif
