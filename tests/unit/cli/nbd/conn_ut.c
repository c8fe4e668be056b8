/* SPDX-License-Identifier: MIT */
/*
 * Tests for cli/nbd/conn.c over a socketpair with a fake in-memory
 * backend: every command, errors and flags, cookie echo, out-of-order
 * completion, backpressure, disconnect, and requests and replies split into
 * pieces (short reads and writes).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/nbd/conn.h"
#include "ut.h"

#define DISK (1u << 20)

static struct fake {
	uint8_t disk[DISK];
	struct rblk_nbd_conn *conn;
	bool defer;
	struct rblk_nbd_req *pending[256];
	unsigned npend, nsubmit, nflush;
	uint16_t last_type, last_flags;
	uint32_t fail_with;
} fk;

static int sv[2] = { -1, -1 };

static void execute(struct rblk_nbd_req *req)
{
	const struct rblk_nbd_request *r = &req->r;

	switch (r->type) {
	case RBLK_NBD_CMD_READ:
		memcpy(req->buf, fk.disk + r->offset, r->length);
		break;
	case RBLK_NBD_CMD_WRITE:
		memcpy(fk.disk + r->offset, req->buf, r->length);
		break;
	case RBLK_NBD_CMD_TRIM:
	case RBLK_NBD_CMD_WRITE_ZEROES:
		memset(fk.disk + r->offset, 0, r->length);
		break;
	default:
		break;
	}
}

static uint32_t fake_submit(void *ctx, struct rblk_nbd_req *req)
{
	(void)ctx;
	fk.nsubmit++;
	fk.last_type = req->r.type;
	fk.last_flags = req->r.flags;
	if (fk.fail_with)
		return fk.fail_with;
	if (fk.defer) {
		fk.pending[fk.npend++] = req;
		return 0;
	}
	execute(req);
	rblk_nbd_conn_complete(fk.conn, req, 0);
	return 0;
}

static void fake_flush(void *ctx)
{
	(void)ctx;
	fk.nflush++;
}

static const struct rblk_nbd_backend ops = { .submit = fake_submit, .flush = fake_flush };

static void finish(unsigned i, uint32_t err)
{
	if (!err)
		execute(fk.pending[i]);
	rblk_nbd_conn_complete(fk.conn, fk.pending[i], err);
}

static void setup(uint16_t tflags, unsigned slots, uint32_t slot_buf)
{
	struct rblk_nbd_conn_opts o = {
		.exp = { .size = DISK, .block_size = 512, .tflags = tflags },
		.nr_slots = slots,
		.slot_buf = slot_buf,
		.ops = &ops,
	};
	struct timeval tv = { .tv_sec = 2 };

	if (fk.conn)
		rblk_nbd_conn_destroy(fk.conn);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	memset(&fk, 0, sizeof(fk));
	CU_ASSERT_FATAL(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	/* the test's client never hangs the suite: reads time out */
	setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	o.fd = sv[0];
	CU_ASSERT_FATAL(rblk_nbd_conn_create(&o, &fk.conn) == 0);
}

static uint16_t all_flags(void)
{
	return rblk_nbd_tflags(false, true, true, false);
}

static uint64_t cookie_of(const char *s)
{
	uint64_t c = 0;

	memcpy(&c, s, strlen(s) < 8 ? strlen(s) : 8);
	return c;
}

static void send_req(uint16_t type, uint16_t flags, uint64_t cookie, uint64_t off, uint32_t len,
		     const void *data)
{
	struct rblk_nbd_request r = { .flags = flags, .type = type, .cookie = cookie, .offset = off,
				      .length = len };
	uint8_t b[RBLK_NBD_REQ_SIZE];

	rblk_nbd_req_encode(b, &r);
	CU_ASSERT_FATAL(write(sv[1], b, sizeof(b)) == (ssize_t)sizeof(b));
	if (data && len)
		CU_ASSERT_FATAL(write(sv[1], data, len) == (ssize_t)len);
}

static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Reads one reply; @data (may be NULL) gets @len bytes when the reply says OK. */
static uint32_t get_reply(uint64_t *cookie, void *data, uint32_t len)
{
	uint8_t b[RBLK_NBD_REPLY_SIZE];
	uint32_t err = 0xdead;
	uint64_t c;

	CU_ASSERT_FATAL(read_full(sv[1], b, sizeof(b)) == 0);
	CU_ASSERT_FATAL(rblk_nbd_reply_decode(b, &err, &c) == 0);
	if (cookie)
		*cookie = c;
	if (!err && data && len)
		CU_ASSERT_FATAL(read_full(sv[1], data, len) == 0);
	return err;
}

static bool nothing_to_read(void)
{
	struct pollfd p = { .fd = sv[1], .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

static void test_write_then_read_echoes_cookies(void)
{
	uint8_t data[8192], back[8192];
	uint64_t c;

	setup(all_flags(), 8, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	send_req(RBLK_NBD_CMD_WRITE, 0, cookie_of("\x01\xff\x80w1"), 4096, sizeof(data), data);
	CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), RBLK_NBD_CONN_RUN);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), 0);
	CU_ASSERT_EQUAL(c, cookie_of("\x01\xff\x80w1"));
	CU_ASSERT_EQUAL(memcmp(fk.disk + 4096, data, sizeof(data)), 0);
	send_req(RBLK_NBD_CMD_READ, 0, cookie_of("r1"), 4096, sizeof(back), NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, back, sizeof(back)), 0);
	CU_ASSERT_EQUAL(c, cookie_of("r1"));
	CU_ASSERT_EQUAL(memcmp(back, data, sizeof(data)), 0);
	CU_ASSERT_TRUE(nothing_to_read());
	CU_ASSERT_EQUAL(rblk_nbd_conn_stats(fk.conn)->bytes_written, 8192);
	CU_ASSERT_EQUAL(rblk_nbd_conn_stats(fk.conn)->bytes_read, 8192);
	CU_ASSERT_TRUE(fk.nflush >= 2);
}

static void test_out_of_order_completion(void)
{
	uint8_t a[512], b[512];
	uint64_t c;

	setup(all_flags(), 8, 0);
	memset(fk.disk, 'A', 512);
	memset(fk.disk + 512, 'B', 512);
	fk.defer = true;
	send_req(RBLK_NBD_CMD_READ, 0, cookie_of("A"), 0, 512, NULL);
	send_req(RBLK_NBD_CMD_READ, 0, cookie_of("B"), 512, 512, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(fk.npend, 2);
	CU_ASSERT_EQUAL(rblk_nbd_conn_inflight(fk.conn), 2);
	CU_ASSERT_TRUE(nothing_to_read());
	finish(1, 0);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, b, 512), 0);
	CU_ASSERT_EQUAL(c, cookie_of("B"));
	CU_ASSERT_EQUAL(b[0], 'B');
	finish(0, 0);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, a, 512), 0);
	CU_ASSERT_EQUAL(c, cookie_of("A"));
	CU_ASSERT_EQUAL(a[511], 'A');
	CU_ASSERT_EQUAL(rblk_nbd_conn_inflight(fk.conn), 0);
}

static void test_every_command(void)
{
	uint8_t data[1024];

	setup(all_flags(), 8, 0);
	memset(fk.disk, 0xee, 4096);
	memset(data, 0x11, sizeof(data));
	send_req(RBLK_NBD_CMD_WRITE, RBLK_NBD_CMD_FLAG_FUA, 1, 0, sizeof(data), data);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(fk.last_type, RBLK_NBD_CMD_WRITE);
	CU_ASSERT_EQUAL(fk.last_flags, RBLK_NBD_CMD_FLAG_FUA);
	send_req(RBLK_NBD_CMD_FLUSH, 0, 2, 0, 0, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(fk.last_type, RBLK_NBD_CMD_FLUSH);
	send_req(RBLK_NBD_CMD_TRIM, 0, 3, 0, 512, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(fk.last_type, RBLK_NBD_CMD_TRIM);
	CU_ASSERT_EQUAL(fk.disk[0], 0);
	CU_ASSERT_EQUAL(fk.disk[512], 0x11);
	send_req(RBLK_NBD_CMD_WRITE_ZEROES, RBLK_NBD_CMD_FLAG_NO_HOLE, 4, 512, 512, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(fk.last_type, RBLK_NBD_CMD_WRITE_ZEROES);
	CU_ASSERT_EQUAL(fk.disk[512], 0);
	/* CACHE and zero-length reads are answered without the backend */
	fk.nsubmit = 0;
	send_req(RBLK_NBD_CMD_CACHE, 0, 5, 0, 4096, NULL);
	send_req(RBLK_NBD_CMD_READ, 0, 6, 0, 0, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(fk.nsubmit, 0);
	CU_ASSERT_EQUAL(rblk_nbd_conn_stats(fk.conn)->requests[RBLK_NBD_CMD_CACHE], 1);
	CU_ASSERT_EQUAL(rblk_nbd_conn_stats(fk.conn)->requests[RBLK_NBD_CMD_TRIM], 1);
}

static void test_errors_keep_the_stream_in_step(void)
{
	uint8_t data[2048], back[512];
	uint64_t c;

	setup(RBLK_NBD_FLAG_HAS_FLAGS | RBLK_NBD_FLAG_SEND_FLUSH, 8, 0);
	memset(data, 0x5a, sizeof(data));
	memset(fk.disk + 512, 0x42, 512);
	/* a write past the end: its payload is read and dropped, the next request still parses */
	send_req(RBLK_NBD_CMD_WRITE, 0, 1, DISK - 512, sizeof(data), data);
	send_req(RBLK_NBD_CMD_READ, 0, 2, DISK, 512, NULL);	/* past the end */
	send_req(RBLK_NBD_CMD_READ, 0, 3, 100, 512, NULL);	/* unaligned */
	send_req(42, 0, 4, 0, 512, NULL);			/* unknown */
	send_req(RBLK_NBD_CMD_BLOCK_STATUS, 0, 5, 0, 512, NULL);
	send_req(RBLK_NBD_CMD_READ, RBLK_NBD_CMD_FLAG_DF, 6, 0, 512, NULL);
	send_req(RBLK_NBD_CMD_TRIM, 0, 7, 0, 512, NULL);	/* not offered */
	send_req(RBLK_NBD_CMD_WRITE, RBLK_NBD_CMD_FLAG_FUA, 8, 0, 512, data);	/* FUA not offered */
	send_req(RBLK_NBD_CMD_READ, 0, 9, 512, 512, NULL);	/* fine */
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), RBLK_NBD_ENOSPC);
	CU_ASSERT_EQUAL(c, 1);
	for (uint64_t want = 2; want <= 8; want++) {
		CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), RBLK_NBD_EINVAL);
		CU_ASSERT_EQUAL(c, want);
	}
	CU_ASSERT_EQUAL(get_reply(&c, back, 512), 0);
	CU_ASSERT_EQUAL(c, 9);
	CU_ASSERT_EQUAL(back[0], 0x42);
	/* only the good read reached the backend, and nothing was written */
	CU_ASSERT_EQUAL(fk.nsubmit, 1);
	CU_ASSERT_EQUAL(fk.disk[DISK - 1], 0);
	CU_ASSERT_EQUAL(rblk_nbd_conn_stats(fk.conn)->errors, 8);
}

static void test_read_only_and_backend_errors(void)
{
	uint8_t data[512], back[512];
	uint64_t c;

	setup(rblk_nbd_tflags(true, false, false, false), 8, 0);
	memset(data, 1, sizeof(data));
	send_req(RBLK_NBD_CMD_WRITE, 0, 1, 0, 512, data);
	send_req(RBLK_NBD_CMD_READ, 0, 2, 0, 512, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), RBLK_NBD_EPERM);
	CU_ASSERT_EQUAL(get_reply(&c, back, 512), 0);
	CU_ASSERT_EQUAL(c, 2);
	/* the backend refuses: the reply carries its error and no data */
	fk.fail_with = RBLK_NBD_EIO;
	send_req(RBLK_NBD_CMD_READ, 0, 3, 0, 512, NULL);
	send_req(RBLK_NBD_CMD_FLUSH, 0, 4, 0, 0, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), RBLK_NBD_EIO);
	CU_ASSERT_EQUAL(c, 3);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), RBLK_NBD_EIO);
	CU_ASSERT_EQUAL(c, 4);
	CU_ASSERT_TRUE(nothing_to_read());
	CU_ASSERT_EQUAL(rblk_nbd_conn_inflight(fk.conn), 0);
	/* a deferred completion with an error */
	fk.fail_with = 0;
	fk.defer = true;
	send_req(RBLK_NBD_CMD_READ, 0, 5, 0, 512, NULL);
	rblk_nbd_conn_process(fk.conn);
	finish(0, RBLK_NBD_EIO);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), RBLK_NBD_EIO);
	CU_ASSERT_TRUE(nothing_to_read());
}

static void test_bad_magic_ends_the_connection(void)
{
	uint8_t junk[28];

	setup(all_flags(), 8, 0);
	memset(junk, 0x77, sizeof(junk));
	CU_ASSERT_FATAL(write(sv[1], junk, sizeof(junk)) == (ssize_t)sizeof(junk));
	CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), -EPROTO);
}

static void test_disc_waits_for_inflight(void)
{
	uint8_t back[512];

	setup(all_flags(), 8, 0);
	fk.defer = true;
	send_req(RBLK_NBD_CMD_READ, 0, 1, 0, 512, NULL);
	send_req(RBLK_NBD_CMD_DISC, 0, 2, 0, 0, NULL);
	send_req(RBLK_NBD_CMD_READ, 0, 3, 0, 512, NULL);	/* after DISC: never read */
	CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), RBLK_NBD_CONN_RUN);
	CU_ASSERT_EQUAL(fk.npend, 1);
	CU_ASSERT_FALSE(rblk_nbd_conn_events(fk.conn) & POLLIN);
	finish(0, 0);
	CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), RBLK_NBD_CONN_DONE);
	CU_ASSERT_EQUAL(get_reply(NULL, back, 512), 0);
	CU_ASSERT_TRUE(nothing_to_read());
	CU_ASSERT_EQUAL(fk.nsubmit, 1);
	CU_ASSERT_EQUAL(rblk_nbd_conn_stats(fk.conn)->requests[RBLK_NBD_CMD_DISC], 1);
}

static void test_hangup_is_done(void)
{
	setup(all_flags(), 8, 0);
	send_req(RBLK_NBD_CMD_FLUSH, 0, 1, 0, 0, NULL);
	shutdown(sv[1], SHUT_WR);
	CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), RBLK_NBD_CONN_DONE);
	CU_ASSERT_EQUAL(get_reply(NULL, NULL, 0), 0);
	/* a header cut short by the hang-up is dropped, not answered */
	setup(all_flags(), 8, 0);
	CU_ASSERT_FATAL(write(sv[1], "\x25\x60\x95", 3) == 3);
	close(sv[1]);
	sv[1] = socket(AF_UNIX, SOCK_STREAM, 0);	/* keep the fd valid for the next setup */
	CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), RBLK_NBD_CONN_DONE);
	CU_ASSERT_EQUAL(fk.nsubmit, 0);
}

static void test_backpressure(void)
{
	setup(all_flags(), 2, 0);
	fk.defer = true;
	send_req(RBLK_NBD_CMD_READ, 0, 1, 0, 512, NULL);
	send_req(RBLK_NBD_CMD_READ, 0, 2, 512, 512, NULL);
	send_req(RBLK_NBD_CMD_READ, 0, 3, 1024, 512, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(fk.npend, 2);
	CU_ASSERT_FALSE(rblk_nbd_conn_events(fk.conn) & POLLIN);
	finish(0, 0);
	rblk_nbd_conn_process(fk.conn);
	/* the slot came back once its reply was written: the third request goes in */
	CU_ASSERT_EQUAL(fk.npend, 3);
	finish(1, 0);
	finish(2, 0);
	rblk_nbd_conn_process(fk.conn);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(get_reply(NULL, (uint8_t[512]){ 0 }, 512), 0);
	CU_ASSERT_TRUE(rblk_nbd_conn_events(fk.conn) & POLLIN);
}

static void test_request_in_pieces(void)
{
	struct rblk_nbd_request r = { .type = RBLK_NBD_CMD_WRITE, .cookie = 77, .offset = 2048, .length = 1536 };
	uint8_t hdr[RBLK_NBD_REQ_SIZE], data[1536];
	uint64_t c;

	setup(all_flags(), 8, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(255 - i);
	rblk_nbd_req_encode(hdr, &r);
	for (size_t i = 0; i < sizeof(hdr); i++) {
		CU_ASSERT_FATAL(write(sv[1], &hdr[i], 1) == 1);
		CU_ASSERT_EQUAL(rblk_nbd_conn_process(fk.conn), RBLK_NBD_CONN_RUN);
	}
	CU_ASSERT_EQUAL(fk.nsubmit, 0);
	CU_ASSERT_FATAL(write(sv[1], data, 7) == 7);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_FATAL(write(sv[1], data + 7, 1000) == 1000);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(fk.nsubmit, 0);
	CU_ASSERT_FATAL(write(sv[1], data + 1007, sizeof(data) - 1007) == (ssize_t)(sizeof(data) - 1007));
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_EQUAL(fk.nsubmit, 1);
	CU_ASSERT_EQUAL(get_reply(&c, NULL, 0), 0);
	CU_ASSERT_EQUAL(c, 77);
	CU_ASSERT_EQUAL(memcmp(fk.disk + 2048, data, sizeof(data)), 0);
}

static void test_reply_in_pieces_and_long_request(void)
{
	enum { LEN = 256 * 1024 };
	uint8_t *back = malloc(LEN);
	int small = 4096;
	size_t got = 0;
	uint8_t hdr[RBLK_NBD_REPLY_SIZE];

	/* slots of 4 KiB: this read gets a buffer of its own */
	setup(all_flags(), 4, 4096);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	for (uint32_t i = 0; i < LEN; i++)
		fk.disk[i] = (uint8_t)(i % 251);
	send_req(RBLK_NBD_CMD_READ, 0, 9, 0, LEN, NULL);
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_TRUE(rblk_nbd_conn_events(fk.conn) & POLLOUT);	/* it did not all fit */
	CU_ASSERT_FATAL(read_full(sv[1], hdr, sizeof(hdr)) == 0);
	while (got < LEN) {
		ssize_t n;

		rblk_nbd_conn_process(fk.conn);
		n = read(sv[1], back + got, LEN - got);
		CU_ASSERT_FATAL(n > 0);
		got += (size_t)n;
	}
	rblk_nbd_conn_process(fk.conn);
	CU_ASSERT_FALSE(rblk_nbd_conn_events(fk.conn) & POLLOUT);
	CU_ASSERT_EQUAL(memcmp(back, fk.disk, LEN), 0);
	free(back);
}

static int fini(void)
{
	rblk_nbd_conn_destroy(fk.conn);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_write_then_read_echoes_cookies),
	UT_CASE(test_out_of_order_completion),
	UT_CASE(test_every_command),
	UT_CASE(test_errors_keep_the_stream_in_step),
	UT_CASE(test_read_only_and_backend_errors),
	UT_CASE(test_bad_magic_ends_the_connection),
	UT_CASE(test_disc_waits_for_inflight),
	UT_CASE(test_hangup_is_done),
	UT_CASE(test_backpressure),
	UT_CASE(test_request_in_pieces),
	UT_CASE(test_reply_in_pieces_and_long_request),
	UT_END,
};

UT_MAIN_INIT("cli/nbd/conn", cases, NULL, fini)
