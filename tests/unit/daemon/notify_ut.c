/* SPDX-License-Identifier: MIT */
/* Tests for daemon/notify.c: the sd_notify datagram to path and abstract sockets. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/notify.h"
#include "ut.h"

/* Binds a datagram socket to @name ('@' = abstract); returns the fd. */
static int listener(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa,
			   offsetof(struct sockaddr_un, sun_path) + len + (name[0] == '/')) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void expect_datagram(int fd, const char *want)
{
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	CU_ASSERT_EQUAL_FATAL(n, (ssize_t)strlen(want));
	buf[n] = '\0';
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_abstract_socket(void)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "@rblk-notify-ut-%d", getpid());
	fd = listener(name);
	if (fd < 0) {
		CU_FAIL("cannot bind an abstract socket");
		return;
	}
	setenv("NOTIFY_SOCKET", name, 1);
	CU_ASSERT_EQUAL(rblk_notify("READY=1"), 1);
	expect_datagram(fd, "READY=1");
	CU_ASSERT_EQUAL(rblk_notifyf("STATUS=serving %d subsystems", 3), 1);
	expect_datagram(fd, "STATUS=serving 3 subsystems");
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

static void test_path_socket(void)
{
	char dir[] = "/tmp/rblk-notify-XXXXXX", path[96];
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = listener(path);
	CU_ASSERT_FATAL(fd >= 0);
	setenv("NOTIFY_SOCKET", path, 1);
	CU_ASSERT_EQUAL(rblk_notify("RELOADING=1\nMONOTONIC_USEC=1"), 1);
	expect_datagram(fd, "RELOADING=1\nMONOTONIC_USEC=1");
	close(fd);
	unlink(path);
	rmdir(dir);
	/* Nobody listening any more: an error, not a crash or a hang. */
	CU_ASSERT(rblk_notify("STOPPING=1") < 0);
	unsetenv("NOTIFY_SOCKET");
}

static void test_not_under_systemd(void)
{
	unsetenv("NOTIFY_SOCKET");
	CU_ASSERT_EQUAL(rblk_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	CU_ASSERT_EQUAL(rblk_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

static const struct ut_case cases[] = {
	UT_CASE(test_abstract_socket),
	UT_CASE(test_path_socket),
	UT_CASE(test_not_under_systemd),
	UT_END,
};

UT_MAIN("target/notify", cases)
