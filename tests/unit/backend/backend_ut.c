/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/backend.c: options ABI, engine lookup and the auto choice,
 * request validation (every refusal with its -errno, before anything runs),
 * depth accounting and -EAGAIN, the local completion list (poll budget,
 * callbacks never from submit), the eventfd, and destroy with I/O in flight.
 * Runs on the mem engine so it needs no kernel support beyond eventfd.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "backend/internal.h"
#include "bdev_helpers.h"
#include "common/log.h"

#define CAP (4u << 20)

static int notices;

static void count_notices(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == RBLK_LOG_NOTICE && strstr(msg, "backend: engine"))
		notices++;
}

static struct rblk_bdev *open_mem(bool ro, uint32_t bs)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "mem", .capacity = CAP,
				    .read_only = ro, .block_size = bs };
	struct rblk_bdev *bdev = NULL;

	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), 0);
	return bdev;
}

static struct rblk_bqueue *open_queue(const char *engine, unsigned depth)
{
	struct rblk_bqueue_opts o = { .size = sizeof(o), .engine = engine, .depth = depth };
	struct rblk_bqueue *q = NULL;

	CU_ASSERT_EQUAL(rblk_bqueue_create(&o, &q), 0);
	return q;
}

/* What container runtimes do: io_uring_setup fails with EPERM. */
static int block_io_uring(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -errno;
	return 0;
}

/* In a child (the probe runs once per process, and has not run here yet). */
static int auto_without_io_uring(void)
{
	struct rblk_bqueue_opts o = { .size = sizeof(o) };
	struct rblk_bqueue *q = NULL;
	char why[256] = "";
	const char *name;

	rblk_log_set_level(RBLK_LOG_ERR);
	if (block_io_uring())
		return 10;
	name = rblk_backend_auto_name(why, sizeof(why));
	if (strcmp(name, "aio") != 0)
		return 11;
	if (!strstr(why, "io_uring_queue_init") || !strstr(why, strerror(EPERM)))
		return 12;
	if (rblk_bqueue_create(&o, &q) || strcmp(rblk_bqueue_engine(q), "aio") != 0)
		return 13;
	rblk_bqueue_destroy(q);
	o.engine = "uring";
	if (rblk_bqueue_create(&o, &q) != -EPERM)
		return 14;
	return 0;
}

static void test_auto_falls_back_to_aio_when_io_uring_blocked(void)
{
	int status;
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(auto_without_io_uring());
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

static void test_auto_name_probes_once_and_says_why(void)
{
	char why[256] = "";
	const char *name;

	rblk_log_set_handler(count_notices, NULL);
	name = rblk_backend_auto_name(why, sizeof(why));
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT(strcmp(name, "uring") == 0 || strcmp(name, "aio") == 0);
	CU_ASSERT(strlen(why) > 10);
	CU_ASSERT_PTR_EQUAL(rblk_backend_auto_name(NULL, 0), name);
	CU_ASSERT_EQUAL(notices, 1);
	/* If io_uring works it is chosen, and the reason says so. */
	if (rblk_uring_ops.probe(NULL, 0) == 0) {
		CU_ASSERT_STRING_EQUAL(name, "uring");
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "io_uring_queue_init works"));
	} else {
		CU_ASSERT_STRING_EQUAL(name, "aio");
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "io_uring unavailable"));
	}
	rblk_log_set_handler(NULL, NULL);
}

static void test_engine_lookup(void)
{
	CU_ASSERT_PTR_EQUAL(rblk_backend_find("uring"), &rblk_uring_ops);
	CU_ASSERT_PTR_EQUAL(rblk_backend_find("io_uring"), &rblk_uring_ops);
	CU_ASSERT_PTR_EQUAL(rblk_backend_find("libaio"), &rblk_aio_ops);
	CU_ASSERT_PTR_EQUAL(rblk_backend_find("mem"), &rblk_mem_ops);
	CU_ASSERT_PTR_EQUAL(rblk_backend_find("null"), &rblk_null_ops);
	CU_ASSERT_PTR_NULL(rblk_backend_find("spdk"));
	CU_ASSERT_PTR_NULL(rblk_backend_find(NULL));
}

static void test_options_size_abi(void)
{
	struct {
		struct rblk_bdev_opts o;
		uint64_t future;
	} big = { .o = { .engine = "mem", .capacity = CAP } };
	struct rblk_bqueue_opts qo = { .size = 0 };
	struct rblk_bdev *bdev = NULL;
	struct rblk_bqueue *q = NULL;

	big.o.size = 0;
	CU_ASSERT_EQUAL(rblk_bdev_open(&big.o, &bdev), -EINVAL);
	CU_ASSERT_EQUAL(rblk_bdev_open(NULL, &bdev), -EINVAL);
	/* A newer caller's unknown field set: refused, not ignored. */
	big.o.size = sizeof(big);
	big.future = 1;
	CU_ASSERT_EQUAL(rblk_bdev_open(&big.o, &bdev), -E2BIG);
	big.future = 0;
	CU_ASSERT_EQUAL(rblk_bdev_open(&big.o, &bdev), 0);
	rblk_bdev_close(bdev);
	/* An older caller's shorter struct: the missing fields are zero. */
	big.o.size = offsetof(struct rblk_bdev_opts, capacity);
	CU_ASSERT_EQUAL(rblk_bdev_open(&big.o, &bdev), -EINVAL); /* capacity 0 */

	CU_ASSERT_EQUAL(rblk_bqueue_create(&qo, &q), -EINVAL);
	qo = (struct rblk_bqueue_opts){ .size = sizeof(qo), .engine = "mem", .flags = 0x80 };
	CU_ASSERT_EQUAL(rblk_bqueue_create(&qo, &q), -EINVAL);
	qo.flags = 0;
	qo.depth = RBLK_BQUEUE_MAX_DEPTH + 1;
	CU_ASSERT_EQUAL(rblk_bqueue_create(&qo, &q), -EINVAL);
	qo.depth = 0;
	qo.engine = "floppy";
	CU_ASSERT_EQUAL(rblk_bqueue_create(&qo, &q), -EINVAL);
	qo.engine = "mem";
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_create(&qo, &q), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_depth(q), RBLK_BQUEUE_DEFAULT_DEPTH);
	CU_ASSERT_STRING_EQUAL(rblk_bqueue_engine(q), "mem");
	rblk_bqueue_destroy(q);
}

static void test_block_size_option_checked(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "mem", .capacity = CAP };
	struct rblk_bdev *bdev = NULL;

	o.block_size = 1000;
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), -EINVAL);
	o.block_size = 256;
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &bdev), -EINVAL);
	o.block_size = 4096;
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	CU_ASSERT_EQUAL(rblk_bdev_block_size(bdev), 4096);
	CU_ASSERT_EQUAL(bdev->lba_shift, 12);
	rblk_bdev_close(bdev);
}

/* Each refusal: the right -errno, no callback, nothing in flight. */
static void expect_refused(struct rblk_bqueue *q, struct ut_req *req, int err)
{
	req->calls = 0;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req->bio), err);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 16), 0);
	CU_ASSERT_EQUAL(req->calls, 0);
}

static void test_validation(void)
{
	struct rblk_bdev *bdev = open_mem(false, 4096);
	struct rblk_bqueue *q = open_queue("mem", 8);
	char *buf = ut_alloc(16384);
	struct iovec iov[2] = { { buf, 8192 }, { buf + 8192, 8192 } };
	struct ut_req req;

	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 4096, 16384, iov, 2);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0); /* the baseline is fine */

	req.bio.offset = 512;
	expect_refused(q, &req, -EINVAL); /* offset not a block multiple */
	req.bio.offset = 4096;
	req.bio.len = 16384 - 512;
	expect_refused(q, &req, -EINVAL); /* length not a block multiple */
	req.bio.len = 8192;
	expect_refused(q, &req, -EINVAL); /* iovecs add up to 16384 */
	req.bio.len = 0;
	expect_refused(q, &req, -EINVAL);
	req.bio.len = 16384;
	req.bio.offset = CAP - 8192;
	expect_refused(q, &req, -ERANGE); /* runs past the end */
	req.bio.offset = CAP;
	expect_refused(q, &req, -ERANGE);
	req.bio.offset = UINT64_MAX & ~4095ull;
	expect_refused(q, &req, -ERANGE); /* offset + len wraps */
	req.bio.offset = 0;
	req.bio.flags = 0x10;
	expect_refused(q, &req, -EINVAL); /* unknown flag */
	req.bio.flags = 0;
	req.bio.op = (enum rblk_bio_op)77;
	expect_refused(q, &req, -EINVAL);
	req.bio.op = RBLK_BIO_READ;
	req.bio.iovcnt = 0;
	expect_refused(q, &req, -EINVAL);
	req.bio.iovcnt = 2;
	req.bio.cb = NULL;
	expect_refused(q, &req, -EINVAL);
	req.bio.cb = ut_req_cb;
	req.bio.bdev = NULL;
	expect_refused(q, &req, -EINVAL);
	req.bio.bdev = bdev;
	req.bio.op = RBLK_BIO_WRITE_ZEROES;
	req.bio.offset = CAP - 4096;
	req.bio.len = 8192;
	expect_refused(q, &req, -ERANGE);
	req.bio.op = RBLK_BIO_DISCARD;
	req.bio.len = 100;
	expect_refused(q, &req, -EINVAL);
	/* Flush ignores offset/len. */
	ut_bio_init(&req.bio, RBLK_BIO_FLUSH, bdev, 123, 0, NULL, 0);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);

	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void test_read_only_refuses_writes(void)
{
	struct rblk_bdev *bdev = open_mem(true, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	char *buf = ut_alloc(4096);
	struct iovec iov = { buf, 4096 };
	struct ut_req req;

	CU_ASSERT_TRUE(bdev->read_only);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, 0, 4096, &iov, 1);
	expect_refused(q, &req, -EROFS);
	req.bio.op = RBLK_BIO_WRITE_ZEROES;
	expect_refused(q, &req, -EROFS);
	req.bio.op = RBLK_BIO_DISCARD;
	expect_refused(q, &req, -EROFS);
	req.bio.op = RBLK_BIO_READ;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	req.bio.op = RBLK_BIO_FLUSH;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static void test_file_bdev_on_mem_queue_is_exdev(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "aio" };
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct rblk_bdev *bdev = NULL;
	char path[256], buf[512];
	struct iovec iov = { buf, sizeof(buf) };
	struct ut_req req;

	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 1 << 20, path), 0);
	o.path = path;
	o.direct = RBLK_DIRECT_OFF;
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 0, 512, &iov, 1);
	expect_refused(q, &req, -EXDEV);
	CU_ASSERT_EQUAL(rblk_bqueue_register_bdev(q, bdev), -EXDEV);
	rblk_bdev_close(bdev);
	rblk_bqueue_destroy(q);
	unlink(path);
}

static void test_depth_limit_is_eagain_then_progress(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 4);
	struct ut_req reqs[5];

	for (int i = 0; i < 5; i++) {
		ut_bio_init(&reqs[i].bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
		reqs[i].calls = 0;
	}
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &reqs[i].bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 4);
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &reqs[4].bio), -EAGAIN);
	/* Callbacks never run inside submit. */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(reqs[i].calls, 0);
	/* The poll budget is respected, in submission order. */
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 1), 1);
	CU_ASSERT_EQUAL(reqs[0].calls, 1);
	CU_ASSERT_EQUAL(reqs[1].calls, 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 3);
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &reqs[4].bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 2), 2);
	CU_ASSERT_EQUAL(reqs[2].calls, 1);
	CU_ASSERT_EQUAL(reqs[3].calls, 0);
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 100), 2);
	CU_ASSERT_EQUAL(reqs[4].calls, 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 100), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

/* A callback that submits again, the way a reactor restarts work. */
static struct rblk_bqueue *resubmit_q;
static int resubmits;

static void resubmit_cb(struct rblk_bio *bio)
{
	struct ut_req *req = rblk_container_of(bio, struct ut_req, bio);

	req->calls++;
	if (resubmits-- > 0)
		CU_ASSERT_EQUAL(rblk_bqueue_submit(resubmit_q, bio), 0);
}

static void test_callbacks_may_submit_without_starving_poll(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct ut_req req;

	resubmit_q = open_queue("mem", 4);
	ut_bio_init(&req.bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
	req.bio.cb = resubmit_cb;
	req.calls = 0;
	resubmits = 1000;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(resubmit_q, &req.bio), 0);
	/* Each poll ends even though every callback queues a new completion. */
	CU_ASSERT_EQUAL(rblk_bqueue_poll(resubmit_q, 8), 1);
	CU_ASSERT_EQUAL(req.calls, 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(resubmit_q), 1);
	resubmits = 0;
	CU_ASSERT_EQUAL(rblk_bqueue_poll(resubmit_q, 8), 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(resubmit_q), 0);
	rblk_bqueue_destroy(resubmit_q);
	rblk_bdev_close(bdev);
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* n FLUSHes on q, each completing through the queue's local list. */
static void submit_flushes(struct rblk_bqueue *q, struct rblk_bdev *bdev, struct ut_req *reqs,
			   int n)
{
	for (int i = 0; i < n; i++) {
		ut_bio_init(&reqs[i].bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
		reqs[i].calls = 0;
		CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &reqs[i].bio), 0);
	}
}

static void test_eventfd_for_local_completions(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct ut_req reqs[3];
	uint64_t v;
	int efd;

	efd = rblk_bqueue_eventfd(q);
	CU_ASSERT_FATAL(efd >= 0);
	CU_ASSERT_EQUAL(rblk_bqueue_eventfd(q), efd);
	CU_ASSERT_FALSE(readable(efd));
	submit_flushes(q, bdev, reqs, 3);
	CU_ASSERT_TRUE(readable(efd));
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_FALSE(readable(efd));
	/* A poll that leaves completions behind re-arms it, so a sleeper wakes. */
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 1), 1);
	CU_ASSERT_TRUE(readable(efd));
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 2);
	CU_ASSERT_FALSE(readable(efd));
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

/*
 * An owner that polls switches the eventfd off: its own completions then
 * write nothing (a system call per poll iteration otherwise), and switching
 * it on before sleeping signals what is still waiting.
 */
static void test_eventfd_quiet_while_polling(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct ut_req reqs[3];
	uint64_t v;
	int efd;

	efd = rblk_bqueue_eventfd(q);
	CU_ASSERT_FATAL(efd >= 0);
	CU_ASSERT_EQUAL(rblk_bqueue_eventfd_enable(q, false), 0);
	submit_flushes(q, bdev, reqs, 3);
	CU_ASSERT_FALSE(readable(efd));
	/* A poll that leaves some behind does not signal either: the owner polls again. */
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 1), 1);
	CU_ASSERT_FALSE(readable(efd));
	/* About to sleep: on, and the two still waiting wake it. */
	CU_ASSERT_EQUAL(rblk_bqueue_eventfd_enable(q, true), 0);
	CU_ASSERT_TRUE(readable(efd));
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 2);
	/* On again: a completion signals as before. */
	ut_bio_init(&reqs[0].bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &reqs[0].bio), 0);
	CU_ASSERT_TRUE(readable(efd));
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 1);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

static void test_eventfd_created_with_completions_pending(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct ut_req req;
	int efd;

	ut_bio_init(&req.bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req.bio), 0);
	efd = rblk_bqueue_eventfd(q);
	CU_ASSERT_FATAL(efd >= 0);
	CU_ASSERT_TRUE(readable(efd));
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

/*
 * Completions from another thread (what librbd's callback threads do for the
 * rbd engine): the owner is woken through the eventfd and the callbacks run
 * from its poll, in order, exactly once.
 */
struct remote_push {
	struct rblk_bqueue *q;
	struct ut_req *reqs;
	int n;
	int res;
};

static void *push_remote(void *arg)
{
	struct remote_push *p = arg;

	for (int i = 0; i < p->n; i++) {
		p->reqs[i].bio.res = p->res - i;
		rblk_bqueue_complete_remote(p->q, &p->reqs[i].bio);
	}
	return NULL;
}

/* What rblk_bqueue_submit() accounts before a REMOTE engine takes the bio. */
static void fake_inflight(struct rblk_bqueue *q, struct ut_req *reqs, int n,
			  struct rblk_bdev *bdev)
{
	for (int i = 0; i < n; i++) {
		ut_bio_init(&reqs[i].bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
		reqs[i].calls = 0;
		q->inflight++;
	}
}

static void test_remote_completions_wake_the_owner(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct ut_req reqs[3];
	struct remote_push p = { .q = q, .reqs = reqs, .n = 3, .res = -100 };
	pthread_t t;
	uint64_t v;
	int efd = rblk_bqueue_eventfd(q);

	CU_ASSERT_FATAL(efd >= 0);
	fake_inflight(q, reqs, 3, bdev);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, push_remote, &p), 0);
	pthread_join(t, NULL);
	/* Three pushes onto an empty list: one wake-up is enough. */
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(v, 1);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(reqs[i].calls, 0); /* nothing runs on the pushing thread */
	/* A short budget leaves the rest behind and re-arms the eventfd. */
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 2), 2);
	CU_ASSERT_EQUAL(reqs[0].calls, 1);
	CU_ASSERT_EQUAL(reqs[1].calls, 1);
	CU_ASSERT_EQUAL(reqs[2].calls, 0);
	CU_ASSERT_TRUE(readable(efd));
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 1);
	CU_ASSERT_EQUAL(reqs[2].calls, 1);
	CU_ASSERT_EQUAL(reqs[2].bio.res, -102);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	CU_ASSERT_FALSE(readable(efd));
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

static void test_remote_completion_before_eventfd(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct ut_req req;
	int efd;

	fake_inflight(q, &req, 1, bdev);
	rblk_bqueue_complete_remote(q, &req.bio);
	/* The eventfd arrives later: it must start readable, or the owner sleeps. */
	efd = rblk_bqueue_eventfd(q);
	CU_ASSERT_FATAL(efd >= 0);
	CU_ASSERT_TRUE(readable(efd));
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 1);
	CU_ASSERT_EQUAL(req.calls, 1);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

/* A REMOTE engine that keeps what it is given, as librbd does until its answer. */
static struct rblk_bio *remote_taken;

static int remote_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	bio->priv.slot = q;
	remote_taken = bio;
	return 0;
}

/*
 * A remote engine's bios count as in flight, not as local: the poll group
 * spins for local completions only (they come within its window).
 */
static void test_remote_inflight_is_not_local(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	const struct rblk_backend_ops *mem_ops = bdev->ops;
	struct rblk_backend_ops remote = *mem_ops;
	struct ut_req local, far;

	remote.kind = RBLK_BACKEND_REMOTE;
	remote.submit = remote_submit;
	ut_bio_init(&far.bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
	far.calls = 0;
	bdev->ops = &remote;
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &far.bio), 0);
	bdev->ops = mem_ops;
	CU_ASSERT_PTR_EQUAL(remote_taken, &far.bio);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight_local(q), 0);

	/* A local bio beside it counts as both (mem completes on the next poll). */
	ut_bio_init(&local.bio, RBLK_BIO_FLUSH, bdev, 0, 0, NULL, 0);
	local.calls = 0;
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &local.bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 2);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight_local(q), 1);
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight_local(q), 0);

	/* The remote answer, run by the owner's poll: both counts back to zero. */
	bdev->ops = &remote;
	rblk_bqueue_complete_remote(q, &far.bio);
	CU_ASSERT_EQUAL(rblk_bqueue_poll(q, 8), 1);
	bdev->ops = mem_ops;
	CU_ASSERT_EQUAL(far.calls, 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight_local(q), 0);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
}

static void test_destroy_completes_inflight(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	struct ut_req reqs[3];

	submit_flushes(q, bdev, reqs, 3);
	rblk_bqueue_destroy(q);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(reqs[i].calls, 1);
	rblk_bdev_close(bdev);
}

static void test_bdev_ids_are_reused(void)
{
	struct rblk_bdev *a = open_mem(false, 0), *b = open_mem(false, 0), *c;
	unsigned ida;

	CU_ASSERT_NOT_EQUAL(a->id, b->id);
	ida = a->id;
	rblk_bdev_close(a);
	c = open_mem(false, 0);
	CU_ASSERT_EQUAL(c->id, ida);
	rblk_bdev_close(b);
	rblk_bdev_close(c);
}

static void test_buffers_accepted_and_ignored_without_fixed_support(void)
{
	struct rblk_bdev *bdev = open_mem(false, 0);
	struct rblk_bqueue *q = open_queue("mem", 8);
	char *buf = ut_alloc(8192);
	struct iovec reg = { buf, 4096 }, iov = { buf + 4096, 4096 };
	struct ut_req req;

	CU_ASSERT_EQUAL(rblk_bqueue_register_buffers(q, &reg, 1), 0);
	/* Not registered anywhere: the index means nothing to mem. */
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 0, 4096, &iov, 1);
	req.bio.buf_index = 5;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_register_bdev(q, bdev), 0);
	rblk_bqueue_unregister_bdev(q, bdev);
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static const struct ut_case cases[] = {
	/* First: the child must inherit a process that has not probed yet. */
	UT_CASE(test_auto_falls_back_to_aio_when_io_uring_blocked),
	UT_CASE(test_auto_name_probes_once_and_says_why),
	UT_CASE(test_engine_lookup),
	UT_CASE(test_options_size_abi),
	UT_CASE(test_block_size_option_checked),
	UT_CASE(test_validation),
	UT_CASE(test_read_only_refuses_writes),
	UT_CASE(test_file_bdev_on_mem_queue_is_exdev),
	UT_CASE(test_depth_limit_is_eagain_then_progress),
	UT_CASE(test_callbacks_may_submit_without_starving_poll),
	UT_CASE(test_eventfd_for_local_completions),
	UT_CASE(test_eventfd_quiet_while_polling),
	UT_CASE(test_eventfd_created_with_completions_pending),
	UT_CASE(test_remote_completions_wake_the_owner),
	UT_CASE(test_remote_completion_before_eventfd),
	UT_CASE(test_remote_inflight_is_not_local),
	UT_CASE(test_destroy_completes_inflight),
	UT_CASE(test_bdev_ids_are_reused),
	UT_CASE(test_buffers_accepted_and_ignored_without_fixed_support),
	UT_END,
};

UT_MAIN("backend/backend", cases)
