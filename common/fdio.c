/* SPDX-License-Identifier: MIT */
/* Whole-buffer read(2) and write(2): see fdio.h. */
#include <errno.h>
#include <unistd.h>

#include "common/fdio.h"

ssize_t rblk_read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int rblk_write_all(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}
