/* SPDX-License-Identifier: MIT */
/* Readers for sysfs attribute files (see sysfs.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/sysfs.h"

int rblk_sysfs_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int rblk_sysfs_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

int rblk_sysfs_read_u64(const char *path, uint64_t *out)
{
	char buf[64];
	char *end;
	unsigned long long v;
	int ret;

	ret = rblk_sysfs_read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int rblk_sysfs_list_numeric(const char *dir, unsigned **out, unsigned *n)
{
	unsigned *v = NULL, cap = 0, cnt = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		unsigned long x;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		x = strtoul(de->d_name, &end, 10);
		if (*end || x > 0xffffffffUL)
			continue;
		if (cnt == cap) {
			unsigned ncap = cap ? cap * 2 : 16;
			unsigned *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		v[cnt++] = (unsigned)x;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_unsigned);
	*out = v;
	*n = cnt;
	return 0;
}
