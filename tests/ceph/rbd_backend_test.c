/* SPDX-License-Identifier: MIT */
/*
 * The rbd engine (backend/rbd.c) against a real cluster: tests/ceph/run.sh
 * starts one with ceph-mini.sh and runs this with CEPH_CONF set and the
 * image rbd/$RBLK_CEPH_IMAGE (256 MiB) freshly created. Without CEPH_CONF it
 * skips (77).
 *
 * Completions arrive on librbd's threads; everything here goes through
 * rblk_bqueue_poll() on this thread, as a poll group does, and one case
 * sleeps on the queue's eventfd to show the wake-up reaches the owner.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend/internal.h"
#include "common/clock.h"
#include "../unit/backend/bdev_helpers.h"

#define MiB (1ull << 20)
#define IMAGE_SIZE (256 * MiB)
#define OBJ (4 * MiB) /* RBD's default object size */

static char path[300];

static struct rblk_bdev *open_image(bool read_only)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "rbd", .path = path,
				    .read_only = read_only };
	struct rblk_bdev *bdev = NULL;

	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	return bdev;
}

static struct rblk_bqueue *queue(void)
{
	/* Any engine's queue serves rbd: take the one a poll group would. */
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = NULL, .depth = 64 };
	struct rblk_bqueue *q = NULL;

	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_create(&qo, &q), 0);
	return q;
}

static void test_geometry(void)
{
	struct rblk_bdev *bdev = open_image(false);

	CU_ASSERT_EQUAL(bdev->size, IMAGE_SIZE);
	CU_ASSERT_EQUAL(rblk_bdev_block_size(bdev), 512);
	CU_ASSERT_STRING_EQUAL(bdev->engine, "rbd");
	/* librbd's cache is off unless asked for: no volatile cache. */
	CU_ASSERT_FALSE(bdev->caps.write_cache);
	CU_ASSERT_TRUE(bdev->caps.can_discard);
	CU_ASSERT_FALSE(bdev->caps.discard_zeroes);
	CU_ASSERT_EQUAL(rblk_bdev_sync(bdev), 0);
	rblk_bdev_close(bdev);
}

/* 1 MiB across the first object boundary, in two iovecs (rbd_aio_writev/readv). */
static void test_write_read_iov(void)
{
	struct rblk_bdev *bdev = open_image(false);
	struct rblk_bqueue *q = queue();
	char *buf = ut_alloc(MiB);
	struct iovec iov[2] = { { buf, 384 * 1024 }, { buf + 384 * 1024, 640 * 1024 } };
	struct ut_req req;
	uint64_t off = OBJ - 512 * 1024;

	ut_fill(buf, MiB, 11);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, off, MiB, iov, 2);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	memset(buf, 0, MiB);
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, off, MiB, iov, 2);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_EQUAL(ut_check(buf, MiB, 11), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_FLUSH, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

/* 64 writes of 4 KiB in flight at once, then 64 reads; each its own pattern. */
static void test_many_in_flight(void)
{
	enum { N = 64, BS = 4096 };
	struct rblk_bdev *bdev = open_image(false);
	struct rblk_bqueue *q = queue();
	char *buf = ut_alloc(N * BS);
	struct iovec iov[N];
	struct ut_req reqs[N];

	for (int pass = 0; pass < 2; pass++) {
		enum rblk_bio_op op = pass ? RBLK_BIO_READ : RBLK_BIO_WRITE;

		for (int i = 0; i < N; i++) {
			if (!pass)
				ut_fill(buf + i * BS, BS, 100 + i);
			else
				memset(buf + i * BS, 0, BS);
			iov[i] = (struct iovec){ buf + i * BS, BS };
			/* Scattered over the image: many objects, many PGs. */
			ut_bio_init(&reqs[i].bio, op, bdev, (uint64_t)i * 3 * MiB + 8192, BS,
				    &iov[i], 1);
			reqs[i].calls = 0;
			CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &reqs[i].bio), 0);
		}
		CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), N);
		CU_ASSERT_EQUAL_FATAL(ut_wait_all(q, reqs, N), 0);
		for (int i = 0; i < N; i++) {
			CU_ASSERT_EQUAL(reqs[i].calls, 1);
			CU_ASSERT_EQUAL(reqs[i].bio.res, 0);
		}
	}
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(ut_check(buf + i * BS, BS, 100 + i), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

/* The owner sleeps on the eventfd; librbd's thread must wake it. */
static void test_eventfd_wakeup(void)
{
	struct rblk_bdev *bdev = open_image(false);
	struct rblk_bqueue *q = queue();
	char *buf = ut_alloc(8192);
	struct iovec iov = { buf, 8192 };
	struct ut_req req = { 0 };
	int efd = rblk_bqueue_eventfd(q);
	struct pollfd pfd = { .fd = efd, .events = POLLIN };
	uint64_t v;

	CU_ASSERT_FATAL(efd >= 0);
	ut_fill(buf, 8192, 7);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, 64 * MiB, 8192, &iov, 1);
	req.bio.flags = RBLK_BIO_FUA; /* the write and its flush: two librbd completions */
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &req.bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_flush_submissions(q), 0);
	/* Nothing runs the callback but our poll: it cannot have run yet. */
	CU_ASSERT_EQUAL(req.calls, 0);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 10000), 1);
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 32), 1);
	CU_ASSERT_EQUAL(req.calls, 1);
	CU_ASSERT_EQUAL(req.bio.res, 0);
	memset(buf, 0, 8192);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 64 * MiB, 8192, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 8192, 7), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void test_write_zeroes_and_discard(void)
{
	struct rblk_bdev *bdev = open_image(false);
	struct rblk_bqueue *q = queue();
	char *buf = ut_alloc(2 * OBJ);
	uint64_t base = 32 * MiB; /* object-aligned */

	/* Write zeroes in the middle of a pattern: exactly that range turns to zero. */
	ut_fill(buf, MiB, 21);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, base, MiB, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_WRITE_ZEROES, base + 4096, 8192, RBLK_BIO_FUA), 0);
	memset(buf, 0xee, MiB);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, base, MiB, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 4096, 21), 0);
	CU_ASSERT_TRUE(ut_is_zero(buf + 4096, 8192));
	/* The pattern depends on the position: seed + offset picks up where it was. */
	CU_ASSERT_EQUAL(ut_check(buf + 12288, MiB - 12288, 21 + 12288), 0);

	/* Discarding two whole objects removes them: they read back as zeroes. */
	ut_fill(buf, 2 * OBJ, 22);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, base, 2 * OBJ, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, base, 2 * OBJ, 0), 0);
	memset(buf, 0xee, 2 * OBJ);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, base, 2 * OBJ, 0), 0);
	CU_ASSERT_TRUE(ut_is_zero(buf, 2 * OBJ));
	/* A partial discard is advisory (no discard_zeroes): it only has to succeed. */
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, base + 512, 4096, 0), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void test_out_of_range(void)
{
	struct rblk_bdev *bdev = open_image(false);
	struct rblk_bqueue *q = queue();
	char *buf = ut_alloc(8192);

	/* The last block is addressable, the one after it is not. */
	ut_fill(buf, 512, 31);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, IMAGE_SIZE - 512, 512, 0), 0);
	memset(buf, 0, 512);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, IMAGE_SIZE - 512, 512, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 512, 31), 0);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, IMAGE_SIZE, 512, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, IMAGE_SIZE - 4096, 8192, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_WRITE_ZEROES, IMAGE_SIZE - 512, 1024, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, IMAGE_SIZE, 512, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 100, 512, 0), -EINVAL);
	/* Refused bios never reached librbd: nothing is in flight. */
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void test_read_only(void)
{
	struct rblk_bdev *bdev = open_image(true);
	struct rblk_bqueue *q = queue();
	char *buf = ut_alloc(4096);

	CU_ASSERT_TRUE(bdev->read_only);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 0, 4096, 0), -EROFS);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void test_open_errors(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "rbd" };
	struct rblk_bdev *bdev = NULL;

	o.path = "rbd:rbd/no-such-image";
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), -ENOENT);
	o.path = "rbd:no-such-pool/img0";
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), -ENOENT);
	o.path = "rbd:img0";
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), -EINVAL);
	CU_ASSERT_PTR_NULL(bdev);
}

/*
 * The least-privileged client: client.rblk (caps "profile rbd" on pool rbd)
 * with only its own key, given the way Ceph clients take it, in CEPH_ARGS.
 */
static void test_client_id_and_ceph_args(void)
{
	const char *keyring = getenv("RBLK_CEPH_CLIENT_KEYRING");
	char args[400];
	struct rblk_bdev *bdev;

	if (!keyring) {
		ut_skip("RBLK_CEPH_CLIENT_KEYRING not set");
		return;
	}
	snprintf(args, sizeof(args), "--keyring %s", keyring);
	setenv("CEPH_ARGS", args, 1);
	setenv("RBLK_RBD_ID", "rblk", 1);
	bdev = open_image(false);
	CU_ASSERT_EQUAL(bdev->size, IMAGE_SIZE);
	rblk_bdev_close(bdev);
	/* A client the cluster does not know is refused (cephx). */
	setenv("RBLK_RBD_ID", "nobody", 1);
	{
		struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "rbd", .path = path };

		bdev = NULL;
		CU_ASSERT_TRUE(rblk_bdev_open(&o, &bdev) < 0);
		CU_ASSERT_PTR_NULL(bdev);
	}
	unsetenv("RBLK_RBD_ID");
	unsetenv("CEPH_ARGS");
}

/*
 * The same client given as options (rblk-target's --ceph-conf, --rbd-id,
 * --rbd-keyring): they win over the environment.
 */
static void test_client_options(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "rbd", .path = path };
	const char *keyring = getenv("RBLK_CEPH_CLIENT_KEYRING");
	char *conf = strdup(getenv("CEPH_CONF"));
	struct rblk_bdev *bdev = NULL;

	if (!keyring) {
		ut_skip("RBLK_CEPH_CLIENT_KEYRING not set");
		free(conf);
		return;
	}
	unsetenv("CEPH_CONF");
	setenv("RBLK_RBD_ID", "nobody", 1); /* the option wins */
	o.ceph_conf = conf;
	o.ceph_id = "rblk";
	o.ceph_keyring = keyring;
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), 0);
	if (bdev)
		CU_ASSERT_EQUAL(bdev->size, IMAGE_SIZE);
	rblk_bdev_close(bdev);
	/* A configuration file that is not there is an error, not a search. */
	bdev = NULL;
	o.ceph_conf = "/nonexistent/ceph.conf";
	CU_ASSERT_TRUE(rblk_bdev_open(&o, &bdev) < 0);
	CU_ASSERT_PTR_NULL(bdev);
	unsetenv("RBLK_RBD_ID");
	setenv("CEPH_CONF", conf, 1);
	free(conf);
}

/*
 * CEPH_CONF set to a copy of the cluster's file with @extra appended, for
 * one case; restore_conf() puts the original back. (Not CEPH_ARGS: Ceph
 * reads that once per process and keeps the first non-empty value, so only
 * one case here may use it.)
 */
static char orig_conf[300], tmp_conf[320];

static void with_conf(const char *extra)
{
	char cmd[1000];

	snprintf(orig_conf, sizeof(orig_conf), "%s", getenv("CEPH_CONF"));
	snprintf(tmp_conf, sizeof(tmp_conf), "%s.case", orig_conf);
	snprintf(cmd, sizeof(cmd), "cp %s %s && printf '%s' >> %s", orig_conf, tmp_conf, extra,
		 tmp_conf);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	setenv("CEPH_CONF", tmp_conf, 1);
}

static void restore_conf(void)
{
	setenv("CEPH_CONF", orig_conf, 1);
	unlink(tmp_conf);
}

/*
 * No monitor where the configuration points: the open fails, and soon, instead of
 * holding start-up. (With nothing listening librados gives up at once, here
 * with -EACCES; a monitor that accepts and never answers is bounded by
 * client_mount_timeout, which this does not exercise.)
 */
static void test_unreachable_cluster_fails(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "rbd", .path = path };
	struct rblk_bdev *bdev = NULL;
	double t0 = ut_now();
	int r;

	/* Nothing listens on the discard port of loopback. */
	with_conf("\\n[client.admin]\\nmon_host = 127.0.0.1:9\\nclient_mount_timeout = 2\\n");
	r = rblk_bdev_open(&o, &bdev);
	restore_conf();
	CU_ASSERT_TRUE(r < 0);
	CU_ASSERT_PTR_NULL(bdev);
	CU_ASSERT_TRUE(ut_now() - t0 < 15);
}

/*
 * The cache is the namespace's choice, not the Ceph configuration's: on in
 * ceph.conf and not asked for, it stays off (a completed write is in the
 * cluster, no volatile cache); asked for, it is on and the host is told.
 */
static void test_cache_only_when_asked(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "rbd", .path = path };
	struct rblk_bdev *bdev = NULL;

	with_conf("\\n[client.admin]\\nrbd_cache = true\\n");
	bdev = open_image(false);
	CU_ASSERT_FALSE(bdev->caps.write_cache);
	rblk_bdev_close(bdev);
	o.rbd_cache = true;
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	restore_conf();
	CU_ASSERT_TRUE(bdev->caps.write_cache);
	CU_ASSERT_EQUAL(rblk_bdev_sync(bdev), 0);
	rblk_bdev_close(bdev);
}

struct resize_seen {
	uint64_t size;  /* the last size reported; atomic: a librbd thread writes it */
	unsigned calls;
};

static void on_resize(void *arg, uint64_t size)
{
	struct resize_seen *s = arg;

	__atomic_store_n(&s->size, size, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELEASE);
}

/* "rbd resize" by another client; 0 when it succeeded. */
static int rbd_resize(const char *size)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rbd resize --no-progress --allow-shrink --size %s %s",
		 size, path + 4);
	return system(cmd);
}

static bool wait_calls(struct resize_seen *s, unsigned n)
{
	for (int i = 0; i < 200; i++) {
		if (__atomic_load_n(&s->calls, __ATOMIC_ACQUIRE) >= n)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/*
 * The image grows and shrinks under the open bdev (another client's "rbd
 * resize"): librbd's update watch reports each new size once, bdev->size
 * follows, and the range check with it.
 */
static void test_resize_followed(void)
{
	struct rblk_bdev *bdev = open_image(false);
	struct rblk_bqueue *q = queue();
	struct resize_seen seen = { 0 };
	char *buf = ut_alloc(4096);

	CU_ASSERT_EQUAL(rblk_bdev_watch_size(bdev, on_resize, &seen), 0);
	CU_ASSERT_EQUAL(rblk_bdev_watch_size(bdev, on_resize, &seen), -EBUSY);
	CU_ASSERT_EQUAL(seen.calls, 0); /* no change yet: no call */
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, IMAGE_SIZE, 4096, 0), -ERANGE);

	CU_ASSERT_EQUAL_FATAL(rbd_resize("320M"), 0);
	CU_ASSERT_TRUE_FATAL(wait_calls(&seen, 1));
	CU_ASSERT_EQUAL(__atomic_load_n(&seen.size, __ATOMIC_ACQUIRE), 320 * MiB);
	CU_ASSERT_EQUAL(__atomic_load_n(&bdev->size, __ATOMIC_RELAXED), 320 * MiB);
	/* The new blocks are there. */
	ut_fill(buf, 4096, 41);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 320 * MiB - 4096, 4096, 0), 0);
	memset(buf, 0, 4096);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 320 * MiB - 4096, 4096, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 4096, 41), 0);

	/* Back to the original size (the other cases rely on it): gone again. */
	CU_ASSERT_EQUAL_FATAL(rbd_resize("256M"), 0);
	CU_ASSERT_TRUE_FATAL(wait_calls(&seen, 2));
	CU_ASSERT_EQUAL(__atomic_load_n(&seen.size, __ATOMIC_ACQUIRE), IMAGE_SIZE);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, IMAGE_SIZE, 4096, 0), -ERANGE);
	/* Header updates that are not resizes report nothing. */
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "rbd image-meta set %s rblk-test 1", path + 4);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	usleep(500 * 1000);
	CU_ASSERT_EQUAL(__atomic_load_n(&seen.calls, __ATOMIC_ACQUIRE), 2);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void on_resv_change(void *arg)
{
	__atomic_add_fetch((unsigned *)arg, 1, __ATOMIC_RELEASE);
}

static bool wait_count(unsigned *n, unsigned want)
{
	for (int i = 0; i < 200; i++) {
		if (__atomic_load_n(n, __ATOMIC_ACQUIRE) >= want)
			return true;
		usleep(25 * 1000);
	}
	return false;
}

static int load_str(struct rblk_bdev *bdev, char *buf, size_t len)
{
	size_t n = 0;
	int r = rblk_bdev_resv_load(bdev, buf, len - 1, &n);

	buf[r ? 0 : n] = 0;
	return r;
}
/* A gateway's owner that loads once told of a change, as the target does. */
struct loader {
	struct rblk_bdev *bdev;
	unsigned *seen;
	unsigned want;                  /* the notice count to load after */
	bool loading;                   /* atomic: the load has begun */
};

static void *loader_thread(void *arg)
{
	struct loader *l = arg;
	char buf[64];

	wait_count(l->seen, l->want);
	__atomic_store_n(&l->loading, true, __ATOMIC_RELEASE);
	load_str(l->bdev, buf, sizeof(buf));
	return NULL;
}

/*
 * Two gateways (two connections) on one image share its reservation state:
 * an empty store reads as none, a store is seen by the other gateway's
 * watch (not by the writer's own), a store on a state changed since the
 * last load is -EAGAIN, and a third opener (a restarted gateway) reads the
 * last state back.
 */
static void test_shared_resv(void)
{
	struct rblk_bdev *a = open_image(false), *b = open_image(false), *c;
	unsigned seen_a = 0, seen_b = 0;
	char buf[256];
	uint64_t t0;

	CU_ASSERT_TRUE(a->caps.shared_resv);
	CU_ASSERT_EQUAL(load_str(a, buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(rblk_bdev_resv_watch(a, on_resv_change, &seen_a), 0);
	/* A's watch made an empty object: still no state. */
	CU_ASSERT_EQUAL(load_str(b, buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(rblk_bdev_resv_watch(b, on_resv_change, &seen_b), 0);
	/* Either watch may have been told once that the other was set up. */
	usleep(200 * 1000);
	seen_a = seen_b = 0;

	/*
	 * B's owner does not load here: A's notice stays unacknowledged until
	 * B's deadline (half a second), and A's store waits for it.
	 */
	t0 = rblk_clock_ms();
	CU_ASSERT_EQUAL(rblk_bdev_resv_store(a, "one", 3), 0);
	CU_ASSERT_TRUE(rblk_clock_ms() - t0 >= 400);
	CU_ASSERT_TRUE(wait_count(&seen_b, 1));
	/* Its own version: A stores again without loading. */
	CU_ASSERT_EQUAL(rblk_bdev_resv_store(a, "two", 3), 0);
	CU_ASSERT_TRUE(wait_count(&seen_b, 2));
	CU_ASSERT_EQUAL(__atomic_load_n(&seen_a, __ATOMIC_ACQUIRE), 0);
	/* B last saw the empty object: its store loses the race. */
	CU_ASSERT_EQUAL(rblk_bdev_resv_store(b, "three", 5), -EAGAIN);
	CU_ASSERT_EQUAL(load_str(b, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "two");
	CU_ASSERT_EQUAL(rblk_bdev_resv_store(b, "three", 5), 0);
	CU_ASSERT_TRUE(wait_count(&seen_a, 1));
	CU_ASSERT_EQUAL(load_str(a, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "three");
	/*
	 * B's owner loads when told: A's store completes once that load has
	 * (B then judges by the new state), well before the deadline.
	 */
	{
		struct loader l = { b, &seen_b, __atomic_load_n(&seen_b, __ATOMIC_ACQUIRE) + 1, 0 };
		pthread_t th;

		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, loader_thread, &l), 0);
		t0 = rblk_clock_ms();
		CU_ASSERT_EQUAL(rblk_bdev_resv_store(a, "four", 4), 0);
		CU_ASSERT_TRUE(__atomic_load_n(&l.loading, __ATOMIC_ACQUIRE));
		CU_ASSERT_TRUE(rblk_clock_ms() - t0 < 400);
		pthread_join(th, NULL);
		CU_ASSERT_EQUAL(load_str(b, buf, sizeof(buf)), 0);
		CU_ASSERT_STRING_EQUAL(buf, "four");
		CU_ASSERT_EQUAL(rblk_bdev_resv_store(b, "three", 5), 0);
		CU_ASSERT_EQUAL(load_str(a, buf, sizeof(buf)), 0);
	}
	/* A blob larger than the reader's buffer is refused, never cut. */
	CU_ASSERT_EQUAL(rblk_bdev_resv_load(a, buf, 4, &(size_t){ 0 }), -EINVAL);
	rblk_bdev_close(a);
	rblk_bdev_close(b);

	c = open_image(false);
	CU_ASSERT_EQUAL(load_str(c, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "three");
	/* The other cases' images start without a reservation. */
	CU_ASSERT_EQUAL(rblk_bdev_resv_store(c, "", 0), 0);
	CU_ASSERT_EQUAL(load_str(c, buf, sizeof(buf)), -ENOENT);
	rblk_bdev_close(c);
}

/* Runs "ceph osd blocklist VERB" on the address of the first watcher of the image's store. */
static int blocklist_watcher(const char *verb)
{
	static char addr[128];
	char cmd[1024];
	FILE *f;

	if (!strcmp(verb, "add")) {
		snprintf(cmd, sizeof(cmd),
			 "rados -p rbd listwatchers rblk_resv.$(rbd info %s --format json | "
			 "jq -r .id) | sed -n 's/^watcher=\\([^ ]*\\) .*/\\1/p' | head -1",
			 path + 4);
		f = popen(cmd, "r");
		if (!f || !fgets(addr, sizeof(addr), f) || !addr[0]) {
			if (f)
				pclose(f);
			return -1;
		}
		pclose(f);
		addr[strcspn(addr, "\n")] = 0;
	}
	snprintf(cmd, sizeof(cmd), "ceph osd blocklist %s %s >/dev/null 2>&1", verb, addr);
	return system(cmd);
}

/*
 * The watch breaks (the client blocklisted: the OSD drops it): the owner is
 * told, loads fail until the watch is back (the target fails closed), and
 * once the client may talk again the watch is registered anew, the owner
 * told once more, and loads and stores work.
 */
static void test_resv_watch_broken(void)
{
	struct rblk_bdev *a = open_image(false);
	unsigned seen = 0;
	char buf[256];
	int r = 0;

	CU_ASSERT_EQUAL(load_str(a, buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_resv_watch(a, on_resv_change, &seen), 0);
	usleep(200 * 1000);
	seen = 0;
	CU_ASSERT_EQUAL_FATAL(blocklist_watcher("add"), 0);
	for (int i = 0; i < 1200 && !__atomic_load_n(&seen, __ATOMIC_ACQUIRE); i++)
		usleep(50 * 1000);
	CU_ASSERT_TRUE(__atomic_load_n(&seen, __ATOMIC_ACQUIRE) >= 1);
	/* Blocklisted, the watch cannot come back: no load vouches for the state. */
	CU_ASSERT_EQUAL(load_str(a, buf, sizeof(buf)), -ENOTCONN);
	CU_ASSERT_EQUAL(blocklist_watcher("rm"), 0);
	for (int i = 0; i < 1200; i++) {
		r = load_str(a, buf, sizeof(buf));
		if (r == -ENOENT && __atomic_load_n(&seen, __ATOMIC_ACQUIRE) >= 2)
			break;
		usleep(50 * 1000);
	}
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_TRUE(__atomic_load_n(&seen, __ATOMIC_ACQUIRE) >= 2);
	CU_ASSERT_EQUAL(rblk_bdev_resv_store(a, "", 0), 0);
	rblk_bdev_close(a);
}

/*
 * librbd's compare-and-write: the expected bytes write the new ones, stale
 * ones write nothing (-EILSEQ); a second open of the image (another
 * gateway) sees the same; scattered halves go through one contiguous copy.
 */
static void test_compare_write(void)
{
	enum { BS = 512 };	/* librbd compares and writes one sector at a time */
	struct rblk_bdev *bdev = open_image(false), *other = open_image(false);
	struct rblk_bqueue *q = queue();
	char *a = ut_alloc(2 * BS), *b = ut_alloc(BS), *c = ut_alloc(BS), *rd = ut_alloc(BS);
	struct iovec va = { a, BS }, vb = { b, BS }, vc = { c, BS }, vr = { rd, BS };
	struct iovec split_b[2] = { { b, 100 }, { b + 100, BS - 100 } };
	struct iovec split_c[2] = { { c, 300 }, { c + 300, BS - 300 } };
	struct iovec two = { a, 2 * BS };
	uint64_t off = 8 * MiB + 3 * BS;
	struct ut_req req;

	CU_ASSERT_TRUE(bdev->caps.compare_write);
	CU_ASSERT_EQUAL(bdev->caps.compare_write_unit, 512);
	ut_fill(a, BS, 21);
	ut_fill(b, BS, 22);
	ut_fill(c, BS, 23);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, off, BS, &va, 1);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	/* a is there: b replaces it */
	ut_bio_init(&req.bio, RBLK_BIO_COMPARE_WRITE, bdev, off, BS, &vb, 1);
	req.bio.cmp_iov = &va;
	req.bio.cmp_iovcnt = 1;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	/* through the other open (another gateway): a is stale, nothing is written */
	ut_bio_init(&req.bio, RBLK_BIO_COMPARE_WRITE, other, off, BS, &vc, 1);
	req.bio.cmp_iov = &va;
	req.bio.cmp_iovcnt = 1;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), -EILSEQ);
	ut_bio_init(&req.bio, RBLK_BIO_READ, other, off, BS, &vr, 1);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_EQUAL(ut_check(rd, BS, 22), 0);
	/* scattered halves, with FUA */
	ut_bio_init(&req.bio, RBLK_BIO_COMPARE_WRITE, other, off, BS, split_c, 2);
	req.bio.cmp_iov = split_b;
	req.bio.cmp_iovcnt = 2;
	req.bio.flags = RBLK_BIO_FUA;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, off, BS, &vr, 1);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_EQUAL(ut_check(rd, BS, 23), 0);
	/* beyond the unit: librbd refuses (the target refuses such a pair first) */
	ut_bio_init(&req.bio, RBLK_BIO_COMPARE_WRITE, bdev, off, 2 * BS, &two, 1);
	req.bio.cmp_iov = &two;
	req.bio.cmp_iovcnt = 1;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), -EINVAL);
	/* halves that do not cover the range are refused before librbd */
	vb.iov_len = 256;
	ut_bio_init(&req.bio, RBLK_BIO_COMPARE_WRITE, bdev, off, BS, &vc, 1);
	req.bio.cmp_iov = &vb;
	req.bio.cmp_iovcnt = 1;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req.bio), -EINVAL);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(other);
	rblk_bdev_close(bdev);
	free(a);
	free(b);
	free(c);
	free(rd);
}

static int setup(void)
{
	const char *image = getenv("RBLK_CEPH_IMAGE");

	if (!getenv("CEPH_CONF")) {
		fprintf(stderr, "CEPH_CONF not set: run through tests/ceph/run.sh\n");
		exit(UT_SKIP);
	}
	snprintf(path, sizeof(path), "rbd:rbd/%s", image ? image : "img0");
	return 0;
}

static int teardown(void)
{
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_geometry),
	UT_CASE(test_write_read_iov),
	UT_CASE(test_compare_write),
	UT_CASE(test_many_in_flight),
	UT_CASE(test_eventfd_wakeup),
	UT_CASE(test_write_zeroes_and_discard),
	UT_CASE(test_out_of_range),
	UT_CASE(test_read_only),
	UT_CASE(test_open_errors),
	UT_CASE(test_client_id_and_ceph_args),
	UT_CASE(test_client_options),
	UT_CASE(test_cache_only_when_asked),
	UT_CASE(test_resize_followed),
	UT_CASE(test_shared_resv),
	UT_CASE(test_resv_watch_broken),
	UT_CASE(test_unreachable_cluster_fails),
	UT_END,
};

UT_MAIN_INIT("ceph/rbd_backend", cases, setup, teardown)
