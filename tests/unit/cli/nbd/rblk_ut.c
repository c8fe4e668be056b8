/* SPDX-License-Identifier: MIT */
/*
 * Tests for cli/nbd/rblk.c: NBD requests served from a namespace of
 * the fake initiator library, end to end over a socketpair, with the serving
 * loop on its own thread as `rblk attach` runs it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/nbd/rblk.h"
#include "protocol/nvme_status.h"
#include "ut.h"

static struct server {
	pthread_t tid;
	struct rblk_nbd_serve_opts o;
	struct rblk_nbd_conn_stats stats;
	int ret;
	int cfd;		/* the client's end */
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
} sv;

static void *serve_main(void *arg)
{
	struct server *s = arg;

	s->ret = rblk_nbd_serve(&s->o, &s->stats);
	return NULL;
}

static void start(uint32_t nsid, bool ro)
{
	struct rblk_connect_opts o;
	struct timeval tv = { .tv_sec = 5 };
	int p[2];

	rblk_connect_opts_init(&o);
	o.traddr = "192.0.2.1";
	o.subnqn = "nqn.2024-01.io.rblk:fake";
	memset(&sv, 0, sizeof(sv));
	CU_ASSERT_FATAL(rblk_connect(&o, &sv.ctrl, NULL) == 0);
	CU_ASSERT_FATAL(rblk_ns_open(sv.ctrl, nsid, &sv.ns) == 0);
	CU_ASSERT_FATAL(!socketpair(AF_UNIX, SOCK_STREAM, 0, p));
	setsockopt(p[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sv.cfd = p[1];
	sv.o = (struct rblk_nbd_serve_opts){
		.fd = p[0],
		.exp = { .size = rblk_ns_num_blocks(sv.ns) * rblk_ns_block_size(sv.ns),
			 .block_size = rblk_ns_block_size(sv.ns),
			 .tflags = rblk_nbd_tflags(ro, true, true, false) },
		.ctrl = sv.ctrl,
		.ns = sv.ns,
		.nr_slots = 4,
		.slot_buf = 8192,
		.stop_fd = eventfd(0, 0),
	};
	CU_ASSERT_FATAL(pthread_create(&sv.tid, NULL, serve_main, &sv) == 0);
}

static int stop(void)
{
	pthread_join(sv.tid, NULL);
	close(sv.cfd);
	close(sv.o.fd);
	close(sv.o.stop_fd);
	rblk_ns_close(sv.ns);
	rblk_disconnect(sv.ctrl);
	return sv.ret;
}

static void req(uint16_t type, uint16_t flags, uint64_t cookie, uint64_t off, uint32_t len, const void *data)
{
	struct rblk_nbd_request r = { .flags = flags, .type = type, .cookie = cookie, .offset = off, .length = len };
	uint8_t b[RBLK_NBD_REQ_SIZE];

	rblk_nbd_req_encode(b, &r);
	CU_ASSERT_FATAL(write(sv.cfd, b, sizeof(b)) == (ssize_t)sizeof(b));
	if (data)
		CU_ASSERT_FATAL(write(sv.cfd, data, len) == (ssize_t)len);
}

static int read_full(void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(sv.cfd, (char *)buf + got, len - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static uint32_t reply(uint64_t want_cookie, void *data, uint32_t len)
{
	uint8_t b[RBLK_NBD_REPLY_SIZE];
	uint32_t err = 0xdead;
	uint64_t c = 0;

	CU_ASSERT_FATAL(read_full(b, sizeof(b)) == 0);
	CU_ASSERT_FATAL(rblk_nbd_reply_decode(b, &err, &c) == 0);
	CU_ASSERT_EQUAL(c, want_cookie);
	if (!err && data)
		CU_ASSERT_FATAL(read_full(data, len) == 0);
	return err;
}

static void test_round_trip_every_command(void)
{
	uint8_t w[16384], r[16384];

	start(1, false);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i ^ (i >> 8));
	/* 16 KiB: longer than the 8 KiB slot buffers */
	req(RBLK_NBD_CMD_WRITE, RBLK_NBD_CMD_FLAG_FUA, 1, 4096, sizeof(w), w);
	CU_ASSERT_EQUAL(reply(1, NULL, 0), 0);
	req(RBLK_NBD_CMD_FLUSH, 0, 2, 0, 0, NULL);
	CU_ASSERT_EQUAL(reply(2, NULL, 0), 0);
	req(RBLK_NBD_CMD_READ, 0, 3, 4096, sizeof(r), NULL);
	CU_ASSERT_EQUAL(reply(3, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	req(RBLK_NBD_CMD_TRIM, 0, 4, 4096, 512, NULL);
	CU_ASSERT_EQUAL(reply(4, NULL, 0), 0);
	req(RBLK_NBD_CMD_WRITE_ZEROES, 0, 5, 4096 + 512, 512, NULL);
	CU_ASSERT_EQUAL(reply(5, NULL, 0), 0);
	req(RBLK_NBD_CMD_READ, 0, 6, 4096, 2048, NULL);
	CU_ASSERT_EQUAL(reply(6, r, 2048), 0);
	for (int i = 0; i < 1024; i++)
		CU_ASSERT_EQUAL_FATAL(r[i], 0);
	CU_ASSERT_EQUAL(memcmp(r + 1024, w + 1024, 1024), 0);
	/* several in flight at once, more than the 4 slots */
	for (uint64_t i = 0; i < 10; i++)
		req(RBLK_NBD_CMD_READ, 0, 100 + i, i * 512, 512, NULL);
	for (uint64_t i = 0; i < 10; i++) {
		uint8_t b[512];

		CU_ASSERT_EQUAL(reply(100 + i, b, 512), 0);
	}
	req(RBLK_NBD_CMD_DISC, 0, 7, 0, 0, NULL);
	CU_ASSERT_EQUAL(stop(), 0);
	CU_ASSERT_EQUAL(sv.stats.requests[RBLK_NBD_CMD_READ], 12);
	CU_ASSERT_EQUAL(sv.stats.bytes_written, sizeof(w));
	CU_ASSERT_EQUAL(sv.stats.errors, 0);
}

static void test_target_errors_become_eio(void)
{
	uint8_t b[512];

	setenv("RBLK_FAKE_FAIL_LBA", "100", 1);
	start(1, false);
	req(RBLK_NBD_CMD_READ, 0, 1, 100 * 512, 512, NULL);
	CU_ASSERT_EQUAL(reply(1, NULL, 0), RBLK_NBD_EIO);
	req(RBLK_NBD_CMD_READ, 0, 2, 0, 512, NULL);
	CU_ASSERT_EQUAL(reply(2, b, 512), 0);
	shutdown(sv.cfd, SHUT_WR);	/* a hang-up ends the loop too */
	CU_ASSERT_EQUAL(stop(), 0);
	CU_ASSERT_EQUAL(sv.stats.errors, 1);
	unsetenv("RBLK_FAKE_FAIL_LBA");
}

static void test_read_only_namespace(void)
{
	uint8_t b[512] = { 0 };

	start(3, true);
	req(RBLK_NBD_CMD_WRITE, 0, 1, 0, 512, b);
	CU_ASSERT_EQUAL(reply(1, NULL, 0), RBLK_NBD_EPERM);
	req(RBLK_NBD_CMD_READ, 0, 2, 0, 512, NULL);
	CU_ASSERT_EQUAL(reply(2, b, 512), 0);
	req(RBLK_NBD_CMD_DISC, 0, 3, 0, 0, NULL);
	CU_ASSERT_EQUAL(stop(), 0);
}

static void test_stop_fd(void)
{
	uint64_t one = 1;

	start(2, false);
	CU_ASSERT_FATAL(write(sv.o.stop_fd, &one, sizeof(one)) == sizeof(one));
	CU_ASSERT_EQUAL(stop(), 0);
}

static void test_status_mapping(void)
{
	CU_ASSERT_EQUAL(rblk_nbd_status_error(0), 0);
	CU_ASSERT_EQUAL(rblk_nbd_status_error(NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR), RBLK_NBD_EPERM);
	CU_ASSERT_EQUAL(rblk_nbd_status_error(NVME_SC_CAP_EXCEEDED), RBLK_NBD_ENOSPC);
	CU_ASSERT_EQUAL(rblk_nbd_status_error(NVME_SC_LBA_RANGE | NVME_SC_DNR), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(rblk_nbd_status_error(NVME_SC_INVALID_OPCODE), RBLK_NBD_ENOTSUP);
	CU_ASSERT_EQUAL(rblk_nbd_status_error(NVME_SC_READ_ERROR), RBLK_NBD_EIO);
	CU_ASSERT_EQUAL(rblk_nbd_status_error(NVME_SC_INTERNAL), RBLK_NBD_EIO);
}

static const struct ut_case cases[] = {
	UT_CASE(test_round_trip_every_command),
	UT_CASE(test_target_errors_become_eio),
	UT_CASE(test_read_only_namespace),
	UT_CASE(test_stop_fd),
	UT_CASE(test_status_mapping),
	UT_END,
};

UT_MAIN("cli/nbd/rblk", cases)
