/* SPDX-License-Identifier: MIT */
/* Tests for common/fdio.c: whole-buffer reads and writes over a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/fdio.h"
#include "ut.h"

static void test_write_then_read_all(void)
{
	char out[1000], in[1000];
	int fds[2];

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)(i * 7);
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	CU_ASSERT_EQUAL(rblk_write_all(fds[1], out, sizeof(out)), 0);
	close(fds[1]);
	CU_ASSERT_EQUAL(rblk_read_all(fds[0], in, sizeof(in)), (ssize_t)sizeof(in));
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	close(fds[0]);
}

/* A pipe holds 64 KiB by default: 256 KiB needs many short writes and reads. */
static void test_large_buffer_through_a_child(void)
{
	static char out[256 * 1024], in[256 * 1024 + 16];
	int fds[2];
	pid_t pid;

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)(i % 251);
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		_exit(rblk_write_all(fds[1], out, sizeof(out)) ? 1 : 0);
	}
	close(fds[1]);
	/* Asks for more than is written: stops at end of input with the count. */
	CU_ASSERT_EQUAL(rblk_read_all(fds[0], in, sizeof(in)), (ssize_t)sizeof(out));
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(out)), 0);
	close(fds[0]);
}

static void test_errors_are_negative_errno(void)
{
	char b[4] = "abc";
	int fds[2];

	CU_ASSERT_EQUAL(rblk_read_all(-1, b, sizeof(b)), -EBADF);
	CU_ASSERT_EQUAL(rblk_write_all(-1, b, sizeof(b)), -EBADF);
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	/* Reading the write end fails at once. */
	CU_ASSERT_EQUAL(rblk_read_all(fds[1], b, sizeof(b)), -EBADF);
	close(fds[0]);
	close(fds[1]);
}

static void test_empty_buffers(void)
{
	char b[1];

	CU_ASSERT_EQUAL(rblk_read_all(-1, b, 0), 0);
	CU_ASSERT_EQUAL(rblk_write_all(-1, b, 0), 0);
}

static const struct ut_case cases[] = {
	UT_CASE(test_write_then_read_all),
	UT_CASE(test_large_buffer_through_a_child),
	UT_CASE(test_errors_are_negative_errno),
	UT_CASE(test_empty_buffers),
	UT_END
};

UT_MAIN("common/fdio", cases)
