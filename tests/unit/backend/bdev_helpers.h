/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the backend tests: temporary files on a real file system
 * (/var/tmp unless RBLK_TEST_DIR says otherwise; never assumed to be tmpfs),
 * a loop block device when the machine allows one, patterns, and running bios
 * to completion through a queue with a timeout.
 */
#ifndef RBLK_UT_BDEV_HELPERS_H
#define RBLK_UT_BDEV_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "common/util.h"
#include "ut.h"

/* A caller's request with an embedded bio, as the target will have. */
struct ut_req {
	int tag;
	int calls;
	struct rblk_bio bio;
};

static inline void ut_req_cb(struct rblk_bio *bio)
{
	struct ut_req *req = rblk_container_of(bio, struct ut_req, bio);

	req->calls++;
}

static inline void ut_bio_init(struct rblk_bio *bio, enum rblk_bio_op op, struct rblk_bdev *bdev,
			       uint64_t off, uint64_t len, const struct iovec *iov, int iovcnt)
{
	memset(bio, 0, sizeof(*bio));
	bio->op = op;
	bio->bdev = bdev;
	bio->offset = off;
	bio->len = len;
	bio->iov = iov;
	bio->iovcnt = iovcnt;
	bio->buf_index = -1;
	bio->cb = ut_req_cb;
}

static inline double ut_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Flushes and polls until every request in reqs[] has completed; 0 or -ETIMEDOUT. */
static inline int ut_wait_all(struct rblk_bqueue *q, struct ut_req *reqs, unsigned n)
{
	double deadline = ut_now() + 20;

	for (;;) {
		unsigned pending = 0;

		for (unsigned i = 0; i < n; i++)
			pending += reqs[i].calls == 0;
		if (!pending)
			return 0;
		if (ut_now() > deadline)
			return -ETIMEDOUT;
		rblk_bqueue_flush_submissions(q);
		if (rblk_bqueue_poll(q, 64) == 0)
			usleep(50);
	}
}

/* One bio start to finish: the submit error, or bio->res. */
static inline int ut_bio_run(struct rblk_bqueue *q, struct ut_req *req)
{
	int r;

	req->calls = 0;
	r = rblk_bqueue_submit(q, &req->bio);
	if (r)
		return r;
	if (ut_wait_all(q, req, 1))
		return -ETIMEDOUT;
	return req->calls == 1 ? req->bio.res : -EPROTO;
}

static inline int ut_rw(struct rblk_bqueue *q, struct rblk_bdev *bdev, enum rblk_bio_op op,
			void *buf, uint64_t off, uint64_t len, uint32_t flags)
{
	struct iovec iov = { buf, len };
	struct ut_req req;

	ut_bio_init(&req.bio, op, bdev, off, len, &iov, 1);
	req.bio.flags = flags;
	return ut_bio_run(q, &req);
}

static inline int ut_op(struct rblk_bqueue *q, struct rblk_bdev *bdev, enum rblk_bio_op op,
			uint64_t off, uint64_t len, uint32_t flags)
{
	struct ut_req req;

	ut_bio_init(&req.bio, op, bdev, off, len, NULL, 0);
	req.bio.flags = flags;
	return ut_bio_run(q, &req);
}

static inline void *ut_alloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) / 4096 * 4096);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

/* Bytes that differ from one test to another and from zero. */
static inline void ut_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(((seed + i) * 2654435761u) >> 13) | 1;
}

static inline int ut_check(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != ((uint8_t)(((seed + i) * 2654435761u) >> 13) | 1))
			return -1;
	return 0;
}

static inline int ut_is_zero(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static inline const char *ut_dir(void)
{
	const char *d = getenv("RBLK_TEST_DIR");

	return d && d[0] ? d : "/var/tmp";
}

/* A fresh file of size bytes (sparse) under dir; path written to path[256]. */
static inline int ut_mkfile(const char *dir, uint64_t size, char *path)
{
	int fd;

	snprintf(path, 256, "%s/rblk-ut-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, size) < 0) {
		int r = -errno;

		close(fd);
		unlink(path);
		return r;
	}
	close(fd);
	return 0;
}

/* Whether dir is a tmpfs (for the tests that want one). */
static inline int ut_dir_exists(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK) == 0;
}

/*
 * A loop device over a fresh file, auto-cleared when the last opener closes
 * it. Returns its fd (keep it open) and the device path, or -errno when this
 * machine cannot give us one (not root, no loop driver): the caller skips.
 */
static inline int ut_loop_create(uint64_t size, char *dev, char *backing)
{
	int ctl, bfd, lfd = -1, n;

	if (ut_mkfile(ut_dir(), size, backing))
		return -EIO;
	bfd = open(backing, O_RDWR);
	ctl = open("/dev/loop-control", O_RDWR);
	if (bfd < 0 || ctl < 0)
		goto fail;
	for (int tries = 0; tries < 10 && lfd < 0; tries++) {
		struct loop_config cfg;

		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(dev, 64, "/dev/loop%d", n);
		lfd = open(dev, O_RDWR);
		if (lfd < 0)
			break;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = bfd;
		cfg.block_size = 512;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) < 0) {
			close(lfd); /* taken by someone else meanwhile: try another */
			lfd = -1;
		}
	}
fail:
	if (ctl >= 0)
		close(ctl);
	if (bfd >= 0)
		close(bfd);
	unlink(backing); /* the loop device holds the file */
	return lfd >= 0 ? lfd : -ENODEV;
}

#endif
