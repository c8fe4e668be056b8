/* SPDX-License-Identifier: MIT */
/*
 * sd_notify(3) in a few lines (see notify.h). $NOTIFY_SOCKET is a path
 * ("/run/systemd/notify") or, with a leading '@', a Linux abstract socket
 * name whose first byte is NUL in the address.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/notify.h"

int rblk_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len, slen = strlen(state);
	socklen_t salen;
	ssize_t n;
	int fd, ret;

	if (!path || !path[0])
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	/* Abstract names are length-delimited, paths NUL-terminated: both fit this. */
	salen = offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/');
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, slen, MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	ret = n < 0 ? -errno : ((size_t)n == slen ? 1 : -EMSGSIZE);
	close(fd);
	return ret;
}

int rblk_notifyf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return rblk_notify(buf);
}
