/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/file.c: what opening a file or block device finds out
 * (size, block size, O_DIRECT and its alignment, capabilities), the refusals
 * (missing, empty, not a file, read-only file for writing), the O_DIRECT
 * fallback (forced through a link-time wrap of open(), since tmpfs accepts
 * O_DIRECT since Linux 6.6), a real tmpfs file when /dev/shm exists, a loop
 * block device when the machine allows one, and the synchronous helpers.
 */
#include <stdarg.h>
#include <sys/wait.h>

#include "backend/internal.h"
#include "bdev_helpers.h"
#include "common/log.h"

/* The link seam: open() from backend/file.c lands here (-Wl,--wrap=open). */
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
static int refuse_direct;

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (refuse_direct && (flags & O_DIRECT)) {
		errno = EINVAL;
		return -1;
	}
	return __real_open(path, flags, mode);
}

static int notices, infos;
static char last[512];

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == RBLK_LOG_NOTICE)
		notices++;
	if (level == RBLK_LOG_INFO)
		infos++;
	snprintf(last, sizeof(last), "%s", msg);
}

static int open_file(const char *path, bool ro, enum rblk_bdev_direct direct, uint32_t bs,
		     struct rblk_bdev **out)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .path = path, .engine = "aio",
				    .read_only = ro, .direct = direct, .block_size = bs };

	return rblk_bdev_open(&o, out);
}

static void test_regular_file_geometry(void)
{
	struct rblk_bdev *bdev = NULL;
	char path[256];

	/* A tail shorter than a block is not part of the namespace. */
	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), (8 << 20) + 100, path), 0);
	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_AUTO, 0, &bdev), 0);
	CU_ASSERT_EQUAL(bdev->size, 8 << 20);
	CU_ASSERT_EQUAL(rblk_bdev_block_size(bdev), 512);
	CU_ASSERT_FALSE(bdev->is_blockdev);
	CU_ASSERT_FALSE(bdev->read_only);
	CU_ASSERT(bdev->fd >= 0);
	CU_ASSERT_STRING_EQUAL(bdev->path, path);
	CU_ASSERT_STRING_EQUAL(bdev->engine, "aio");
	CU_ASSERT_TRUE(bdev->caps.can_flush);
	CU_ASSERT_TRUE(bdev->caps.can_write_zeroes);
	CU_ASSERT_TRUE(bdev->caps.write_cache);
	/* ext4/xfs/btrfs all punch holes; holes read back as zeroes. */
	CU_ASSERT_TRUE(bdev->caps.can_discard);
	CU_ASSERT_TRUE(bdev->caps.discard_zeroes);
	if (bdev->direct) {
		CU_ASSERT(bdev->buf_align >= 1 && bdev->buf_align <= 4096);
		CU_ASSERT_EQUAL(fcntl(bdev->fd, F_GETFL) & O_DIRECT, O_DIRECT);
	}
	rblk_bdev_close(bdev);

	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_OFF, 4096, &bdev), 0);
	CU_ASSERT_FALSE(bdev->direct);
	CU_ASSERT_EQUAL(bdev->buf_align, 1);
	CU_ASSERT_EQUAL(bdev->lba_shift, 12);
	CU_ASSERT_EQUAL(fcntl(bdev->fd, F_GETFL) & O_DIRECT, 0);
	rblk_bdev_close(bdev);
	unlink(path);
}

static void test_refusals(void)
{
	struct rblk_bdev *bdev = NULL;
	char path[256];

	CU_ASSERT_EQUAL(open_file("/nonexistent/rblk", false, RBLK_DIRECT_AUTO, 0, &bdev), -ENOENT);
	CU_ASSERT_EQUAL(open_file(ut_dir(), false, RBLK_DIRECT_AUTO, 0, &bdev), -EINVAL);
	CU_ASSERT_EQUAL(open_file("/dev/null", false, RBLK_DIRECT_AUTO, 0, &bdev), -EINVAL);
	CU_ASSERT_EQUAL(open_file("", false, RBLK_DIRECT_AUTO, 0, &bdev), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 0, path), 0);
	CU_ASSERT_EQUAL(open_file(path, false, RBLK_DIRECT_AUTO, 0, &bdev), -EINVAL);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 1000, path), 0);
	CU_ASSERT_EQUAL(open_file(path, false, RBLK_DIRECT_AUTO, 4096, &bdev), -EINVAL);
	unlink(path);
}

/* Opening a 0444 file for writing as an unprivileged user: -EACCES. */
static void test_read_only_file_refused_for_write(void)
{
	struct rblk_bdev *bdev = NULL;
	char dir[256], path[300];
	int status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/rblk-ut-dir-XXXXXX", ut_dir());
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(path, sizeof(path), "%s/ro.img", dir);
	close(open(path, O_CREAT | O_WRONLY, 0444));
	CU_ASSERT_EQUAL(truncate(path, 1 << 20), 0);

	/* Root ignores file modes: try as nobody in a child. */
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int r;

		if (geteuid() == 0 && setresuid(65534, 65534, 65534) < 0)
			_exit(100);
		r = open_file(path, false, RBLK_DIRECT_AUTO, 0, &bdev);
		if (r == 0)
			_exit(101);
		r = -r;
		_exit(r == 0 ? 102 : r);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), EACCES);

	/* Read-only is fine, and then writes are -EROFS. */
	CU_ASSERT_EQUAL_FATAL(open_file(path, true, RBLK_DIRECT_AUTO, 0, &bdev), 0);
	CU_ASSERT_TRUE(bdev->read_only);
	CU_ASSERT_FALSE(bdev->caps.can_discard);
	{
		struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = "aio", .depth = 4 };
		struct rblk_bqueue *q = NULL;
		char *buf = ut_alloc(4096);

		CU_ASSERT_EQUAL_FATAL(rblk_bqueue_create(&qo, &q), 0);
		CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 0, 4096, 0), -EROFS);
		CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_WRITE_ZEROES, 0, 4096, 0), -EROFS);
		CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, 0, 4096, 0), -EROFS);
		CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
		CU_ASSERT_TRUE(ut_is_zero(buf, 4096));
		rblk_bqueue_destroy(q);
		free(buf);
	}
	rblk_bdev_close(bdev);
	unlink(path);
	rmdir(dir);
}

/* The check before start: same refusals as the open, and the mode asked for. */
static void test_path_check(void)
{
	char path[256], why[256], dir[256], ro[300];
	int status;
	pid_t pid;

	CU_ASSERT_EQUAL(rblk_bdev_path_check("/nonexistent/rblk", true, why, sizeof(why)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(why, "/nonexistent/rblk: No such file or directory");
	CU_ASSERT_EQUAL(rblk_bdev_path_check("/dev/null", false, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "/dev/null: not a regular file or block device");
	CU_ASSERT_EQUAL(rblk_bdev_path_check("", false, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 1 << 20, path), 0);
	CU_ASSERT_EQUAL(rblk_bdev_path_check(path, false, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_bdev_path_check(path, true, why, sizeof(why)), 0);
	unlink(path);

	/* A 0444 file: read-only passes, read-write is refused (as nobody: root ignores modes). */
	snprintf(dir, sizeof(dir), "%s/rblk-ut-dir-XXXXXX", ut_dir());
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(ro, sizeof(ro), "%s/ro.img", dir);
	close(open(ro, O_CREAT | O_WRONLY, 0444));
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && setresuid(65534, 65534, 65534) < 0)
			_exit(100);
		if (rblk_bdev_path_check(ro, true, why, sizeof(why)))
			_exit(101);
		if (rblk_bdev_path_check(ro, false, why, sizeof(why)) != -EACCES)
			_exit(102);
		_exit(strstr(why, "cannot open read-write") && strstr(why, "read-only") ? 0 : 103);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	unlink(ro);
	rmdir(dir);
}

static void test_direct_refused_falls_back_once_logged(void)
{
	struct rblk_bdev *bdev = NULL;
	char path[256];

	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 1 << 20, path), 0);
	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_INFO);
	refuse_direct = 1;
	notices = infos = 0;
	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_AUTO, 0, &bdev), 0);
	CU_ASSERT_FALSE(bdev->direct);
	CU_ASSERT_EQUAL(bdev->buf_align, 1);
	CU_ASSERT_EQUAL(notices, 1);
	rblk_bdev_close(bdev);
	/* The second time it is only an info line. */
	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_AUTO, 0, &bdev), 0);
	CU_ASSERT_EQUAL(notices, 1);
	CU_ASSERT(infos >= 1);
	rblk_bdev_close(bdev);
	/* Required: the open's error. */
	CU_ASSERT_EQUAL(open_file(path, false, RBLK_DIRECT_REQUIRE, 0, &bdev), -EINVAL);
	refuse_direct = 0;
	rblk_log_set_handler(NULL, NULL);
	rblk_log_set_level(RBLK_LOG_NOTICE);
	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_REQUIRE, 0, &bdev), 0);
	CU_ASSERT_TRUE(bdev->direct);
	rblk_bdev_close(bdev);
	unlink(path);
}

/* A real tmpfs file: opens either way and round-trips data. */
static void test_tmpfs_file(void)
{
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = "aio", .depth = 4 };
	struct rblk_bdev *bdev = NULL;
	struct rblk_bqueue *q = NULL;
	char path[256], *buf;

	if (!ut_dir_exists("/dev/shm")) {
		ut_skip("no writable /dev/shm (tmpfs)");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(ut_mkfile("/dev/shm", 1 << 20, path), 0);
	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_AUTO, 0, &bdev), 0);
	CU_ASSERT_EQUAL(bdev->size, 1 << 20);
	CU_ASSERT_TRUE(bdev->caps.can_discard);
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_create(&qo, &q), 0);
	buf = ut_alloc(8192);
	ut_fill(buf, 8192, 7);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 65536, 8192, 0), 0);
	memset(buf, 0, 8192);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 65536, 8192, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 8192, 7), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	unlink(path);
	free(buf);
}

static void test_block_device(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "aio" };
	char dev[64], backing[256];
	struct rblk_bdev *bdev = NULL, *other = NULL;
	int lfd = ut_loop_create(16 << 20, dev, backing);

	if (lfd < 0) {
		char why[128];

		/* Loop devices need root and the loop driver: optional, so a skip. */
		snprintf(why, sizeof(why), "no loop device (%s): needs root and the loop driver",
			 strerror(-lfd));
		ut_skip(why);
		return;
	}
	o.path = dev;
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	CU_ASSERT_TRUE(bdev->is_blockdev);
	CU_ASSERT_EQUAL(bdev->size, 16 << 20);
	CU_ASSERT_EQUAL(rblk_bdev_block_size(bdev), 512);
	CU_ASSERT_TRUE(bdev->direct);
	CU_ASSERT_TRUE(bdev->caps.can_discard); /* loop on ext4 passes discard on */
	CU_ASSERT_FALSE(bdev->caps.discard_zeroes);
	/* Claimed exclusively while writable. */
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &other), -EBUSY);
	rblk_bdev_close(bdev);
	/* Coarser blocks are fine, finer than the device's are not. */
	o.block_size = 4096;
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	CU_ASSERT_EQUAL(rblk_bdev_block_size(bdev), 4096);
	rblk_bdev_close(bdev);
	close(lfd);
}

static void test_sync_helpers(void)
{
	struct rblk_bdev *bdev = NULL;
	char path[256], *buf = ut_alloc(65536);
	struct stat st;
	int fd;

	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 1 << 20, path), 0);
	fd = open(path, O_RDWR);
	ut_fill(buf, 65536, 3);
	CU_ASSERT_EQUAL(pwrite(fd, buf, 65536, 0), 65536);
	fsync(fd);
	CU_ASSERT_EQUAL_FATAL(open_file(path, false, RBLK_DIRECT_OFF, 0, &bdev), 0);
	CU_ASSERT_EQUAL(rblk_file_datasync(bdev), 0);
	CU_ASSERT_EQUAL(rblk_file_zero_range(bdev, 4096, 8192), 0);
	CU_ASSERT_EQUAL(pread(fd, buf, 65536, 0), 65536);
	CU_ASSERT_TRUE(ut_is_zero(buf + 4096, 8192));
	CU_ASSERT_FALSE(ut_is_zero(buf, 4096));
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT_EQUAL(rblk_file_discard(bdev, 0, 65536), 0);
	CU_ASSERT_EQUAL(pread(fd, buf, 65536, 0), 65536);
	CU_ASSERT_TRUE(ut_is_zero(buf, 65536));
	{
		struct stat st2;

		CU_ASSERT_EQUAL(fstat(fd, &st2), 0);
		CU_ASSERT(st2.st_blocks < st.st_blocks); /* the hole gave space back */
		CU_ASSERT_EQUAL(st2.st_size, 1 << 20);   /* KEEP_SIZE */
	}
	rblk_bdev_close(bdev);
	close(fd);
	unlink(path);
	free(buf);
}

static const struct ut_case cases[] = {
	/* First: it counts the process's one-time NOTICE. */
	UT_CASE(test_direct_refused_falls_back_once_logged),
	UT_CASE(test_regular_file_geometry),
	UT_CASE(test_refusals),
	UT_CASE(test_read_only_file_refused_for_write),
	UT_CASE(test_path_check),
	UT_CASE(test_tmpfs_file),
	UT_CASE(test_block_device),
	UT_CASE(test_sync_helpers),
	UT_END,
};

UT_MAIN("backend/file", cases)
